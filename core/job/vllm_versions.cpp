#include "job/vllm_versions.hpp"

#include <cctype>
#include <cstdlib>
#include <string>

#include "text/errors.hpp"

namespace vramcalc {
namespace {

// Sources. vLLM's history was read from the fork Yuran-7/vllm-0.11, which carries upstream's
// commits to the releases/v0.11.0 branch: v0.2.7 = 2e0b6e775, v0.4.3 = 87a658c81, v0.5.5 =
// 09c779261, v0.6.1 = 3fd2b0d21 ("Bump version" commits), main at the release date for
// v0.6.6 ≈ ac7979940, v0.7.3 ≈ bfbc0b32c, v0.8.5 ≈ cfe453209, v0.10.2 ≈ 973c9d01d, and
// v0.11.0 = b8b302cde. Later releases from their logs and pull requests, cited per value.
// Non-torch memory has no formula in vLLM's code (NCCL, cuBLAS, kernel modules): each
// version's is one published log's figure, cited beside it (GB = 1e9 bytes in these fields).

std::vector<PresetField> join(std::vector<PresetField> a, const std::vector<PresetField>& b) {
    a.insert(a.end(), b.begin(), b.end());
    return a;
}

// V0 (worker/worker.py determine_num_available_blocks, model_runner.py profile_run).
const std::vector<PresetField> kV0 = {
    {"vllm_engine", "\"v0\"", "VLLM_USE_V1=0: vllm/worker/worker.py"},
    {"vllm_context_in_budget", "false",
     "worker.py determine_num_available_blocks: peak = init free − free after profiling (#2863, v0.3.1): the CUDA context "
     "is in the baseline"},
    {"seqs_default", "256", "vllm/config.py SchedulerConfig max_num_seqs = 256 (v0.2.7 … v0.10)"},
    {"seqs_default_large", "256", "V0 has one default for every GPU"},
    {"chunked_prefill", "false",
     "engine/arg_utils.py EngineArgs.enable_chunked_prefill False; SchedulerConfig max_num_batched_tokens = "
     "max(max_model_len, 2048) without it"},
    {"v0_auto_chunked_above", "32768",
     "arg_utils.py create_engine_config (v0.5.4+; v0.8.5 _set_default_args_v0): chunked prefill on by default for "
     "max_model_len > 32K on CUDA"},
    {"sampler_in_profile", "true",
     "worker/model_runner.py profile_run: max_num_seqs dummy sequences sampled with top_p 0.99, top_k vocab − 1"},
    {"sampler_extra_bytes", "36",
     "model_executor/layers/sampler.py: fp32 logits (4 B), _apply_top_k_top_p sort values (4) and int64 indices (8), "
     "torch.sort's segmented-sort temporaries (20) per logit, beside the logits themselves (vramcalc's reading)"},
    {"sampler_fixed_mib", "0", "V0's sampler keeps no workspace"},
    {"moe_workspace_kept", "false", "model_executor/layers/fused_moe/fused_moe.py: intermediate caches freed after each layer"},
    {"cudagraph_mode", "\"full\"", "worker/model_runner.py capture_model: one graph of the whole decode step per batch size"},
    {"capture_sizes", "\"v0\"",
     "model_runner.py _BATCH_SIZES_TO_CAPTURE = [1, 2, 4] + 8·i, limited to max_num_seqs (_get_graph_batch_size)"},
    {"cudagraph_in_budget", "false", "model_runner.py capture_model runs after the KV cache is allocated"},
    {"limit_mm_per_prompt", "1", "config.py MultiModalConfig limit_per_prompt: 1 per modality in V0"},
    {"enable_prefix_caching", "false", "arg_utils.py EngineArgs.enable_prefix_caching False in V0"},
};

// V1 (v1/worker/gpu_worker.py determine_available_memory, v1/worker/gpu_model_runner.py profile_run).
const std::vector<PresetField> kV1 = {
    {"vllm_engine", "\"v1\"", "VLLM_USE_V1=1 (default from v0.8.0, #13726)"},
    {"vllm_context_in_budget", "false",
     "gpu_worker.py determine_available_memory → utils memory_profiling(init_snapshot, …) (#19312, v0.9.1): non-KV "
     "memory counts from the snapshot taken after the CUDA context exists"},
    {"seqs_default", "256", "engine/arg_utils.py _set_default_args: max_num_seqs 256 below 70 GiB (v0.8.5, #17073)"},
    {"seqs_default_large", "1024", "arg_utils.py: max_num_seqs 1024 on GPUs of 70 GiB and more (H100, H200, MI300X)"},
    {"tokens_default", "2048", "arg_utils.py: max_num_batched_tokens 2048 for OPENAI_API_SERVER below 70 GiB"},
    {"tokens_default_large", "8192", "arg_utils.py: max_num_batched_tokens 8192 for OPENAI_API_SERVER from 70 GiB"},
    {"tokens_offline", "8192", "arg_utils.py: max_num_batched_tokens 8192 for LLM_CLASS below 70 GiB"},
    {"tokens_offline_large", "16384", "arg_utils.py: max_num_batched_tokens 16384 for LLM_CLASS from 70 GiB"},
    {"large_gpu_gib", "70", "arg_utils.py: device_memory >= 70 * GiB_bytes"},
    {"chunked_prefill", "true", "v1/core/sched/scheduler.py: V1 always schedules with chunked prefill"},
    {"v0_auto_chunked_above", "0", "V1 needs no automatic switch"},
    {"sampler_in_profile", "true",
     "gpu_model_runner.py profile_run → _dummy_sampler_run (#13776, v0.8.0): logits of max_num_seqs rows, sampler "
     "with temperature 0.5, top_p 0.9, top_k vocab − 1"},
    {"sampler_extra_bytes", "36", "v1/sample/ops/topk_topp_sampler.py apply_top_k_top_p: the same sort as V0's"},
    {"sampler_fixed_mib", "0", "the sort keeps no workspace"},
    {"moe_workspace_kept", "false", "fused_moe.py fused_experts: intermediate caches freed after each layer (no published "
                                    "MoE profile of these versions shows otherwise)"},
    {"overhead_gb", "0.268",
     "llm-d-planner v0.19.0 run Llama-3.1-8B TP 1 on H100 (accuracy/results/v0.19.0, d3121e059da8): 'non-torch forward "
     "increase memory: 0.25GiB'"},
    {"comm_buffers_gb", "1.954",
     "llm-d-planner v0.19.0 Llama-3.1-8B TP 2 on H100: non-torch 2.07 GiB − 0.25 GiB at TP 1 = 1.82 GiB of NCCL "
     "(NVLink SHARP) buffers"},
    {"pp_overhead_gb", "0.075", "llm-d-planner v0.19.0 Llama-3.1-8B PP 2 and PP 4: non-torch 0.07 GiB on the first stage"},
    {"cudagraph_mode", "\"piecewise\"", "v1 compilation level 3 (v0.7 – v0.10): piecewise CUDA graphs around attention"},
    {"capture_sizes", "\"v1_fixed\"", "config.py VllmConfig._set_cudagraph_sizes (v0.7 – v0.9.1): [1, 2, 4] + range(8, 513, 8)"},
    {"cudagraph_in_budget", "false", "gpu_worker.py compile_or_warm_up_model captures after the KV cache is allocated"},
    {"graph_layer_kib", "192",
     "the graph executables the driver keeps, per layer per captured size: vLLM's own profiler on Llama-3.1-8B TP 1 "
     "(llm-d-planner v0.19.0 log, d3121e059da8: 'Estimated PIECEWISE CUDA graph memory: 138.00 MiB first-capture + "
     "(51-1) × 6.00 MiB per-graph', FULL the same 6.00): the second capture reuses the first's pool, so 6 MiB / 32 "
     "layers is the executables alone (gpu_model_runner.py profile_cudagraph_memory; no graph row checks that run)"},
    {"limit_mm_per_prompt", "999", "config/multimodal.py MultiModalConfig.get_limit_per_prompt: 999 per modality in V1"},
    {"enable_prefix_caching", "true", "arg_utils.py _set_default_args_v1: prefix caching on"},
};

// The V0 engine's non-torch figures: PR #10511's (H100, v0.6.5) up to 0.6, PR #14447's from 0.7.
const std::vector<PresetField> kV0Mid = join(kV0, {
    {"overhead_gb", "1.922", "vLLM PR #10511 log (v0.6.5, H100, TP 1): non_torch_memory 1.79GiB"},
    {"comm_buffers_gb", "1.922", "PR #10511 log (H100, TP 2): non_torch_memory 3.58GiB, 1.79 GiB more than at TP 1"},
    {"tokens_chunked_v0", "512", "config.py SchedulerConfig: max_num_batched_tokens 512 with chunked prefill (v0.4 – v0.6.4)"},
});
const std::vector<PresetField> kV0Late = join(kV0, {
    {"overhead_gb", "0.215",
     "V0 utils.MemorySnapshot (#12126): non-torch = growth of device use less torch reserved; vLLM PR #14447 log "
     "(V0 0.8, 24 GB cards): non_torch_memory takes 0.20GiB"},
    {"comm_buffers_gb", "0", "PR #14447 / issue #13061 logs (PCIe cards, TP > 1): no NCCL growth over TP 1"},
});
// V1 from 0.9 (the A100 rule), from 0.11 (FULL_AND_PIECEWISE) and from 0.17 (the Triton sampler).
const std::vector<PresetField> kV1Nine = join(kV1, {
    {"a100_small", "true", "arg_utils.py (#17885, v0.9.0; v0.11.0 _set_default_args): the large defaults skip A100s "
                           "('a100' not in device_name)"},
});
const std::vector<PresetField> kV1Eleven = join(kV1Nine, {
    {"capture_sizes", "\"v1_twice\"", "v0.11.0 config/__init__.py _set_cudagraph_sizes: [1, 2, 4] + range(8, min(2·max_num_seqs, 512) + 1, 8)"},
    {"cudagraph_mode", "\"full_and_piecewise\"", "v0.11.0 config/compilation.py: FULL_AND_PIECEWISE is the V1 default (#25444)"},
    {"fa_max_splits", "32",
     "envs.py VLLM_FLASH_ATTN_MAX_NUM_SPLITS_FOR_CUDA_GRAPH default '32' (later attention_config."
     "flash_attn_max_num_splits_for_cuda_graph), the split-KV bound flash_attn.py fixes for FULL graphs"},
    {"capture_max_gpt_oss", "992",
     "models/config.py GptOssForCausalLMConfig.verify_and_update_config (v0.11.1 log: 'Overriding max cuda graph "
     "capture size to 992 for performance')"},
});
const std::vector<PresetField> kV1Triton = join(kV1Eleven, {
    {"capture_sizes", "\"v1_twice16\"", "v0.19 logs (llm-d-planner): 51 sizes, 1 … 256 by 8, 272 … 512 by 16"},
    {"capture_max_gpt_oss", "1024",
     "models/config.py GptOssForCausalLMConfig: max_cudagraph_capture_size = 1024 ('This will increase the number of "
     "CUDA graphs from 67 to 83'; v0.19 log: 'Overriding max cuda graph capture size to 1024')"},
    {"sampler_extra_bytes", "12",
     "v1/sample/ops/topk_topp_triton.py (PR #33538, Triton top-k/top-p without the sort): the fp32 logits (4 B), "
     "the softmax probabilities (4) and random_sample's exponential noise (4) per logit (vramcalc's reading)"},
    {"sampler_fixed_mib", "80", "PR #33538: the Triton kernel's [programs, vocab] buffers, 'around ~80MiB of extra VRAM'"},
    {"moe_workspace_kept", "true",
     "fused_moe/modular_kernel.py SharedResizableBuffer (in v0.11.0; on the default MoE path by v0.19, whose MoE "
     "runs' profile peaks include them): the workspaces outlive the forward"},
});

const std::vector<VllmVersionPreset> kPresets = {
    {0, 2, 0, "vLLM 0.2 – 0.3.0", VllmEngine::V0, true, false, {},
     join(kV0, {
         {"vllm_context_in_budget", "true",
          "v0.2.7 worker.py profile_num_available_blocks: peak = total − free after profiling, so the CUDA context, "
          "NCCL and torch's cached blocks count"},
         {"overhead_gb", "0.822",
          "vLLM PR #2031 (Llama-2-7B, TP 1, A100-80GB): 7449 → 7351 GPU blocks when device memory replaced torch's "
          "peak, 98 blocks × 8 MiB = 0.77 GiB"},
         {"comm_buffers_gb", "0", "no published figure for NCCL under v0.2 at TP > 1"},
         {"cudagraph_mode", "\"none\"", "CUDA graphs arrived in v0.2.7 (#1926); before, every step ran eager"},
     }),
     {}},
    {0, 3, 1, "vLLM 0.3.1 – 0.5", VllmEngine::V0, true, false, {}, kV0Mid, {}},
    {0, 6, 0, "vLLM 0.6.0 – 0.6.4", VllmEngine::V0, true, false, {}, kV0Mid, {}},
    {0, 6, 5, "vLLM 0.6.5 – 0.6.6", VllmEngine::V0, true, false, {},
     join(kV0Mid, {{"tokens_chunked_v0", "2048", "config.py SchedulerConfig: 2048 with chunked prefill (#10544, v0.6.5)"}}), {}},
    {0, 7, 0, "vLLM 0.7", VllmEngine::V0, true, true, {}, kV0Late,
     join(kV1, {
         {"seqs_default", "1024", "v0.7.3 arg_utils.py EngineArgs.__post_init__: max_num_seqs 1024 under VLLM_USE_V1"},
         {"sampler_in_profile", "false",
          "v0.7.3 v1/worker/gpu_model_runner.py profile_run: logits of the last token of each request, no sampler "
          "(added in v0.8.0, #13776)"},
     })},
    {0, 8, 0, "vLLM 0.8.0 – 0.8.4", VllmEngine::V1, true, true, {}, kV0Late,
     join(kV1, {{"seqs_default", "1024", "v0.8.0 arg_utils.py (#13726): max_num_seqs 1024 for V1 on every GPU"}})},
    {0, 8, 5, "vLLM 0.8.5", VllmEngine::V1, true, true, {}, kV0Late, kV1},
    {0, 9, 0, "vLLM 0.9", VllmEngine::V1, true, true, {}, kV0Late, kV1Nine},
    {0, 10, 0, "vLLM 0.10", VllmEngine::V1, true, true, {}, kV0Late,
     join(kV1Nine, {{"capture_sizes", "\"v1_twice\"", "v0.10.2 config _set_cudagraph_sizes (#20628): [min(2·max_num_seqs, 512)]"}})},
    {0, 11, 0, "vLLM 0.11 – 0.16", VllmEngine::V1, false, true, {}, {}, kV1Eleven},
    {0, 17, 0, "vLLM 0.17 – 0.20", VllmEngine::V1, false, true, {}, {}, kV1Triton},
    {0, 21, 0, "vLLM 0.21 and later", VllmEngine::V1, false, true, {}, {},
     join(kV1Triton, {
         {"cudagraph_in_budget", "true",
          "PR #30515: VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS, on by default since v0.21.0 ('CUDA graph memory "
          "profiling is enabled (default since v0.21.0)'): the graphs' estimate joins the non-KV memory"},
     })},
};

// A whole number of 1 to 6 digits at `i` (moved past it).
bool digits_at(const std::string& t, size_t& i, long* value = nullptr) {
    const size_t start = i;
    long v = 0;
    while (i < t.size() && t[i] >= '0' && t[i] <= '9' && i - start < 6) v = v * 10 + (t[i++] - '0');
    if (value) *value = v;
    return i > start && (i == t.size() || t[i] < '0' || t[i] > '9');
}
// `tag` then digits at `i` (moved past both), else false and `i` unchanged.
bool tagged_number(const std::string& t, size_t& i, const char* tag) {
    const size_t n = std::char_traits<char>::length(tag), from = i;
    if (t.compare(i, n, tag) != 0) return false;
    i += n;
    if (digits_at(t, i)) return true;
    i = from;
    return false;
}

// A release as pip names it (PEP 440, the forms vLLM's releases take): "0.19.0", "v0.6.5.post1",
// "0.10.1.1", "0.15.2rc1.dev93", "0.6.3+cu118" → (0, 19, 0); false when it is no version, or has
// anything else after it ("0.6.5 abc", "0.10\"><x>": issue 37 L3; such text travelled into links).
bool parse_version(const std::string& text, int& major, int& minor, int& patch) {
    const std::string& t = text;
    size_t i = !t.empty() && (t[0] == 'v' || t[0] == 'V') ? 1 : 0;
    long parts[4] = {0, 0, 0, 0};
    int k = 0;
    for (; k < 4; ++k) {
        if (!digits_at(t, i, &parts[k])) return false;  // "0.19" is enough; "0", "x" or "0." is not
        if (i < t.size() && t[i] == '.' && k < 3 && i + 1 < t.size() && t[i + 1] >= '0' && t[i + 1] <= '9') ++i;
        else break;
    }
    if (k == 0) return false;
    // Pre-release, post-release, development release, local version: each at most once, in this order.
    if (!tagged_number(t, i, "rc") && !tagged_number(t, i, "a")) tagged_number(t, i, "b");
    tagged_number(t, i, ".post");
    tagged_number(t, i, ".dev");
    if (i < t.size() && t[i] == '+') {
        const size_t local = ++i;
        while (i < t.size() && (std::isalnum(static_cast<unsigned char>(t[i])) || (t[i] == '.' && i > local && i + 1 < t.size())))
            ++i;
        if (i == local) return false;
    }
    if (i != t.size()) return false;
    major = static_cast<int>(parts[0]), minor = static_cast<int>(parts[1]), patch = static_cast<int>(parts[2]);
    return true;
}

bool at_or_after(const VllmVersionPreset& p, int major, int minor, int patch) {
    if (major != p.major) return major > p.major;
    if (minor != p.minor) return minor > p.minor;
    return patch >= p.patch;
}

}  // namespace

const std::vector<VllmVersionPreset>& vllm_presets() { return kPresets; }

const VllmVersionPreset& vllm_preset_for(const std::string& version, const std::string& field, std::string& resolved) {
    if (version == "newest" || version == "latest") {
        resolved = std::string("newest (") + kPresets.back().label + ")";
        return kPresets.back();
    }
    int major = 0, minor = 0, patch = 0;
    if (!parse_version(version, major, minor, patch))
        throw InputError(field, "must be a vLLM release such as \"0.19.0\" or \"0.6.5\", or \"newest\"; got '" +
                                    short_text(version) + "'");
    if (!at_or_after(kPresets.front(), major, minor, patch))
        throw InputError(field, "vLLM before 0.2 is not modelled; got '" + short_text(version) + "'");
    const VllmVersionPreset* found = &kPresets.front();
    for (const auto& p : kPresets)
        if (at_or_after(p, major, minor, patch)) found = &p;
    resolved = std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(patch);
    return *found;
}

}  // namespace vramcalc
