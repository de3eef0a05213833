#pragma once
// What every engine's accounting shares: one layer's live temporaries in a
// forward pass, eager attention's scores, the KV of a batch and its sentence.
#include <cstdint>
#include <string>

#include "job/layout.hpp"
#include "job/plan.hpp"
#include "memory/kv.hpp"

namespace vramcalc {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;
constexpr double kMiB = 1024.0 * 1024.0;

inline std::string count_text(int64_t n) { return std::to_string(n); }
std::string gib_text(double bytes);  // "1.23 GiB"
std::string mib_text(double bytes);  // "672.01 MiB"
// A positive model dimension, or InputError("config.<field>") naming what needs it.
int64_t need_dim(int64_t value, const char* field, const char* use);

// One layer's live temporaries for `tokens` tokens in a forward pass (layers run one at a
// time): `streams` hidden-size tensors, and the gated MLP's gate‖up and product (3·I/TP),
// or for MoE the fused-MoE caches per routed copy (vllm fused_moe.py intermediate_cache1..3).
double layer_working_set(const Plan& p, double tokens, int64_t tp, double streams = 3);
// Eager attention's scores for b sequences: b × heads/TP × s_q × s_kv × `bytes` per element
// (0 unless the job's attention is eager).
double eager_scores(const Plan& p, double b, double s_q, double s_kv, int64_t tp, double bytes);

// NCCL sets up NVLink SHARP (NVLS) buffers for communicators of two or more GPUs on NVSwitch
// systems of NVLink 4 and later (≥ 450 GB/s per GPU: H100, H200, B200; NCCL_NVLS_ENABLE), not on
// PCIe cards or A100s. A GPU given only as device_gib is taken to have them.
bool nvls_gpu(const Job& job);

// CUDA graphs (vLLM, SGLang): the driver keeps each captured graph's executable, in proportion to
// the kernels it replays: `captures` graphs of `layers` layers × the job's graph_layer_kib.
double graph_exec_bytes(const Plan& p, double layers, double captures);
// The cuBLAS workspace PyTorch allocates for a new stream (graph capture runs on one of its own):
// aten/src/ATen/cuda/CublasHandlePool.cpp parseChosenWorkspaceSize, 4096 KiB × 8 on sm90
// (Hopper), 4096 KiB × 2 + 16 KiB × 8 on other GPUs.
double cublas_workspace_bytes(const Job& job);

// The KV for batch × seq per GPU; with data-parallel attention each GPU holds its share.
double kv_for_batch(const Plan& p, const KvCost& k, int64_t seq, int64_t batch);
std::string kv_why(const Plan& p, const KvCost& k, double bytes);

}  // namespace vramcalc
