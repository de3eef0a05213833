// Unified-memory machines: how much of the one memory the GPU may use, by default and as raised, with
// the source of each rule. The catalog rows (bandwidth, compute) are in hardware/gpus.cpp and
// hardware/gpus_local.cpp; here is what makes them one memory.
#include <algorithm>
#include <cstring>

#include "machine/machine.hpp"
#include "text/units.hpp"

namespace vramcalc {
namespace {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

// Apple: Metal's MTLDevice.recommendedMaxWorkingSetSize, what llama.cpp's Metal backend and MLX
// (mx.device_info()["max_recommended_working_set_size"], mlx_lm/generate.py wired_limit) size
// themselves by. llama.cpp's Metal logs read 11453.25 MB on 16 GiB Macs and 17179.89 MB on 24 GiB
// ones (2/3 of the RAM); above 36 GB macOS lets the GPU wire 3/4 (gpustack/gpustack#1375: "75% of
// total RAM"; 96 GiB of a 128 GB M3 Max). macOS 26 reports more on some machines (107.52 GiB of 128 GB on
// an M5 Max): set wired_limit_mb to the figure your Mac reports. `sudo sysctl iogpu.wired_limit_mb=N`
// raises the limit until the next reboot.
constexpr double kAppleSmallShare = 2.0 / 3, kAppleLargeShare = 0.75, kAppleSmallUpToGiB = 36;

const UnifiedMachine kUnified[] = {
    {"m2-ultra-192", UnifiedKind::Apple, 192, "Metal recommendedMaxWorkingSetSize"},
    {"m3-max-128", UnifiedKind::Apple, 128, "Metal recommendedMaxWorkingSetSize"},
    {"m4-max-128", UnifiedKind::Apple, 128, "Metal recommendedMaxWorkingSetSize"},
    {"m3-ultra-256", UnifiedKind::Apple, 256, "Metal recommendedMaxWorkingSetSize"},
    {"m3-ultra-512", UnifiedKind::Apple, 512, "Metal recommendedMaxWorkingSetSize"},
    {"m3-pro-18", UnifiedKind::Apple, 18, "Metal recommendedMaxWorkingSetSize"},
    {"m4-pro-24", UnifiedKind::Apple, 24, "Metal recommendedMaxWorkingSetSize"},
    {"m4-pro-48", UnifiedKind::Apple, 48, "Metal recommendedMaxWorkingSetSize"},
    {"m4-pro-64", UnifiedKind::Apple, 64, "Metal recommendedMaxWorkingSetSize"},
    {"m4-max-36", UnifiedKind::Apple, 36, "Metal recommendedMaxWorkingSetSize"},
    {"m4-max-48", UnifiedKind::Apple, 48, "Metal recommendedMaxWorkingSetSize"},
    {"m4-max-64", UnifiedKind::Apple, 64, "Metal recommendedMaxWorkingSetSize"},
    // AMD Ryzen AI Max+ 395: the GPU maps memory through GPUVM; user processes get the BIOS UMA frame
    // buffer (carve-out, 512 MB by default, up to 96 GB on some boards) plus the GTT, which amdgpu / TTM
    // limit to half of the system memory by default (ROCm documentation, "AMD Strix Halo system
    // optimization", Memory settings; kyuz0/amd-strix-halo-toolboxes: without amdgpu.gttsize and
    // ttm.pages_limit ROCm sees ~63 GiB of 128, with them ~124 GiB). Vulkan (RADV) and ROCm both allocate
    // from the GTT on Linux.
    {"strix-halo-128", UnifiedKind::StrixHalo, 128, "amdgpu carve-out + GTT (ROCm Strix Halo system optimization)"},
    // DGX Spark: CUDA reports 121.69 GiB of the 128 GB as the device's total (the rest is the firmware's and
    // the kernel's); the OS and its page cache share it (MiaAI-Lab/GLM-5.3-Flash-EXL3-2x-DGX-Sparks#47).
    {"dgx-spark", UnifiedKind::Gb10, 128, "CUDA's total on a GB10 (unified LPDDR5x)"},
};

}  // namespace

const UnifiedMachine* unified_machine(const Gpu* gpu) {
    if (!gpu) return nullptr;
    for (const UnifiedMachine& u : kUnified)
        if (std::strcmp(u.gpu_id, gpu->id) == 0) return &u;
    return nullptr;
}

double unified_gpu_share(const Machine& m, const UnifiedMachine& u, std::string& source) {
    const double ram = u.ram_gib * kGiB;
    switch (u.kind) {
        case UnifiedKind::Apple: {
            if (m.wired_limit_mb > 0) {
                source = "iogpu.wired_limit_mb = " + plain_number(m.wired_limit_mb) + " (sysctl, as given)";
                return std::min(ram, m.wired_limit_mb * 1024 * 1024);
            }
            const bool small = u.ram_gib <= kAppleSmallUpToGiB;
            source = std::string("macOS's default GPU wired limit (Metal recommendedMaxWorkingSetSize): ") +
                     (small ? "2/3" : "3/4") + " of " + plain_number(u.ram_gib) +
                     " GB; raise it with sudo sysctl iogpu.wired_limit_mb=N";
            return ram * (small ? kAppleSmallShare : kAppleLargeShare);
        }
        case UnifiedKind::StrixHalo: {
            const double carve = std::min(m.carveout_gb, u.ram_gib) * kGiB;
            const double rest = ram - carve;
            const double gtt = m.gtt_gb > 0 ? std::min(m.gtt_gb * kGiB, rest) : rest / 2;
            source = "the BIOS carve-out " + gb_text(carve) + " + amdgpu's GTT " + gb_text(gtt) +
                     (m.gtt_gb > 0 ? " (as given)" : " (half of the rest by default; raise it with amdgpu.gttsize and ttm.pages_limit)") +
                     ", used by " + uma_backend_name(m.uma_backend);
            return carve + gtt;
        }
        case UnifiedKind::Gb10:
            source = "CUDA's total of the unified memory on a DGX Spark (121.69 GiB)";
            return 121.69 * kGiB;
    }
    return 0;
}

}  // namespace vramcalc
