// Training step time: compute + pipeline bubble + each collective on its link.
#include <algorithm>
#include <cmath>

#include "cluster/cluster.hpp"
#include "local/local.hpp"
#include "cluster/dims.hpp"
#include "cluster/train_parts.hpp"
#include "text/units.hpp"
#include "cluster/text.hpp"
#include "answers/fit.hpp"
#include "job/layout.hpp"
#include "step/timeline.hpp"

namespace vramcalc {
namespace {

bool trains_adapters(const Job& job) { return job.mode == Mode::LoRA || job.mode == Mode::QLoRA; }

// Model FLOPs per token, the MFU numerator (Kaplan et al. 2020 §2.1; PaLM paper appendix B):
// 6 per matmul parameter (2 forward, 4 backward) plus the attention scores,
// 6 · L · s · heads · (d_qk + d_v) per token (12·L·h·s when d_qk = d_v = h/heads),
// counted without the causal halving, as PaLM and torchtitan do. Adapter training
// skips the weight gradients of the frozen base: 4 instead of 6 (and 2/3 of the
// attention), an approximation that ignores the adapters' own small matmuls.
double model_flops_per_token(const Dims& d, const Job& job) {
    const double s = static_cast<double>(job.seq);
    const double f = 6 * d.matmul_params + 6 * d.layers * s * d.heads * (d.qk_dim + d.v_dim);
    return trains_adapters(job) ? f * 2 / 3 : f;
}

// What the GPUs actually execute: full recomputation repeats the forward pass
// (8 instead of 6 per parameter: Korthikanti et al. 2022, arXiv 2205.05198, §5);
// selective recomputation repeats only the attention-score part.
double hardware_flops_per_token(const Dims& d, const Job& job) {
    const double model = model_flops_per_token(d, job);
    const double s = static_cast<double>(job.seq);
    const double attention = 6 * d.layers * s * d.heads * (d.qk_dim + d.v_dim);
    if (job.checkpointing == Checkpointing::Full) return model * 4 / 3;
    if (job.checkpointing == Checkpointing::Selective) return model + attention / 3;
    // per-op SAC recomputes every second matmul of the forward (half of its third of the work)
    if (job.checkpointing == Checkpointing::SelectiveOp) return model * 7 / 6;
    return model;
}

}  // namespace

namespace {

// The verdict's own question (answers/fit.hpp): the job on this GPU, as the estimate lays it out, its breakdown
// per GPU and the fit test the verdict applies (the per-GPU peak for training, the engine's own test for
// serving). Whatever the memory model knows of FSDP, pipeline stages, context and expert parallelism flows
// through here, so the planner and the verdict cannot disagree on a layout.
Breakdown verdict_breakdown(const Model& model, const Job& job, const Gpu& gpu, bool& fits) {
    const double capacity = gpu_bytes(gpu);
    Job on = on_device(job, &find_gpu(gpu.id, "cluster.gpu"), capacity);
    // A local runtime places the job itself before it loads (llama.cpp's --fit, Ollama's scheduler), as the
    // estimate does (answers/estimate.cpp): the layout timed is the one it runs.
    if (runs_locally(on)) {
        FitReport fit;
        on = runtime_job(model, on, fit);
    }
    const Plan plan = make_plan(model, on);
    const Step step = run_step(plan, resolve_layout(model.config, on), false);
    fits = holds(plan, step, capacity);
    return step.breakdown;
}

}  // namespace

LayoutMemory layout_memory(const Model& model, const Job& job, const Gpu& gpu) {
    LayoutMemory m;
    m.bytes = verdict_breakdown(model, job, gpu, m.fits).total();
    return m;
}

double train_memory(const Model& model, const Job& job, const Parallel& p, const Gpu& gpu, bool& fits) {
    Job j = job;
    j.gpus = p.gpus();
    j.tp = p.tp;
    j.pp = p.pp;
    j.cp = p.cp;
    j.zero = p.zero;
    j.ep = p.ep;
    if (p.microbatches > 1) j.grad_accum = p.microbatches;  // micro-batches per optimizer step
    Breakdown b = verdict_breakdown(model, j, gpu, fits);
    // A layout the planner proposes with more expert parallelism than the job's, where the memory model does not
    // yet split routed experts over EP for training (the same figure with the job's EP): routed experts over ep
    // ranks instead of tp (Megatron-Core expert-tensor-parallel size 1), the ZeRO divisor the memory model
    // applied kept. The job's own layout is never adjusted: it is the verdict's.
    if (p.ep > 1 && p.ep != job.ep && model.params.total > 0) {
        Job same = j;
        same.ep = job.ep;
        bool ignored = false;
        if (verdict_breakdown(model, same, gpu, ignored).total() == b.total()) {
            const double f = sum_params(model.tensors, [](const Tensor& t) { return t.kind == TensorKind::RoutedExpert; }) /
                             model.params.total;
            const double scale = (1 - f) + f * static_cast<double>(p.tp) / static_cast<double>(p.ep);
            for (int t : {kWeights, kGradients, kOptimizer}) b.bytes[t] *= scale;
            fits = b.total() <= gpu_bytes(gpu);
        }
    }
    return b.total();
}

const char* schedule_name(Schedule s) {
    switch (s) {
        case Schedule::GPipe: return "GPipe";
        case Schedule::OneF1B: return "1F1B";
        case Schedule::Interleaved: return "interleaved 1F1B";
        case Schedule::ZeroBubble: return "zero bubble (ZB-H1)";
        case Schedule::ZeroBubbleV: return "zero bubble V (ZBV)";
        case Schedule::DualPipe: return "DualPipe";
    }
    return "";
}

namespace {

// The pipeline bubble of a schedule, in seconds, from one micro-batch's forward F, backward B (input and
// weight gradients) and weight-gradient part W on a stage (DeepSeek-V3 report, Table 2, and the papers):
// GPipe (Huang et al. 2019) and 1F1B (Narayanan et al. 2021 §2.2): (p − 1)(F + B); interleaved with v
// chunks: (p − 1)(F + B)/v; ZB-H1 (Qi et al. 2023, arXiv 2401.10241 §3): (p − 1)(F + B − 2W); ZBV (two
// chunks per rank in a V, Qi et al. 2024): half of that; DualPipe: (p/2 − 1)(F&B + B − 3W) with the
// overlapped F&B chunk taken as F + B.
double bubble_of(Schedule s, double p, double v, double F, double B, double W, std::string& why) {
    if (p <= 1) return 0;
    const std::string fb = " with F = " + duration_text(F) + ", B = " + duration_text(B) + ", W = " + duration_text(W);
    switch (s) {
        case Schedule::GPipe:
        case Schedule::OneF1B:
            why = "(p − 1)(F + B)" + fb;
            return (p - 1) * (F + B);
        case Schedule::Interleaved:
            why = "(p − 1)(F + B)/v, v = " + number_text(v) + fb;
            return (p - 1) * (F + B) / v;
        case Schedule::ZeroBubble:
            why = "(p − 1)(F + B − 2W)" + fb;
            return (p - 1) * std::max(0.0, F + B - 2 * W);
        case Schedule::ZeroBubbleV:
            why = "(p − 1)(F + B − 2W)/2" + fb;
            return (p - 1) * std::max(0.0, F + B - 2 * W) / 2;
        case Schedule::DualPipe:
            why = "(p/2 − 1)(F&B + B − 3W)" + fb;
            return std::max(0.0, p / 2 - 1) * std::max(0.0, F + 2 * B - 3 * W);
    }
    return 0;
}

}  // namespace

TrainStep train_step(const Model& model, const Job& job, const ClusterRequest& r, const Parallel& p) {
    TrainStep st;
    st.layout = p;
    const Dims d = dims_of(model, job);
    const Topology topo = r.topology();
    const double tp = static_cast<double>(p.tp), pp = static_cast<double>(p.pp), cp = static_cast<double>(p.cp);
    const double m = static_cast<double>(p.microbatches), v = static_cast<double>(p.virtual_stages);
    const double b = static_cast<double>(job.batch), s = static_cast<double>(job.seq);
    const double gpus = static_cast<double>(p.gpus());

    st.tokens_per_step = static_cast<double>(p.dp) * m * b * s;
    st.model_flops_per_token = model_flops_per_token(d, job);
    st.hardware_flops_per_token = hardware_flops_per_token(d, job);
    // The compute, op by op, on the last stage (cluster/step_ops.cpp).
    StageShape shape;
    shape.tokens = b * s / cp, shape.seq = s, shape.tp = tp, shape.pp = pp, shape.cp = cp;
    shape.ep = static_cast<double>(p.ep), shape.dp = static_cast<double>(p.dp), shape.zero = p.zero;
    shape.microbatches = m, shape.recipe = r.recipe, shape.fused = r.fused;
    const StepCompute sc = step_compute(model, job, d, r.rates, shape);
    st.ops = sc.ops;
    // Every GPU waits for the slowest of the step's synchronous group (all of them: the collectives tie them);
    // its sustained rate sits below one GPU alone (cluster/sustained.hpp).
    st.slowest = slowest_of(r.rates.sustained, p.gpus());
    st.compute_s = sc.total_s / st.slowest;
    const Schedule schedule = p.virtual_stages > 1 && r.schedule == Schedule::OneF1B ? Schedule::Interleaved : r.schedule;
    const double slow = 1 / st.slowest;
    st.bubble_s = bubble_of(schedule, pp, v, sc.forward_s * slow, sc.backward_s * slow, sc.weight_grad_s * slow, st.bubble_why);
    if (st.bubble_s > 0) st.bubble_why = std::string(schedule_name(schedule)) + ": " + st.bubble_why;
    st.schedule = p.pp > 1 ? schedule_name(schedule) : "no pipeline";

    add_comm_terms(model, job, r, p, d, st);

    // Hideable traffic (data-parallel, CP, and TP/EP when their overlap is on) runs under at most `overlap` of the
    // compute time; what does not fit stays exposed. The compute it hides under runs slower while NCCL shares the
    // GPU (cluster/sustained.hpp overlap_slowdown): that time is added as its own term.
    double hideable = 0;
    for (const auto& c : st.comms)
        if (c.exposed_s < 0) hideable += c.time_s;
    const double window = r.assume.overlap * st.compute_s;
    const double exposed_share = hideable > 0 ? std::max(0.0, hideable - window) / hideable : 0;
    for (auto& c : st.comms)
        if (c.exposed_s < 0) c.exposed_s = c.time_s * exposed_share;
    st.overlapped_s = hideable * (1 - exposed_share);
    st.interference_s = r.assume.interference * st.overlapped_s;
    // Kernel gaps: the time a framework's GPU stream idles between kernels (launches, host syncs, allocator),
    // per second of kernel time: the planner's one fitted training parameter (cluster/calibration.hpp).
    st.gaps_s = r.assume.gap_fraction * st.compute_s;

    st.step_s = st.compute_s + st.bubble_s + st.interference_s + st.gaps_s;
    for (const auto& c : st.comms) st.step_s += c.exposed_s;
    st.tokens_per_s = st.tokens_per_step / st.step_s;
    st.tokens_per_s_per_gpu = st.tokens_per_s / gpus;
    // MFU and HFU against the dense BF16 peak, as torchtitan, Megatron and the Llama 3 paper report them
    // ("BF16 MFU"), whatever precision the linears run at.
    st.mfu = st.model_flops_per_token * st.tokens_per_s_per_gpu / (r.peak16_tflops * 1e12);
    st.hfu = st.hardware_flops_per_token * st.tokens_per_s_per_gpu / (r.peak16_tflops * 1e12);

    st.bound_key = "compute";
    double largest = st.compute_s;
    if (st.bubble_s > largest) {
        largest = st.bubble_s;
        st.bound_key = "bubble";
    }
    for (const auto& c : st.comms)
        if (c.exposed_s > largest) {
            largest = c.exposed_s;
            st.bound_key = c.key;
        }
    st.memory_bytes = train_memory(model, job, p, r.gpu, st.fits);
    return st;
}

}  // namespace vramcalc
