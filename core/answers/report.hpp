#pragma once
#include <string>

#include "answers/estimate.hpp"

namespace vramcalc {

// The human-readable table the CLI prints.
std::string format_report(const std::string& model_name, const Job& job, const Estimate& e);

}  // namespace vramcalc
