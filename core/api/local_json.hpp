#pragma once
// The local parts of the estimate's JSON (issue 32): the machine's fields in the job echo, and the
// "local" object (both pools, the verdict, the speed, the warnings, what --fit chose) and the "command"
// object the page and the widget show. Field by field in docs/machine.md#json.
#include "answers/estimate.hpp"
#include "text/json_writer.hpp"

namespace vramcalc {

// Inside the job object: the machine and local-runtime fields.
void write_machine_job_fields(JsonWriter& w, const Job& job);
// The "local" object (with "applies": false for other engines) and the "command" object.
void write_local(JsonWriter& w, const Estimate& e);
void write_command(JsonWriter& w, const LaunchCommand& c);
// In options(): the RAM kinds ({id, label}: "DDR5 (usually 2 channels at 5600 MT/s)") and the Strix Halo backends.
void write_machine_options(JsonWriter& w);

}  // namespace vramcalc
