#include "text/field_labels.hpp"

#include <cctype>
#include <cstring>

namespace vramcalc {
namespace {

struct Label {
    const char* field;
    const char* label;
};

// The job's fields as the page's form names them (web/index.html labels), the cluster's as
// its planner does, then the other inputs. Fields without a row read as their key in words.
const Label kLabels[] = {
    {"job.mode", "Mode"},
    {"job.framework", "Training framework"},
    {"job.dtype", "Weights"},
    {"job.precision", "Precision"},
    {"job.master_weights", "fp32 master weights"},
    {"job.optimizer", "Optimizer"},
    {"job.optimizer_dtype", "Optimizer-state dtype"},
    {"job.batch", "Batch (per GPU)"},
    {"job.seq", "Sequence length"},
    {"job.encoder_seq", "Encoder input length"},
    {"job.grad_accum", "Gradient accumulation"},
    {"job.checkpointing", "Gradient checkpointing"},
    {"job.attention", "Attention kernel"},
    {"job.flash_attention", "FlashAttention"},
    {"job.kv_dtype", "KV cache format"},
    {"job.lora_rank", "LoRA rank"},
    {"job.lora_targets", "LoRA targets"},
    {"job.lora_dropout", "LoRA dropout"},
    {"job.adapter_dtype", "Adapter dtype"},
    {"job.loss", "Loss"},
    {"job.gpus", "GPUs"},
    {"job.tp", "Tensor parallel (TP)"},
    {"job.pp", "Pipeline stages (PP)"},
    {"job.cp", "Context parallel (CP)"},
    {"job.ep", "Expert parallel (EP)"},
    {"job.zero", "ZeRO / FSDP"},
    {"job.report", "Memory reported"},
    {"job.overhead_gb", "CUDA context and framework"},
    {"job.fragmentation", "Allocator fragmentation"},
    {"job.engine", "Serving engine"},
    {"job.gpu", "Your GPU"},
    {"job.device_gib", "Your GPU's memory"},
    {"job.device_gb", "Your GPU's memory"},
    {"job.units", "Units"},
    {"job.recommend_from", "Recommended GPUs"},
    {"job.gpu_memory_utilization", "GPU memory utilization (vLLM)"},
    {"job.mem_fraction_static", "Static memory fraction (SGLang)"},
    {"job.max_model_len", "Max model length"},
    {"job.max_num_seqs", "Max sequences (vLLM)"},
    {"job.max_num_batched_tokens", "Max batched tokens"},
    {"job.n_gpu_layers", "GPU layers (-ngl)"},
    {"job.n_ubatch", "Micro-batch (n_ubatch)"},
    {"job.new_tokens", "Tokens generated"},
    {"job.split_mode", "Split mode (-sm)"},
    {"job.tensor_split", "Tensor split (-ts)"},
    {"job.main_gpu", "Main GPU (-mg)"},
    {"job.vllm_version", "vLLM version"},
    {"job.head", "Model head"},
    {"job.num_labels", "Labels"},
    {"job.offload_optimizer", "Optimizer states on the CPU"},
    {"job.offload_params", "Parameters on the CPU"},
    {"job.shard_degree", "Sharding degree"},
    {"job.optimizer_impl", "Optimizer implementation"},
    {"job.paged_optimizer", "Paged optimizer"},
    {"job.optimizer_in_backward", "Optimizer step in backward"},
    {"job.fp32_gradients", "fp32 gradients"},
    {"job.activation_offload", "Activations offloaded to the CPU"},
    {"job.loss_chunks", "Loss chunks"},
    {"job.compile", "torch.compile"},
    {"job.compile_loss", "Loss compiled"},
    {"job.loss_parallel", "Loss parallel over TP"},
    {"job.logits_fp32", "fp32 logits from the model"},
    {"job.mtp_layers", "Multi-token prediction layers"},
    {"job.model_init", "Model initialisation"},
    {"job.qlora_matmul", "QLoRA matmul"},
    {"job.sync_module_states", "Weights broadcast from rank 0"},
    {"job.sharding_impl", "Sharding implementation"},
    {"job.reshard_after_forward", "Reshard after forward"},
    {"job.reduce_dtype", "Gradient reduce format"},
    {"job.sequence_parallel", "Sequence parallel"},
    {"job.pp_schedule", "Pipeline schedule"},
    {"job.pp_virtual", "Pipeline stages per GPU"},
    {"job.pp_stage", "Pipeline stage shown"},
    {"job.fp8", "FP8 training"},
    {"job.fp8_all_gather", "FP8 weight all-gather"},
    {"job.etp", "Expert tensor parallel (ETP)"},
    {"job.async_tp", "Async tensor parallel"},
    {"job.capacity_factor", "Expert capacity factor"},
    {"job.comm_buffers_gb", "Communication buffers (GB)"},
    {"job.pp_overhead_gb", "Memory outside torch on a first pipeline stage (GB)"},
    {"job.chunked_prefill_size", "Chunked prefill size (SGLang)"},
    {"job.chunked_prefill", "Chunked prefill"},
    {"job.enable_chunked_prefill", "Chunked prefill"},
    {"job.block_size", "KV block size (tokens)"},
    {"job.experts_on_cpu", "Experts in system RAM (-ot exps=CPU)"},
    {"job.gguf_rules", "GGUF type rules (llama.cpp version)"},
    {"job.swa_full", "Sliding-window layers at full length"},
    {"job.dp_attention", "Data-parallel attention"},
    {"job.kv_cache_dtype", "KV cache format"},
    {"job.ollama_spread", "Ollama: spread over every GPU"},
    {"job.vllm_engine", "vLLM engine (V0 or V1)"},
    {"job.vllm_context_in_budget", "vLLM: CUDA context counted in its budget"},
    {"job.vllm_offline", "vLLM: offline (LLM class) defaults"},
    {"job.v0_auto_chunked_above", "vLLM V0: chunked prefill on above this context"},
    {"job.seqs_default", "vLLM: default sequences per step"},
    {"job.seqs_default_large", "vLLM: default sequences per step on large GPUs"},
    {"job.tokens_default", "vLLM: default tokens per step (server)"},
    {"job.tokens_default_large", "vLLM: default tokens per step (server, large GPUs)"},
    {"job.tokens_offline", "vLLM: default tokens per step (offline)"},
    {"job.tokens_offline_large", "vLLM: default tokens per step (offline, large GPUs)"},
    {"job.tokens_chunked_v0", "vLLM V0: tokens per step with chunked prefill"},
    {"job.large_gpu_gib", "vLLM: large-GPU defaults from (GiB)"},
    {"job.a100_small", "vLLM: A100s take the small-GPU defaults"},
    {"job.sampler_in_profile", "vLLM: sampler in the profile run"},
    {"job.sampler_extra_bytes", "vLLM: sampler bytes per logit beside the logits"},
    {"job.sampler_fixed_mib", "vLLM: sampler workspace (MiB)"},
    {"job.moe_workspace_kept", "vLLM: MoE workspaces kept between layers"},
    {"job.enforce_eager", "Eager mode (no CUDA graphs)"},
    {"job.cudagraph_mode", "vLLM: CUDA-graph mode"},
    {"job.capture_sizes", "vLLM: CUDA-graph batch sizes"},
    {"job.max_cudagraph_capture_size", "Largest CUDA-graph batch"},
    {"job.cudagraph_in_budget", "vLLM: CUDA graphs inside its memory budget"},
    {"job.graph_layer_kib", "vLLM: CUDA-graph memory per layer (KiB)"},
    {"job.fa_max_splits", "vLLM: FlashAttention's most KV splits in decode"},
    {"job.capture_max_gpt_oss", "vLLM: largest CUDA-graph batch for gpt-oss"},
    {"job.enable_prefix_caching", "Prefix caching"},
    {"job.limit_mm_per_prompt", "Images per prompt in the profile run"},
    {"job.skip_mm_profiling", "Vision encoder left out of the profile run"},
    {"job.swa_full_tokens_ratio", "SGLang: sliding-window pool share"},
    {"job.disable_hybrid_swa_memory", "SGLang: one pool for every layer"},
    {"job.cuda_graph_max_bs", "SGLang: largest CUDA-graph batch"},
    {"job.disable_cuda_graph", "SGLang: no CUDA graphs"},
    {"job.cache_implementation", "Generate cache"},
    {"job.cache_nbits", "Quantized cache bits"},
    {"job.cache_residual_length", "Quantized cache residual length"},
    {"job.cache_q_group_size", "Quantized cache group size"},
    // Issue 36: post-training, speculative decoding, LoRA slots and machine jobs (docs/posttrain.md, docs/serving.md).
    {"job.policy", "Policy training"},
    {"job.num_generations", "Completions per prompt (num_generations)"},
    {"job.max_prompt_length", "Prompt length"},
    {"job.max_completion_length", "Completion length"},
    {"job.generation_batch_size", "Generation batch"},
    {"job.use_vllm", "Rollout with vLLM"},
    {"job.vllm_mode", "vLLM mode"},
    {"job.vllm_gpu_memory_utilization", "vLLM's share of the GPU"},
    {"job.sleep_mode", "vLLM sleep mode"},
    {"job.vllm_tensor_parallel_size", "vLLM tensor parallel"},
    {"job.vllm_gpus", "vLLM server GPUs"},
    {"job.vllm_max_model_length", "vLLM max model length"},
    {"job.beta", "KL coefficient (beta)"},
    {"job.precompute_ref_log_probs", "Precompute reference log-probs"},
    {"job.speculative_method", "Speculative method"},
    {"job.speculative_model", "Draft model"},
    {"job.num_speculative_tokens", "Speculative tokens"},
    {"job.enable_lora", "Serve LoRA adapters"},
    {"job.max_loras", "LoRA slots (max_loras)"},
    {"job.max_lora_rank", "Max LoRA rank"},
    {"job.max_cpu_loras", "LoRA adapters in host RAM"},
    {"job.machine_jobs", "Models on this GPU"},
    {"job.transformers_version", "transformers version"},
    // Issue 32: your machine (its RAM beside "Your GPUs") and the local runtimes (docs/machine.md).
    {"job.ram_gb", "System RAM"},
    {"job.ram_gib", "System RAM"},
    {"job.ram", "System RAM"},
    {"job.ram_used_gb", "RAM in use by other programs"},
    {"job.ram_used_gib", "RAM in use by other programs"},
    {"job.swap_gb", "Swap"},
    {"job.ram_kind", "RAM kind"},
    {"job.ram_channels", "RAM channels"},
    {"job.ram_mts", "RAM speed (MT/s)"},
    {"job.ram_bandwidth_gbs", "RAM bandwidth (GB/s)"},
    {"job.cpu_only", "No GPU (CPU only)"},
    {"job.wired_limit_mb", "GPU wired limit (iogpu.wired_limit_mb)"},
    {"job.carveout_gb", "BIOS carve-out (UMA frame buffer)"},
    {"job.gtt_gb", "GTT size"},
    {"job.uma_backend", "GPU backend (Strix Halo)"},
    {"job.n_cpu_moe", "Experts in RAM (--n-cpu-moe)"},
    {"job.cpu_moe", "All experts in RAM (--cpu-moe)"},
    {"job.llamacpp_version", "llama.cpp version"},
    {"job.ollama_version", "Ollama version"},
    {"job.mlx_version", "mlx-lm version"},
    {"job", "Job"},
    {"cluster.gpu", "Cluster GPU"},
    {"cluster.gpus", "Cluster GPUs"},
    {"cluster.fabric", "Network"},
    {"cluster.tokens", "Training tokens"},
    {"cluster.price_per_gpu_hour", "Price per GPU-hour"},
    {"cluster.global_batch", "Global batch"},
    {"cluster.concurrency", "Concurrent requests"},
    {"cluster.prompt_tokens", "Prompt tokens"},
    {"cluster.output_tokens", "Output tokens"},
    {"cluster.layout", "Parallel layout"},
    {"cluster.matmul_dtype", "Matmul precision"},
    {"cluster.compute_efficiency", "Compute efficiency"},
    {"cluster", "Cluster"},
    {"model", "Model"},
    {"config", "config.json"},
    {"checkpoint", "Checkpoint"},
    {"question", "Question"},
    {"sweep.axis", "Chart axis"},
    {"sweep.values", "Chart values"},
    {"search.query", "Search"},
    {"intent", "Intent"},
    {"models.json", "Model catalog"},
    {"arguments", "Arguments"},
    {"internal", "Internal error"},
};

// "optimizer_dtype" → "Optimizer dtype".
std::string in_words(const std::string& key) {
    std::string out = key;
    for (char& c : out)
        if (c == '_' || c == '.') c = ' ';
    if (!out.empty()) out[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(out[0])));
    return out;
}

}  // namespace

std::string field_label(const std::string& field) {
    for (const Label& l : kLabels)
        if (field == l.field) return l.label;
    // A part of a field with a row ("job.tensor_split[2]", "cluster.layout.tp") reads as that row; a field
    // the table does not know ("cluster.constructor" from a link) is named, not read as "Cluster" (issue 37 L1).
    for (const Label& l : kLabels) {
        // "job" and "cluster" name the objects: a field inside them reads by its own row, or its key in words.
        if (std::strcmp(l.field, "job") == 0 || std::strcmp(l.field, "cluster") == 0) continue;
        const size_t n = std::strlen(l.field);
        if (field.size() > n && field.compare(0, n, l.field) == 0 && (field[n] == '.' || field[n] == '['))
            return std::string(l.label) + (std::strcmp(l.field, "config") == 0 || std::strcmp(l.field, "checkpoint") == 0
                                               ? " " + field.substr(n + 1)
                                               : "");
    }
    for (const char* prefix : {"job.", "cluster."})
        if (field.rfind(prefix, 0) == 0) return in_words(field.substr(std::strlen(prefix)));
    return in_words(field);
}

std::string labelled_message(const std::string& field, const std::string& message) {
    const std::string lead = field + ": ";
    const std::string rest = message.rfind(lead, 0) == 0 ? message.substr(lead.size()) : message;
    return field_label(field) + ": " + rest;
}

}  // namespace vramcalc
