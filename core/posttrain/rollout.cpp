// The rollout engine of an online post-training step (GRPO, PPO, RLOO) on the trainer's GPU:
// vLLM colocated (its gpu_memory_utilization is a share of the whole GPU: weights, KV pool and
// activations inside it), asleep while the policy trains (vLLM sleep mode: level 1 moves its
// weights to host RAM and frees the KV, level 2 frees both), or on a server's GPUs of its own;
// or the policy's own transformers generate.
#include <algorithm>

#include "posttrain/posttrain.hpp"
#include "posttrain/score_model.hpp"
#include "serving/serving.hpp"
#include "serving/working_set.hpp"
#include "text/units.hpp"

namespace vramcalc {
namespace {

PostPart part(const char* key, const char* label, int term, double bytes, bool engine, std::string why) {
    PostPart p;
    p.key = key, p.label = label, p.term = term, p.bytes = bytes, p.engine = engine, p.why = std::move(why);
    return p;
}

// Completions generated at once: TRL generates once per effective batch (grpo_trainer.py,
// generation_batch_size = per_device_train_batch_size × processes × steps_per_generation), each
// engine the share of its GPUs' prompts (vllm_generation.py: max_num_seqs = per_device_train_batch_size
// × vllm_tensor_parallel_size × steps_per_generation).
int64_t generation_batch(const Job& job, const Layout& l) {
    return job.post.generation_batch_size > 0 ? job.post.generation_batch_size : job.batch * l.dp * job.grad_accum;
}

// vLLM's job for the rollout: the version's accounting (job.post.rollout) on this GPU, with the
// trainer's settings for LLM(...).
Job vllm_job(const Plan& p, int64_t sequences, int64_t context) {
    const Job& job = p.job;
    const PostTraining& post = job.post;
    Job v = *post.rollout;
    v.gpu = job.gpu, v.device_gib = job.device_gib, v.gpu_is_a100 = job.gpu_is_a100, v.gpu_is_hopper = job.gpu_is_hopper;
    v.units = job.units;
    v.gpu_memory_utilization = post.vllm_gpu_memory_utilization;
    v.tp = post.vllm_tensor_parallel_size, v.pp = 1, v.gpus = post.vllm_tensor_parallel_size;
    v.batch = std::max<int64_t>(1, sequences);
    v.seq = job.seq;
    v.max_model_len = context;
    v.max_num_seqs = std::max<int64_t>(1, sequences);
    // TRL passes quantization="bitsandbytes" to vLLM for a 4-bit policy (vllm_generation.py); otherwise
    // vLLM loads the checkpoint in its own dtype (a policy's fp32 master copy is never vLLM's).
    v.dtype_auto = job.dtype_auto && job.mode != Mode::QLoRA;
    v.dtype = job.mode == Mode::QLoRA ? &format(FormatId::Nf4) : &p.compute;
    v.head_auto = true;
    return v;
}

void vllm_rollout(const Plan& p, const Layout& l, Rollout& r, bool explain) {
    const Job& job = p.job;
    const PostTraining& post = job.post;
    const ModelConfig& c = p.m.config;
    r.engine = "vllm";
    r.server = post.vllm_mode == VllmMode::Server;
    const int64_t gpus = r.server ? post.vllm_gpus : l.gpus;
    r.engines = std::max<int64_t>(1, gpus / post.vllm_tensor_parallel_size);
    const int64_t all = generation_batch(job, l);
    r.sequences = (all + r.engines - 1) / r.engines;
    // vLLM's context: vllm_max_model_length, else the model's max_position_embeddings (TRL passes
    // max_model_len=None: vLLM takes the config's), never less than one prompt + completion.
    r.max_model_len = post.vllm_max_model_length > 0 ? post.vllm_max_model_length : std::max<int64_t>(c.context_length, job.seq);
    const Job v = vllm_job(p, r.sequences, r.max_model_len);
    const Plan vp = make_plan(p.m, v);
    const Layout vl = resolve_layout(c, v);
    Breakdown b;
    inference_terms(vp, vl, b, r.serving, explain);
    // vLLM refuses to start when one max_model_len request does not fit its pool (V1 kv_cache_utils.py
    // check_enough_kv_cache_memory): the pool's maximum concurrency at that length is below 1.
    r.starts = r.serving.kv_pool > 0 && r.serving.max_concurrency >= 1;
    const std::string version = r.serving.engine_version;
    if (r.server) {
        r.server_gpus = gpus;
        r.server_breakdown = b;
        r.server_device = r.serving.device;
        r.server_fits = r.serving.fits && r.starts;
        r.why = "vLLM server on " + count_text(gpus) + " GPUs of its own (TP " + count_text(post.vllm_tensor_parallel_size) + "): " +
                gb_text(b.total()) + " on each; the trainer's GPUs hold no rollout memory";
        return;
    }
    const bool shared = post.vllm_shares_weights;
    const double W = shared ? 0 : b.bytes[kWeights];
    const std::string share = printf_text("%.2f", post.vllm_gpu_memory_utilization) + " × " + gb_text(r.serving.device);
    r.awake = {
        part("rollout_weights", "vLLM weights", kWeights, W, true,
             explain ? (shared ? "none of its own: the policy computes with vLLM's weight tensors (vllm_shares_weights)"
                               : b.why[kWeights])
                     : ""),
        part("rollout_kv", "vLLM KV pool", kKvCache, b.bytes[kKvCache], true, explain ? b.why[kKvCache] : ""),
        part("rollout_activations", "vLLM activations", kActivations, b.bytes[kActivations], true, explain ? b.why[kActivations] : ""),
        part("rollout_buffers", "vLLM CUDA graphs and non-torch memory", kBuffers, b.bytes[kBuffers] + b.bytes[kOverhead], true,
             explain ? b.why[kBuffers] + "; " + b.why[kOverhead] : ""),
    };
    if (post.sleep_mode == 0) {
        r.asleep = r.awake;
        r.why = version + ": vLLM holds its share (" + share + ") through training as well (no sleep mode)";
    } else {
        const double kept = b.bytes[kBuffers] + b.bytes[kOverhead];
        r.asleep = {part("rollout_buffers", "vLLM asleep: CUDA graphs and non-torch memory", kBuffers, kept, true,
                         explain ? "sleep level " + count_text(post.sleep_mode) +
                                       ": the weights and KV are freed; its CUDA graphs and non-torch memory stay"
                                 : "")};
        if (post.sleep_mode == 1 && !shared) r.cpu = W;
        r.why = version + ": awake while generating (" + share + "), asleep (level " + count_text(post.sleep_mode) + ") while training" +
                (post.sleep_mode == 1 && !shared ? ", its weights in host RAM" : "");
    }
}

// TRL without vLLM: the policy's own model.generate over the local generation batch (the
// unwrapped model: under ZeRO-3, ds3_gather_for_generation gathers the whole weights first).
void generate_rollout(const Plan& p, const Layout& l, Rollout& r, bool explain) {
    const Job& job = p.job;
    r.engine = "transformers_generate";
    r.engines = l.gpus;
    r.sequences = (generation_batch(job, l) + l.dp - 1) / std::max<int64_t>(1, l.dp);
    Job g = job;
    g.post = PostTraining{};
    g.mode = Mode::Inference;
    g.engine = Engine::HfGenerate;
    g.batch = std::max<int64_t>(1, r.sequences);
    g.new_tokens = job.post.max_completion_length;
    g.gpus = 1, g.tp = 1, g.pp = 1, g.cp = 1, g.zero = 0;
    g.loss_tokens = 0;
    const Plan gp = make_plan(p.m, g);
    const Layout gl = resolve_layout(p.m.config, g);
    Breakdown b;
    inference_terms(gp, gl, b, r.serving, explain);
    r.awake = {part("generate_kv", "Generation KV cache", kKvCache, b.bytes[kKvCache], false, explain ? b.why[kKvCache] : ""),
               part("generate_activations", "Generation working set", kActivations, b.bytes[kActivations], false,
                    explain ? b.why[kActivations] : "")};
    if (l.zero >= 3 && l.gpus > 1) {
        const double per_param = p.compute.bits / 8 / static_cast<double>(l.tp * l.pp);
        const double policy = p.m.params.total * per_param;
        // PPO: TRL's ppo_trainer.py unwraps self.model, the PolicyAndValueWrapper, and models/utils.py gathers every
        // parameter of what it unwraps (deepspeed.zero.GatheredParameters(model.parameters())): the value model too,
        // the policy's backbone with a one-output head.
        const bool ppo = job.post.mode == PostMode::Ppo;
        const double critic = ppo ? score_model_params(p) * per_param : 0;
        r.awake.push_back(part("gathered_weights", ppo ? "Gathered policy and critic weights" : "Gathered policy weights", kWeights,
                               policy + critic, false,
                               explain ? (ppo ? "ZeRO-3 gathers the policy-and-value wrapper for generate (TRL ppo_trainer.py "
                                                "unwrap_model_for_generation(self.model), ds3_gather_for_generation True): the "
                                                "policy " + gb_text(policy) + " + the critic " + gb_text(critic) + " = "
                                              : "ZeRO-3 gathers the whole policy for generate (TRL ds3_gather_for_generation True): ") +
                                             gb_text(policy + critic)
                                       : ""));
    }
    r.why = "the policy's own transformers generate over " + count_text(r.sequences) + " completions of " + count_text(job.seq) +
            " tokens on each GPU";
}

}  // namespace

Rollout rollout_engine(const Plan& p, const Layout& l, bool explain) {
    Rollout r;
    if (!generates(p.job.post)) return r;
    if (p.job.post.use_vllm) vllm_rollout(p, l, r, explain);
    else generate_rollout(p, l, r, explain);
    return r;
}

}  // namespace vramcalc
