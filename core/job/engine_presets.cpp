#include "job/engine_presets.hpp"

namespace vramcalc {
namespace {

const std::vector<EnginePreset> kEngines = {
    {Engine::Custom, "custom", {}},
    {Engine::HfGenerate,
     "transformers generate",
     {
         {"attention", "\"sdpa\"", "transformers PreTrainedModel._autoset_attn_implementation: sdpa by default"},
         {"report", "\"reserved\"", "torch.cuda.max_memory_reserved, what transformers benchmarks print"},
     }},
    {Engine::Vllm,
     "vLLM",
     {
         {"gpu_memory_utilization", "0.9", "vllm/config.py CacheConfig.gpu_memory_utilization default 0.9"},
         {"block_size", "16", "vllm/config.py CacheConfig.block_size default 16"},
         {"attention", "\"flash\"", "vllm/attention/backends flash-attn: no s² scores"},
         {"fragmentation", "0", "the KV pool is sized from what the profile measured: no further slack"},
     }},
    {Engine::Sglang,
     "SGLang",
     {
         {"mem_fraction_static", "0", "sglang/srt/server_args.py ServerArgs.__post_init__: 0.88 (TP 1), 0.87 (TP 2), 0.85 (TP 4), 0.81 (TP 8), 0.79 (TP 16)"},
         {"max_num_batched_tokens", "0", "sglang server_args.py (v0.5.2) chunked_prefill_size by GPU memory: 2048 under 35 GiB, 8192 under 160 GiB, else 16384"},
         {"comm_buffers_gb", "1.954",
          "NCCL's NVLink SHARP buffers, created when model_runner.py init_torch_distributed starts NCCL and before it measures "
          "the memory mem_fraction_static takes a share of: 1.82 GiB per GPU at TP >= 2 on H100 (vLLM's llm-d v0.19 logs)"},
         {"attention", "\"flash\"", "sglang flashinfer / fa3 backends: no s² scores"},
         {"fragmentation", "0", "the pool is sized from free memory after loading"},
     }},
    // llama.cpp, Ollama and MLX: the fields every version shares; the version's own (flash attention, the
    // context, --fit, Ollama's parallel requests) come from core/job/runtime_versions.cpp.
    {Engine::LlamaCpp,
     "llama.cpp",
     {
         {"fragmentation", "0", "ggml-alloc sizes each buffer exactly (ggml/src/ggml-alloc.c ggml_gallocr_reserve)"},
         {"report", "\"device\"", "the buffers llama.cpp logs plus the CUDA context"},
     }},
    {Engine::Ollama,
     "Ollama",
     {
         {"kv_dtype", "\"fp16\"", "envconfig OLLAMA_KV_CACHE_TYPE default f16"},
         {"n_ubatch", "512", "ollama api/types.go DefaultOptions NumBatch 512"},
         {"n_gpu_layers", "-1", "num_gpu unset: as many layers as fit (llm/memory.go, later llama-server's --fit)"},
         {"op_offload", "true", "the llama.cpp runner offloads large-batch ops on host weights to the GPU (ggml-backend.cpp)"},
         {"fragmentation", "0", "ggml-alloc sizes each buffer exactly"},
         {"report", "\"device\"", "the buffers llama.cpp logs plus the CUDA context"},
     }},
    {Engine::Mlx,
     "MLX",
     {
         {"fragmentation", "0", "MLX's peak memory (mx.get_peak_memory) counts its allocations"},
         {"overhead_gb", "0", "no CUDA context: Metal's command buffers are counted in the peak"},
         {"report", "\"device\"", "mlx_lm's 'Peak memory'"},
     }},
};

}  // namespace

const std::vector<EnginePreset>& all_engine_presets() { return kEngines; }

const EnginePreset& engine_preset(Engine engine) {
    for (const auto& p : kEngines)
        if (p.engine == engine) return p;
    return kEngines.front();
}

}  // namespace vramcalc
