#include "api/serving_json.hpp"

#include <algorithm>

#include "hardware/gpus.hpp"
#include "text/units.hpp"

namespace vramcalc {

void write_serving_job_fields(JsonWriter& w, const Job& job) {
    w.field("engine", engine_name(job.engine)).field("gpu", job.gpu ? job.gpu->id : "").field("device_gib", job.device_gib);
    w.field("gpu_memory_utilization", job.gpu_memory_utilization).field("mem_fraction_static", job.mem_fraction_static);
    w.field("comm_buffers_gb", job.comm_buffers_gb).field("max_model_len", job.max_model_len);
    w.field("max_num_batched_tokens", job.max_num_batched_tokens).field("max_num_seqs", job.max_num_seqs);
    w.field("chunked_prefill", job.chunked_prefill).field("block_size", job.block_size).field("new_tokens", job.new_tokens);
    w.field("n_ubatch", job.n_ubatch).field("n_gpu_layers", job.n_gpu_layers).field("experts_on_cpu", job.experts_on_cpu);
    w.field("gguf_rules", gguf_rules_name(job.gguf_rules)).field("swa_full", job.swa_full).field("ep", job.ep);
    w.field("dp_attention", job.dp_attention);
    w.field("split_mode", split_mode_name(job.split_mode)).key("tensor_split").begin_array();
    for (double x : job.tensor_split) w.value(x);
    w.end_array().field("main_gpu", job.main_gpu).field("ollama_spread", job.ollama_spread);
    w.field("vllm_version", job.vllm_version);
    w.field("vllm_engine", job.engine == Engine::Vllm ? vllm_engine_name(job.vllm_engine) : "");
    w.field("enforce_eager", job.enforce_eager).field("cudagraph_mode", cudagraph_mode_name(job.cudagraph_mode));
    w.field("max_cudagraph_capture_size", job.max_cudagraph_capture_size).field("cudagraph_in_budget", job.cudagraph_in_budget);
    w.field("enable_prefix_caching", job.enable_prefix_caching).field("limit_mm_per_prompt", job.limit_mm_per_prompt);
    w.field("skip_mm_profiling", job.skip_mm_profiling);
    w.field("swa_full_tokens_ratio", job.swa_full_tokens_ratio).field("disable_hybrid_swa_memory", job.disable_hybrid_swa_memory);
    w.field("cuda_graph_max_bs", job.cuda_graph_max_bs).field("disable_cuda_graph", job.disable_cuda_graph);
    w.field("cache_implementation", cache_impl_name(job.cache_implementation)).field("cache_nbits", job.cache_nbits);
    w.field("cache_residual_length", job.cache_residual_length).field("cache_q_group_size", job.cache_q_group_size);
}

void write_serving(JsonWriter& w, const Job& job, const ServingInfo& s) {
    w.begin_object().field("engine", engine_name(job.engine)).field("engine_version", s.engine_version);
    w.field("device_bytes", s.device);
    w.field("budget_bytes", s.budget).field("kv_needed_bytes", s.kv_needed).field("kv_per_token_bytes", s.kv_per_token);
    // A budget smaller than weights + activations leaves no pool: 0, and the shortfall said as such.
    const double pool = std::max(0.0, s.kv_pool);
    w.field("kv_per_request_bytes", s.kv_per_request).field("kv_pool_bytes", pool);
    w.field("kv_pool_text", gb_text(pool));
    w.field("kv_pool_shortfall_bytes", std::max(0.0, -s.kv_pool));
    w.field("pool_blocks", s.pool_blocks).field("pool_tokens", s.pool_tokens).field("swa_tokens", s.swa_tokens);
    w.field("max_concurrency", s.max_concurrency).field("max_model_len", s.max_model_len).field("profile_tokens", s.profile_tokens);
    w.field("max_num_seqs", s.max_num_seqs);
    w.field("profile_forward_bytes", s.profile_forward).field("profile_sampler_bytes", s.profile_sampler);
    w.field("profile_encoder_bytes", s.profile_encoder).field("non_torch_bytes", s.non_torch);
    w.field("cuda_graph_bytes", s.cuda_graphs).field("cuda_graphs", s.graphs).field("capture_max", s.capture_max);
    w.field("cuda_graphs_in_budget", s.graphs_in_budget);
    w.field("gpu_layers", s.gpu_layers).field("layers", s.layers).field("cpu_bytes", s.cpu_bytes);
    w.field("cpu_text", gb_text(s.cpu_bytes)).field("compute_buffer_bytes", s.compute_buffer);
    w.field("cpu_weights_bytes", s.cpu_weights).field("offload_copy_bytes", s.offload_copy);
    // Each GPU's share of a llama.cpp / Ollama split; the breakdown is the fullest's.
    w.field("split", s.split).key("devices").begin_array();
    for (const DeviceShare& d : s.devices)
        w.begin_object().field("layers", d.layers).field("output", d.output).field("share", d.share)
            .field("weights_bytes", d.weights).field("kv_bytes", d.kv).field("compute_buffer_bytes", d.compute_buffer)
            .field("overhead_bytes", d.overhead).field("total_bytes", d.total()).field("total_text", gb_text(d.total())).end_object();
    w.end_array();
    w.field("weights_mix", s.weights_mix).field("window_policy", s.window_policy);
    // Issue 36: speculative decoding's proposer and the multi-LoRA slots (docs/serving.md).
    w.key("speculative").begin_object().field("method", spec_method_name(job.spec.method)).field("model", job.spec.model);
    w.field("num_speculative_tokens", job.spec.num_speculative_tokens).field("params", s.spec_params).field("weights_bytes", s.spec_weights);
    w.field("weights_text", gb_text(s.spec_weights)).field("kv_per_token_bytes", s.spec_kv_per_token);
    w.field("kv_bytes", s.spec_kv).field("kv_text", gb_text(s.spec_kv)).field("why", s.spec_why).end_object();
    w.key("lora_slots").begin_object().field("enabled", job.lora_serving.enable_lora).field("max_loras", job.lora_serving.max_loras);
    w.field("max_lora_rank", job.lora_serving.max_lora_rank).field("gpu_bytes", s.lora_slots).field("gpu_text", gb_text(s.lora_slots));
    w.field("cpu_bytes", s.lora_cpu).field("cpu_text", gb_text(s.lora_cpu)).field("why", s.lora_why).end_object();
    w.field("fits", s.fits).field("verdict", s.verdict).end_object();
}

}  // namespace vramcalc
