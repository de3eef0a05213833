#pragma once
// A job: what you want to run. Parsed once from JSON into typed values (formats
// resolved to their table entries, names to enums); nothing downstream looks a
// string up again. Recipes (HF Trainer, torchtune, DeepSpeed...) are presets:
// named sets of these fields, applied before the fields the user gives.
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "job/assumed.hpp"
#include "machine/machine.hpp"
#include "job/post_training.hpp"
#include "job/serving_choices.hpp"
#include "job/serving_extras.hpp"
#include "model/config.hpp"
#include "model/formats.hpp"
#include "text/units.hpp"

namespace vramcalc {

enum class Mode { Inference, Train, LoRA, QLoRA };
enum class Optimizer { AdamW, SGD, SGDMomentum, Adam8bit, Adafactor };
enum class Checkpointing {
    None,
    Selective,    // Korthikanti et al.: the attention core (scores, softmax) recomputed
    Full,         // each block's input kept, the block recomputed in backward
    SelectiveOp,  // torchtitan per-op SAC: matmul outputs kept except every second one, attention output kept
};
// Which kernel computes attention decides what it saves for backward.
enum class Attention {
    Eager,  // softmax(q·kᵀ)·v written out: saves the s×s probabilities
    Sdpa,   // torch scaled_dot_product_attention after repeat_kv (HF "sdpa", torchtune): q, k, v repeated to all heads
    Flash,  // flash-attn 2 kernel: q, k, v at kv-head width, output and logsumexp
    Unfused,  // Megatron-Core DotProductAttention (--attention-backend unfused, or the local impl):
              // baddbmm scores and a fused scale-mask-softmax whose probabilities stay 16-bit
};
enum class Loss {
    Full,     // logits for every token, upcast to fp32 inside the loss (transformers >= 4.46 ForCausalLMLoss)
    FullFp32, // the model returns fp32 logits that the caller keeps through backward, and the loss
              // shifts a copy (transformers <= 4.45 LlamaForCausalLM, torchtune <= 0.2)
    Chunked,  // torchtune CEWithChunkedOutputLoss: 16-bit logit chunks, fp32 one chunk at a time
    Fused,    // Liger / Unsloth fused linear + cross-entropy: no full logits
    VocabParallel,  // Megatron vocab_parallel_cross_entropy: one fp32 copy, exp'd in place and reused as the gradient
    Shifted,  // transformers without an fp32 upcast (GPT-2, GPT-NeoX before 4.46): logits, shifted copy and log_softmax in the model dtype
    LogProbs, // TRL selective_log_softmax: per-token log-probs of 16-bit logits, one row's log_softmax at a time (GRPO, DPO)
};
// Where the parameters of full training live and in which dtype.
enum class Precision {
    Pure,      // params, gradients and optimizer states in the training dtype (torchtune)
    Master,    // 16-bit params and gradients + fp32 master copy in the optimizer (DeepSpeed, Megatron)
    Autocast,  // fp32 params and gradients, matmuls in 16-bit under torch.autocast (HF Trainer bf16=True)
};
enum class OptimizerImpl {
    Foreach,  // torch multi-tensor step: allocates a full-size temporary (sqrt of exp_avg_sq)
    Fused,    // one fused kernel per parameter group: no full-size temporaries
};
// What a reported total means (issue 8: allocated vs reserved vs nvidia-smi).
enum class MemoryKind {
    Allocated,  // live tensors (torch.cuda.max_memory_allocated, torchtune "Peak Memory Active")
    Reserved,   // + caching-allocator slack (torch.cuda.max_memory_reserved)
    Device,     // + CUDA context and non-torch buffers (what nvidia-smi shows)
};
// The autograd function of a QLoRA base layer decides what its forward keeps.
enum class QloraMatmul {
    Bitsandbytes,  // bnb MatMul4Bit (PEFT, fsdp_qlora, LitGPT): keeps each quantized linear's input (ctx.tensors = (A, B))
    Torchao,       // torchao linear_nf4 (torchtune): keeps the NF4 weight only
};
// How the model is built before training, when that leaves memory reserved (core/model_init.cpp).
enum class ModelInit {
    None,         // not modelled: init frees what it allocates in sizes the step reuses
    TorchaoNf4V01,  // torchtune <= 0.1 QLoRA: layers built in bf16 on the GPU and quantized by torchao 0.1's unchunked to_nf4
};
enum class Framework { Custom, HfTrainer, AccelerateFsdp, Torchtune, DeepSpeed, Megatron, Unsloth, Torchtitan, Nemo,
                       Trl, Verl, OpenRlhf };
// Inference engines, each with its own memory accounting (core/serving.cpp;
// presets in core/engine_presets.cpp).
enum class Engine {
    Custom,    // the plain sum: weights + one prefill's working set + KV for batch × seq
    HfGenerate,// transformers generate: peak at prefill or at the last generated token
    Vllm,      // budget = gpu_memory_utilization × device; KV pool gets what is left
    Sglang,    // KV pool = mem_fraction_static × device − weights − context
    LlamaCpp,  // GGUF per-tensor types, -ngl offload, ggml compute buffer
    Ollama,    // llama.cpp underneath, with Ollama's defaults
    Mlx,       // Apple's MLX (mlx-lm's server, LM Studio's MLX engine): unified memory only
};
// Which linear layers get LoRA adapters: "all-linear" (QLoRA paper setting),
// "attention", "mlp", or a comma-separated list of module names.
enum class LoraScope { AllLinear, Attention, Mlp, Named };
// How the data-parallel ranks shard and move the model states (memory/parallel.cpp
// reads each one's buffers; presets in job/presets.cpp choose one per framework).
enum class ShardingImpl {
    Fsdp2,      // torch fully_shard: per-unit all-gather and reduce-scatter buffers, one unit prefetched
    Fsdp1,      // FullyShardedDataParallel: flat parameters, side-stream pools, at most 2 all-gathers in flight
    DeepSpeed,  // ZeRO stages 1-3: reduce bucket (reduce_bucket_size), stage-3 prefetch bucket
    Megatron,   // Megatron-Core DDP: persistent full-size grad buffer, in-place reduce-scatter / all-gather
};
// When FSDP frees a unit's gathered parameters after its forward.
enum class ReshardAfterForward {
    Always,      // FULL_SHARD / fully_shard(reshard_after_forward=True): gathered again in backward
    Never,       // SHARD_GRAD_OP / reshard_after_forward=False: kept from forward through backward
    Torchtitan,  // torchtitan's default policy (>= 83e6941, Jul 2025): blocks reshard except under PP; [norm, output] never
    // torchtitan before 83e6941 (9dec370 .. e7c0cae): every block but the last reshards (none under PP), and the
    // root's own parameters (embedding, final norm, output) are one group FSDP2 never reshards after forward
    TorchtitanRoot,
};
// Pipeline schedules: how many micro-batches' activations a stage holds at once.
enum class PpSchedule { GPipe, OneFOneB, Interleaved, ZeroBubbleV, DualPipeV };
// Which pipeline stage's GPU an estimate describes.
enum class PpStage { Peak, First, Last };
// FP8 training recipes (what they keep beside the bf16 ones).
enum class Fp8 {
    None,
    Torchao,            // torchao float8 linears (tensorwise / rowwise): bf16 saved tensors, fp8 casts transient
    TransformerEngine,  // TE fp8 linears: fp8 copies of weights (+ transposes) cached, fp8 linear inputs saved
};
struct Gpu;
// The GPUs a recommendation may name (core/answers/verdict.cpp, hardware/gpus.hpp gpu_kind).
enum class GpuPool { Auto, Datacenter, Workstation, Consumer, Any };

struct Job {
    Mode mode = Mode::Inference;
    Framework framework = Framework::Custom;
    const NumberFormat* dtype = &format(FormatId::Bf16);  // weights; QLoRA: a float dtype = NF4 base + this compute dtype
    // "auto" (the default): weights as the checkpoint ships them. For inference
    // and LoRA that is the config's quantization_config when present, and the
    // exact bytes of checkpoint metadata when attached (vLLM --dtype auto, HF
    // from_pretrained with a quantization_config); otherwise `dtype` (bf16).
    bool dtype_auto = true;
    Precision precision = Precision::Master;
    Optimizer optimizer = Optimizer::AdamW;
    const NumberFormat* optimizer_dtype = &format(FormatId::Fp32);  // Adam m and v
    OptimizerImpl optimizer_impl = OptimizerImpl::Fused;
    bool paged_optimizer = false;        // bitsandbytes paged states: unified memory, outside torch's accounting
    bool optimizer_in_backward = false;  // step each parameter as its gradient is ready (torchtune optimizer_in_bwd)
    bool fp32_gradients = false;         // fp32 gradient buffers (Megatron main_grad, DeepSpeed bf16 accumulation)
    int64_t grad_accum = 1;              // micro-batches per optimizer step (>1 keeps gradients through forward)
    int64_t batch = 1;                   // micro-batch per GPU (per replica for inference)
    int64_t seq = 4096;                  // tokens per sequence (prompt + generated for inference); encoder-decoders: the decoder's
    int64_t encoder_seq = 0;             // encoder-decoders: the encoder's input tokens (0 = seq; Whisper: its max_source_positions frames)
    bool head_auto = true;               // "auto": the head config.json's architectures names (core/model/heads.cpp)
    Head head = Head::CausalLM;          // otherwise the model class to load: causal_lm, masked_lm, sequence_classification, ...
    int64_t num_labels = 0;              // classification outputs (0 = the config's id2label, else 2)
    Checkpointing checkpointing = Checkpointing::None;
    bool activation_offload = false;     // checkpointed activations kept in CPU memory (torchtune, Unsloth)
    Attention attention = Attention::Flash;
    Loss loss = Loss::Full;
    int64_t loss_chunks = 8;             // torchtune CEWithChunkedOutputLoss num_output_chunks
    int64_t loss_tokens = 0;             // tokens per sequence whose logits are computed (0 = every token; TRL logits_to_keep)
    int64_t transformers_major = 5;      // transformers release (transformers_version): v5 fuses MoE experts, which bitsandbytes skips
    bool compile = false;                // torch.compile fuses elementwise ops: norms, RoPE, SwiGLU save less
    bool compile_loss = false;           // the loss is compiled too (default: as `compile`; torchtitan compiles only the blocks)
    bool loss_parallel = false;          // with TP, the loss runs on vocab-sharded DTensor logits (torch loss_parallel)
    bool logits_fp32 = false;            // the model returns fp32 logits (torchtune output(h).float()); else the loss upcasts them
    int64_t mtp_layers = 0;              // multi-token prediction layers on the last stage (Megatron --mtp-num-layers)
    ModelInit model_init = ModelInit::None;
    QloraMatmul qlora_matmul = QloraMatmul::Bitsandbytes;
    bool sync_module_states = false;     // FSDP(sync_module_states=True): units loaded on rank 0, moved whole to each GPU, then sharded
    const NumberFormat* kv_dtype = nullptr;  // null = the compute dtype
    int64_t lora_rank = 16;
    std::string lora_targets = "all-linear";  // as given, for the output; read into the two fields below
    LoraScope lora_scope = LoraScope::AllLinear;
    std::vector<std::string> lora_modules;    // LoraScope::Named: each module name once, matched by the plan
    double lora_dropout = 0.0;
    const NumberFormat* adapter_dtype = &format(FormatId::Fp32);  // PEFT's autocast_adapter_dtype
    bool offload_optimizer = false;      // ZeRO-Offload / FSDP cpu_offload: states (and the step) on the CPU
    bool offload_params = false;         // parameters live on the CPU, gathered per layer
    int64_t gpus = 1;
    // 0 = automatic. Training: 1 each. Inference with neither set: TP inside an 8-GPU node, pipeline
    // stages for the rest (core/layout.cpp). pp alone: TP takes the GPUs per stage (pp 1: TP over every
    // GPU). tp alone: one stage, data-parallel replicas for the rest.
    int64_t tp = 0;
    int64_t pp = 0;
    int64_t cp = 1;                      // context parallel: splits the sequence
    int zero = 0;                        // ZeRO stage / FSDP: 0 none, 1 optimizer, 2 +gradients, 3 +weights
    // --- Distributed training (memory/parallel.cpp) ---
    ShardingImpl sharding_impl = ShardingImpl::Fsdp2;
    ReshardAfterForward reshard_after_forward = ReshardAfterForward::Always;
    const NumberFormat* reduce_dtype = nullptr;  // FSDP MixedPrecisionPolicy.reduce_dtype; null = the compute dtype
    bool sequence_parallel = true;       // TP also splits the h-wide activations along the sequence (Megatron --sequence-parallel)
    PpSchedule pp_schedule = PpSchedule::OneFOneB;
    int64_t pp_virtual = 2;              // stages per rank for interleaved 1F1B (torchtitan: 2 per rank for looped schedules)
    PpStage pp_stage = PpStage::Peak;
    Fp8 fp8 = Fp8::None;
    bool fp8_all_gather = false;         // torchao enable_fsdp_float8_all_gather: FSDP gathers fp8 weights
    int64_t etp = 0;                     // expert tensor parallel (Megatron --expert-tensor-parallel-size); 0 = tp
    bool async_tp = false;               // torchtitan async tensor parallel (symmetric-memory workspace)
    int64_t shard_degree = 0;            // hybrid sharding: ZeRO/FSDP shards over this many ranks, replicas across (0 = all)
    double capacity_factor = 0;          // MoE expert capacity (0 = dropless: every routed token kept)
    MemoryKind report = MemoryKind::Device;
    double overhead_gb = 1.0;            // CUDA context + non-torch buffers per GPU
    double fragmentation = 0.05;         // caching-allocator slack as a fraction of allocated memory
    std::vector<Assumed> assumptions;    // which preset values are in force, each field once (the later preset's)

    // --- Serving (core/serving.cpp, core/engine_presets.cpp) ---
    Engine engine = Engine::Custom;
    const Gpu* gpu = nullptr;            // the device served on (catalog id); engines with a budget need it
    double device_gib = 0;               // device memory as the engine sees it (torch total_memory); 0 = the GPU's
    double gpu_memory_utilization = 0.9; // vLLM budget fraction (vllm/config.py CacheConfig)
    double mem_fraction_static = 0;      // SGLang static fraction; 0 = by TP size (sglang server_args.py)
    double comm_buffers_gb = 0;          // extra non-torch memory per GPU when TP > 1 (NCCL / custom all-reduce)
    int64_t max_model_len = 0;           // vLLM/SGLang context limit; 0 = seq
    int64_t max_num_batched_tokens = 0;  // tokens in the profile run; 0 = the engine's default
    int64_t max_num_seqs = 0;            // vLLM sequences per step (the profile run's sampler rows); 0 = the version's default
    bool chunked_prefill = true;         // vLLM: V1 always; V0 optional (see v0_auto_chunked_above)
    int64_t block_size = 16;             // vLLM KV block (tokens)
    int64_t new_tokens = 0;              // HF generate: tokens generated after a prompt of seq − new_tokens
    int64_t n_ubatch = 512;              // llama.cpp physical batch (compute buffer)
    int64_t n_gpu_layers = -1;           // llama.cpp -ngl: repeating layers on the GPU (-1 = all, + output)
    bool experts_on_cpu = false;         // llama.cpp -ot exps=CPU: routed experts in system RAM
    GgufRules gguf_rules = GgufRules::Current;
    bool swa_full = false;               // allocate sliding-window layers at full length (llama.cpp --swa-full)
    int64_t ep = 1;                      // expert parallel degree (routed experts split over ep GPUs)
    bool dp_attention = false;           // attention data-parallel over the ep GPUs, experts sharded (DeepSeek-V3 style)

    // --- Serving engines by version, multi-GPU splits and caches (issue 22; read in
    //     core/job/job_serving.cpp, engine defaults in core/job/engine_presets.cpp, vLLM's by
    //     version in core/job/vllm_versions.cpp, used by core/serving/) ---
    // llama.cpp / Ollama across GPUs (gpus = devices in the split)
    SplitMode split_mode = SplitMode::Layer;  // -sm
    std::vector<double> tensor_split;         // -ts: share of each GPU; empty = by each GPU's free memory
    int64_t main_gpu = 0;                     // -mg: the GPU of -sm none
    bool ollama_spread = false;               // OLLAMA_SCHED_SPREAD: spread over every GPU even when one holds the model
    // vLLM by version: the preset the version selects sets the fields below (and max_num_seqs,
    // chunked_prefill, overhead_gb, comm_buffers_gb); the user's own fields override it.
    std::string vllm_version;                 // as resolved: "0.19.0", or "newest (0.21+)"
    const char* vllm_accounting = "";         // the preset's label, for the output
    VllmEngine vllm_engine = VllmEngine::V1;
    bool vllm_context_in_budget = false;      // <= 0.3.0: the CUDA context and other processes count against the budget
    bool vllm_offline = false;                // LLM(...) rather than vllm serve (V1 max_num_batched_tokens defaults)
    int64_t v0_auto_chunked_above = 0;        // V0 turns chunked prefill on past this max_model_len (0 = never)
    bool chunked_prefill_given = false;       // the user set chunked_prefill (then no automatic choice)
    int64_t seqs_default = 256, seqs_default_large = 256;      // max_num_seqs when 0: below / from large_gpu_gib
    int64_t tokens_default = 2048, tokens_default_large = 8192;// V1 max_num_batched_tokens (server) when 0
    int64_t tokens_offline = 8192, tokens_offline_large = 16384;  // V1 LLM class
    int64_t tokens_chunked_v0 = 2048;         // V0 with chunked prefill
    double large_gpu_gib = 70;                // vLLM's "large GPU" threshold for those defaults (0 = none)
    bool a100_small = false;                  // A100s take the small defaults (0.9+)
    bool gpu_is_a100 = false;                 // resolved from `gpu` when it is read
    bool gpu_is_hopper = false;               // sm90 (H100, H200, H800, H20): FlashAttention 3, 32 MiB cuBLAS workspaces
    bool sampler_in_profile = true;           // the profile run samples (V0; V1 from 0.8)
    double sampler_extra_bytes = 36;          // per logit beyond the logits in the model dtype
    double sampler_fixed_mib = 0;             // workspace the sampler keeps (0.17+: Triton top-k/top-p buffers)
    bool moe_workspace_kept = false;          // fused-MoE workspaces stay allocated after the forward (shared buffers)
    double pp_overhead_gb = 0;                // non-torch memory of a pipeline stage that does not sample
    bool enforce_eager = false;               // no CUDA graphs
    CudaGraphMode cudagraph_mode = CudaGraphMode::FullAndPiecewise;
    CaptureSizes capture_sizes = CaptureSizes::V1Twice;
    int64_t max_cudagraph_capture_size = 0;   // 0 = the version's rule
    bool cudagraph_in_budget = false;         // the estimated graph memory is taken from the KV budget (0.21+)
    double graph_layer_kib = 192;             // driver memory per captured layer per graph (core/serving/vllm_graphs.cpp)
    int64_t fa_max_splits = 0;                // FlashAttention 3's split-KV bound in FULL decode graphs (0 = no FULL FA3 graphs)
    int64_t capture_max_gpt_oss = 0;          // the largest capture size the version sets for gpt-oss (0 = the rule's)
    bool enable_prefix_caching = true;        // V1 default; reuses blocks of the same pool
    int64_t limit_mm_per_prompt = 999;        // images per prompt the profile run may use (V0 1, V1 999)
    bool skip_mm_profiling = false;           // profile without dummy images
    // SGLang
    double swa_full_tokens_ratio = 0.8;       // sliding-window layers' tokens over full layers' (server_args.py)
    bool disable_hybrid_swa_memory = false;   // one pool at full length for every layer
    int64_t cuda_graph_max_bs = 0;            // 0 = by GPU memory (server_args.py); graphs outside the static fraction
    bool disable_cuda_graph = false;
    // transformers generate caches
    CacheImpl cache_implementation = CacheImpl::Dynamic;
    int64_t cache_nbits = 4;                  // QuantizedCache nbits
    int64_t cache_residual_length = 128;      // QuantizedCache residual_length (tokens kept in full precision)
    int64_t cache_q_group_size = 64;          // QuantizedCache q_group_size

    // --- Your machine and the local runtimes (issue 32; read in core/job/machine_fields.cpp, runtime
    //     defaults by version in core/job/runtime_versions.cpp, used by core/serving/ and core/local/) ---
    Machine machine;                          // system RAM, its bandwidth, unified-memory settings, CPU only
    int64_t n_cpu_moe = 0;                    // llama.cpp --n-cpu-moe N: the routed experts of the first N layers in RAM
    bool mmap = true;                         // llama.cpp / Ollama map the GGUF (--no-mmap: read into RAM)
    bool mlock = false;                       // --mlock: the mapped weights pinned in RAM
    bool fit = false;                         // llama.cpp --fit: shrink the context, then move experts and layers to RAM
    double fit_target_mib = 1024;             // --fit-target: memory --fit leaves free per GPU
    int64_t fit_min_ctx = 4096;               // --fit-ctx: the smallest context --fit shrinks to
    bool ctx_auto = false;                    // -c 0: the model's trained context (resolved when the model is known)
    bool ollama_ctx_by_vram = false;          // Ollama 0.15.5+: num_ctx 4,096 / 32,768 / 262,144 by total VRAM
    bool op_offload = true;                   // llama.cpp copies RAM-resident weights to the GPU for batches of 32+
    std::string runtime_version;              // llama.cpp / Ollama / MLX: the version as resolved
    const char* runtime_label = "";           // that version's entry, for the output
    int64_t kv_bits = 0;                      // MLX: quantized KV cache bits (0 = the model's dtype)
    int64_t mlx_group_size = 64;              // MLX affine quantization group (scale + bias per group)
    int64_t prefill_step_size = 2048;         // MLX: prompt tokens per prefill step
    int64_t prompt_cache_size = 10;           // mlx_lm.server: KV caches kept in its LRU prompt cache
    std::string model_file;                   // the model file or id the printed command names, as given
    std::string model_id;                     // the model's Hub id, to name a file after when model_file is not given

    // --- How the answer speaks to the user (issue 23; read in core/job/view_fields.cpp) ---
    TextUnit units = TextUnit::GB;            // every size text: gb (10⁹ B, default), gib or mib
    // Which GPUs a recommendation is drawn from when the user's own GPU does not hold the job
    // (core/answers/verdict.cpp): auto = training from data-centre GPUs, inference from any.
    GpuPool recommend_from = GpuPool::Auto;

    // --- Issue 36: post-training (job/post_training.hpp), speculative decoding, multi-LoRA serving
    //     and several jobs on one machine (job/serving_extras.hpp) ---
    PostTraining post;                        // mode grpo, dpo, ...: `mode` above is then the policy's (train, lora, qlora)
    Speculative spec;
    LoraServing lora_serving;
    std::vector<MachineJob> machine_jobs;     // the other jobs sharing this job's GPU
};

// Reads a job from JSON; absent fields keep their defaults, or the preset's
// when "framework" names one. Throws InputError("job.<field>").
Job parse_job(const nlohmann::json& job);

// --- Issue 36 (job/posttrain_fields.cpp, job/serving_extras_fields.cpp) ---
// The post-training and serving-extras fields: false for a key that is not one.
bool read_posttrain_field(Job& job, const std::string& key, const nlohmann::json& v, const std::string& field);
bool read_serving_extra_field(Job& job, const std::string& key, const nlohmann::json& v, const std::string& field);
const char* posttrain_field_names();
const char* serving_extra_field_names();
// The mode as the job gives it: a post-training mode's name when one is set, else mode_name.
const char* job_mode_name(const Job& job);
const char* post_mode_name(PostMode m);
bool post_mode_named(const std::string& name, PostMode& mode);  // false for a name that is none
std::vector<const char*> post_mode_names();
const char* policy_name(Mode m);  // full | lora | qlora
const char* vllm_mode_name(VllmMode m);
const char* spec_method_name(SpecMethod m);
std::vector<const char*> spec_method_names();
// After every field is read: the post-training mode's checks and its rollout engine's job; the
// serving extras' checks (each InputError names its field).
void finish_posttrain(const nlohmann::json& j, Job& job);
void finish_serving_extras(Job& job);

inline bool trains(const Job& job) { return job.mode != Mode::Inference; }
// Gradients held in fp32 buffers. DeepSpeed's fp32 accumulation is BF16_Optimizer's (ZeRO 0-1);
// ZeRO-2/3 reduce into partitions of the model dtype (stage_1_and_2.py grads_in_partition,
// stage3.py grad_partitions_flat_buffer) and upcast them at the step.
inline bool fp32_gradient_buffers(const Job& job) {
    return job.fp32_gradients && !(job.sharding_impl == ShardingImpl::DeepSpeed && job.zero >= 2);
}
inline bool uses_adapters(const Job& job) { return job.mode == Mode::LoRA || job.mode == Mode::QLoRA; }

const char* mode_name(Mode mode);
const char* mode_title(Mode mode);  // "Inference", "Full training", "LoRA fine-tuning", "QLoRA fine-tuning"
const char* optimizer_name(Optimizer optimizer);
const char* checkpointing_name(Checkpointing c);
const char* attention_name(Attention a);
const char* loss_name(Loss l);
const char* precision_name(Precision p);
const char* optimizer_impl_name(OptimizerImpl i);
const char* memory_kind_name(MemoryKind k);
const char* framework_name(Framework f);
const char* engine_name(Engine e);
const char* gguf_rules_name(GgufRules r);
const char* split_mode_name(SplitMode m);
const char* vllm_engine_name(VllmEngine e);
const char* cudagraph_mode_name(CudaGraphMode m);
const char* cache_impl_name(CacheImpl c);
std::vector<const char*> split_mode_names();
std::vector<const char*> cache_impl_names();
std::vector<const char*> engine_names();
bool llama_cpp_like(const Job& job);  // llama.cpp or Ollama
bool runs_locally(const Job& job);    // llama.cpp, Ollama or MLX: the machine's two pools decide
// The machine and local-runtime fields (job/machine_fields.cpp): false for a key that is not one.
bool read_machine_field(Job& job, const std::string& key, const nlohmann::json& v, const std::string& field);
const char* machine_field_names();
// The machine fields against each other and the engine, once every field is read (job/machine_fields.cpp).
void check_machine_fields(const nlohmann::json& given, Job& job);
// llama.cpp sees at most 16 devices: src/llama.cpp llama_max_devices() returns 16, the size of
// llama_model_params.tensor_split (and ggml-cuda's GGML_CUDA_MAX_DEVICES); Ollama runs the same.
constexpr int64_t kLlamaCppMaxDevices = 16;
// The names parse_job accepts, for option lists and error messages.
std::vector<const char*> mode_names();
std::vector<const char*> optimizer_names();
std::vector<const char*> checkpointing_names();
std::vector<const char*> attention_names();
std::vector<const char*> loss_names();
std::vector<const char*> precision_names();
std::vector<const char*> memory_kind_names();
const char* model_init_name(ModelInit v);
std::vector<const char*> model_init_names();
const char* qlora_matmul_name(QloraMatmul v);
std::vector<const char*> qlora_matmul_names();
std::vector<const char*> framework_names();
// The distributed-training fields (job/parallel_fields.cpp): false for a key that is not one.
bool read_parallel_field(Job& job, const std::string& key, const nlohmann::json& v, const std::string& field);
const char* sharding_impl_name(ShardingImpl v);
const char* reshard_name(ReshardAfterForward v);
const char* pp_schedule_name(PpSchedule v);
const char* pp_stage_name(PpStage v);
const char* fp8_name(Fp8 v);
std::vector<const char*> sharding_impl_names();
std::vector<const char*> reshard_names();
std::vector<const char*> pp_schedule_names();
std::vector<const char*> pp_stage_names();
std::vector<const char*> fp8_names();
// The fields of how the answer speaks (job/view_fields.cpp): false for a key that is not one.
bool read_view_field(Job& job, const std::string& key, const nlohmann::json& v, const std::string& field);
const char* view_field_names();
const char* gpu_pool_name(GpuPool p);
std::vector<const char*> gpu_pool_names();
std::vector<const char*> unit_names();
// The encoder's input length of an encoder-decoder job (encoder_seq, else seq; Whisper: its frames).
int64_t encoder_tokens(const Job& job, const ModelConfig& c);

}  // namespace vramcalc
