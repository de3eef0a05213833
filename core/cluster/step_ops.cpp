// The training step's compute, op by op, on the last pipeline stage (it holds the
// output head and the loss, so it is the slowest when layers split evenly).
#include "cluster/step_ops.hpp"

#include <algorithm>

#include "cluster/text.hpp"
#include "text/units.hpp"

namespace vramcalc {
namespace {

// Forward, backward and weight-gradient time of one op for one micro-batch, and what it executed.
struct Acc {
    double fwd = 0, bwd = 0, wgrad = 0, flops = 0, bytes = 0;
    void add(const Acc& o) { fwd += o.fwd, bwd += o.bwd, wgrad += o.wgrad, flops += o.flops, bytes += o.bytes; }
};

// A linear layer's three GEMMs (Narayanan et al. 2021 §3.2: forward Y = XW, backward dX = dY·Wᵀ and
// dW = Xᵀ·dY): M tokens, K in features, N out features on this GPU, `count` of them per micro-batch.
Acc linear(const Rates& r, double M, double N, double K, double count, double groups, bool low, bool wgrad_low,
           bool weight_grads, double scale, double in_low) {
    const double in = low ? in_low : 2;  // operand bytes: fp8 1, fp4 0.5, bf16 2
    Acc a;
    a.fwd = count * gemm_s(r, M, N, K, low, in, scale, groups);
    a.bwd = count * gemm_s(r, M, K, N, low, in, scale, groups);
    if (weight_grads) {
        a.wgrad = count * gemm_s(r, K, N, M, wgrad_low, wgrad_low ? in : 2, wgrad_low ? scale : 0);
        a.bwd += a.wgrad;
    }
    a.flops = count * 2 * M * N * K * (weight_grads ? 3 : 2);
    return a;
}

std::string n_text(double v) { return number_text(v); }

}  // namespace

StepCompute step_compute(const Model& model, const Job& job, const Dims& d, const Rates& r, const StageShape& st) {
    const ModelConfig& c = model.config;
    const double T = st.tokens, m = st.microbatches;
    const bool adapters = uses_adapters(job);
    const LowPrecision* lp = st.recipe;
    const bool low = lp != nullptr && r.peak_low > 0;
    const double in_low = low ? (lp->fp4 ? 0.5 : 1) : 2;
    const double scale = low ? lp->scale_bytes : 0;

    // ---- linear layers of the blocks on this stage, and the casts the recipe adds to each
    Acc lin, casts;
    double intermediate = 0, moe_layers = 0;  // per-token active MLP width (for the activation), MoE layers
    for (const Tensor& t : model.tensors) {
        if (!t.is_linear()) continue;
        const bool routed = t.kind == TensorKind::RoutedExpert;
        double M = T, N = static_cast<double>(t.out) / st.tp, groups = 1, count = static_cast<double>(t.active_copies) / st.pp;
        const double K = static_cast<double>(t.in);
        if (routed && d.experts > 0) {
            // Balanced routing: the tokens of this GPU's dispatch (its sequence-parallel share under EP) reach
            // T·k expert slots; experts are split over EP (full width) or, without EP, over TP (Megatron ETP = TP).
            const double layers_t = static_cast<double>(t.copies) / d.experts;
            count = layers_t / st.pp;
            M = st.ep > 1 ? T * d.experts_per_token / st.tp : T * d.experts_per_token;
            N = st.ep > 1 ? static_cast<double>(t.out) : static_cast<double>(t.out) / st.tp;
            groups = st.ep > 1 ? d.experts / st.ep : d.experts;
            moe_layers = std::max(moe_layers, layers_t);
        }
        if ((t.role & ~uint32_t{kRoleExpert}) == kRoleDown)
            intermediate += K * static_cast<double>(t.active_copies) / std::max(1.0, d.layers);
        lin.add(linear(r, M, N, K, count, groups, low, low && !lp->grad_weight_high, !adapters, scale, in_low));
        if (low) {
            // torchao with torch.compile fuses the activation's amax into the op before it (fuse_with_prev).
            const bool torchao = !lp->weight_cast_per_step;
            const double fuse = st.fused && torchao ? 2 : 0;
            const double bytes = M * K * std::max(0.0, lp->cast_input - fuse) + M * N * std::max(0.0, lp->cast_grad - fuse) +
                                 groups * K * N * lp->cast_weight / (lp->weight_cast_per_step ? m : 1);
            Acc a;
            a.fwd = count * stream_s(r, bytes / 2, 2);
            a.bwd = count * stream_s(r, bytes / 2, 2);
            a.bytes = count * bytes;
            casts.add(a);
        }
    }

    // ---- output head (untied lm_head, or the tied embedding used as one), on the last stage
    Acc head;
    const double V = static_cast<double>(c.vocab);
    if (V > 0) head = linear(r, T, V / st.tp, d.hidden, 1, 1, false, false, !adapters, 0, 2);

    // ---- attention core: causal, FlashAttention's count (forward 2·s·d per query and head for QKᵀ and PV,
    // halved by the mask; backward 2.5 × the forward, flash_attn benchmarks' convention)
    Acc attn;
    const double heads = d.heads / st.tp, layers = d.layers / st.pp, s = st.seq, kernel_seq = st.seq / st.cp;
    const double fwd_flops = T * s * heads * (d.qk_dim + d.v_dim);
    attn.fwd = layers * attention_s(r, fwd_flops, d.qk_dim, kernel_seq, false);
    attn.bwd = layers * attention_s(r, 2.5 * fwd_flops, d.qk_dim, kernel_seq, true);
    attn.flops = layers * 3.5 * fwd_flops;

    // ---- streaming ops per token and layer, bytes read + written, forward / backward.
    // Eager PyTorch runs each op of the modules as written: the RMSNorm in fp32 (torchtitan's RMSNorm and HF's
    // LlamaRMSNorm: x.float(), pow(2), mean, x · rsqrt, type_as, · weight = 6 + 8 + 4 + 8 + 6 + 4 = 36 bytes an
    // element forward; autograd's backward of those ops 56), 2 residual adds (6h each way), RoPE in fp32
    // (torchtitan's apply_rotary_emb: float(), complex multiply, type_as = 20 bytes an element each way),
    // SwiGLU (forward silu 4F + mul 6F, backward 10F + 6F). Fused (torch.compile, Transformer Engine): norm +
    // residual in one kernel (8h each way, twice), RoPE in one (4 each way), SwiGLU in one (6F / 10F).
    // Sequence parallelism splits the h-wide ops over TP; q, k and F are per-GPU widths already.
    const double h = d.hidden / st.tp, qk = d.heads * d.qk_dim / st.tp + d.kv_width / 2 / std::min(st.tp, d.kv_heads);
    const double F = intermediate / st.tp;
    const double ew_fwd = st.fused ? 16 * h + 4 * qk + 6 * F : (2 * 36 + 12) * h + 20 * qk + 10 * F;
    const double ew_bwd = st.fused ? 16 * h + 4 * qk + 10 * F : (2 * 56 + 12) * h + 20 * qk + 16 * F;
    // MoE: the permute and unpermute copy each routed token's hidden state (read + write, each way).
    const double moe = moe_layers > 0 ? moe_layers / std::max(1.0, d.layers) * 8 * d.experts_per_token * d.hidden / st.tp : 0;
    Acc elem;
    elem.fwd = layers * stream_s(r, T * (ew_fwd + moe / 2), st.fused ? 4 : 21);
    elem.bwd = layers * stream_s(r, T * (ew_bwd + moe / 2), st.fused ? 5 : 30);
    elem.bytes = layers * T * (ew_fwd + ew_bwd + moe);

    // ---- the loss over T × V/TP logits: eager fp32 cross-entropy (upcast 2V → 4V, log-softmax 4V → 4V;
    // backward 4V + 4V → 4V, downcast 4V → 2V, the scatter 4V) = 36V bytes a token; fused 6V
    Acc loss;
    const double loss_bytes = T * (st.fused ? 6 : 36) * V / st.tp;
    loss.fwd = stream_s(r, loss_bytes / 3, st.fused ? 1 : 3);
    loss.bwd = stream_s(r, loss_bytes * 2 / 3, st.fused ? 1 : 4);
    loss.bytes = loss_bytes;

    // ---- recomputation in the backward
    Acc rec;
    if (job.checkpointing == Checkpointing::Full) {
        rec.bwd = lin.fwd + attn.fwd + elem.fwd + casts.fwd;
        rec.flops = lin.flops / (adapters ? 2 : 3) + attn.flops / 3.5;
    } else if (job.checkpointing == Checkpointing::Selective) {
        rec.bwd = attn.fwd;  // Korthikanti et al. 2022 §4: the attention core only
        rec.flops = attn.flops / 3.5;
    } else if (job.checkpointing == Checkpointing::SelectiveOp) {
        // torchtitan per-op SAC (_save_list: every second mm and SDPA kept): half the linear forward
        // and the streaming forward again.
        rec.bwd = lin.fwd / 2 + elem.fwd + casts.fwd;
        rec.flops = lin.flops / (adapters ? 4 : 6);
    }

    // ---- optimizer step over the parameters this GPU updates (AdamW: read param, grad, m, v in fp32 and
    // write param, m, v = 28 bytes each; SGD 12, with momentum 20)
    const double tp = st.tp, pp = st.pp, shard = st.zero >= 1 ? st.dp * st.cp : 1;
    const double trainable = adapters ? trainable_params(model, job) : d.total_params;
    const double routed = adapters ? 0 : d.routed_params;
    const double expert_split = st.ep > 1 ? st.ep : tp;
    const double held = (trainable - routed) / (tp * pp) / shard +
                        routed / (pp * expert_split) / std::max(1.0, shard / (st.ep > 1 ? st.ep : 1));
    const double per_param = job.optimizer == Optimizer::SGD ? 12 : job.optimizer == Optimizer::SGDMomentum ? 20 : 28;

    StepCompute out;
    out.optimizer_s = stream_s(r, held * per_param, 1);
    const Acc* parts[] = {&lin, &head, &attn, &elem, &casts, &loss, &rec};
    for (const Acc* a : parts) {
        out.forward_s += a->fwd;
        out.backward_s += a->bwd;
        out.weight_grad_s += a->wgrad;
    }
    out.total_s = m * (out.forward_s + out.backward_s) + out.optimizer_s;

    auto op = [&](const char* key, std::string label, const Acc& a, std::string why) {
        if (a.fwd + a.bwd <= 0) return;
        out.ops.push_back({key, std::move(label), m * a.flops, m * a.bytes, m * (a.fwd + a.bwd), std::move(why)});
    };
    const std::string precision = low ? std::string(lp->label) : "BF16";
    op("linear", "Linear layers (" + precision + ")", lin,
       "forward, input- and weight-gradient GEMMs of " + n_text(layers) + " layers at " + n_text(T) + " tokens; " +
           r.gemm_source);
    op("head", "Output head (BF16)", head, "T × V/TP GEMMs on the last stage");
    op("attention", std::string("Attention (") + attn_kernel_name(r.attn) + ")", attn,
       "causal, head dim " + n_text(d.qk_dim) + ", sequence " + n_text(kernel_seq) + ": " +
           printf_text("%.0f", 100 * attention_fraction(r, d.qk_dim, kernel_seq, false)) + " % of peak forward, " +
           printf_text("%.0f", 100 * attention_fraction(r, d.qk_dim, kernel_seq, true)) + " % backward; " + r.attn_source);
    op("elementwise", std::string("Norms, activations, residuals, RoPE") + (st.fused ? " (fused)" : " (eager)"), elem,
       "bandwidth-bound at 92 % of peak bandwidth (torchao roofline_utils.py)");
    if (low) op("casts", std::string(lp->label) + " casts and scales", casts, std::string("per linear: input, weight, grad; ") + lp->source);
    op("loss", std::string("Cross-entropy loss") + (st.fused ? " (fused)" : " (fp32, eager)"), loss, "T × V/TP logits streamed");
    op("recompute", "Recomputation", rec, checkpointing_name(job.checkpointing));
    if (out.optimizer_s > 0)
        out.ops.push_back({"optimizer", "Optimizer step", 0, held * per_param, out.optimizer_s,
                           n_text(held) + " parameters × " + n_text(per_param) + " bytes, once per step"});
    return out;
}

}  // namespace vramcalc
