#pragma once
// Training activations of encoder-only models and encoder-decoders (issue 24):
// bidirectional self-attention over the whole input, the decoder's
// cross-attention to the encoder's output (which every decoder layer keeps),
// T5's relative position bias, the heads' logits; and ALiBi's materialized bias
// for decoders under SDPA. Same accounting as activations.cpp, checked against
// PyTorch autograd in tests/calibration/ (BERT and T5 blocks).
#include "memory/activations.hpp"

namespace vramcalc {

// One block per GPU: the decoder's (self + cross attention + MLP) when the
// head runs the decoder, else the encoder's.
BlockActivations stack_block(const Plan& p, const Layout& l);

// Every block of both stacks, what the stacks keep between them (the encoder's
// output) and around them (embeddings, final norms, the head's input).
ModelActivations stack_activations(const Plan& p, const Layout& l);

// A decoder with ALiBi run through SDPA: the bias is materialized as an
// additive mask of batch × heads × s × s in the compute dtype, built once per
// forward and kept by every layer's SDPA backward (0 for eager and flash-attn,
// which take the slopes). Per GPU.
double alibi_bias_bytes(const Plan& p, const Layout& l);

// The logits the head feeds the loss, per GPU: `rows` positions of `width`
// values (the vocabulary for LM heads, num_labels for classifiers).
struct LogitShape {
    double rows = 0, width = 0;
};
LogitShape logit_shape(const Plan& p, const Layout& l);

}  // namespace vramcalc
