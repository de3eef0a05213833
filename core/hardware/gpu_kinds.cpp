// Each catalog GPU's kind (the pool a recommendation may draw from) and where its usable
// memory figure comes from, as the "usable:" comments beside each row of gpus.cpp cite it.
#include <cstring>

#include "hardware/gpus.hpp"

namespace vramcalc {
namespace {

enum class Source { PyTorch, CudaTotal, NvidiaSmi, AsSxm, Datasheet, Derived, Marketed, AppleWired };

struct Row {
    const char* id;
    GpuKind kind;
    Source source;
    bool common = false;  // named by recommendations (see kRows)
};

// `common`: the GPUs a recommendation names, those people buy or rent by the hour: GeForce cards of
// the last three generations at 12, 16, 24 and 32 GB, the RTX A6000, the Apple Silicon Macs, and the
// data-centre parts of the clouds' GPU instance families (AWS G5 A10G, G6 L4, G6e L40S, P4d/P4de A100,
// P5 H100, P5e H200, P6 B200; Azure ND MI300X; AMD's MI325X / MI355X, NVIDIA's B300). Variants of
// those (PCIe, NVL, export parts), older parts (V100, T4, MI250X), rack-scale trays (GB200) and
// non-CUDA accelerators are in the table and the verdict, but never recommended.
const Row kRows[] = {
    {"t4", GpuKind::Datacenter, Source::PyTorch},
    {"rtx3090", GpuKind::Consumer, Source::PyTorch, true},
    {"rtx4090", GpuKind::Consumer, Source::PyTorch, true},
    {"l4", GpuKind::Datacenter, Source::NvidiaSmi, true},
    {"rtx5090", GpuKind::Consumer, Source::PyTorch, true},
    {"a100-40", GpuKind::Datacenter, Source::PyTorch, true},
    {"rtxa6000", GpuKind::Workstation, Source::Marketed, true},
    {"l40s", GpuKind::Datacenter, Source::PyTorch, true},
    {"a100-80", GpuKind::Datacenter, Source::PyTorch, true},
    {"h100", GpuKind::Datacenter, Source::PyTorch, true},
    {"h200", GpuKind::Datacenter, Source::PyTorch, true},
    {"b200", GpuKind::Datacenter, Source::CudaTotal, true},
    {"mi300x", GpuKind::Datacenter, Source::Marketed, true},
    {"rtx3060", GpuKind::Consumer, Source::PyTorch, true},
    {"rtx4060ti-16", GpuKind::Consumer, Source::PyTorch, true},
    {"rtx4070", GpuKind::Consumer, Source::Marketed, true},
    {"rtx4080", GpuKind::Consumer, Source::Marketed, true},
    {"rtx5070", GpuKind::Consumer, Source::Marketed, true},
    {"rtx5070ti", GpuKind::Consumer, Source::Marketed, true},
    {"rtx5080", GpuKind::Consumer, Source::Marketed, true},
    {"v100-16", GpuKind::Datacenter, Source::PyTorch},
    {"v100-32", GpuKind::Datacenter, Source::PyTorch},
    {"a10", GpuKind::Datacenter, Source::PyTorch},
    {"a10g", GpuKind::Datacenter, Source::PyTorch, true},
    {"l40", GpuKind::Datacenter, Source::PyTorch},
    {"a100-40-pcie", GpuKind::Datacenter, Source::AsSxm},
    {"a100-80-pcie", GpuKind::Datacenter, Source::AsSxm},
    {"h100-pcie", GpuKind::Datacenter, Source::AsSxm},
    {"h100-nvl", GpuKind::Datacenter, Source::PyTorch},
    {"h800", GpuKind::Datacenter, Source::AsSxm},
    {"h100-gt", GpuKind::Datacenter, Source::Derived},
    {"h20", GpuKind::Datacenter, Source::Marketed},
    {"b300", GpuKind::Datacenter, Source::Datasheet, true},
    {"gb200", GpuKind::Datacenter, Source::Datasheet},
    {"mi250x", GpuKind::Datacenter, Source::Marketed},
    {"mi325x", GpuKind::Datacenter, Source::Marketed, true},
    {"mi355x", GpuKind::Datacenter, Source::Marketed, true},
    {"gaudi2", GpuKind::Other, Source::Marketed},
    {"gaudi3", GpuKind::Other, Source::Marketed},
    {"m2-ultra-192", GpuKind::Apple, Source::AppleWired, true},
    {"m3-max-128", GpuKind::Apple, Source::AppleWired, true},
    {"m4-max-128", GpuKind::Apple, Source::AppleWired, true},
    {"tpu-v5e", GpuKind::Other, Source::Marketed},
    {"tpu-v6e", GpuKind::Other, Source::Marketed},
};

const Row* row_of(const Gpu& g) {
    for (const Row& r : kRows)
        if (std::strcmp(r.id, g.id) == 0) return &r;
    return nullptr;
}

// The GPUs of hardware/gpus_local.cpp carry their own row.
struct Local {
    bool found = false, measured = false, common = false;
    GpuKind kind = GpuKind::Other;
    const char* usable = "";
};
Local local_of(const Gpu& g) {
    Local l;
    l.found = local_gpu_info(g, l.kind, l.usable, l.measured, l.common);
    return l;
}

}  // namespace

GpuKind gpu_kind(const Gpu& gpu) {
    if (const Local l = local_of(gpu); l.found) return l.kind;
    const Row* r = row_of(gpu);
    return r ? r->kind : GpuKind::Other;
}

const char* gpu_kind_name(GpuKind k) {
    switch (k) {
        case GpuKind::Consumer: return "consumer";
        case GpuKind::Workstation: return "workstation";
        case GpuKind::Datacenter: return "datacenter";
        case GpuKind::Apple: return "apple";
        case GpuKind::Other: return "other";
    }
    return "other";
}

const char* usable_source(const Gpu& gpu) {
    if (const Local l = local_of(gpu); l.found) return l.usable;
    const Row* r = row_of(gpu);
    switch (r ? r->source : Source::Marketed) {
        case Source::PyTorch: return "measured: PyTorch's total capacity on this GPU, from a published log";
        case Source::CudaTotal: return "measured: CUDA totalGlobalMem on this GPU, from a published log";
        case Source::NvidiaSmi: return "measured: nvidia-smi's total on this GPU, from a published log";
        case Source::AsSxm: return "as the SXM part's measured figure (none published for this one)";
        case Source::Datasheet: return "the datasheet's memory for the system over its GPUs";
        case Source::Derived: return "the marketed size less what the SXM part reserves (no figure published)";
        case Source::Marketed: return "the marketed size (no measured figure published)";
        case Source::AppleWired: return "75 % of unified memory, what Metal lets the GPU wire by default";
    }
    return "";
}

// The parts of the clouds' GPU instance families (the comment above kRows), ranked first among equal
// numbers of nodes: MI325X, MI355X and B300 are bought or rented from fewer places.
// The GPUs of home inference (hardware/gpus_local.cpp) follow their own `common`.
bool gpu_widely_rented(const Gpu& gpu) {
    if (!gpu_common(gpu)) return false;
    for (const char* id : {"mi325x", "mi355x", "b300"})
        if (std::strcmp(gpu.id, id) == 0) return false;
    return true;
}

bool gpu_common(const Gpu& gpu) {
    if (const Local l = local_of(gpu); l.found) return l.common;
    const Row* r = row_of(gpu);
    return r && r->common;
}

bool usable_measured(const Gpu& gpu) {
    if (const Local l = local_of(gpu); l.found) return l.measured;
    const Row* r = row_of(gpu);
    return r && (r->source == Source::PyTorch || r->source == Source::CudaTotal || r->source == Source::NvidiaSmi);
}

}  // namespace vramcalc
