#include "memory/activations.hpp"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "memory/activations_encoder.hpp"
#include "memory/activations_parts.hpp"
#include "text/errors.hpp"

namespace vramcalc {
namespace act {  // shared with the encoder stacks (memory/activations_parts.hpp)

Shape shape_of(const Plan& p) {
    const ModelConfig& c = p.m.config;
    require_dimensions(c);
    const double B = p.compute.bits / 8;
    const bool autocast = p.job.mode == Mode::Train && p.job.precision == Precision::Autocast;
    const double heads = static_cast<double>(c.heads);
    return {static_cast<double>(c.hidden), heads, static_cast<double>(c.kv_heads > 0 ? c.kv_heads : c.heads),
            static_cast<double>(c.head_dim > 0 ? c.head_dim : c.hidden / std::max<int64_t>(1, c.heads)),
            static_cast<double>(c.intermediate), static_cast<double>(p.job.seq), B, autocast ? 4.0 : B,
            // TE Linear / LayerNormLinear under fp8_autocast save the fp8 cast of their input for the
            // weight gradient (transformer_engine/pytorch/module/linear.py _Linear.forward).
            p.job.fp8 == Fp8::TransformerEngine && p.job.mode == Mode::Train ? 1.0 : B,
            p.job.mode == Mode::Train,
            // bitsandbytes MatMul4Bit.forward (bitsandbytes/autograd/_functions.py) stores
            // ctx.tensors = (A, B) whenever the input needs a gradient, frozen weight or not;
            // a frozen nn.Linear (mm's derivative formula) and torchao's linear_nf4 keep none.
            p.job.mode == Mode::Train || (p.job.mode == Mode::QLoRA && p.job.qlora_matmul == QloraMatmul::Bitsandbytes),
            p.lora_roles, p.job.lora_dropout, p.job.compile,
            static_cast<double>(p.job.lora_rank),
            // Megatron's unfused attention materializes the scores as eager attention does, with the
            // probabilities in 16 bits (megatron/core/transformer/dot_product_attention.py: baddbmm, then
            // FusedScaleMaskSoftmax returns the input dtype, softmax-in-fp32 or not).
            p.job.attention == Attention::Unfused ? Attention::Eager : p.job.attention,
            p.job.attention == Attention::Unfused ? false : c.softmax_fp32};
}

// The input of the linears with `roles`, of width `width`: saved once when
// any of them needs it; with LoRA dropout every adapter keeps its own mask
// (1 byte) and dropped copy instead (PEFT lora_dropout is per module), and
// lora_B keeps the rank-r output of lora_A.
double linear_inputs(const Shape& d, uint32_t roles, int n_roles_targeted, double width) {
    double bytes = 0;
    const bool adapters = (d.lora & roles) != 0;
    if (d.inputs_kept || (adapters && d.dropout == 0)) bytes += width * d.LB;
    if (adapters) bytes += n_roles_targeted * ((d.dropout > 0 ? width * (d.B + 1) : 0) + d.rank * d.B);
    return bytes;
}

int targeted(const Shape& d, std::initializer_list<uint32_t> roles) {
    int n = 0;
    for (uint32_t r : roles) n += (d.lora & r) != 0;
    return n;
}

// A norm over `width` values of the residual stream. RMSNorm as Hugging Face
// writes it (modeling_llama.py LlamaRMSNorm): x.to(float32), pow(2).mean,
// rsqrt, multiply, cast back, times weight: saves the fp32 copy (4 bytes) and
// the fp32 rstd, and the normalized 16-bit value when the weight trains
// (mean's saved input is not counted: PyTorch >= 2 saves only its size).
// LayerNorm (native_layer_norm) saves its input, mean and rstd.
// torch.compile fuses it: input and rstd only.
double norm_bytes(const Plan& p, const Shape& d, double width) {
    const bool trains_weight = d.train_all;
    if (d.compile) return width * d.R + 4;
    if (p.m.config.norm == NormKind::LayerNorm) return width * d.R + 8;
    return width * 4 + 4 + (trains_weight ? width * (d.R == 4 ? 4 : d.B) : 0);
}

// Scores of eager attention per token: `heads` rows of s keys.
double eager_scores(const Plan& p, const Shape& d, double heads) {
    const double n = heads * d.s;
    const double dropout = p.m.config.attention_dropout;
    // Llama-like models compute softmax in fp32 and cast back (HF eager_attention_forward);
    // GPT-2 / GPT-NeoX / BERT keep the model dtype (config.softmax_fp32, resolved per family).
    const bool fp32_softmax = d.softmax_fp32;
    double bytes = n * (fp32_softmax ? 4 : d.B);
    const bool copy = fp32_softmax && d.B != 4;
    if (dropout > 0) bytes += n * (1 + d.B);  // mask + dropped probabilities saved by the ·v matmul
    else if (copy) bytes += n * d.B;          // the cast-back probabilities saved by the ·v matmul
    return bytes;
}

// Multi-head or grouped-query attention with RoPE (Llama-like); the
// attention core (scores, softmax, output, logsumexp) is also recorded apart
// for selective recomputation.
void llama_attention(const Plan& p, const Shape& d, BlockActivations& a) {
    const double hq = d.heads * d.head_dim, hk = d.kv_heads * d.head_dim;
    a.add("attention input (q/k/v)", linear_inputs(d, kRoleQ | kRoleK | kRoleV | kRoleQkv,
                                                   targeted(d, {kRoleQ, kRoleK, kRoleV, kRoleQkv}), d.h), true);
    const Attention kernel = d.kernel;
    // q after RoPE; RoPE's multiplies save only cos/sin, shared by all layers.
    double qkv = hq * d.B;
    // HF sdpa and eager (repeat_kv) and torchtune expand k and v to every head;
    // flash-attn 2 takes them at kv-head width.
    // (MQA under SDPA: repeat_kv's reshape of a stride-0 expand stays a view one head wide.)
    const double kv_width =
        (kernel == Attention::Flash || d.kv_heads == d.heads || (kernel == Attention::Sdpa && d.kv_heads == 1)) ? hk : hq;
    qkv += 2 * kv_width * d.B;
    a.add("q, k, v", qkv);
    double core = 0;
    if (kernel == Attention::Eager) core = eager_scores(p, d, d.heads);
    else core = hq * d.B + d.heads * 4;  // output + fp32 logsumexp (flash-attn 2 / SDPA backward inputs)
    a.add_core(core);
    // o_proj's input: flash-attn's output layout makes it a view of the saved
    // output; SDPA and eager transpose it into a new tensor.
    double o_in = linear_inputs(d, kRoleO, targeted(d, {kRoleO}), hq);
    const bool plain_input_saved = d.inputs_kept || ((d.lora & kRoleO) && d.dropout == 0);
    if (kernel == Attention::Flash && plain_input_saved && d.LB == d.B) o_in -= hq * d.B;
    a.add("o_proj input", o_in);
}

}  // namespace act
namespace {
using namespace act;

// GPT-2 / GPT-NeoX: fused QKV projection. GPT-2 saves q, k, v as views of the
// fused output (its whole storage, 3h); NeoX rotates q and k into new tensors
// and keeps v as a view of the fused output.
void fused_attention(const Plan& p, const Shape& d, BlockActivations& a) {
    a.add("attention input (qkv)", linear_inputs(d, kRoleQkv, targeted(d, {kRoleQkv}), d.h), true);
    const bool gpt2 = p.m.config.family == Family::Gpt2;
    a.add("q, k, v", gpt2 ? 3 * d.h * d.B : (3 + 2) * d.h * d.B);
    double core = d.kernel == Attention::Eager ? eager_scores(p, d, d.heads) : d.h * d.B + d.heads * 4;
    a.add_core(core);
    a.add("attention output projection input", linear_inputs(d, kRoleO, targeted(d, {kRoleO}), d.h));
}

// DeepSeek multi-head latent attention (DeepSeek-V2 paper §2.1; HF
// modeling_deepseek_v3.py): q and kv go through normed low-rank latents, the
// attention kernel sees concatenated nope + rope heads.
void mla_attention(const Plan& p, const Shape& d, BlockActivations& a) {
    const ModelConfig& c = p.m.config;
    const double heads = d.heads, qk = static_cast<double>(c.qk_nope_head_dim + c.qk_rope_head_dim);
    const double dv = static_cast<double>(c.v_head_dim), rq = static_cast<double>(c.q_lora_rank);
    const double rkv = static_cast<double>(c.kv_lora_rank);
    a.add("attention input", linear_inputs(d, kRoleQLatent | kRoleKvLatent | kRoleQ, targeted(d, {kRoleQLatent, kRoleKvLatent, kRoleQ}), d.h), true);
    double latents = norm_bytes(p, d, rkv) + linear_inputs(d, kRoleKvUp, targeted(d, {kRoleKvUp}), rkv);
    // In fp32 the kv norm's input is a split view of kv_a_proj's output: the rope part stays alive with it.
    if (d.B == 4 && !d.compile) latents += 4 * static_cast<double>(c.qk_rope_head_dim);
    if (rq > 0) latents += norm_bytes(p, d, rq) + linear_inputs(d, kRoleQUp, targeted(d, {kRoleQUp}), rq);
    a.add("q/kv latents", latents);
    // query and key: cat(nope, rope) per head (2·a·qk). v is a split view of kv_b_proj's output
    // (a·(nope + v) kept whole by SDPA); flash-attn pads v to qk (HF pads, then slices the output
    // into a new o_proj input); eager copies v for its matmul.
    const double nope = static_cast<double>(c.qk_nope_head_dim);
    const Attention kernel = d.kernel;
    double v_kept = heads * (nope + dv), out = heads * dv, o_copy = heads * dv;
    if (kernel == Attention::Flash && dv < qk) v_kept = out = heads * qk;
    if (kernel == Attention::Flash && dv >= qk) o_copy = 0;
    // eager copies v for its matmul, except at batch 1 where the split view folds and keeps kv_b's output
    if (kernel == Attention::Eager && p.job.batch > 1) v_kept = heads * dv;
    a.add("q, k, v", (2 * heads * qk + v_kept) * d.B);
    const double core = kernel == Attention::Eager ? eager_scores(p, d, heads) : out * d.B + heads * 4;
    a.add_core(core);
    const bool plain = d.inputs_kept || ((d.lora & kRoleO) && d.dropout == 0);
    a.add("o_proj input", linear_inputs(d, kRoleO, targeted(d, {kRoleO}), heads * dv) - (plain ? (heads * dv - o_copy) * d.B : 0));
}

}  // namespace
namespace act {

// One gated (SwiGLU/GeGLU) MLP of width I over `copies` tokens per token: the
// activation saves its input g, the product saves act(g) and u, down_proj
// saves the product. torch.compile recomputes act(g) from g.
double gated_mlp(const Shape& d, double I, bool expert) {
    const uint32_t e = expert ? uint32_t{kRoleExpert} : uint32_t{0};
    const bool adapter = (d.lora & kRoleDown) && (!expert || (d.lora & e));
    double bytes = (d.compile ? 2 : 3) * I * d.B;  // g, act(g), u
    // the product, down_proj's input: kept for its weight gradient, or by an adapter's lora_A
    // (with LoRA dropout, the adapter keeps its mask and dropped copy instead)
    if (d.inputs_kept || (adapter && d.dropout == 0)) bytes += I * d.LB;
    if (adapter) bytes += d.rank * d.B + (d.dropout > 0 ? I * (d.B + 1) : 0);
    return bytes;
}

void dense_mlp(const Plan& p, const Shape& d, BlockActivations& a) {
    const ModelConfig& c = p.m.config;
    if (c.gated_mlp) {
        a.add("MLP input", linear_inputs(d, kRoleGate | kRoleUp, targeted(d, {kRoleGate, kRoleUp}), d.h), true);
        a.add("MLP gate/up/product", gated_mlp(d, d.I, false));
        return;
    }
    a.add("MLP input", linear_inputs(d, kRoleUp, targeted(d, {kRoleUp}), d.h), true);
    // GELU: one op saves its input; GPT-2's gelu_new is a Python composite
    // (pow, tanh, 0.5·x, 1 + tanh) that saves four I-wide tensors.
    const double act = d.compile ? 1 : c.activation == Activation::GeluTanhComposite ? 4 : 1;
    a.add("MLP activation", act * d.I * d.B);
    a.add("MLP output projection input", linear_inputs(d, kRoleDown, targeted(d, {kRoleDown}), d.I));
}

}  // namespace act
namespace {
using namespace act;

// Mixture of experts as HF writes it (modeling_mixtral.py MixtralSparseMoeBlock,
// modeling_deepseek_v3.py): router probabilities in fp32, every routed token
// copied to its expert (k copies per token), each copy's SwiGLU
// intermediates, and its output kept by the multiply with its routing weight.
void moe_mlp(const Plan& p, const Shape& d, BlockActivations& a) {
    const ModelConfig& c = p.m.config;
    const double E = static_cast<double>(c.experts), k = static_cast<double>(c.experts_per_token);
    const double Ie = static_cast<double>(c.moe_intermediate);
    // DeepSeek-V3 (noaux_tc): the router is F.linear on fp32 copies of the input and of its weight,
    // sigmoid scores; its expert outputs are multiplied by fp32 weights into an fp32 sum.
    const bool deepseek = c.fp32_router;
    const bool expert_inputs = d.inputs_kept || (d.lora & kRoleExpert);
    // Router: its input (Mixtral: the norm output; DeepSeek: an fp32 copy), fp32 probabilities, top-k
    // int64 indices and fp32 values (12 per slot), the renormalizing sum (4).
    a.add("router", (deepseek ? 4 * d.h : (d.train_all ? d.h * d.B : 0)) + E * 4 + k * 12 + 4, true);
    // torch.where(expert_mask): one int64 (token, slot) pair per routed slot (16).
    a.add("dispatch indices", k * 16);
    a.add("routed token copies", k * (expert_inputs ? d.h * d.B : 0));
    a.add("expert intermediates", k * gated_mlp(d, Ie, true));
    // combine: the expert output and routing weight kept by the multiply, the product kept by index_add_
    a.add("expert outputs", k * (deepseek ? d.h * d.B + 4 + 4 * d.h : 2 * d.h * d.B + d.B));
    const double shared = static_cast<double>(c.moe_intermediate * c.shared_experts + c.shared_expert_intermediate);
    if (shared > 0) a.add("shared experts", (deepseek && d.B < 4 ? d.h * d.B : 0) + gated_mlp(d, shared, false));
}

}  // namespace
using namespace act;

// An attention-free Mamba stack has no heads.
void require_dimensions(const ModelConfig& c) {
    for (auto [value, field] : {std::pair<int64_t, const char*>{c.hidden, "hidden_size"}, {c.layers, "num_hidden_layers"},
                                {c.family == Family::Mamba ? c.hidden : c.heads, "num_attention_heads"}, {c.vocab, "vocab_size"}})
        require_dimension(value, field, "activation memory");
}

void BlockActivations::add(const char* name, double bytes, bool hidden_wide) {
    if (bytes <= 0 || count >= static_cast<int>(parts.size())) return;
    parts[count++] = {name, bytes, hidden_wide};
    total += bytes;
}

void BlockActivations::add_core(double bytes) {
    const int before = count;
    add("attention core", bytes);
    if (count > before) core_part = before;
    attention_core += bytes;
}

BlockActivations block_activations(const Plan& p, const Layout& l, bool moe) {
    const ModelConfig& c = p.m.config;
    if (c.bidirectional()) return stack_block(p, l);  // encoders, encoder-decoders: activations_encoder.cpp
    BlockActivations a;
    const Shape d = shape_of(p);
    if (c.family == Family::Mamba) {  // norm → mixer → residual; no attention, no MLP
        a.add("norm", norm_bytes(p, d, d.h), true);
        mamba_mixer(p, d, a);
    } else {
        a.add("norms", 2 * norm_bytes(p, d, d.h), true);
    }
    if (c.family == Family::Mamba) {
    } else if (c.is_mla()) mla_attention(p, d, a);
    else if (c.family == Family::Gpt2 || c.family == Family::GptNeoX) fused_attention(p, d, a);
    else llama_attention(p, d, a);
    if (c.parallel_hybrid) mamba_mixer(p, d, a, true);
    if (c.family == Family::Mamba) {
    } else if (moe) moe_mlp(p, d, a);
    else dense_mlp(p, d, a);
    if (c.hidden_dropout > 0) a.add("dropout masks", 2 * d.h, true);
    // Per GPU: tokens b·s/CP; TP splits heads and intermediates, and the hidden-width tensors
    // only with sequence parallelism (Megatron --sequence-parallel; torchtitan's default plan).
    const double tokens = static_cast<double>(p.job.batch) * static_cast<double>(p.job.seq) / static_cast<double>(l.cp);
    const double tp = static_cast<double>(l.tp);
    a.total = 0;
    for (int i = 0; i < a.count; ++i) {
        ActivationPart& part = a.parts[i];
        part.bytes *= tokens / (part.hidden_wide && !p.job.sequence_parallel ? 1 : tp);
        a.total += part.bytes;
    }
    a.attention_core *= tokens / tp;
    // Once per MoE block, not per token: DeepSeek-V3 casts its router weight to fp32 and keeps the copy.
    if (moe && c.fp32_router && d.B < 4 && d.train_all)
        a.add("router weight fp32 copy", static_cast<double>(c.experts) * d.h * 4 / static_cast<double>(l.tp));
    return a;
}

// torchtitan's per-op selective activation checkpointing (torchtitan
// models/llama3/infra/parallelize.py _apply_ac_to_transformer_block, selective_ac_option
// "op"; torch.utils.checkpoint create_selective_checkpoint_contexts): inside each block,
// the outputs of aten.mm are saved except every second one (counted per block, in order:
// q, k, v, o, then w1 (gate), w3 (up), w2 (down)), and the SDPA/flash output and logsumexp;
// everything else is recomputed. Plus the block's input, which the checkpoint keeps.
// Written for dense attention blocks (the order of their matmuls is known).
double op_sac_per_token(const Plan& p, const Shape& d) {
    const ModelConfig& c = p.m.config;
    if (c.is_moe() || c.is_mla() || c.family == Family::Mamba || c.parallel_hybrid || c.recurrent_layers() > 0 ||
        c.family == Family::Explicit || uses_adapters(p.job))
        throw InputError("job.checkpointing", "selective_op (torchtitan per-op checkpointing) is modelled for full training of "
                                              "dense attention models; use selective or full");
    const double q = d.heads * d.head_dim, kv = d.kv_heads * d.head_dim;
    std::vector<double> mm;  // the block's matmul outputs, in execution order
    if (c.family == Family::LlamaLike) mm = {q, kv, kv, d.h};
    else mm = {q + 2 * kv, d.h};  // fused query_key_value / c_attn, then the output projection
    if (c.gated_mlp) mm.insert(mm.end(), {d.I, d.I, d.h});
    else mm.insert(mm.end(), {d.I, d.h});
    double saved = 0;
    for (size_t i = 0; i < mm.size(); i += 2) saved += mm[i];  // the 1st, 3rd, ... are saved
    return d.h * d.R + saved * d.B + q * d.B + d.heads * 4;
}

// What TP divides a hidden-width tensor by: TP with sequence parallelism, else nothing.
static double hidden_split(const Plan& p, const Layout& l) { return p.job.sequence_parallel ? static_cast<double>(l.tp) : 1; }

BlockActivations kept_block(const Plan& p, const Layout& l, bool moe) {
    BlockActivations a = block_activations(p, l, moe);
    if (p.job.checkpointing == Checkpointing::Selective) {
        if (a.core_part >= 0) a.parts[a.core_part].bytes = 0;
        a.total -= a.attention_core;
    } else if (p.job.checkpointing == Checkpointing::SelectiveOp) {
        const double T = static_cast<double>(p.job.batch * p.job.seq) / static_cast<double>(l.cp);
        a = BlockActivations{};
        a.add("block input, every other matmul output, attention output", T * op_sac_per_token(p, shape_of(p)) / static_cast<double>(l.tp));
    } else if (p.job.checkpointing == Checkpointing::Full) {
        const ModelConfig& c = p.m.config;
        const double T = static_cast<double>(p.job.batch * p.job.seq) / static_cast<double>(l.cp);
        const double R = (p.job.mode == Mode::Train && p.job.precision == Precision::Autocast) ? 4 : p.compute.bits / 8;
        a = BlockActivations{};
        a.add("block input", T * static_cast<double>(c.hidden) * R / hidden_split(p, l), true);
    }
    return a;
}

ModelActivations model_activations(const Plan& p, const Layout& l, const Share& s) {
    const ModelConfig& c = p.m.config;
    require_dimensions(c);
    if (c.bidirectional()) return stack_activations(p, l);  // encoders, encoder-decoders: activations_encoder.cpp
    ModelActivations m;
    // This stage's blocks for every micro-batch in flight, as a fraction of the model's blocks for one.
    // (An MTP layer on the last stage is one more block for each micro-batch in flight.)
    const double units = (s.layers + s.mtp) * s.in_flight / static_cast<double>(c.layers);
    const double L = static_cast<double>(c.layers) * units;
    const double moe_L = static_cast<double>(c.moe_layers()), dense_L = static_cast<double>(c.layers) - moe_L;
    const BlockActivations dense = dense_L > 0 ? block_activations(p, l, false) : BlockActivations{};
    const BlockActivations moe = moe_L > 0 ? block_activations(p, l, true) : BlockActivations{};
    const double per_block_core = dense_L > 0 ? dense.attention_core : moe.attention_core;
    m.largest_block = std::max(dense.total, moe.total);
    const double all = units * (dense_L * dense.total + moe_L * moe.total);
    const double T = static_cast<double>(p.job.batch * p.job.seq) / static_cast<double>(l.cp);
    const double R = (p.job.mode == Mode::Train && p.job.precision == Precision::Autocast) ? 4 : p.compute.bits / 8;
    const double block_input = T * static_cast<double>(c.hidden) * R / hidden_split(p, l);
    switch (p.job.checkpointing) {
        case Checkpointing::None: m.blocks = all; break;
        case Checkpointing::Selective:  // Korthikanti et al. §5: recompute only the attention core
            m.blocks = all - L * per_block_core;
            m.recompute = per_block_core;
            break;
        case Checkpointing::Full:  // the block input of every layer; one block re-created at a time
            m.blocks = L * block_input;
            m.recompute = m.largest_block;
            break;
        case Checkpointing::SelectiveOp:  // what the policy saves; the rest of one block re-created at a time
            m.blocks = L * T * op_sac_per_token(p, shape_of(p)) / static_cast<double>(l.tp);
            m.recompute = std::max(0.0, m.largest_block - m.blocks / L);
            break;
    }
    m.blocks += alibi_bias_bytes(p, l);  // ALiBi under SDPA: one materialized bias, kept by every layer
    if (p.job.activation_offload) {
        m.offloaded = m.blocks;
        m.blocks = std::min(m.blocks, 2 * (p.job.checkpointing == Checkpointing::Full ? block_input : m.largest_block));
        m.offloaded -= m.blocks;
    }
    // Gradients of the hidden state entering and leaving a block, and of its widest intermediate.
    const double I = c.is_moe() ? static_cast<double>(c.moe_intermediate * c.experts_per_token) : static_cast<double>(c.intermediate);
    m.backward_work = T * (2 * static_cast<double>(c.hidden) / hidden_split(p, l) + 2 * std::max(I, 1.0) / static_cast<double>(l.tp)) *
                      (p.compute.bits / 8);
    return m;
}

}  // namespace vramcalc
