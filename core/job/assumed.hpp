#pragma once
// A value a preset set where the user gave none (parse_job, issue 33): the preset, the field, its value as
// JSON text and the code it was read from. Each field once: a later preset setting the same field replaces
// the earlier entry (vLLM's version entries set cudagraph_in_budget twice; the later one is in force).
#include <string>

namespace vramcalc {

struct Job;

struct Assumed {
    std::string by, key, value, source;
};

// Records (or replaces) the value `by` set for `key` in job.assumptions (core/job/job.cpp).
void assume(Job& job, const std::string& by, const std::string& key, const std::string& value, const std::string& source);

}  // namespace vramcalc
