#include "gpus.hpp"

namespace vramcalc {

const std::vector<Gpu>& gpu_catalog() {
    // Vendor datasheets. NVIDIA's and AMD's "GB" on these boards are GiB
    // (A100 80GB: 81920 MiB). B200: 192 GB of HBM3e on the package, 180 GB
    // usable per GPU (DGX B200 datasheet: 1,440 GB for 8 GPUs).
    static const std::vector<Gpu> gpus = {
        {"t4", "Tesla T4 16GB", 16},
        {"rtx3090", "RTX 3090 24GB", 24},
        {"rtx4090", "RTX 4090 24GB", 24},
        {"l4", "L4 24GB", 24},
        {"rtx5090", "RTX 5090 32GB", 32},
        {"a100-40", "A100 40GB", 40},
        {"rtxa6000", "RTX A6000 48GB", 48},
        {"l40s", "L40S 48GB", 48},
        {"a100-80", "A100 80GB", 80},
        {"h100", "H100 80GB", 80},
        {"h200", "H200 141GB", 141},
        {"b200", "B200 192GB (180 usable)", 180},
        {"mi300x", "MI300X 192GB", 192},
    };
    return gpus;
}

double gpu_bytes(const Gpu& gpu) { return gpu.memory_gib * 1024.0 * 1024.0 * 1024.0; }

}  // namespace vramcalc
