#pragma once
// The serving engines' named choices a job holds (issue 22): llama.cpp's tensor-type rules and split mode, vLLM's engine,
// CUDA-graph mode and capture sizes, transformers' cache implementation. Read in
// core/job/job_serving.cpp; used by core/serving/.

namespace vramcalc {

// llama.cpp's per-tensor type rules (llama-quant.cpp llama_tensor_get_type) as of:
enum class GgufRules {
    Current,  // merged 3-D expert tensors (ffn_down_exps follows the ffn_down rule; MoE attn_output q5_K)
    Dec2023,  // per-expert 2-D tensors named ffn_down.E: missed by the "ffn_down.weight" rule (Mixtral GGUFs of Dec 2023)
};
// llama.cpp -sm (common/arg.cpp --split-mode): whole layers per GPU, matrices split
// by rows, or everything on -mg.
enum class SplitMode { Layer, Row, None };
// vLLM's engine: V0 (worker/worker.py) or V1 (v1/worker/gpu_worker.py, default from 0.8).
enum class VllmEngine { V0, V1 };
// vLLM CUDA graphs (config/compilation.py CUDAGraphMode): none (enforce_eager), V0's
// whole-model decode graphs, V1's piecewise graphs, or piecewise + full decode graphs (0.11+).
enum class CudaGraphMode { None, Full, Piecewise, FullAndPiecewise };
// Which batch sizes vLLM captures (see core/job/vllm_versions.cpp).
enum class CaptureSizes {
    V0,         // [1, 2, 4] + 8·i up to max_num_seqs (worker/model_runner.py _BATCH_SIZES_TO_CAPTURE)
    V1Fixed,    // [1, 2, 4] + 8·i up to 512 whatever max_num_seqs (0.7 – 0.9.1)
    V1Twice,    // [1, 2, 4] + 8·i up to min(2 · max_num_seqs, 512) (config _set_cudagraph_sizes, 0.10+)
    V1Twice16,  // the same, in steps of 16 past 256 (51 sizes to 512, as v0.19 logs them)
};
// transformers generate cache_implementation (cache_utils.py).
enum class CacheImpl { Dynamic, Static, Offloaded, OffloadedStatic, Quantized };

}  // namespace vramcalc
