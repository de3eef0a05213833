#include "job/runtime_versions.hpp"

#include <cctype>
#include <cstdlib>

#include "text/errors.hpp"

namespace vramcalc {
namespace {

// Sources. Ollama: ollama/ollama at fb3076099 (v0.33.0-rc2, 2026-08-21); each change found with
// `git log -S` and dated by the first release tag that contains it. llama.cpp: the pull requests that
// changed common/common.h's defaults (common_params), merged on ggml-org/llama.cpp master: #10136
// (2024-11, n_ctx 4096), #15434 (2025-08, -fa auto and all layers on the GPU), #16653 (2025-12, --fit);
// llama-server builds carry a build number, not a version, so entries are named by the month. MLX:
// ml-explore/mlx-lm at d78bf58e2 (0.32.0, 2026-08-22).
const std::vector<PresetField> kLlamaCommon = {
    {"n_ubatch", "512", "llama.cpp common/common.h common_params n_ubatch = 512"},
    {"kv_dtype", "\"fp16\"", "common/common.h cache_type_k / cache_type_v = GGML_TYPE_F16"},
    {"op_offload", "true",
     "ggml-backend.cpp ggml_backend_sched: ops on weights in host memory run on the GPU for batches of 32 or more "
     "(ggml-cuda.cu offload_op min_batch_size = 32), copying the weights over PCIe (PR #6083)"},
};
std::vector<PresetField> with(std::vector<PresetField> a, const std::vector<PresetField>& b) {
    a.insert(a.end(), b.begin(), b.end());
    return a;
}

const std::vector<RuntimeVersion> kVersions = {
    // ---- llama.cpp (llama-server)
    {Engine::LlamaCpp, "2023-01", "llama.cpp to 2025-08 (flash attention off)",
     with(kLlamaCommon, {
         {"seq", "4096", "PR #10136 (2024-11): common_params n_ctx = 4096, not the training context (512 before it)"},
         {"attention", "\"eager\"", "common/common.h flash_attn = false until PR #15434 (-fa opt-in)"},
         {"fit", "false", "no --fit before PR #16653"},
         {"ctx_auto", "false", "-c 4096 by default"},
         {"n_gpu_layers", "-1", "-ngl 99 as users passed it (the default, 0, kept every layer on the CPU)"},
     })},
    {Engine::LlamaCpp, "2025-08", "llama.cpp 2025-08 – 2025-12 (-fa auto, every layer on the GPU)",
     with(kLlamaCommon, {
         {"seq", "4096", "common_params n_ctx = 4096 (PR #10136)"},
         {"attention", "\"flash\"",
          "PR #15434 (2025-08) 'use FA + max. GPU layers by default': flash_attn_type = LLAMA_FLASH_ATTN_TYPE_AUTO, on "
          "where the backend supports it (CUDA, Metal, Vulkan)"},
         {"fit", "false", "no --fit before PR #16653"},
         {"ctx_auto", "false", "-c 4096 by default"},
         {"n_gpu_layers", "-1", "PR #15434: n_gpu_layers = all by default"},
     })},
    {Engine::LlamaCpp, "2025-12", "llama.cpp 2025-12 and later (--fit on)",
     with(kLlamaCommon, {
         {"attention", "\"flash\"", "common/common.h flash_attn_type = LLAMA_FLASH_ATTN_TYPE_AUTO"},
         {"fit", "true",
          "PR #16653 (2025-12): common_params fit_params = true; common/fit.cpp common_fit_params shrinks the "
          "context, then moves MoE tensors and layers to system memory, until each GPU keeps its margin"},
         {"ctx_auto", "true", "common_params n_ctx = 0: the model's trained context, which --fit shrinks"},
         {"fit_target_mib", "1024", "common_params fit_params_target = 1024 MiB per device"},
         {"fit_min_ctx", "4096", "common_params fit_params_min_ctx = 4096"},
         {"n_gpu_layers", "-1", "common_params n_gpu_layers = -1 (auto: --fit places them)"},
     })},
    // ik_llama.cpp (ikawrakow's fork): flash attention and MoE fusion by flag (-fa, -fmoe), no --fit, and
    // routed experts in RAM computed by the CPU at every batch size (its repacked CPU kernels, -rtr), so no
    // weights cross PCIe during prefill and the GPU's compute buffer holds no copy of them.
    {Engine::LlamaCpp, "ik", "ik_llama.cpp",
     with(kLlamaCommon, {
         {"seq", "4096", "ik_llama.cpp common/common.h n_ctx = 4096"},
         {"attention", "\"flash\"", "ik_llama.cpp users run -fa (every measured run here does)"},
         {"fit", "false", "ik_llama.cpp has no --fit"},
         {"ctx_auto", "false", "-c 4096 by default"},
         {"op_offload", "false", "ik_llama.cpp computes host-resident MoE tensors on the CPU (-rtr repacked kernels)"},
     })},
    // ---- Ollama
    {Engine::Ollama, "0.1.0", "Ollama 0.1",
     {
         {"seq", "2048", "api/types.go DefaultOptions NumCtx: 2048"},
         {"attention", "\"eager\"", "envconfig OLLAMA_FLASH_ATTENTION default false"},
         {"num_parallel", "1", "one request at a time (before 0.2's OLLAMA_NUM_PARALLEL)"},
         {"fit", "false", "llm/memory.go EstimateGPULayers places the layers"},
         {"ollama_ctx_by_vram", "false", "fixed default context"},
     }},
    {Engine::Ollama, "0.2.0", "Ollama 0.2 – 0.6.6",
     {
         {"seq", "2048", "api/types.go DefaultOptions NumCtx: 2048"},
         {"attention", "\"eager\"", "envconfig OLLAMA_FLASH_ATTENTION default false"},
         {"num_parallel", "4",
          "server/sched.go: OLLAMA_NUM_PARALLEL unset picks 4 when the model fits with 4 (else 1); the runner's -c is "
          "num_ctx × num_parallel"},
         {"fit", "false", "llm/memory.go EstimateGPULayers places the layers"},
         {"ollama_ctx_by_vram", "false", "fixed default context"},
     }},
    {Engine::Ollama, "0.6.7", "Ollama 0.6.7 – 0.9",
     {
         {"seq", "4096", "envconfig ContextLength default 4096 (44b466eeb, 'update default context length to 4096')"},
         {"attention", "\"eager\"", "envconfig OLLAMA_FLASH_ATTENTION default false"},
         {"num_parallel", "4", "server/sched.go: OLLAMA_NUM_PARALLEL auto (4 when it fits)"},
         {"fit", "false", "llm/memory.go places the layers"},
         {"ollama_ctx_by_vram", "false", "fixed default context"},
     }},
    {Engine::Ollama, "0.10.0", "Ollama 0.10 – 0.13.3",
     {
         {"seq", "4096", "envconfig ContextLength default 4096"},
         {"attention", "\"eager\"", "envconfig OLLAMA_FLASH_ATTENTION default false (gpt-oss on from 0.11.8, #11996)"},
         {"num_parallel", "1", "envconfig NumParallel default 1 ('Reduce default parallelism to 1', #11330)"},
         {"fit", "false", "llm/server.go places the layers (Ollama's memory layouts from 0.12.11)"},
         {"ollama_ctx_by_vram", "false", "fixed default context"},
     }},
    {Engine::Ollama, "0.13.4", "Ollama 0.13.4 – 0.15.4",
     {
         {"seq", "4096", "envconfig ContextLength default 4096"},
         {"attention", "\"flash\"", "llm/server.go: flash attention auto unless OLLAMA_FLASH_ATTENTION is set (#13052)"},
         {"num_parallel", "1", "envconfig NumParallel default 1"},
         {"fit", "false", "llm/server.go places the layers"},
         {"ollama_ctx_by_vram", "false", "fixed default context"},
     }},
    {Engine::Ollama, "0.15.5", "Ollama 0.15.5 – 0.29",
     {
         {"seq", "4096", "the tier below 23 GiB of VRAM"},
         {"attention", "\"flash\"", "flash attention auto (#13052)"},
         {"num_parallel", "1", "envconfig NumParallel default 1"},
         {"fit", "false", "llm/server.go places the layers"},
         {"ollama_ctx_by_vram", "true",
          "server/routes.go (0334ffa62, 'use tiered VRAM-based default context length'): num_ctx 262,144 from 47 GiB of "
          "total VRAM, 32,768 from 23 GiB, else 4,096; llm/server.go caps it at the model's trained context"},
     }},
    {Engine::Ollama, "0.30.0", "Ollama 0.30 and later (the llama-server runner)",
     {
         {"seq", "4096", "the tier below 23 GiB of VRAM"},
         {"attention", "\"flash\"", "llm/llama_server.go appendFlashAttentionArgs: --flash-attn auto"},
         {"num_parallel", "1", "envconfig NumParallel default 1; llama_server.go passes -c num_ctx × np and -np"},
         {"fit", "true",
          "#16031 (0.30.0): GGML models run upstream llama-server, which places layers and MoE tensors with --fit "
          "(llama_server.go passes -ngl only when num_gpu is set)"},
         {"ollama_ctx_by_vram", "true", "server/routes.go tiered default context"},
     }},
    // ---- MLX (mlx-lm)
    {Engine::Mlx, "0.20", "mlx-lm 0.20 and later",
     {
         {"kv_bits", "0", "mlx_lm/generate.py generate_step kv_bits = None: the KV cache in the model's dtype"},
         {"mlx_group_size", "64", "mlx_lm/utils.py quantize_model: affine defaults (group 64, 4 bits)"},
         {"prefill_step_size", "2048", "mlx_lm/server.py --prefill-step-size default 2048"},
         {"prompt_cache_size", "10", "mlx_lm/server.py --prompt-cache-size default 10 (LRUPromptCache)"},
         {"attention", "\"flash\"", "mx.fast.scaled_dot_product_attention: fused, no scores kept"},
     }},
};

// "0.15.5", "v0.6.7", "0.31" → numbers; false when it is no version.
bool parse_semver(const std::string& text, int (&parts)[3]) {
    std::string t = text;
    if (!t.empty() && (t[0] == 'v' || t[0] == 'V')) t.erase(0, 1);
    parts[0] = parts[1] = parts[2] = 0;
    size_t i = 0;
    for (int k = 0; k < 3; ++k) {
        const size_t start = i;
        long value = 0;
        while (i < t.size() && t[i] >= '0' && t[i] <= '9' && i - start < 6) value = value * 10 + (t[i++] - '0');
        if (i == start) return k >= 2;
        parts[k] = static_cast<int>(value);
        if (i < t.size() && t[i] == '.' && k < 2) ++i;
        else return k >= 1 && (i == t.size() || t[i] == '-' || t[i] == '+' || t[i] == 'r');
    }
    return true;
}
int compare(const int (&a)[3], const int (&b)[3]) {
    for (int k = 0; k < 3; ++k)
        if (a[k] != b[k]) return a[k] < b[k] ? -1 : 1;
    return 0;
}
// llama.cpp entries are months: "2025-08" (a date in them, "2025-09-14", selects the entry in force).
bool is_month(const std::string& t) {
    return t.size() >= 7 && t[4] == '-' && std::isdigit(static_cast<unsigned char>(t[0])) &&
           std::isdigit(static_cast<unsigned char>(t[5])) && std::isdigit(static_cast<unsigned char>(t[6]));
}

}  // namespace

const std::vector<RuntimeVersion>& runtime_versions() { return kVersions; }

const char* runtime_version_field(Engine e) {
    switch (e) {
        case Engine::LlamaCpp: return "llamacpp_version";
        case Engine::Ollama: return "ollama_version";
        case Engine::Mlx: return "mlx_version";
        default: return "";
    }
}

const RuntimeVersion& runtime_version_for(Engine e, const std::string& version, const std::string& field, std::string& resolved) {
    std::vector<const RuntimeVersion*> entries;
    for (const RuntimeVersion& v : kVersions)
        if (v.engine == e && std::string(v.first) != "ik") entries.push_back(&v);
    if (version == "newest" || version == "latest") {
        resolved = std::string("newest (") + entries.back()->label + ")";
        return *entries.back();
    }
    if (e == Engine::LlamaCpp) {
        if (version == "ik" || version == "ik_llama.cpp") {
            resolved = "ik_llama.cpp";
            for (const RuntimeVersion& v : kVersions)
                if (v.engine == e && std::string(v.first) == "ik") return v;
        }
        if (!is_month(version))
            throw InputError(field, "must be a month of llama.cpp builds such as \"2025-08\" (the defaults changed in "
                                    "2025-08 and 2025-12), \"ik\" for ik_llama.cpp, or \"newest\"; got '" +
                                        short_text(version) + "'");
        if (version.compare(0, 7, entries.front()->first) < 0)
            throw InputError(field, "llama.cpp before 2023 (GGUF) is not modelled; got '" + short_text(version) + "'");
        const RuntimeVersion* found = entries.front();
        for (const RuntimeVersion* v : entries)
            if (version.compare(0, 7, v->first) >= 0) found = v;
        resolved = version.substr(0, 10);
        return *found;
    }
    int asked[3];
    if (!parse_semver(version, asked))
        throw InputError(field, std::string("must be a release such as \"") + entries.back()->first + "\", or \"newest\"; got '" +
                                    short_text(version) + "'");
    int first[3];
    parse_semver(entries.front()->first, first);
    if (compare(asked, first) < 0)
        throw InputError(field, std::string("releases before ") + entries.front()->first + " are not modelled; got '" +
                                    short_text(version) + "'");
    const RuntimeVersion* found = entries.front();
    for (const RuntimeVersion* v : entries) {
        int at[3];
        parse_semver(v->first, at);
        if (compare(asked, at) >= 0) found = v;
    }
    resolved = std::to_string(asked[0]) + "." + std::to_string(asked[1]) + "." + std::to_string(asked[2]);
    return *found;
}

}  // namespace vramcalc
