// The RAM (its kind's usual channels and transfer rate, its bandwidth) and the two pools of a machine.
#include <algorithm>
#include <vector>

#include "machine/machine.hpp"
#include "text/errors.hpp"
#include "text/units.hpp"

namespace vramcalc {
namespace {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

// Each kind's usual configuration when only the kind is given: a desktop's two 64-bit channels at
// JEDEC's common speed bins (DDR4-3200, DDR5-5600: JESD79-4, JESD79-5), a laptop's 128-bit LPDDR5 at
// 6400 MT/s and LPDDR5X at 8533 MT/s (JESD209-5). Peak bandwidth = channels × 8 bytes × MT/s.
struct RamRow {
    RamKind kind;
    const char* name;
    const char* label;
    int64_t channels;
    double mts;
};
const RamRow kRam[] = {
    {RamKind::Unknown, "unknown", "RAM", 2, 5600},
    {RamKind::Ddr4, "ddr4", "DDR4", 2, 3200},
    {RamKind::Ddr5, "ddr5", "DDR5", 2, 5600},
    {RamKind::Lpddr5, "lpddr5", "LPDDR5", 2, 6400},
    {RamKind::Lpddr5x, "lpddr5x", "LPDDR5X", 2, 8533},
};
const RamRow& row(RamKind k) {
    for (const RamRow& r : kRam)
        if (r.kind == k) return r;
    return kRam[0];
}

}  // namespace

const char* ram_kind_name(RamKind k) { return row(k).name; }
std::vector<const char*> ram_kind_names() {
    std::vector<const char*> v;
    for (const RamRow& r : kRam) v.push_back(r.name);
    return v;
}
RamKind ram_kind_named(const std::string& name, const std::string& field) {
    std::string known;
    for (const RamRow& r : kRam) {
        if (name == r.name) return r.kind;
        known += (known.empty() ? "" : ", ") + std::string(r.name);
    }
    throw InputError(field, "must be one of " + known + ", got '" + short_text(name) + "'");
}
// The kind as a choice on the page: its name and the configuration assumed when only the kind is given.
std::string ram_kind_choice_text(RamKind k) {
    const RamRow& r = row(k);
    const std::string usual = std::to_string(r.channels) + " channels at " + plain_number(r.mts) + " MT/s";
    return k == RamKind::Unknown ? "Not given (" + usual + " assumed)" : std::string(r.label) + " (usually " + usual + ")";
}
const char* uma_backend_name(UmaBackend b) { return b == UmaBackend::Rocm ? "rocm" : "vulkan"; }
UmaBackend uma_backend_named(const std::string& name, const std::string& field) {
    if (name == "rocm") return UmaBackend::Rocm;
    if (name == "vulkan") return UmaBackend::Vulkan;
    throw InputError(field, "must be rocm or vulkan, got '" + short_text(name) + "'");
}

double ram_bandwidth(const Machine& m, std::string& source) {
    if (m.ram_bandwidth_gbs > 0) {
        source = "as given (" + plain_number(m.ram_bandwidth_gbs) + " GB/s)";
        return m.ram_bandwidth_gbs * 1e9;
    }
    const RamRow& r = row(m.ram_kind);
    const int64_t channels = m.ram_channels > 0 ? m.ram_channels : r.channels;
    const double mts = m.ram_mts > 0 ? m.ram_mts : r.mts;
    const double bw = static_cast<double>(channels) * 8 * mts * 1e6;
    const bool assumed = m.ram_channels <= 0 || m.ram_mts <= 0 || m.ram_kind == RamKind::Unknown;
    source = std::to_string(channels) + " channels × 8 B × " + plain_number(mts) + " MT/s = " + fixed_text(bw / 1e9, 1) +
             " GB/s peak" + (assumed ? " (assumed where not given: set ram_kind, ram_channels, ram_mts or ram_bandwidth_gbs)" : "");
    return bw;
}

MachinePools machine_pools(const Machine& m, const Gpu* gpu, int64_t gpus, double device_bytes) {
    MachinePools p;
    p.cpu_only = m.cpu_only;
    p.gpus = m.cpu_only ? 0 : gpus;
    if (const UnifiedMachine* u = m.cpu_only ? nullptr : unified_machine(gpu)) {
        p.unified = true;
        p.ram_given = true;
        p.ram_bytes = u->ram_gib * kGiB;
        p.gpu_bytes = unified_gpu_share(m, *u, p.share_source);
        p.gpu_bandwidth = gpu->memory_tbps * 1e12;
        p.ram_bandwidth = p.gpu_bandwidth;
        p.bandwidth_source = std::string("the unified memory's ") + fixed_text(gpu->memory_tbps * 1000, 1) + " GB/s (" + gpu->source + ")";
        p.gpu_text = gpu->name;
        p.ram_text = capacity_text(p.ram_bytes) + " of unified memory at " + fixed_text(gpu->memory_tbps * 1000, 1) + " GB/s";
    } else {
        p.ram_given = m.ram_bytes > 0;
        p.ram_bytes = m.ram_bytes;
        p.ram_bandwidth = ram_bandwidth(m, p.bandwidth_source);
        if (!m.cpu_only && gpus > 0 && device_bytes > 0) {
            p.gpu_bytes = device_bytes;
            p.gpu_bandwidth = gpu ? gpu->memory_tbps * 1e12 : 0;
            p.pcie_bandwidth = gpu ? gpu->pcie_gbps * 1e9 : 0;
            p.gpu_text = gpu ? gpu->name : "GPU of " + capacity_text(device_bytes);
        }
        const RamRow& r = row(m.ram_kind);
        p.ram_text = (p.ram_given ? capacity_text(m.ram_bytes) + " " : std::string("RAM not given, ")) + r.label +
                     (m.ram_mts > 0 ? "-" + plain_number(m.ram_mts) : "") +
                     (m.ram_channels > 0 ? ", " + std::to_string(m.ram_channels) + " channels" : "") + " (" +
                     fixed_text(p.ram_bandwidth / 1e9, 1) + " GB/s)";
    }
    p.ram_free_bytes = std::max(0.0, p.ram_bytes - m.ram_used_bytes);
    return p;
}

}  // namespace vramcalc
