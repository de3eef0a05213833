#pragma once
// The cluster planner's answer as a text report for the CLI; it prints the
// answer's own texts, so the CLI and the page say the same thing.
#include <string>

namespace vramcalc {

std::string format_cluster_report(const std::string& answer_json);
std::string format_gpu_list();  // the accelerator and fabric catalogs, one line each

}  // namespace vramcalc
