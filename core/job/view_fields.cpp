// The job fields that say how the answer speaks to the user rather than what runs (issue 23):
// the unit of every size text, the user's GPU memory in either unit, and which GPUs a
// recommendation may name.
#include <nlohmann/json.hpp>

#include "job/choices.hpp"
#include "job/job.hpp"
#include "job/job_serving.hpp"

namespace vramcalc {
namespace {

const Choice<GpuPool> kPools[] = {{"auto", GpuPool::Auto},
                                  {"datacenter", GpuPool::Datacenter},
                                  {"workstation", GpuPool::Workstation},
                                  {"consumer", GpuPool::Consumer},
                                  {"any", GpuPool::Any}};
const Choice<TextUnit> kUnits[] = {{"gb", TextUnit::GB}, {"gib", TextUnit::GiB}, {"mib", TextUnit::MiB}};

}  // namespace

bool read_view_field(Job& job, const std::string& key, const nlohmann::json& v, const std::string& field) {
    if (key == "units") job.units = read_choice(v, field, kUnits);
    // The user's GPU by its memory in decimal GB (device_gib is the same in GiB, as the engines
    // size their pools): kept as GiB, the one figure every test of a device reads.
    else if (key == "device_gb") job.device_gib = device_memory_field(v, field, 1e9 / 1073741824.0);
    else if (key == "recommend_from") job.recommend_from = read_choice(v, field, kPools);
    else return false;
    return true;
}

const char* view_field_names() { return "units, device_gb, recommend_from"; }
const char* gpu_pool_name(GpuPool p) { return name_of(kPools, p); }
std::vector<const char*> gpu_pool_names() { return names_of(kPools); }
std::vector<const char*> unit_names() { return names_of(kUnits); }

}  // namespace vramcalc
