#include "step/timeline.hpp"

#include <algorithm>

#include "memory/activations.hpp"
#include "memory/loss.hpp"
#include "memory/model_init.hpp"
#include "serving/serving.hpp"
#include "memory/states.hpp"
#include "text/units.hpp"

namespace vramcalc {
namespace {

std::string count(int64_t n) { return std::to_string(n); }

// Allocator slack and CUDA context on top of the live tensors, as the chosen
// memory kind counts them: allocated (live tensors only), reserved (+ the
// caching allocator's slack), device (+ the CUDA context, what nvidia-smi shows).
// Reserved: the step's live tensors plus the allocator's slack and what a wrap left cached,
// or, when model init left more reserved (core/model_init.cpp), that: the caching allocator
// keeps its segments and the step's tensors are served from them.
struct Reserved {
    double step = 0, init = 0;
    double total() const { return std::max(step, init); }
    bool init_rules() const { return init > step; }
};
Reserved reserved_at_peak(const Job& job, double allocated, double cached_load, double init_reserved) {
    return {allocated * (1 + job.fragmentation) + cached_load, init_reserved};
}

double overhead_term(const Job& job, double allocated, double cached_load, const Reserved& reserved, double outside_torch,
                     std::string* why) {
    const double slack = job.report == MemoryKind::Allocated ? 0 : reserved.total() - allocated;
    const double context = job.report == MemoryKind::Device ? job.overhead_gb * kBytesPerGB + outside_torch : 0;
    if (why) {
        if (job.report == MemoryKind::Allocated)
            *why = "none: allocated memory counts live tensors only (torch max_memory_allocated)";
        else
            *why = (reserved.init_rules() ? "the caching allocator still holds " + gb_text(reserved.init) +
                                     " reserved by model init (replayed allocation by allocation: " + model_init_name(job.model_init) +
                                     "), " + gb_text(slack) + " more than the step's live tensors"
                               : "allocator slack " + printf_text("%.0f%%", job.fragmentation * 100) + " of " + gb_text(allocated) +
                                     (cached_load > 0 ? " + " + gb_text(cached_load) + " still reserved from FSDP's sync_module_states wrap"
                                                      : "")) +
                   (job.report == MemoryKind::Device ? " + CUDA context and non-torch buffers " + gb_text(job.overhead_gb * kBytesPerGB) +
                                                           (outside_torch > 0 ? " + paged optimizer states " + gb_text(outside_torch) : "")
                                                     : std::string()) +
                   " = " + gb_text(slack + context);
    }
    return slack + context;
}

// The next phase of `t`, named (its bytes start at zero: `t` is a fresh Step's).
Phase& phase(Timeline& t, PhaseKind kind, const char* key, const char* label) {
    Phase& p = t.phases[t.count++];
    p.kind = kind;
    p.key = key;
    p.label = label;
    return p;
}

// Training: the live bytes at each moment of a step, written into the step's
// timeline in place (a sweep runs this for every point). Under pipeline
// parallelism the phases are the stage's steady state: its micro-batches in
// flight, with the gradients of those already done accumulating.
void training_timeline(const Plan& p, const Share& s, const ModelActivations& a, const LossBuffers& loss, const StepBuffers& sb,
                       double W, double O, Timeline& t) {
    const double layers = std::max(1.0, s.layers * s.in_flight);  // blocks' activations held, one block each
    const CommBuffers& c = sb.comm;
    // present through forward and backward: a QLoRA weight dequantized, the blocks FSDP keeps
    // gathered, DeepSpeed's reduce bucket
    const double pinned = sb.dequantized + c.stage_unsharded + c.bucket + c.persistent;
    const double accumulated = c.accumulated;  // unsharded gradients of the micro-batches done

    Phase& fwd = phase(t, PhaseKind::Forward, "forward", "End of forward (loss computed)");
    fwd.bytes[kWeights] = W;
    fwd.bytes[kGradients] = sb.grads_in_forward + accumulated;
    fwd.bytes[kOptimizer] = O;
    fwd.bytes[kActivations] = a.blocks;
    fwd.bytes[kLogits] = loss.forward_peak;
    fwd.bytes[kBuffers] = pinned + c.forward + c.head_kept + sb.autocast_copies + std::max(c.ring_forward, c.dispatch);

    Phase& lbw = phase(t, PhaseKind::LossBackward, "loss_backward", "Loss backward");
    lbw.bytes = fwd.bytes;
    lbw.bytes[kLogits] = loss.backward_peak;
    // the blocks' gathers and attention are done; the head's backward runs
    lbw.bytes[kBuffers] += c.head_backward - c.forward - std::max(c.ring_forward, c.dispatch);
    const double early_grads = std::max(sb.grads_in_forward, sb.head_grad) + accumulated;
    lbw.bytes[kGradients] = early_grads;

    // Layer by layer, saved activations are freed while gradients appear: the
    // live sum is largest at one end, the first block (all activations) or
    // the last (all gradients).
    Phase& bw = phase(t, PhaseKind::Backward, "backward", "Backward through the layers");
    const double first = early_grads + a.blocks + sb.autocast_copies;
    const double last = sb.grads_at_end + accumulated + a.blocks / layers;
    bw.bytes[kWeights] = W;
    bw.bytes[kOptimizer] = O;
    bw.bytes[kActivations] = (first >= last ? a.blocks : a.blocks / layers) + a.recompute + a.backward_work;
    bw.bytes[kGradients] = first >= last ? early_grads : sb.grads_at_end + accumulated;
    bw.bytes[kBuffers] = pinned + c.backward + std::max(c.ring_backward, c.dispatch) + (first >= last ? sb.autocast_copies : 0);

    if (!p.job.optimizer_in_backward) {
        Phase& step = phase(t, PhaseKind::Optimizer, "optimizer", "Optimizer step");
        step.bytes[kWeights] = W;
        step.bytes[kOptimizer] = O;
        step.bytes[kGradients] = sb.grads_at_end;
        step.bytes[kBuffers] = sb.optimizer_temp + c.bucket + c.persistent;
    }
    double most = t.phases[0].total();
    for (int i = 1; i < t.count; ++i)
        if (const double total = t.phases[i].total(); total > most) most = total, t.peak = i;
}

std::string training_why(const Plan& p, const ModelActivations& a, const Layout& l) {
    const Job& job = p.job;
    std::string why = "saved for backward: " + gb_text(a.blocks);
    switch (job.checkpointing) {
        case Checkpointing::None: why += " (every block's saved tensors, " + count(p.m.config.layers) + " layers)"; break;
        case Checkpointing::Selective: why += " (selective: attention core recomputed)"; break;
        case Checkpointing::Full: why += " (full checkpointing: each block's input)"; break;
        case Checkpointing::SelectiveOp:
            why += " (per-op selective checkpointing: each block's input, every other matmul output and the attention output)";
            break;
    }
    if (a.recompute > 0) why += " + one block recomputed in backward " + gb_text(a.recompute);
    why += " + gradients flowing through a block " + gb_text(a.backward_work);
    if (a.offloaded > 0) why += "; " + gb_text(a.offloaded) + " offloaded to CPU memory";
    why += "; ";
    why += attention_name(job.attention);
    why += " attention";
    if (job.compile) why += ", torch.compile";
    if (l.tp > 1) why += ", ÷ TP " + count(l.tp);
    if (l.cp > 1) why += ", ÷ CP " + count(l.cp);
    return why;
}

// The step buffers that exist for this job, each with its size.
std::string buffers_why(const StepBuffers& sb) {
    const CommBuffers& c = sb.comm;
    const std::pair<const char*, double> items[] = {
        {"FSDP/ZeRO-3 gathered parameters in forward (current + prefetched)", c.forward},
        {"in backward, with unsharded gradients and reduce-scatter buffers", c.backward},
        {"the head kept gathered from its forward to its backward", c.head_kept},
        {"every block of the stage kept gathered across micro-batches", c.stage_unsharded},
        {"gradient reduce bucket", c.bucket},
        {"context-parallel attention: the gathered K/V and fp32 gradient accumulators", c.ring_backward},
        {"expert-parallel all-to-all buffers", c.dispatch},
        {"async-TP workspace and cached fp8 weights", c.persistent},
        {"autocast 16-bit weight copies", sb.autocast_copies},
        {"QLoRA dequantized weight", sb.dequantized},
        {"foreach optimizer temporary (at the step)", sb.optimizer_temp},
    };
    std::string why;
    for (const auto& [name, bytes] : items)
        if (bytes > 0) why += (why.empty() ? "" : ", ") + std::string(name) + " " + gb_text(bytes);
    return why.empty() ? "none for this recipe" : why;
}

// The step on the GPU that holds share `sh`.
Step step_on(const Plan& p, const Layout& l, const Share& sh, bool explain) {
    Step s;
    s.share = sh;
    double cached = 0;
    Breakdown& b = s.breakdown;
    auto why = [&](int term) { return explain ? &b.why[term] : nullptr; };
    const double W = weights_term(p, l, sh, why(kWeights));
    const double G = gradients_term(p, l, sh, why(kGradients));
    const double O = optimizer_term(p, l, sh, why(kOptimizer));
    if (!trains(p.job)) {
        // Inference: the engine's accounting (core/serving.cpp); engines with
        // their own budget set the overhead themselves.
        if (inference_terms(p, l, b, s.serving, explain)) {
            s.allocated = b.total() - b.bytes[kOverhead];
            s.reserved = s.allocated;
            s.device = b.total();
            s.cpu = s.serving.cpu_bytes;
            return s;
        }
    } else {
        const ModelActivations a = model_activations(p, l, sh);
        const LossBuffers loss = loss_buffers(p, l, sh);
        const StepBuffers sb = step_buffers(p, l, sh, O, a.offloaded);
        const double on_gpu_optimizer = p.job.paged_optimizer ? 0 : O;
        training_timeline(p, sh, a, loss, sb, W, on_gpu_optimizer, s.timeline);
        s.cpu = sb.cpu;
        // The communication streams' pools stay reserved beyond what is live of them at the peak.
        const int at = s.timeline.peak;
        const PhaseKind peak_kind = s.timeline.phases[at].kind;
        const double comm_live = peak_kind == PhaseKind::Backward    ? sb.comm.backward
                                 : peak_kind == PhaseKind::Optimizer ? 0
                                                                     : sb.comm.forward;
        cached = sb.cached_load + std::max(0.0, sb.comm.side_pools - comm_live);
        s.saved = a.blocks + a.offloaded + loss.saved;
        // After the optimizer step: what stays allocated until the next step's forward.
        s.steady = W + on_gpu_optimizer + sb.grads_at_end + sb.comm.bucket + sb.comm.persistent;
        const Phase& peak = s.timeline.phases[s.timeline.peak];
        b.bytes = peak.bytes;
        if (explain) {
            if (G != peak.bytes[kGradients])
                b.why[kGradients] += std::string("; live at the peak (") + peak.label + "): " + gb_text(peak.bytes[kGradients]);
            b.why[kActivations] = training_why(p, a, l);
            b.why[kLogits] = !sh.last ? std::string("none on this stage: the loss runs on the last pipeline stage")
                                      : std::string(loss_name(p.job.loss)) + " cross-entropy: " + gb_text(loss.saved) +
                                            " kept for backward, " + gb_text(loss.forward_peak) + " at its forward peak, " +
                                            gb_text(loss.backward_peak) + " while its gradient is computed";
            b.why[kBuffers] = buffers_why(sb);
            b.why[kKvCache] = "none: training keeps no KV cache (keys and values are part of the activations)";
        }
    }
    s.allocated = b.total();
    const double paged = trains(p.job) && p.job.paged_optimizer && !optimizer_on_cpu(p.job) ? O : 0;
    const Reserved reserved = reserved_at_peak(p.job, s.allocated, cached, model_init_replay(p).reserved);
    b.bytes[kOverhead] = overhead_term(p.job, s.allocated, cached, reserved, paged, why(kOverhead));
    s.reserved = reserved.total();
    s.device = s.reserved + p.job.overhead_gb * kBytesPerGB + paged;
    if (!trains(p.job) && s.serving.device > 0) {
        s.serving.fits = b.total() <= s.serving.device;
        s.serving.verdict = std::string(s.serving.fits ? "fits" : "does not fit") + ": " + gb_text(b.total()) + " of " +
                            gb_text(s.serving.device) + (p.job.gpus > 1 ? " on each of the " + count(p.job.gpus) + " GPUs" : "");
    }
    return s;
}

}  // namespace

// Training under pipeline parallelism: the stage the job asks for, or the one
// that needs the most (the first holds the most micro-batches in flight, the
// last the head and the loss; the stages between hold less than the first).
Step run_step(const Plan& p, const Layout& l, bool explain) {
    return post_training(p.job.post) ? posttrain_step(p, l, explain) : model_step(p, l, explain);
}

Step model_step(const Plan& p, const Layout& l, bool explain) {
    if (!trains(p.job)) return step_on(p, l, uniform_share(p, l), explain);
    if (l.pp == 1 || p.job.pp_stage == PpStage::First) return step_on(p, l, share_of(p, l, 0), explain);
    if (p.job.pp_stage == PpStage::Last) return step_on(p, l, share_of(p, l, l.pp - 1), explain);
    Step first = step_on(p, l, share_of(p, l, 0), explain);
    Step last = step_on(p, l, share_of(p, l, l.pp - 1), explain);
    return last.breakdown.total() > first.breakdown.total() ? last : first;
}

Breakdown compute_breakdown(const Model& m, const Job& job, bool explain) {
    return run_step(make_plan(m, job), resolve_layout(m.config, job), explain).breakdown;
}

}  // namespace vramcalc
