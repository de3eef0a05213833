#include "memory/loss.hpp"

#include <algorithm>
#include <cmath>

#include "memory/activations.hpp"
#include "memory/activations_encoder.hpp"

namespace vramcalc {

namespace {

// One cross-entropy over T rows of V logits (per loss implementation).
LossBuffers cross_entropy(const Plan& p, const Layout& l, double T, double V) {
    const ModelConfig& c = p.m.config;
    const double TV = T * V, B = p.compute.bits / 8, n = static_cast<double>(p.job.loss_chunks);
    LossBuffers b;
    switch (p.job.loss) {
        case Loss::Full:
            if (l.tp > 1 && p.job.loss_parallel && !p.job.compile_loss) {
                // DTensor loss_parallel over vocab-sharded logits (torch/distributed/tensor/parallel/loss.py):
                // _log_softmax keeps the fp32 input, shifted = x − max and exp(shifted) live beside the
                // 16-bit logits; _nll_loss_and_log_softmax_backward computes
                // (zeros_like(x) with −1 scattered + exp(x)) · grad: x (saved), the zeros, exp(x) and
                // their sum, then the product, 16 bytes per logit at once.
                b.saved = 4 * TV;
                b.forward_peak = (B == 4 ? 12 : 12 + B) * TV;
                b.backward_peak = 16 * TV;
            } else if (p.job.compile_loss) {
                // Compiled cross-entropy: the graph saves its input, not the log-probabilities (softmax is
                // recomputed from it in backward), and one fused kernel writes the input's gradient in the
                // input's dtype (torch/_inductor/fx_passes: scatter_upon_const_tensor turns nll_loss's
                // zeros + scatter into a pointwise where). The input is what the model returns: fp32 logits
                // when it upcasts them itself (torchtune TransformerDecoder: output(h).float(); the 16-bit
                // ones exist at the forward peak too), or the 16-bit logits when the upcast is inside the
                // compiled loss (torchtitan components/loss.py cross_entropy_loss: pred.float()).
                const double in = p.job.logits_fp32 ? 4 : B;
                b.saved = in * TV;
                b.forward_peak = (p.job.logits_fp32 && B < 4 ? 4 + B : in) * TV;
                b.backward_peak = 2 * in * TV;
            } else {
                // logits (B) -> fp32 copy -> log_softmax output (fp32, saved); backward: NLL
                // gradient + log_softmax gradient, both fp32 (transformers loss_utils ForCausalLMLoss)
                b.saved = 4 * TV;
                b.forward_peak = (B == 4 ? 8 : 8 + B) * TV;
                b.backward_peak = 12 * TV;
            }
            break;
        case Loss::FullFp32:
            // fp32 logits kept by the caller (4) + the shifted fp32 copy fed to cross-entropy (4) +
            // log_softmax output (4, saved); backward adds the NLL and log_softmax gradients (4 + 4)
            b.saved = 8 * TV;
            b.forward_peak = (B == 4 ? 12 : 12 + B) * TV;
            b.backward_peak = 16 * TV;
            break;
        case Loss::Chunked:
            // torchtune CEWithChunkedOutputLoss: the model returns n 16-bit chunks; each is
            // upcast and reduced on its own. Eager, every chunk's fp32 log-probabilities are kept;
            // compiled, the chunks themselves are kept and the fused backward writes one chunk's
            // gradient in the chunk's dtype (no fp32 intermediates).
            if (p.job.compile_loss) {
                b.saved = B * TV;
                b.forward_peak = b.saved + B * TV / n;
                b.backward_peak = b.saved + B * TV / n;
            } else {
                b.saved = 4 * TV;
                b.forward_peak = b.saved + (B + 4) * TV / n + B * TV;
                b.backward_peak = b.saved + (8 + B) * TV / n;
            }
            break;
        case Loss::VocabParallel:
            // Megatron-Core tensor_parallel/cross_entropy.py: calculate_logits_max upcasts the 16-bit
            // logits to one fp32 copy; max subtraction and exp run in place in it, and the softmax
            // saved for backward becomes the gradient in place, cast back to 16 bits for the output
            // layer's backward (the .float() op's gradient).
            b.saved = 4 * TV;
            b.forward_peak = (B == 4 ? 4 : 4 + B) * TV;
            b.backward_peak = (B == 4 ? 4 : 4 + B) * TV;
            break;
        case Loss::Shifted:
            // transformers <= 4.45 GPT2LMHeadModel.forward: lm_logits kept in the output, their shifted
            // .contiguous() copy fed to CrossEntropyLoss, whose log_softmax output (saved) stays in the
            // model dtype; backward adds the NLL and log_softmax gradients in that dtype.
            b.saved = 2 * B * TV;
            b.forward_peak = 3 * B * TV;
            b.backward_peak = 4 * B * TV;
            break;
        case Loss::LogProbs:
            // TRL trainer/utils.py selective_log_softmax on 16-bit logits: the model's logits (the
            // temperature divides them in place), then per row a log_softmax whose output is saved for
            // backward and a gather. Backward: each row's gather and log_softmax gradients, stacked into
            // the logits' gradient (UnbindBackward) while the saved outputs are released.
            b.saved = B * TV;
            b.forward_peak = 2 * B * TV;
            b.backward_peak = 3 * B * TV;
            break;
        case Loss::Fused: {
            // Liger / Unsloth fused linear cross-entropy: logits exist one chunk at a time
            // (chunk = T / ceil(V/h) tokens, liger_kernel fused_linear_cross_entropy.py); the
            // input gradient (and the head's, when it trains) is computed in forward and kept.
            // (At least one chunk: a model without an output layer, an embedding model's base, has V = 0.)
            const double chunks = std::max(1.0, std::ceil(V / std::max<double>(1, static_cast<double>(c.hidden))));
            const double head = p.job.mode == Mode::Train ? V * static_cast<double>(c.hidden) * B : 0;
            b.saved = T * static_cast<double>(c.hidden) * B + head;
            b.forward_peak = b.saved + 3 * 4 * TV / chunks;
            b.backward_peak = b.saved;
            break;
        }
    }
    return b;
}

// What the output projection saves for its weight gradient: its input, the final norm's output,
// T × h. Tensor parallelism over DTensors gathers it from the sequence shards before the matmul and
// autograd keeps the gathered copy (torch distributed/tensor/parallel/style.py ColwiseParallel,
// torchtitan's output plan input_layouts=Shard(1)); Megatron's sequence-parallel linear saves its
// shard and gathers it again in backward (core/tensor_parallel/layers.py
// LinearWithGradAccumulationAndAsyncCommunication). A frozen head saves nothing; a fused linear
// cross-entropy (Loss::Fused) computes the head's gradients in forward instead.
double head_input(const Plan& p, const Layout& l, double T) {
    const Job& job = p.job;
    if (p.m.config.head != Head::CausalLM || job.loss == Loss::Fused || !(job.mode == Mode::Train || p.trainable_head > 0)) return 0;
    const double split = job.sharding_impl == ShardingImpl::Megatron && job.sequence_parallel ? static_cast<double>(l.tp) : 1;
    return T * static_cast<double>(p.m.config.hidden) * (p.compute.bits / 8) / split;
}

}  // namespace

LossBuffers loss_buffers(const Plan& p, const Layout& l, const Share& s) {
    require_dimensions(p.m.config);
    if (!s.last) return {};
    // The head's logits: every token × the vocabulary (vocab-parallel over TP) for LM heads,
    // num_labels per sequence or token for classifiers (core/memory/activations_encoder.cpp).
    const LogitShape logits = logit_shape(p, l);
    LossBuffers one = cross_entropy(p, l, logits.rows, logits.width);
    const double input = head_input(p, l, logits.rows);
    one.saved += input, one.forward_peak += input, one.backward_peak += input;
    // Multi-token prediction (Megatron models/gpt/gpt_model.py forward): each MTP layer's logits
    // go through the same output layer and its own cross-entropy, computed and kept for backward
    // before the main loss; their backward runs after the main loss's.
    const double k = static_cast<double>(p.job.mtp_layers);
    return {(1 + k) * one.saved, k * one.saved + one.forward_peak, k * one.saved + one.backward_peak};
}

}  // namespace vramcalc
