// The policy's and critic's training jobs, the frozen models beside them and the scoring forwards
// of a post-training step (core/posttrain/posttrain.hpp).
#include <algorithm>

#include "posttrain/posttrain.hpp"
#include "posttrain/score_model.hpp"
#include "serving/working_set.hpp"
#include "text/units.hpp"

namespace vramcalc {
namespace {

// Whether the step keeps a reference model of its own. LoRA and QLoRA policies compute the
// reference with their adapters disabled (TRL grpo_trainer.py / dpo_trainer.py: "If PEFT is used,
// the reference model is not needed"; verl ref_in_actor when lora_rank > 0); DPO and KTO with
// precomputed log-probs drop it (TRL PR #5542); ORPO has none; GRPO, RLOO and PPO load it for their
// KL term only when beta > 0 (TRL grpo_config.py beta: "If 0.0, the reference model is not loaded").
bool keeps_reference(const Job& job) {
    const PostTraining& p = job.post;
    if (uses_adapters(job)) return false;
    switch (p.mode) {
        case PostMode::Dpo:
        case PostMode::Kto: return !p.precompute_ref_log_probs;
        case PostMode::Orpo: return false;
        case PostMode::Grpo:
        case PostMode::Rloo:
        case PostMode::Ppo: return p.beta > 0;
        case PostMode::None: break;
    }
    return false;
}

// Bytes per parameter of a frozen copy: ref_dtype, else as the policy's weights are stored (fp32
// under autocast: TRL loads the reference with the policy's model_init_kwargs).
double frozen_bytes_per_param(const Plan& p) {
    if (p.job.post.ref_dtype) return p.job.post.ref_dtype->bits / 8;
    const bool fp32 = p.job.mode == Mode::Train && p.job.precision == Precision::Autocast;
    return fp32 ? 4 : p.compute.bits / 8;
}

// ZeRO-3 / FSDP shard frozen models like the policy (TRL prepare_deepspeed / prepare_fsdp; verl's
// reference is an FSDP module); under ZeRO 0 – 2 each GPU keeps a whole copy (TRL prepare_deepspeed:
// "we assume the reference model fits in memory and is initialized on each device with ZeRO disabled").
double frozen_divisor(const Layout& l) { return shard(l, 3); }

std::string divisor_text(const Layout& l) {
    const double d = frozen_divisor(l);
    return d > 1 ? " ÷ " + plain_number(d) + (l.zero >= 3 ? " (sharded like the policy, ZeRO-3 / FSDP)" : " (TP × PP)")
                 : " (a whole copy on each GPU)";
}

PostPart part(const char* key, const char* label, int term, double bytes, std::string why) {
    PostPart p;
    p.key = key, p.label = label, p.term = term, p.bytes = bytes, p.why = std::move(why);
    return p;
}

double reference_bytes(const Plan& p, const Layout& l) {
    return p.m.params.total * frozen_bytes_per_param(p) / frozen_divisor(l);
}

}  // namespace

double sum_parts(const std::vector<PostPart>& parts) {
    double t = 0;
    for (const PostPart& p : parts) t += p.bytes;
    return t;
}

Job policy_job(const Job& job) {
    Job j = job;
    const PostTraining& p = job.post;
    if (generates(p)) {
        // TRL grpo_trainer.py: prompt and completion in one sequence; logits for the completion
        // only (logits_to_keep = completion length); the micro-batch counts completions.
        j.seq = p.max_prompt_length + p.max_completion_length;
        j.loss_tokens = p.max_completion_length;
    } else if (pairwise(p)) {
        // TRL dpo_trainer.py concatenated forward: chosen and rejected of each pair in one batch.
        j.batch = 2 * job.batch;
    }
    return j;
}

// The critic (PPO's value model): the whole backbone trained, or with the policy's adapters (critic_lora: OpenRLHF's
// ppo_critic.py passes the actor's lora_rank and load_in_4bit; ms-swift's rlhf.py prepares the value model with the
// policy's tuner). A full policy keeps a full critic.
Job critic_job(const Job& job) {
    Job j = policy_job(job);
    const bool adapters = job.post.critic_lora && (job.mode == Mode::LoRA || job.mode == Mode::QLoRA);
    j.mode = adapters ? job.mode : Mode::Train;
    j.head_auto = false;
    j.head = Head::TokenClassification;  // a value per token: the backbone and a one-output score head
    j.num_labels = 1;
    j.loss = Loss::Full;
    j.loss_tokens = 0;
    if (!adapters && !j.dtype->trainable) j.dtype = &format(FormatId::Bf16);  // a QLoRA critic keeps its 4-bit base
    return j;
}

std::vector<PostPart> resident_models(const Plan& policy, const Layout& l, double& cpu, bool explain) {
    const Job& job = policy.job;
    std::vector<PostPart> parts;
    const double per = frozen_bytes_per_param(policy);
    if (keeps_reference(job)) {
        const double bytes = reference_bytes(policy, l);
        if (job.post.ref_param_offload) cpu += bytes;  // this GPU's shard, in host RAM between its forwards
        else
            parts.push_back(part("reference", "Reference model", kWeights, bytes,
                                 explain ? params_text(policy.m.params.total) + " × " + plain_number(per) + " B" + divisor_text(l) +
                                               " = " + gb_text(bytes) + ": the frozen starting policy, for the KL term"
                                         : ""));
    }
    if (job.post.reward_model) {
        // AutoModelForSequenceClassification(num_labels=1): the backbone and a one-output score head.
        const double params = score_model_params(policy);
        const double bytes = params * per / frozen_divisor(l);
        parts.push_back(part("reward_model", "Reward model", kWeights, bytes,
                             explain ? "the policy's architecture with a one-output score head: " + params_text(params) + " × " +
                                           plain_number(per) + " B" + divisor_text(l) + " = " + gb_text(bytes)
                                     : ""));
    }
    return parts;
}

std::vector<PostPart> offloaded_reference(const Plan& policy, const Layout& l, bool explain) {
    if (!keeps_reference(policy.job) || !policy.job.post.ref_param_offload) return {};
    const double bytes = reference_bytes(policy, l);
    return {part("reference", "Reference model (back from host RAM)", kWeights, bytes,
                 explain ? gb_text(bytes) + divisor_text(l) + ", brought back from host RAM for its forward (ref_param_offload)" : "")};
}

std::vector<PostPart> scoring_forward(const Plan& p, const Layout& l, bool explain) {
    const Job& job = p.job;
    const ModelConfig& c = p.m.config;
    const double rows = static_cast<double>(job.batch), S = static_cast<double>(job.seq);
    const double kept = job.loss_tokens > 0 ? static_cast<double>(std::min(job.loss_tokens, job.seq)) : S;
    const double tokens = rows * S / static_cast<double>(l.cp);
    const double work = layer_working_set(p, tokens, l.tp);
    // No-grad log-probs (TRL _get_per_token_logps_and_entropies): the micro-batch's 16-bit logits over
    // the kept tokens and one row's log_softmax at a time.
    const double V = static_cast<double>(need_dim(c.vocab, "vocab_size", "the log-probs")) / static_cast<double>(l.tp);
    const double B = p.compute.bits / 8;
    const double logits = (rows + 1) * kept * V * B;
    std::vector<PostPart> parts;
    parts.push_back(part("scoring_activations", "Forward without gradients", kActivations, work,
                         explain ? "one layer's temporaries for " + count_text(static_cast<int64_t>(rows)) + " × " +
                                       count_text(job.seq) + " tokens (layers run one at a time, nothing saved)"
                                 : ""));
    parts.push_back(part("scoring_logits", "Log-prob logits", kLogits, logits,
                         explain ? count_text(static_cast<int64_t>(rows)) + " × " + count_text(static_cast<int64_t>(kept)) +
                                       " tokens × " + count_text(static_cast<int64_t>(V)) + " vocabulary × " + plain_number(B) +
                                       " B, + one row's log_softmax = " + gb_text(logits)
                                 : ""));
    return parts;
}

}  // namespace vramcalc
