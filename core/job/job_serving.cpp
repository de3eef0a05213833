#include "job/job_serving.hpp"

#include <nlohmann/json.hpp>

#include "hardware/gpus.hpp"
#include "job/choices.hpp"
#include "text/units.hpp"

namespace vramcalc {
namespace {

using nlohmann::json;

const Choice<Engine> kEngines[] = {{"custom", Engine::Custom},     {"hf", Engine::HfGenerate},
                                   {"vllm", Engine::Vllm},         {"sglang", Engine::Sglang},
                                   {"llamacpp", Engine::LlamaCpp}, {"ollama", Engine::Ollama},
                                   {"mlx", Engine::Mlx}};
const Choice<GgufRules> kGgufRules[] = {{"current", GgufRules::Current}, {"2023-12", GgufRules::Dec2023}};
const Choice<SplitMode> kSplitModes[] = {{"layer", SplitMode::Layer}, {"row", SplitMode::Row}, {"none", SplitMode::None}};
const Choice<VllmEngine> kVllmEngines[] = {{"v0", VllmEngine::V0}, {"v1", VllmEngine::V1}};
const Choice<CudaGraphMode> kGraphModes[] = {{"none", CudaGraphMode::None}, {"full", CudaGraphMode::Full},
                                             {"piecewise", CudaGraphMode::Piecewise},
                                             {"full_and_piecewise", CudaGraphMode::FullAndPiecewise}};
const Choice<CaptureSizes> kCaptureSizes[] = {{"v0", CaptureSizes::V0}, {"v1_fixed", CaptureSizes::V1Fixed},
                                              {"v1_twice", CaptureSizes::V1Twice}, {"v1_twice16", CaptureSizes::V1Twice16}};
const Choice<CacheImpl> kCaches[] = {{"dynamic", CacheImpl::Dynamic},
                                     {"static", CacheImpl::Static},
                                     {"offloaded", CacheImpl::Offloaded},
                                     {"offloaded_static", CacheImpl::OffloadedStatic},
                                     {"quantized", CacheImpl::Quantized}};

const Gpu* gpu_field(const json& v, const std::string& field) {
    const std::string id = text_field(v, field);
    std::string names;
    for (const Gpu& g : gpu_catalog()) {
        if (id == g.id) return &g;
        names += (names.empty() ? "" : ", ") + std::string(g.id);
    }
    throw InputError(field, "unknown GPU '" + short_text(id) + "'; choose cpu (no GPU) or one of " + names);
}

// -ts as llama.cpp takes it: a list of shares, or the same written "3,1" (as the CLI passes it).
std::vector<double> split_field(const json& v, const std::string& field) {
    std::vector<double> shares;
    if (v.is_array()) {
        if (v.size() > 64) throw InputError(field, "lists more than 64 GPUs");
        for (size_t i = 0; i < v.size(); ++i) shares.push_back(number_field(v[i], field + "[" + std::to_string(i) + "]", 0, 1e6));
    } else {
        const std::string text = text_field(v, field);
        size_t start = 0;
        while (start <= text.size() && shares.size() <= 64) {
            const size_t end = std::min(text.find(',', start), text.size());
            const std::string part = text.substr(start, end - start);
            char* stop = nullptr;
            const double x = std::strtod(part.c_str(), &stop);
            if (part.empty() || stop != part.c_str() + part.size() || !(x >= 0 && x <= 1e6))
                throw InputError(field, "must be shares of each GPU like [3, 1] or \"3,1\", got " + describe_value(v));
            shares.push_back(x);
            start = end + 1;
        }
    }
    double sum = 0;
    for (double x : shares) sum += x;
    if (!shares.empty() && sum <= 0) throw InputError(field, "gives every GPU a share of 0");
    return shares;
}

}  // namespace

Engine engine_field(const json& v, const std::string& field) { return read_choice(v, field, kEngines); }

const NumberFormat* kv_format(const json& v, const std::string& field) {
    std::string name = text_field(v, field);
    if (name == "auto") return nullptr;
    // vLLM's CacheConfig cache_dtype: fp8 is fp8_e4m3; both fp8 kinds store 1 byte per element.
    if (name == "fp8_e4m3" || name == "fp8_e5m2") name = "fp8";
    const NumberFormat& f = find_format(name, field);
    if (!is_kv_format(f)) {
        std::string names;
        for (const char* n : kv_format_names()) names += (names.empty() ? "" : ", ") + std::string(n);
        throw InputError(field, "must be one of " + names + ", got '" + name + "'");
    }
    return &f;
}

bool read_serving_field(Job& job, const std::string& key, const json& v, const std::string& field) {
    constexpr int64_t kTokens = 100'000'000;
    if (key == "engine") job.engine = engine_field(v, field);
    else if (key == "gpu" && v.is_string() && v.get_ref<const std::string&>() == "cpu") {
        job.gpu = nullptr;  // a machine without a GPU (issue 32)
        job.machine.cpu_only = true;
    }
    else if (key == "gpu") {
        job.gpu = gpu_field(v, field);
        const std::string id = job.gpu->id;
        job.gpu_is_a100 = id.rfind("a100", 0) == 0;  // resolved here, once
        job.gpu_is_hopper = id.rfind("h100", 0) == 0 || id == "h200" || id == "h800" || id == "h20";
    }
    else if (key == "device_gib") job.device_gib = device_memory_field(v, field, 1);
    else if (key == "gpu_memory_utilization") job.gpu_memory_utilization = number_field(v, field, 0.01, 1);
    else if (key == "mem_fraction_static") job.mem_fraction_static = number_field(v, field, 0, 1);
    else if (key == "comm_buffers_gb") job.comm_buffers_gb = number_field(v, field, 0, 1000);
    else if (key == "pp_overhead_gb") job.pp_overhead_gb = number_field(v, field, 0, 1000);
    else if (key == "max_model_len") job.max_model_len = whole_field(v, field, 0, kTokens);
    else if (key == "max_num_batched_tokens" || key == "chunked_prefill_size") job.max_num_batched_tokens = whole_field(v, field, 0, kTokens);
    else if (key == "max_num_seqs") job.max_num_seqs = whole_field(v, field, 0, 1'000'000);
    else if (key == "chunked_prefill" || key == "enable_chunked_prefill") job.chunked_prefill = bool_field(v, field);
    else if (key == "block_size") job.block_size = whole_field(v, field, 1, 1'000'000);
    else if (key == "new_tokens") job.new_tokens = whole_field(v, field, 0, kTokens);
    else if (key == "n_ubatch") job.n_ubatch = whole_field(v, field, 1, 1'000'000);
    else if (key == "n_gpu_layers") job.n_gpu_layers = whole_field(v, field, -1, 100'000);
    else if (key == "experts_on_cpu") job.experts_on_cpu = bool_field(v, field);
    else if (key == "gguf_rules") job.gguf_rules = read_choice(v, field, kGgufRules);
    else if (key == "swa_full") job.swa_full = bool_field(v, field);
    else if (key == "ep") job.ep = whole_field(v, field, 1, 100'000);
    else if (key == "dp_attention") job.dp_attention = bool_field(v, field);
    else if (key == "kv_cache_dtype") job.kv_dtype = kv_format(v, field);
    // llama.cpp / Ollama across GPUs
    else if (key == "split_mode") job.split_mode = read_choice(v, field, kSplitModes);
    else if (key == "tensor_split") job.tensor_split = split_field(v, field);
    else if (key == "main_gpu") job.main_gpu = whole_field(v, field, 0, 63);
    else if (key == "ollama_spread") job.ollama_spread = bool_field(v, field);
    // vLLM by version (core/job/vllm_versions.cpp sets these from vllm_version)
    else if (key == "vllm_version") text_field(v, field);  // resolved by parse_job before the user's fields
    else if (key == "vllm_engine") job.vllm_engine = read_choice(v, field, kVllmEngines);
    else if (key == "vllm_context_in_budget") job.vllm_context_in_budget = bool_field(v, field);
    else if (key == "vllm_offline") job.vllm_offline = bool_field(v, field);
    else if (key == "v0_auto_chunked_above") job.v0_auto_chunked_above = whole_field(v, field, 0, kTokens);
    else if (key == "seqs_default") job.seqs_default = whole_field(v, field, 1, 1'000'000);
    else if (key == "seqs_default_large") job.seqs_default_large = whole_field(v, field, 1, 1'000'000);
    else if (key == "tokens_default") job.tokens_default = whole_field(v, field, 1, kTokens);
    else if (key == "tokens_default_large") job.tokens_default_large = whole_field(v, field, 1, kTokens);
    else if (key == "tokens_offline") job.tokens_offline = whole_field(v, field, 1, kTokens);
    else if (key == "tokens_offline_large") job.tokens_offline_large = whole_field(v, field, 1, kTokens);
    else if (key == "tokens_chunked_v0") job.tokens_chunked_v0 = whole_field(v, field, 1, kTokens);
    else if (key == "large_gpu_gib") job.large_gpu_gib = number_field(v, field, 0, 100'000);
    else if (key == "a100_small") job.a100_small = bool_field(v, field);
    else if (key == "sampler_in_profile") job.sampler_in_profile = bool_field(v, field);
    else if (key == "sampler_extra_bytes") job.sampler_extra_bytes = number_field(v, field, 0, 1000);
    else if (key == "sampler_fixed_mib") job.sampler_fixed_mib = number_field(v, field, 0, 1e6);
    else if (key == "moe_workspace_kept") job.moe_workspace_kept = bool_field(v, field);
    else if (key == "enforce_eager") job.enforce_eager = bool_field(v, field);
    else if (key == "cudagraph_mode") job.cudagraph_mode = read_choice(v, field, kGraphModes);
    else if (key == "capture_sizes") job.capture_sizes = read_choice(v, field, kCaptureSizes);
    else if (key == "max_cudagraph_capture_size") job.max_cudagraph_capture_size = whole_field(v, field, 0, 1'000'000);
    else if (key == "cudagraph_in_budget") job.cudagraph_in_budget = bool_field(v, field);
    else if (key == "graph_layer_kib") job.graph_layer_kib = number_field(v, field, 0, 1e6);
    else if (key == "fa_max_splits") job.fa_max_splits = whole_field(v, field, 0, 256);
    else if (key == "capture_max_gpt_oss") job.capture_max_gpt_oss = whole_field(v, field, 0, 1'000'000);
    else if (key == "enable_prefix_caching") job.enable_prefix_caching = bool_field(v, field);
    else if (key == "limit_mm_per_prompt") job.limit_mm_per_prompt = whole_field(v, field, 0, 1'000'000);
    else if (key == "skip_mm_profiling") job.skip_mm_profiling = bool_field(v, field);
    // SGLang
    else if (key == "swa_full_tokens_ratio") job.swa_full_tokens_ratio = number_field(v, field, 0.01, 1);
    else if (key == "disable_hybrid_swa_memory") job.disable_hybrid_swa_memory = bool_field(v, field);
    else if (key == "cuda_graph_max_bs") job.cuda_graph_max_bs = whole_field(v, field, 0, 1'000'000);
    else if (key == "disable_cuda_graph") job.disable_cuda_graph = bool_field(v, field);
    // transformers generate caches
    else if (key == "cache_implementation") job.cache_implementation = read_choice(v, field, kCaches);
    else if (key == "cache_nbits") {
        job.cache_nbits = whole_field(v, field, 2, 8);
        if (job.cache_nbits != 2 && job.cache_nbits != 4 && job.cache_nbits != 8)
            throw InputError(field, "must be 2, 4 or 8 (transformers QuantizedCacheConfig nbits), got " + std::to_string(job.cache_nbits));
    }
    else if (key == "cache_residual_length") job.cache_residual_length = whole_field(v, field, 0, kTokens);
    else if (key == "cache_q_group_size") job.cache_q_group_size = whole_field(v, field, 1, 1'000'000);
    else return false;
    return true;
}

double device_memory_field(const json& v, const std::string& field, double gib_per_unit) {
    // Below half a GB or GiB no GPU holds any model: the CUDA context and framework take 1.0 GB by default
    // (overhead_gb). A tiny positive capacity (1e-308) made the share of it in use infinite, an internal
    // error in place of the field's (adversarial pass 2026-12-04, docs/hostile-input.md).
    constexpr double kMin = 0.5, kMax = 100'000;
    const double x = number_field(v, field, 0, kMax);
    if (x > 0 && x < kMin)
        throw InputError(field, "must be 0 (no GPU given) or between " + plain_number(kMin) + " and " + plain_number(kMax) +
                                    ", got " + describe_value(v));
    return x * gib_per_unit;
}

const char* serving_field_names() {
    return "engine, gpu, device_gib, gpu_memory_utilization, mem_fraction_static, comm_buffers_gb, pp_overhead_gb, "
           "max_model_len, max_num_batched_tokens, chunked_prefill_size, max_num_seqs, chunked_prefill, "
           "enable_chunked_prefill, block_size, new_tokens, n_ubatch, n_gpu_layers, experts_on_cpu, gguf_rules, swa_full, "
           "ep, dp_attention, kv_cache_dtype, split_mode, tensor_split, main_gpu, ollama_spread, vllm_version, vllm_engine, "
           "vllm_context_in_budget, vllm_offline, v0_auto_chunked_above, seqs_default, seqs_default_large, tokens_default, tokens_default_large, "
           "tokens_offline, tokens_offline_large, tokens_chunked_v0, large_gpu_gib, a100_small, sampler_in_profile, "
           "sampler_extra_bytes, sampler_fixed_mib, moe_workspace_kept, enforce_eager, cudagraph_mode, capture_sizes, "
           "max_cudagraph_capture_size, cudagraph_in_budget, graph_layer_kib, fa_max_splits, capture_max_gpt_oss, enable_prefix_caching, limit_mm_per_prompt, "
           "skip_mm_profiling, swa_full_tokens_ratio, disable_hybrid_swa_memory, cuda_graph_max_bs, disable_cuda_graph, "
           "cache_implementation, cache_nbits, cache_residual_length, cache_q_group_size";
}

const char* split_mode_name(SplitMode v) { return name_of(kSplitModes, v); }
const char* vllm_engine_name(VllmEngine v) { return name_of(kVllmEngines, v); }
const char* cudagraph_mode_name(CudaGraphMode v) { return name_of(kGraphModes, v); }
const char* cache_impl_name(CacheImpl v) { return name_of(kCaches, v); }
const char* engine_name(Engine v) { return name_of(kEngines, v); }
const char* gguf_rules_name(GgufRules v) { return name_of(kGgufRules, v); }
std::vector<const char*> engine_names() { return names_of(kEngines); }
std::vector<const char*> split_mode_names() { return names_of(kSplitModes); }
std::vector<const char*> cache_impl_names() { return names_of(kCaches); }

}  // namespace vramcalc
