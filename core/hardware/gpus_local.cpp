// The GPUs and whole machines people run models on at home (issue 32): the 8 – 16 GB GeForce cards most
// own, the 2025–26 workstation and consumer parts, AMD and Intel cards, and the unified-memory machines
// (Apple Silicon Macs, AMD Strix Halo, NVIDIA DGX Spark), each with its datasheet. gpu_catalog()
// (gpus.cpp) lists them beside the data-centre catalog; each one's kind and usable-memory source are
// here too (gpu_kinds.cpp asks local_gpu_info).
//
// Conventions as gpus.cpp's: dense TFLOPS; GeForce FP16 tensor math at the FP32-accumulate rate (half
// the FP16-accumulate one); workstation parts (RTX 6000 Ada, RTX PRO 6000) at the full rate their
// datasheets print (their sparse figure halved). Per-SM rates: Ampere GA10x 1,024 FP16-accumulate
// FLOP/clk/SM (NVIDIA Ampere GA102 whitepaper), Ada and Blackwell RTX 512 FP16 FP32-accumulate
// FLOP/clk/SM (Ada and RTX Blackwell whitepapers), Turing 1,024 FP16-accumulate (Turing whitepaper).
// Unified-memory machines: memory_gib is the GPU's default share of the unified memory (what Metal,
// amdgpu or CUDA let the GPU use without tuning); the machine's whole RAM and the rule behind the share
// are in core/machine/machines.cpp.
#include <cstring>

#include "hardware/gpus.hpp"

namespace vramcalc {
namespace {

constexpr double kPcie3 = 15.75, kPcie4 = 31.5, kPcie5 = 63.0;  // x16 per direction (PCI-SIG)
constexpr const char* kNoLink = "none (one device; Thunderbolt between Macs)";

const Gpu kLocal[] = {
    // ---- GeForce cards most people own (8 – 16 GB), NVIDIA specifications pages
    // RTX 2080 Ti (TU102, 68 SMs, 1.545 GHz boost): 13.4 FP32; 107.6 FP16-accumulate tensor, 53.8 with FP32
    // accumulate (no BF16: the FP16 figure stands in, as for the V100 and T4); 11 GB, 616 GB/s; NVLink bridge
    // 100 GB/s total (2 cards); 250 W.
    {"rtx2080ti", "RTX 2080 Ti 11GB", 11, 11, "NVIDIA", 13.4, 0, 53.8, 0, 0, 0.616, "NVLink bridge (2 cards)", 50, 2,
     kPcie3, 4, "NVIDIA Turing GPU Architecture whitepaper; GeForce RTX 2080 Ti specifications", 250},
    // RTX 2080 (TU104, 46 SMs, 1.71 GHz): 10.1 FP32; 80.5 FP16-accumulate tensor, 40.3 with FP32 accumulate;
    // 8 GB GDDR6, 448 GB/s; 215 W.
    {"rtx2080", "RTX 2080 8GB", 8, 8, "NVIDIA", 10.1, 0, 40.3, 0, 0, 0.448, "NVLink bridge (2 cards)", 25, 2, kPcie3, 4,
     "NVIDIA Turing GPU Architecture whitepaper; GeForce RTX 2080 specifications", 215},
    // RTX 3060 Ti (GA104, 38 SMs, 1.665 GHz): 16.2 FP32; 38 × 1,024 × 1.665 GHz = 64.8 FP16-acc, 32.4 FP32-acc;
    // 8 GB GDDR6, 448 GB/s; 200 W.
    {"rtx3060ti", "RTX 3060 Ti 8GB", 8, 8, "NVIDIA", 16.2, 16.2, 32.4, 0, 0, 0.448, "PCIe 4.0 x16", kPcie4, 1, kPcie4, 4,
     "NVIDIA GeForce RTX 3060 Ti specifications; Ampere GA102 whitepaper per-SM tensor rate", 200},
    // RTX 3070 (GA104, 46 SMs, 1.725 GHz): 20.3 FP32; 81.3 FP16-acc, 40.6 FP32-acc; 8 GB GDDR6, 448 GB/s; 220 W.
    {"rtx3070", "RTX 3070 8GB", 8, 8, "NVIDIA", 20.3, 20.3, 40.6, 0, 0, 0.448, "PCIe 4.0 x16", kPcie4, 1, kPcie4, 4,
     "NVIDIA GeForce RTX 3070 specifications; Ampere GA102 whitepaper per-SM tensor rate", 220},
    // RTX 3080 10GB (GA102, 68 SMs, 1.71 GHz): GA102 whitepaper 29.8 FP32, 119 FP16-acc, 59.5 FP32-acc; 760 GB/s; 320 W.
    {"rtx3080", "RTX 3080 10GB", 10, 10, "NVIDIA", 29.8, 29.8, 59.5, 0, 0, 0.76, "PCIe 4.0 x16", kPcie4, 1, kPcie4, 4,
     "NVIDIA Ampere GA102 GPU Architecture whitepaper (RTX 3080 column)", 320},
    // RTX 4060 (AD107, 24 SMs, 2.46 GHz): 15.1 FP32; 24 × 512 × 2.46 GHz = 30.2 FP16 FP32-acc, FP8 60.4;
    // 8 GB GDDR6, 272 GB/s; PCIe 4.0 x8; 115 W.
    {"rtx4060", "RTX 4060 8GB", 8, 8, "NVIDIA", 15.1, 15.1, 30.2, 60.4, 0, 0.272, "PCIe 4.0 x8", kPcie4 / 2, 1, kPcie4 / 2, 4,
     "NVIDIA Ada GPU Architecture whitepaper (per-SM rates); GeForce RTX 4060 specifications", 115},
    // RTX 4070 Ti (AD104, 60 SMs, 2.61 GHz): 40.1 FP32; 80.2 FP16 FP32-acc, FP8 160.4; 12 GB GDDR6X, 504 GB/s; 285 W.
    {"rtx4070ti", "RTX 4070 Ti 12GB", 12, 12, "NVIDIA", 40.1, 40.1, 80.2, 160.4, 0, 0.504, "PCIe 4.0 x16", kPcie4, 1, kPcie4, 4,
     "NVIDIA Ada GPU Architecture whitepaper (per-SM rates); GeForce RTX 4070 Ti specifications", 285},
    // RTX 4080 SUPER (AD103, 80 SMs, 2.55 GHz): 52.2 FP32; 104.4 FP16 FP32-acc, FP8 208.9; 16 GB GDDR6X, 736 GB/s; 320 W.
    {"rtx4080s", "RTX 4080 SUPER 16GB", 16, 16, "NVIDIA", 52.2, 52.2, 104.4, 208.9, 0, 0.736, "PCIe 4.0 x16", kPcie4, 1, kPcie4,
     4, "NVIDIA Ada GPU Architecture whitepaper (per-SM rates); GeForce RTX 4080 SUPER specifications", 320},
    // RTX 5060 Ti 16GB (GB206, 36 SMs, 2.572 GHz): 23.7 FP32; 36 × 512 × 2.572 GHz = 47.4 FP16 FP32-acc, FP8 94.8,
    // FP4 379.5 (759 AI TOPS sparse); 16 GB GDDR7, 448 GB/s; PCIe 5.0 x8; 180 W.
    {"rtx5060ti-16", "RTX 5060 Ti 16GB", 16, 16, "NVIDIA", 23.7, 23.7, 47.4, 94.8, 379.5, 0.448, "PCIe 5.0 x8", kPcie5 / 2, 1,
     kPcie5 / 2, 4, "NVIDIA RTX Blackwell GPU Architecture whitepaper; GeForce RTX 5060 Ti specifications", 180},

    // ---- workstation cards (full-rate tensor math)
    // RTX 6000 Ada datasheet: 91.1 FP32, 1,457 FP8 TFLOPS sparse (728.5 dense, BF16 364.2, TF32 182.1), 48 GB GDDR6
    // ECC, 960 GB/s, PCIe 4.0 x16, 300 W.
    {"rtx6000ada", "RTX 6000 Ada 48GB", 48, 48, "NVIDIA", 91.1, 182.1, 364.2, 728.5, 0, 0.96, "PCIe 4.0 x16", kPcie4, 1, kPcie4,
     8, "NVIDIA RTX 6000 Ada Generation datasheet", 300},
    // RTX PRO 6000 Blackwell datasheet: 125 FP32, 4,000 FP4 AI TOPS sparse (2,000 dense; FP8 1,000, BF16 500),
    // 96 GB GDDR7 ECC, 1,792 GB/s, PCIe 5.0 x16, 600 W.
    // usable: llama.cpp "Total VRAM: 97252 MiB" (CUDA total) on an RTX PRO 6000 Blackwell (ggml-org/llama.cpp#28196)
    {"rtxpro6000", "RTX PRO 6000 Blackwell 96GB", 94.97, 96, "NVIDIA", 125, 250, 500, 1000, 2000, 1.792, "PCIe 5.0 x16", kPcie5,
     1, kPcie5, 8, "NVIDIA RTX PRO 6000 Blackwell Workstation Edition datasheet", 600},

    // ---- AMD Radeon and Intel Arc (vendor specifications pages)
    // Radeon RX 7900 XTX (Navi 31, 96 CUs, 2.5 GHz): 61.4 FP32 (dual issue), 122.8 FP16 (WMMA); 24 GB GDDR6,
    // 960 GB/s; PCIe 4.0 x16; 355 W.
    {"rx7900xtx", "Radeon RX 7900 XTX 24GB", 24, 24, "AMD", 61.4, 0, 122.8, 0, 0, 0.96, "PCIe 4.0 x16", kPcie4, 1, kPcie4, 4,
     "AMD Radeon RX 7900 XTX specifications", 355},
    // Radeon RX 9070 XT (Navi 48, 64 CUs): 48.7 FP32, 194.7 FP16 matrix dense (389 sparse), FP8 389.3 dense; 16 GB
    // GDDR6 at 20 Gbps × 256 bit = 640 GB/s; PCIe 5.0 x16; 304 W.
    {"rx9070xt", "Radeon RX 9070 XT 16GB", 16, 16, "AMD", 48.7, 0, 194.7, 389.3, 0, 0.64, "PCIe 5.0 x16", kPcie5, 1, kPcie5, 4,
     "AMD Radeon RX 9070 XT specifications", 304},
    // Intel Arc B580 (20 Xe2 cores, 2.67 GHz): 13.7 FP32, 233 INT8 TOPS (XMX), 116.5 FP16; 12 GB GDDR6, 456 GB/s;
    // PCIe 4.0 x8; 190 W.
    {"arc-b580", "Intel Arc B580 12GB", 12, 12, "Intel", 13.7, 0, 116.5, 0, 0, 0.456, "PCIe 4.0 x8", kPcie4 / 2, 1, kPcie4 / 2,
     4, "Intel Arc B580 specifications", 190},

    // ---- unified-memory machines: the GPU's default share of the RAM (core/machine/machines.cpp says why)
    // Apple: bandwidth and GPU cores from Apple's tech specs; FP32 = GPU cores × 128 lanes × 2 × clock (Apple
    // publishes no TFLOPS; FP16 runs at the FP32 rate). Shares: 3/4 of RAM above 36 GB, 2/3 up to 36 GB.
    // Mac Studio (2025) M3 Ultra: 80-core GPU (1.4 GHz: 28.7 FP32), 819 GB/s.
    {"m3-ultra-256", "Apple M3 Ultra 256GB (unified)", 192, 256, "Apple", 28.7, 0, 28.7, 0, 0, 0.819, kNoLink, 0, 1, 0, 1,
     "Apple Mac Studio (2025) tech specs: M3 Ultra, 80-core GPU, 819 GB/s"},
    {"m3-ultra-512", "Apple M3 Ultra 512GB (unified)", 384, 512, "Apple", 28.7, 0, 28.7, 0, 0, 0.819, kNoLink, 0, 1, 0, 1,
     "Apple Mac Studio (2025) tech specs: M3 Ultra, 80-core GPU, 819 GB/s"},
    // M3 Pro (18 GB MacBook Pro, 2023): 18-core GPU (1.4 GHz: 6.5 FP32), 150 GB/s.
    {"m3-pro-18", "Apple M3 Pro 18GB (unified)", 12, 18, "Apple", 6.5, 0, 6.5, 0, 0, 0.15, kNoLink, 0, 1, 0, 1,
     "Apple MacBook Pro (2023) tech specs: M3 Pro, 18-core GPU, 150 GB/s"},
    // M4 Pro: 20-core GPU (1.578 GHz: 8.1 FP32), 273 GB/s (Mac mini / MacBook Pro 2024 tech specs).
    {"m4-pro-24", "Apple M4 Pro 24GB (unified)", 16, 24, "Apple", 8.1, 0, 8.1, 0, 0, 0.273, kNoLink, 0, 1, 0, 1,
     "Apple Mac mini (2024) tech specs: M4 Pro, 20-core GPU, 273 GB/s"},
    {"m4-pro-48", "Apple M4 Pro 48GB (unified)", 36, 48, "Apple", 8.1, 0, 8.1, 0, 0, 0.273, kNoLink, 0, 1, 0, 1,
     "Apple Mac mini (2024) tech specs: M4 Pro, 20-core GPU, 273 GB/s"},
    {"m4-pro-64", "Apple M4 Pro 64GB (unified)", 48, 64, "Apple", 8.1, 0, 8.1, 0, 0, 0.273, kNoLink, 0, 1, 0, 1,
     "Apple Mac mini (2024) tech specs: M4 Pro, 20-core GPU, 273 GB/s"},
    // M4 Max: 32-core GPU at 410 GB/s (36 GB) or 40-core at 546 GB/s (48 GB and up) (MacBook Pro 2024 tech specs).
    {"m4-max-36", "Apple M4 Max 36GB (unified)", 24, 36, "Apple", 14.7, 0, 14.7, 0, 0, 0.41, kNoLink, 0, 1, 0, 1,
     "Apple MacBook Pro (2024) tech specs: M4 Max, 32-core GPU, 410 GB/s"},
    {"m4-max-48", "Apple M4 Max 48GB (unified)", 36, 48, "Apple", 18.4, 0, 18.4, 0, 0, 0.546, kNoLink, 0, 1, 0, 1,
     "Apple MacBook Pro (2024) tech specs: M4 Max, 40-core GPU, 546 GB/s"},
    {"m4-max-64", "Apple M4 Max 64GB (unified)", 48, 64, "Apple", 18.4, 0, 18.4, 0, 0, 0.546, kNoLink, 0, 1, 0, 1,
     "Apple MacBook Pro (2024) tech specs: M4 Max, 40-core GPU, 546 GB/s"},
    // AMD Ryzen AI Max+ 395 (Strix Halo): Radeon 8060S, 40 CUs at 2.9 GHz: 59.4 FP16 (512 FLOP/clk/CU), 29.7
    // FP32; 128 GB LPDDR5X-8000 on a 256-bit bus, 256 GB/s. Share: the BIOS carve-out (512 MB by default)
    // plus amdgpu's GTT, half of the rest by default on Linux (ROCm docs, "AMD Strix Halo system optimization").
    {"strix-halo-128", "AMD Ryzen AI Max+ 395 128GB (unified)", 64.25, 128, "AMD", 29.7, 0, 59.4, 0, 0, 0.256,
     "none (one device)", 0, 1, kPcie4 / 4, 1, "AMD Ryzen AI Max+ 395 specifications; ROCm Strix Halo system optimization"},
    // NVIDIA DGX Spark (GB10): 128 GB LPDDR5x, 273 GB/s; 1 PFLOP FP4 sparse (500 dense, FP8 250, BF16 125).
    // usable: CUDA's total 121.69 GiB of the 128 GB (MiaAI-Lab/GLM-5.3-Flash-EXL3-2x-DGX-Sparks#47), shared with the OS.
    {"dgx-spark", "NVIDIA DGX Spark (GB10) 128GB (unified)", 121.69, 128, "NVIDIA", 31, 62.5, 125, 250, 500, 0.273,
     "ConnectX-7 200 GbE (2 Sparks)", 25, 2, 0, 1, "NVIDIA DGX Spark datasheet", 240},
};

// Kind, where the usable figure comes from, and whether a recommendation may name it.
struct LocalRow {
    const char* id;
    GpuKind kind;
    const char* usable;
    bool measured;
    bool common;
};
constexpr const char* kMarketed = "the marketed size (no measured figure published)";
constexpr const char* kApple = "the GPU's default share of unified memory: Metal's recommendedMaxWorkingSetSize (3/4 of RAM above "
                               "36 GB, 2/3 up to 36 GB; raise it with sysctl iogpu.wired_limit_mb)";
const LocalRow kRows[] = {
    {"rtx2080ti", GpuKind::Consumer, kMarketed, false, true},
    {"rtx2080", GpuKind::Consumer, kMarketed, false, true},
    {"rtx3060ti", GpuKind::Consumer, kMarketed, false, true},
    {"rtx3070", GpuKind::Consumer, kMarketed, false, true},
    {"rtx3080", GpuKind::Consumer, kMarketed, false, true},
    {"rtx4060", GpuKind::Consumer, kMarketed, false, true},
    {"rtx4070ti", GpuKind::Consumer, kMarketed, false, true},
    {"rtx4080s", GpuKind::Consumer, kMarketed, false, true},
    {"rtx5060ti-16", GpuKind::Consumer, kMarketed, false, true},
    {"rtx6000ada", GpuKind::Workstation, kMarketed, false, true},
    {"rtxpro6000", GpuKind::Workstation, "measured: CUDA's total memory on this GPU, from a published llama.cpp log", true, true},
    {"rx7900xtx", GpuKind::Consumer, kMarketed, false, true},
    {"rx9070xt", GpuKind::Consumer, kMarketed, false, true},
    {"arc-b580", GpuKind::Consumer, kMarketed, false, true},
    {"m3-ultra-256", GpuKind::Apple, kApple, false, true},
    {"m3-ultra-512", GpuKind::Apple, kApple, false, true},
    {"m3-pro-18", GpuKind::Apple, kApple, false, true},
    {"m4-pro-24", GpuKind::Apple, kApple, false, true},
    {"m4-pro-48", GpuKind::Apple, kApple, false, true},
    {"m4-pro-64", GpuKind::Apple, kApple, false, true},
    {"m4-max-36", GpuKind::Apple, kApple, false, true},
    {"m4-max-48", GpuKind::Apple, kApple, false, true},
    {"m4-max-64", GpuKind::Apple, kApple, false, true},
    {"strix-halo-128", GpuKind::Consumer, "the GPU's default share of unified memory: the BIOS carve-out (512 MB) plus amdgpu's "
                                       "GTT, half of the rest of the RAM on Linux (raise it with amdgpu.gttsize and ttm.pages_limit)",
     false, true},
    {"dgx-spark", GpuKind::Workstation, "measured: CUDA's total of the unified memory on a DGX Spark, from a published log", true, true},
};

}  // namespace

const std::vector<Gpu>& local_gpus() {
    static const std::vector<Gpu> gpus(std::begin(kLocal), std::end(kLocal));
    return gpus;
}

bool local_gpu_info(const Gpu& gpu, GpuKind& kind, const char*& usable, bool& measured, bool& common) {
    for (const LocalRow& r : kRows)
        if (std::strcmp(r.id, gpu.id) == 0) {
            kind = r.kind, usable = r.usable, measured = r.measured, common = r.common;
            return true;
        }
    return false;
}

}  // namespace vramcalc
