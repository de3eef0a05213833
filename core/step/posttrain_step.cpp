// A post-training step (issue 36) as a timeline: the persistent part (the policy's model
// states, the reference, reward and critic models) in every phase; the rollout's generation; the
// scoring forwards; the policy's own training step, phase by phase (core/step/timeline.cpp); and
// for PPO the critic's update. The parts come from core/posttrain/; the peak phase is the answer's
// breakdown, with the trainer's allocator slack and the CUDA context on top.
#include <algorithm>

#include "serving/working_set.hpp"
#include "step/timeline.hpp"
#include "text/units.hpp"

namespace vramcalc {
namespace {

PostPart part(const char* key, const char* label, int term, double bytes, std::string why) {
    PostPart p;
    p.key = key, p.label = label, p.term = term, p.bytes = bytes, p.why = std::move(why);
    return p;
}

void append(std::vector<PostPart>& to, const std::vector<PostPart>& parts) { to.insert(to.end(), parts.begin(), parts.end()); }

// What a training step's phase holds beyond its weights and optimizer states (the persistent part).
void step_items(const Phase& ph, const Breakdown& b, bool critic, std::vector<PostPart>& parts, bool explain) {
    const struct {
        const char *key, *critic_key, *label;
        int term;
    } items[] = {{"gradients", "critic_gradients", "Gradients", kGradients},
                 {"activations", "critic_activations", "Activations", kActivations},
                 {"logits", "critic_logits", "Logits and loss", kLogits},
                 {"buffers", "critic_buffers", "Step buffers", kBuffers}};
    for (const auto& it : items)
        if (ph.bytes[it.term] > 0)
            parts.push_back(part(critic ? it.critic_key : it.key, it.label, it.term, ph.bytes[it.term],
                                 explain ? (critic ? "the critic's: " : "") + b.why[it.term] : ""));
}

PostPhase phase(PhaseKind kind, const char* key, const char* label, const std::vector<PostPart>& first) {
    PostPhase p;
    p.kind = kind, p.key = key, p.label = label, p.parts = first;
    return p;
}

// The sentence for one term at the peak: each part that counts under it, and with several their sum (the
// row's figure), so the formula ends in the row (issue 33).
std::string term_why(const PostPhase& peak, int term) {
    std::string why;
    double sum = 0;
    int parts = 0;
    for (const PostPart& p : peak.parts)
        if (p.term == term && p.bytes > 0) {
            why += (why.empty() ? "" : "; ") + std::string(p.label) + " " + gb_text(p.bytes) + (p.why.empty() ? "" : " (" + p.why + ")");
            sum += p.bytes;
            ++parts;
        }
    if (parts > 1) why += "; together " + gb_text(sum);
    return why.empty() ? "none in this phase" : why;
}

std::vector<std::string> rollout_notes(const Job& job, const Rollout& r, const PostTrainInfo& info) {
    std::vector<std::string> notes;
    if (!r.why.empty()) notes.push_back("Rollout: " + r.why + ".");
    if (std::string(r.engine) == "vllm" && !r.starts)
        notes.push_back("vLLM would not start: one request of its max_model_len (" + count_text(r.max_model_len) +
                        " tokens) needs more than its KV pool (" + gb_text(std::max(0.0, r.serving.kv_pool)) +
                        "); set vllm_max_model_length to the prompt + completion (" + count_text(info.tokens) +
                        ") or raise vllm_gpu_memory_utilization.");
    else if (std::string(r.engine) == "vllm" && r.serving.pool_tokens > 0 &&
             static_cast<double>(r.serving.pool_tokens) < static_cast<double>(r.sequences) * static_cast<double>(info.tokens))
        notes.push_back("vLLM's pool holds " + count_text(r.serving.pool_tokens) + " tokens, fewer than the " +
                        count_text(r.sequences) + " completions × " + count_text(info.tokens) +
                        " tokens each engine generates at once: the rest wait their turn (slower, not out of memory).");
    if (r.server)
        notes.push_back("vLLM server: " + count_text(r.server_gpus) + " GPUs of their own, " + gb_text(r.server_breakdown.total()) +
                        " each of " + gb_text(r.server_device) + (r.server_fits ? ": fits." : ": does not fit."));
    if (job.post.deepspeed_enable_sleep)
        notes.push_back("deepspeed_enable_sleep: the trainer's model states wait in host RAM while vLLM generates.");
    return notes;
}

}  // namespace

Step posttrain_step(const Plan& p, const Layout& l, bool explain) {
    const Job pj = policy_job(p.job);
    const Plan pp = make_plan(p.m, pj);
    const PostTraining& post = pj.post;
    Step policy = model_step(pp, l, explain);
    PostTrainInfo info;
    info.active = true;
    info.rows = pj.batch, info.tokens = pj.seq;
    info.logit_tokens = pj.loss_tokens > 0 ? std::min(pj.loss_tokens, pj.seq) : pj.seq;
    double cpu = policy.cpu;

    // The persistent part: the policy's weights and optimizer states (gradients are freed by
    // zero_grad between steps), the frozen models, the critic's states.
    const Phase& first = policy.timeline.phases[0];
    std::vector<PostPart>& persistent = info.persistent;
    persistent.push_back(part("policy_weights", "Policy weights", kWeights, first.bytes[kWeights],
                              explain ? policy.breakdown.why[kWeights] : ""));
    if (first.bytes[kOptimizer] > 0)
        persistent.push_back(part("policy_optimizer", "Policy optimizer states", kOptimizer, first.bytes[kOptimizer],
                                  explain ? policy.breakdown.why[kOptimizer] : ""));
    append(persistent, resident_models(pp, l, cpu, explain));
    Step critic;
    const bool has_critic = post.mode == PostMode::Ppo;
    if (has_critic) {
        const Job cj = critic_job(p.job);
        critic = model_step(make_plan(p.m, cj), l, explain);
        const Phase& c0 = critic.timeline.phases[0];
        persistent.push_back(part("critic_weights", "Critic (value model) weights", kWeights, c0.bytes[kWeights],
                                  explain ? std::string("the policy's architecture with a one-output value head, ") +
                                                (cj.mode == Mode::Train ? "trained in full: " : "trained with the policy's adapters (critic_lora): ") +
                                                critic.breakdown.why[kWeights]
                                          : ""));
        persistent.push_back(part("critic_optimizer", "Critic optimizer states", kOptimizer, c0.bytes[kOptimizer],
                                  explain ? critic.breakdown.why[kOptimizer] : ""));
        cpu += critic.cpu;
    }
    Rollout r = rollout_engine(pp, l, explain);
    cpu += r.cpu;

    // The phases, in the order a step runs them.
    if (generates(post)) {
        PostPhase g = phase(PhaseKind::Generation, "generation", "Generation (the rollout)", persistent);
        if (post.deepspeed_enable_sleep) {
            cpu += sum_parts(g.parts);
            g.parts.clear();
        }
        append(g.parts, r.awake);
        info.phases.push_back(std::move(g));
    }
    const bool offline_reference = (post.mode == PostMode::Dpo || post.mode == PostMode::Kto);
    if (offline_reference && post.precompute_ref_log_probs) {
        // TRL precomputes the reference log-probs before training, with the starting policy itself.
        PostPhase s = phase(PhaseKind::Scoring, "scoring", "Reference log-probs (before training)", {persistent.front()});
        append(s.parts, scoring_forward(pp, l, explain));
        info.phases.push_back(std::move(s));
    } else if (generates(post) || offline_reference) {
        PostPhase s = phase(PhaseKind::Scoring, "scoring",
                            generates(post) ? "Scoring (log-probs, rewards, values)" : "Reference log-probs", persistent);
        append(s.parts, r.asleep);
        append(s.parts, offloaded_reference(pp, l, explain));
        append(s.parts, scoring_forward(pp, l, explain));
        info.phases.push_back(std::move(s));
    }
    for (int i = 0; i < policy.timeline.count; ++i) {
        const Phase& ph = policy.timeline.phases[i];
        PostPhase t = phase(ph.kind, ph.key, ph.label, persistent);
        append(t.parts, r.asleep);
        step_items(ph, policy.breakdown, false, t.parts, explain);
        info.phases.push_back(std::move(t));
    }
    if (has_critic) {
        PostPhase c = phase(PhaseKind::CriticUpdate, "critic_update", "Critic update", persistent);
        append(c.parts, r.asleep);
        step_items(critic.timeline.phases[critic.timeline.peak], critic.breakdown, true, c.parts, explain);
        info.phases.push_back(std::move(c));
    }

    // The timeline and its peak.
    Step s;
    Timeline& t = s.timeline;
    for (const PostPhase& ph : info.phases) {
        if (t.count == static_cast<int>(t.phases.size())) break;
        Phase& out = t.phases[t.count++];
        out.kind = ph.kind, out.key = ph.key, out.label = ph.label;
        for (const PostPart& part : ph.parts) out.bytes[part.term] += part.bytes;
    }
    for (int i = 1; i < t.count; ++i)
        if (t.phases[i].total() > t.phases[t.peak].total()) t.peak = i;
    info.peak = t.peak;
    const PostPhase& peak = info.phases[static_cast<size_t>(t.peak)];
    Breakdown& b = s.breakdown;
    b.bytes = t.phases[t.peak].bytes;
    // Overhead: the trainer's allocator slack on its own tensors (vLLM's pool is one allocation of its
    // own) and the CUDA context, as the job's memory kind counts them.
    double engine = 0;
    for (const PostPart& part : peak.parts) engine += part.engine ? part.bytes : 0;
    s.allocated = b.total();
    const Job& job = p.job;
    const double slack = job.report == MemoryKind::Allocated ? 0 : job.fragmentation * (s.allocated - engine);
    const double context = job.report == MemoryKind::Device ? job.overhead_gb * kBytesPerGB : 0;
    b.bytes[kOverhead] = slack + context;
    if (explain) {
        for (int term = 0; term < kTermCount; ++term)
            if (term != kOverhead) b.why[term] = std::string(peak.label) + ": " + term_why(peak, term);
        b.why[kOverhead] = "allocator slack " + printf_text("%.0f%%", job.fragmentation * 100) + " of the trainer's " +
                           gb_text(s.allocated - engine) + (job.report == MemoryKind::Device ? " + CUDA context " + gb_text(context) : "") +
                           " = " + gb_text(slack + context);
        info.notes = rollout_notes(job, r, info);
    }
    s.reserved = s.allocated + slack;
    s.device = s.reserved + job.overhead_gb * kBytesPerGB;
    s.cpu = cpu;
    s.saved = policy.saved;
    s.steady = sum_parts(persistent) + sum_parts(r.asleep);
    s.share = policy.share;
    s.serving = r.serving;
    info.cpu_bytes = cpu;
    info.rollout = std::move(r);
    s.post = std::move(info);
    return s;
}

}  // namespace vramcalc
