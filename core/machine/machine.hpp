#pragma once
// Your whole machine (issue 32): its GPUs and its system RAM. A discrete GPU has its own memory beside
// the RAM; a unified-memory machine (Apple Silicon, AMD Strix Halo, NVIDIA DGX Spark) has one memory, of
// which the GPU may use a share that the OS and its drivers set (machines.cpp says how, with sources).
// The job carries the machine's fields (core/job/machine_fields.cpp reads them); machine_pools() turns
// them, with the job's GPU, into the two pools a local runtime is judged against and the bandwidth of
// each.
#include <cstdint>
#include <string>
#include <vector>

#include "hardware/gpus.hpp"

namespace vramcalc {

// The memory technology of the RAM, for its default bandwidth (ram.cpp).
enum class RamKind { Unknown, Ddr4, Ddr5, Lpddr5, Lpddr5x };
// Which GPU backend runs on a Strix Halo: both see the BIOS carve-out and amdgpu's GTT on Linux.
enum class UmaBackend { Vulkan, Rocm };

// The machine as the user describes it. The job gives the RAM in GB (10⁹ bytes, ram_gb) or GiB (ram_gib):
// DIMMs sold as "64 GB" hold 64 GiB, of which the kernel and firmware keep a few percent, so 64 in GB is the
// cautious reading and 64 in GiB the physical one.
struct Machine {
    double ram_bytes = 0;          // system RAM; 0 = not given (the RAM pool is then not checked)
    double ram_used_bytes = 0;     // held by the OS and other programs
    double swap_bytes = 0;         // swap Ollama counts as available (not on macOS)
    RamKind ram_kind = RamKind::Unknown;
    int64_t ram_channels = 0;      // 64-bit memory channels populated (0 = the kind's usual)
    double ram_mts = 0;            // mega-transfers per second (DDR5-6000: 6000; 0 = the kind's usual)
    double ram_bandwidth_gbs = 0;  // a measured read bandwidth (Intel mlc, STREAM) in GB/s; 0 = channels × 8 B × MT/s
    bool cpu_only = false;         // no GPU: everything in RAM
    double wired_limit_mb = 0;     // Apple: sysctl iogpu.wired_limit_mb (0 = macOS's default)
    double carveout_gb = 0.5;      // Strix Halo: the BIOS UMA frame buffer (GiB)
    double gtt_gb = 0;             // Strix Halo: amdgpu's GTT limit (GiB); 0 = the kernel's default
    UmaBackend uma_backend = UmaBackend::Vulkan;
};

// A machine whose GPU shares the RAM: which catalog GPU row it is and its whole memory.
enum class UnifiedKind { Apple, StrixHalo, Gb10 };
struct UnifiedMachine {
    const char* gpu_id;
    UnifiedKind kind;
    double ram_gib;       // the whole unified memory
    const char* source;   // where the rule for the GPU's share is read
};
// The unified machine a catalog GPU row is, or null for a discrete GPU (or none).
const UnifiedMachine* unified_machine(const Gpu* gpu);

// The two pools of a machine and how fast each is read.
struct MachinePools {
    bool unified = false;          // one memory: the GPU's share is part of the RAM
    bool cpu_only = false;
    bool ram_given = false;        // the RAM is known (given, or the unified machine's own)
    int64_t gpus = 0;              // discrete GPUs (0: CPU only)
    double gpu_bytes = 0;          // per GPU: its memory, or a unified machine's GPU share
    double ram_bytes = 0;          // the whole system RAM (unified: the whole memory)
    double ram_free_bytes = 0;     // less what the OS and other programs hold
    double gpu_bandwidth = 0;      // bytes/s of one GPU's memory (unified: the memory's)
    double ram_bandwidth = 0;      // bytes/s the CPU reads the RAM at (peak)
    double pcie_bandwidth = 0;     // bytes/s host to GPU per direction (0: unified or CPU only)
    std::string gpu_text, ram_text;          // "RTX 4090 24GB", "64 GB DDR5-6000, 2 channels (96.0 GB/s)"
    std::string share_source;                 // unified: where the GPU's share comes from
    std::string bandwidth_source;             // how the RAM bandwidth was found
};

// The machine's pools for `gpus` of `gpu` (null: none given) with `device_bytes` of memory each (the
// job's device memory: the catalog's usable figure, or device_gib).
MachinePools machine_pools(const Machine& m, const Gpu* gpu, int64_t gpus, double device_bytes);

// The GPU's share of a unified machine's memory, and its source in words.
double unified_gpu_share(const Machine& m, const UnifiedMachine& u, std::string& source);
// The RAM's read bandwidth in bytes/s, and how it was found.
double ram_bandwidth(const Machine& m, std::string& source);

const char* ram_kind_name(RamKind k);
std::vector<const char*> ram_kind_names();
RamKind ram_kind_named(const std::string& name, const std::string& field);
// "DDR5 (usually 2 channels at 5600 MT/s)": the kind and the configuration it stands for when only the kind is given.
std::string ram_kind_choice_text(RamKind k);
const char* uma_backend_name(UmaBackend b);
UmaBackend uma_backend_named(const std::string& name, const std::string& field);

}  // namespace vramcalc
