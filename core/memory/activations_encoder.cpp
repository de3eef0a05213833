#include "memory/activations_encoder.hpp"

#include <algorithm>

#include "memory/activations_parts.hpp"
#include "text/errors.hpp"

namespace vramcalc {
namespace {

using namespace act;

bool t5_like(const ModelConfig& c) { return c.arch == Arch::T5 || c.arch == Arch::Umt5; }

// transformers implements only eager attention for T5Attention and DeBERTa-v2's
// DisentangledSelfAttention (the relative bias / relative scores are added to the
// score matrix); every other family here takes the job's kernel.
Attention kernel_of(const Plan& p) {
    const ModelConfig& c = p.m.config;
    return t5_like(c) || c.arch == Arch::DebertaV2 ? Attention::Eager : p.job.attention;
}

int64_t encoder_layers(const ModelConfig& c) { return c.family == Family::Encoder ? c.layers : c.encoder_layers; }

bool autocast(const Plan& p) { return p.job.mode == Mode::Train && p.job.precision == Precision::Autocast; }

// Under autocast these families add an fp32 mask or bias to 16-bit scores (transformers builds
// the additive mask in the embeddings' dtype: modeling_utils get_extended_attention_mask(dtype=
// self.dtype), _prepare_4d_attention_mask(mask, inputs_embeds.dtype); T5's position bias comes
// from an fp32 table): type promotion hands the softmax fp32 scores, it keeps its fp32 output,
// and the matmul with v keeps a 16-bit cast of the probabilities.
void shape_for_stacks(const Plan& p, Shape& d) {
    d.kernel = kernel_of(p);
    if (autocast(p)) d.softmax_fp32 = true;
}

// autocast casts a non-parameter input once per op (its cast cache holds leaf tensors that
// require grad, i.e. weights: aten/src/ATen/autocast_mode.cpp cached_cast): the fp32 input of
// separate q, k and v projections is kept as three 16-bit copies, of separate gate and up two.
double autocast_copies(const Plan& p, const Shape& d, int copies) {
    return autocast(p) && d.inputs_kept && !d.compile ? (copies - 1) * d.h * d.B : 0;
}

// The shape of an encoder block: encoder tokens as keys, the encoder's MLP width.
Shape encoder_shape(const Plan& p) {
    const ModelConfig& c = p.m.config;
    Shape d = shape_of(p);
    d.s = static_cast<double>(c.family == Family::Encoder ? p.job.seq : encoder_tokens(p.job, c));
    if (c.encoder_intermediate > 0) d.I = static_cast<double>(c.encoder_intermediate);
    shape_for_stacks(p, d);
    return d;
}

Shape decoder_shape(const Plan& p) {
    Shape d = shape_of(p);
    shape_for_stacks(p, d);
    return d;
}

// T5LayerNorm (transformers modeling_t5.py): variance of an fp32 copy, then the
// *original* input times the fp32 rsqrt (type promotion: an fp32 product), cast
// back, times the weight. Over LlamaRMSNorm it also keeps the 16-bit input.
double stack_norm(const Plan& p, const Shape& d, double width) {
    const double extra = t5_like(p.m.config) && d.B < 4 && !d.compile ? width * d.B : 0;
    return norm_bytes(p, d, width) + extra;
}

// The MLP: plain (BERT GELU, T5 ReLU, BART/Whisper fc1-fc2) or gated (T5 v1.1
// wi_0/wi_1, ModernBERT Wi); T5 v1.1's gelu_new is NewGELUActivation in Python ops,
// which keeps three more I-wide tensors (tanh, 0.5·x, 1 + tanh) than one fused GELU.
// Dropout after the activation (T5 dropout_rate, BART activation_dropout) keeps its mask.
void stack_mlp(const Plan& p, const Shape& d, BlockActivations& a) {
    const ModelConfig& c = p.m.config;
    if (c.gated_mlp) {
        a.add("MLP input", linear_inputs(d, kRoleGate | kRoleUp, targeted(d, {kRoleGate, kRoleUp}), d.h) +
                               autocast_copies(p, d, c.fused_gate_up ? 1 : 2));
        const double composite = c.activation == Activation::GeluTanhComposite && !d.compile ? 3 * d.I * d.B : 0;
        a.add("MLP gate/up/product", gated_mlp(d, d.I, false) + composite);
    } else {
        dense_mlp(p, d, a);
    }
    if (c.activation_dropout > 0) a.add("MLP dropout mask", d.I);
}

// One encoder layer per token: two norms, bidirectional self-attention over d.s keys
// (eager: the s × s probabilities; SDPA / flash: output and logsumexp), the MLP, and
// the hidden dropout masks after attention and MLP. Post-LN (BERT, BART) and pre-LN
// (T5, Whisper, ModernBERT) keep the same tensors: the block input and two norm inputs
// and outputs, in another order.
BlockActivations encoder_block_per_token(const Plan& p, const Shape& d) {
    const ModelConfig& c = p.m.config;
    BlockActivations a;
    a.add("norms", 2 * stack_norm(p, d, d.h));
    llama_attention(p, d, a);
    a.add("autocast copies of the q/k/v input", autocast_copies(p, d, c.fused_qkv ? 1 : 3));
    if (c.arch == Arch::DebertaV2) {
        // DisentangledSelfAttention: key / scale is a new tensor kept by the q·kᵀ bmm, and the
        // relative keys and queries are repeated per sequence (transpose_for_scores(...).repeat):
        // 2 × (2 × position_buckets) × h per sequence, kept by the c2p and p2c bmms.
        a.add("relative attention (k / scale, repeated position keys)",
              d.h * d.B + 2 * static_cast<double>(c.relative_embeddings) * d.h * d.B / std::max(1.0, d.s));
    }
    stack_mlp(p, d, a);
    if (c.hidden_dropout > 0) a.add("dropout masks", 2 * d.h);
    return a;
}

// One decoder layer per decoder token: self-attention over its own d.s tokens, then
// cross-attention (T5 EncDecAttention, BART/Whisper encoder_attn): a third norm, q from
// the decoder, k and v projected from the encoder's output by every layer (2 × kv width
// over the encoder's tokens, per sequence), scores over the encoder's tokens, o's input.
BlockActivations decoder_block_per_token(const Plan& p, const Shape& d, double encoder_tokens) {
    const ModelConfig& c = p.m.config;
    BlockActivations a;
    a.add("norms", 3 * stack_norm(p, d, d.h));
    llama_attention(p, d, a);
    a.add("autocast copies of the q/k/v input", autocast_copies(p, d, c.fused_qkv ? 1 : 3));
    const double hq = d.heads * d.head_dim, hk = d.kv_heads * d.head_dim;
    Shape x = d;
    x.s = encoder_tokens;
    a.add("cross-attention q input", linear_inputs(d, kRoleQ, targeted(d, {kRoleQ}), d.h));
    a.add("cross-attention q, k, v", hq * d.B + 2 * hk * d.B * encoder_tokens / d.s);
    const double core = d.kernel == Attention::Eager ? eager_scores(p, x, d.heads) : hq * d.B + d.heads * 4;
    a.add("cross-attention core", core);
    double o_in = linear_inputs(d, kRoleO, targeted(d, {kRoleO}), hq);
    if (d.kernel == Attention::Flash && (d.inputs_kept || ((d.lora & kRoleO) && d.dropout == 0))) o_in -= hq * d.B;
    a.add("cross-attention o input", o_in);
    stack_mlp(p, d, a);
    if (c.hidden_dropout > 0) a.add("dropout masks", 3 * d.h);
    return a;
}

// Per-token parts × tokens per GPU (b·s/CP, split by TP with sequence parallelism).
BlockActivations scaled(BlockActivations a, double tokens, const Layout& l) {
    const double f = tokens / static_cast<double>(l.cp) / static_cast<double>(l.tp);
    for (int i = 0; i < a.count; ++i) a.parts[i].bytes *= f;
    a.total *= f;
    a.attention_core *= f;
    return a;
}

BlockActivations encoder_block(const Plan& p, const Layout& l) {
    const Shape d = encoder_shape(p);
    BlockActivations a = scaled(encoder_block_per_token(p, d), static_cast<double>(p.job.batch) * d.s, l);
    if (p.m.config.arch == Arch::DebertaV2)  // the c2p and p2c gather indices: s × s int64 each, shared by the batch
        a.add("relative position indices", 2 * 8 * d.s * d.s / static_cast<double>(l.tp));
    return a;
}

BlockActivations decoder_block(const Plan& p, const Layout& l) {
    const Shape d = decoder_shape(p);
    const double e = static_cast<double>(encoder_tokens(p.job, p.m.config));
    return scaled(decoder_block_per_token(p, d, e), static_cast<double>(p.job.batch) * d.s, l);
}

// Around the blocks, per token of a stack: the embeddings' norm (BERT LayerNorm, BART
// layernorm_embedding) or the stack's final norm, and the embedding dropout's mask.
double stack_edges(const Plan& p, const Shape& d) {
    const ModelConfig& c = p.m.config;
    double bytes = (c.embedding_norm ? stack_norm(p, d, d.h) : 0) + (c.final_norm || t5_like(c) ? stack_norm(p, d, d.h) : 0);
    if (c.hidden_dropout > 0) bytes += d.h;
    if (c.embedding_size > 0 && c.embedding_size != c.hidden) bytes += static_cast<double>(c.embedding_size) * d.B;  // ELECTRA projection
    return bytes;
}

// Whisper's conv stem per encoder frame (WhisperEncoder.forward): conv1 keeps the
// log-mel input (2 input frames per output frame), GELU its input (2 × h), conv2 the
// GELU output (2 × h), the second GELU its input (h).
double audio_stem(const Plan& p, const Shape& d) {
    const ModelConfig& c = p.m.config;
    return c.arch == Arch::Whisper ? (2 * static_cast<double>(c.mel_bins) + 5 * d.h) * d.B : 0;
}

// The head's own saved inputs per token: the MLM transform (dense input, GELU input,
// LayerNorm input, decoder input), a token classifier's input and dropout mask, the LM
// head's input; classifiers over one pooled position per sequence are negligible.
double head_per_token(const Plan& p, const Shape& d) {
    switch (p.m.config.head) {
        case Head::MaskedLM: case Head::Pretraining: return 4 * d.h * d.B + 8;
        case Head::TokenClassification: case Head::QuestionAnswering: return d.h * d.B + d.h;
        case Head::Seq2SeqLM: case Head::Ctc: return d.h * d.B;
        default: return 0;
    }
}

// T5's bucketed bias, batch × heads × q × k in the compute dtype, one per attention
// kind of a stack (T5Attention.compute_bias, broadcast with the mask): its gradient sums
// over every layer during the stack's backward; under checkpointing each layer keeps it
// as an input.
double t5_bias(const Plan& p, double q, double k, const Layout& l) {
    if (!t5_like(p.m.config)) return 0;
    return static_cast<double>(p.job.batch) * static_cast<double>(p.m.config.heads) * q * k * (p.compute.bits / 8) /
           static_cast<double>(l.tp);
}

}  // namespace

BlockActivations stack_block(const Plan& p, const Layout& l) {
    return p.m.config.has_decoder() ? decoder_block(p, l) : encoder_block(p, l);
}

ModelActivations stack_activations(const Plan& p, const Layout& l) {
    const ModelConfig& c = p.m.config;
    require_dimensions(c);
    if (p.job.checkpointing == Checkpointing::SelectiveOp)
        throw InputError("job.checkpointing", "selective_op (torchtitan per-op checkpointing) is modelled for decoder-only "
                                              "models; use selective or full");
    const bool dec = c.has_decoder();
    const Shape de = encoder_shape(p), dd = decoder_shape(p);
    const double b = static_cast<double>(p.job.batch), tp = static_cast<double>(l.tp), cp = static_cast<double>(l.cp);
    const double Te = b * de.s / cp, Td = dec ? b * dd.s / cp : 0;
    const double Le = static_cast<double>(encoder_layers(c)), Ld = dec ? static_cast<double>(c.layers) : 0;
    const BlockActivations eb = encoder_block(p, l), db = dec ? decoder_block(p, l) : BlockActivations{};
    const double R = (p.job.mode == Mode::Train && p.job.precision == Precision::Autocast) ? 4 : p.compute.bits / 8;
    // The encoder's output: one storage kept by every decoder layer's cross k and v projections.
    const double encoder_out = dec ? Te * de.h * de.B / tp : 0;
    const Shape& dh = dec ? dd : de;
    const double around = (Te * (stack_edges(p, de) + audio_stem(p, de)) + Td * stack_edges(p, dd) +
                           (dec ? Td : Te) * head_per_token(p, dh)) / tp;
    ModelActivations m;
    m.largest_block = std::max(eb.total, db.total);
    const double all = Le * eb.total + Ld * db.total;
    const double kept_bias = t5_bias(p, de.s, de.s, l) + (dec ? t5_bias(p, dd.s, dd.s, l) + t5_bias(p, dd.s, de.s, l) : 0);
    switch (p.job.checkpointing) {
        case Checkpointing::Selective:
            m.blocks = all - Le * eb.attention_core - Ld * db.attention_core;
            m.recompute = std::max(eb.attention_core, db.attention_core);
            break;
        case Checkpointing::Full:  // each layer's input (and T5's position biases, passed to every layer)
            m.blocks = (Le * Te + Ld * Td) * de.h * R / tp + kept_bias;
            m.recompute = m.largest_block;
            break;
        default: m.blocks = all; break;
    }
    m.blocks += encoder_out + around;
    if (p.job.activation_offload) {
        const double block_input = std::max(Te, Td) * de.h * R / tp;
        m.offloaded = m.blocks;
        m.blocks = std::min(m.blocks, 2 * (p.job.checkpointing == Checkpointing::Full ? block_input : m.largest_block));
        m.offloaded -= m.blocks;
    }
    // Gradients flowing through a block during backward; the decoder's also sum into the
    // encoder output's gradient, and T5's position-bias gradient accumulates over a stack.
    // Eager attention's backward holds two score-sized gradients at once (of the dropped
    // probabilities, then of the scores: matmul, dropout and softmax backward in turn).
    const double B = p.compute.bits / 8;
    auto score_grads = [&](const Shape& d, double tokens) {
        return d.kernel == Attention::Eager ? 2 * tokens * d.heads * d.s * (d.softmax_fp32 ? 4 : d.B) / tp : 0;
    };
    const double enc_work = Te * (2 * de.h + 2 * de.I) * B / tp + t5_bias(p, de.s, de.s, l) + score_grads(de, Te);
    const double dec_work = dec ? Td * (2 * dd.h + 2 * dd.I) * B / tp + t5_bias(p, dd.s, dd.s, l) + encoder_out + score_grads(dd, Td) : 0;
    m.backward_work = std::max(enc_work, dec_work);
    return m;
}

double alibi_bias_bytes(const Plan& p, const Layout& l) {
    const ModelConfig& c = p.m.config;
    if (!c.alibi || p.job.attention != Attention::Sdpa) return 0;
    const double s = static_cast<double>(p.job.seq) / static_cast<double>(l.cp);
    return static_cast<double>(p.job.batch) * static_cast<double>(c.heads) / static_cast<double>(l.tp) * s *
           static_cast<double>(p.job.seq) * (p.compute.bits / 8);
}

LogitShape logit_shape(const Plan& p, const Layout& l) {
    const ModelConfig& c = p.m.config;
    const double b = static_cast<double>(p.job.batch), cp = static_cast<double>(l.cp);
    // Logits for the last loss_tokens of each sequence only (transformers logits_to_keep, as TRL's
    // online trainers pass it: the completion's tokens), else for every token.
    const int64_t kept = p.job.loss_tokens > 0 && c.head == Head::CausalLM ? std::min(p.job.loss_tokens, p.job.seq) : p.job.seq;
    const double T = b * static_cast<double>(kept) / cp;
    const double V = static_cast<double>(c.vocab) / static_cast<double>(l.tp);  // vocab-parallel logits
    const double n = static_cast<double>(c.num_labels);
    switch (c.head) {
        case Head::CausalLM: case Head::Seq2SeqLM: case Head::MaskedLM: return {T, V};
        case Head::Pretraining: return c.arch == Arch::Electra ? LogitShape{T, 1} : LogitShape{T, V};
        case Head::SequenceClassification: return {c.family == Family::Encoder || c.family == Family::EncoderDecoder ? b : T, n};
        case Head::TokenClassification: return {T, n};
        case Head::QuestionAnswering: return {T, 2};
        case Head::Ctc: return {b * static_cast<double>(encoder_tokens(p.job, c)) / cp, V};
        case Head::Base: case Head::Encoder: break;
    }
    return {};
}

}  // namespace vramcalc
