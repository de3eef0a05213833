#pragma once
// The accelerator catalog: memory for the fit table, and the compute, memory
// bandwidth and interconnect figures the cluster planner (cluster.hpp) needs.
// Every figure is a vendor datasheet value, cited beside it in gpus.cpp.
#include <cstddef>
#include <string>
#include <vector>

namespace vramcalc {

struct Gpu {
    const char* id;
    const char* name;
    double memory_gib;   // usable capacity in GiB: what the fit table compares against
    double marketed_gb;  // memory on the box, as the vendor writes it ("80 GB"; these "GB" are GiB on NVIDIA/AMD)
    const char* vendor;
    // Peak dense tensor/matrix TFLOPS (no 2:4 sparsity); 0 = not supported / not published.
    double tflops_fp32;  // FP32 (matrix units where they exist, else vector)
    double tflops_tf32;
    double tflops_bf16;  // BF16 (FP16 where BF16 is missing: V100, T4), FP32 accumulate
    double tflops_fp8;
    double tflops_fp4;
    double memory_tbps;  // HBM / GDDR / unified memory bandwidth, TB/s
    // Scale-up link: GPUs inside one `domain` reach each other at link_gbps.
    const char* link;    // "NVLink 4 (NVSwitch)", "PCIe 4.0 x16", ...
    double link_gbps;    // GB/s per GPU per direction inside the domain
    int domain;          // GPUs sharing that link: 8 for an HGX board, 72 for NVL72, 2 for a bridge pair, 1 = none
    double pcie_gbps;    // GB/s per direction over PCIe, the path between GPUs of a node outside the domain
    int per_node;        // typical GPUs per server (node)
    const char* source;  // datasheet(s) the figures come from
    double power_w = 0;  // board power limit the part runs at, W (datasheet TDP, or the limit it ships with); 0 = not listed
};

// What a GPU's kernels were measured to reach, where a benchmark is published
// (the cluster planner's per-op roofline, core/cluster/kernels.cpp); cited in gpus.cpp.
struct Achieved {
    double mamf_bf16 = 0;  // maximum achievable BF16 matmul TFLOPS (0 = no measurement published)
    double mamf_fp8 = 0;   // the same for FP8 (e4m3) inputs
    int sms = 0;           // streaming multiprocessors / compute units (wave quantization); 0 = not modelled
    bool hopper = false;   // sm_90: FlashAttention-3 and cuDNN's Hopper attention kernels run here
    bool nvls = false;     // NVSwitch with NVLink SHARP (third-generation NVSwitch on, Hopper and Blackwell)
    const char* source = "";
    // A power-capped variant of another catalog part: the id whose published kernel tables (attention) were
    // measured uncapped; the planner scales them by this part's measured GEMM rate over that part's.
    const char* capped_of = nullptr;
};
Achieved achieved(const Gpu& gpu);  // by catalog id; an id without a row gets zeros

const std::vector<Gpu>& gpu_catalog();  // ordered by usable memory
// The GPUs and unified-memory machines of home inference (hardware/gpus_local.cpp), part of gpu_catalog().
const std::vector<Gpu>& local_gpus();

// What kind of accelerator a catalog GPU is (hardware/gpu_kinds.cpp): the pools a
// recommendation is drawn from (issue 23: training from data-centre GPUs unless the user
// chooses otherwise). Other: Gaudi and TPU, whose memory PyTorch's CUDA/ROCm accounting does not describe.
enum class GpuKind { Consumer, Workstation, Datacenter, Apple, Other };
GpuKind gpu_kind(const Gpu& gpu);
const char* gpu_kind_name(GpuKind k);  // "consumer", "workstation", "datacenter", "apple", "other"
// Where the usable figure comes from, in words: "measured (PyTorch total_memory in a published
// log)", "as the SXM part", "marketed size (no measured figure published)", ...
const char* usable_source(const Gpu& gpu);
bool usable_measured(const Gpu& gpu);  // the figure was read on this GPU, not taken from the box
bool gpu_common(const Gpu& gpu);       // one a recommendation may name (bought or rented by the hour)
bool gpu_widely_rented(const Gpu& gpu); // common, and in the major clouds' instance families (not MI325X, MI355X, B300)
// A GPU of local_gpus(): its kind, where its usable figure comes from, whether it was measured and
// whether a recommendation may name it; false for another GPU.
bool local_gpu_info(const Gpu& gpu, GpuKind& kind, const char*& usable, bool& measured, bool& common);
double gpu_bytes(const Gpu& gpu);      // usable capacity in bytes
// The catalog entry with this id; throws InputError(field, ...) listing the ids.
const Gpu& find_gpu(const std::string& id, const std::string& field);

// Scale-out network between nodes, per GPU (one NIC per GPU, as in DGX/HGX).
struct Fabric {
    const char* id;
    const char* name;
    double gbit_per_gpu;  // line rate per GPU, Gb/s per direction
    double efficiency;    // fraction of line rate collectives reach on it (see gpus.cpp)
    const char* source;
};

const std::vector<Fabric>& fabric_catalog();
const Fabric& find_fabric(const std::string& id, const std::string& field);

}  // namespace vramcalc
