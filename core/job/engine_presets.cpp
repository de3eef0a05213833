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
    {Engine::LlamaCpp,
     "llama.cpp",
     {
         {"kv_dtype", "\"fp16\"", "llama.cpp common/common.h cache_type_k / cache_type_v = GGML_TYPE_F16"},
         {"n_ubatch", "512", "llama.cpp common/common.h common_params n_ubatch = 512"},
         {"attention", "\"eager\"", "llama.cpp flash_attn off by default until -fa auto (common/common.h, 2024-2025)"},
         {"n_gpu_layers", "-1", "llama-server -ngl: all layers when given a large value (-1 here)"},
         {"fragmentation", "0", "ggml-alloc sizes each buffer exactly (ggml/src/ggml-alloc.c ggml_gallocr_reserve)"},
         {"report", "\"device\"", "the buffers llama.cpp logs plus the CUDA context"},
     }},
    {Engine::Ollama,
     "Ollama",
     {
         {"kv_dtype", "\"fp16\"", "llama.cpp common/common.h cache_type_k / cache_type_v = GGML_TYPE_F16"},
         {"n_ubatch", "512", "ollama llm/server.go: NumBatch 512"},
         {"seq", "2048", "ollama api/types.go DefaultOptions NumCtx 2048 (4096 from v0.6.x)"},
         {"attention", "\"eager\"", "ollama envconfig OLLAMA_FLASH_ATTENTION default false"},
         {"n_gpu_layers", "-1", "ollama llm/memory.go: as many layers as fit (all here; see the -ngl answer)"},
         {"fragmentation", "0", "ggml-alloc sizes each buffer exactly"},
         {"report", "\"device\"", "the buffers llama.cpp logs plus the CUDA context"},
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
