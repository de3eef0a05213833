#pragma once
// The pieces of a block's saved tensors that decoder blocks (activations.cpp)
// and encoder / encoder-decoder stacks (activations_encoder.cpp) share: one
// shape per job, each linear's kept input, norms, the attention core, the MLP.
// Internal to core/memory.
#include <cstdint>
#include <initializer_list>

#include "memory/activations.hpp"

namespace vramcalc {
namespace act {

// Sizes of one block, per token, before dividing by TP. Bytes: B for the
// compute dtype, R for the residual stream (fp32 under autocast).
struct Shape {
    double h, heads, kv_heads, head_dim, I, s, B, R;
    double LB;          // bytes of a saved linear input: B, or 1 where Transformer Engine keeps it in fp8
    bool train_all;     // full training: every weight trains
    bool inputs_kept;   // every linear keeps its input: full training, or a bitsandbytes QLoRA base
    uint32_t lora;      // roles with adapters
    double dropout;     // LoRA dropout
    bool compile;
    double rank;
    Attention kernel;   // the attention kernel of these blocks (the job's, or the only one a family has)
    bool softmax_fp32;  // eager scores reach the softmax in fp32 (the family's code, or an fp32 mask under autocast)
};

Shape shape_of(const Plan& p);
// The input of the linears with `roles` (width values), kept once when any of them needs it.
double linear_inputs(const Shape& d, uint32_t roles, int n_roles_targeted, double width);
int targeted(const Shape& d, std::initializer_list<uint32_t> roles);
// A norm over `width` values of the residual stream.
double norm_bytes(const Plan& p, const Shape& d, double width);
// Eager attention's saved scores per query token: `heads` rows of d.s keys.
double eager_scores(const Plan& p, const Shape& d, double heads);
// q, k, v projections, the attention core (d.kernel over d.s keys) and o_proj's input.
void llama_attention(const Plan& p, const Shape& d, BlockActivations& a);
// A gated (SwiGLU / GeGLU) MLP of width I: gate, act, up, product.
double gated_mlp(const Shape& d, double I, bool expert);
// A Mamba mixer (memory/activations_recurrent.cpp); beside attention (Falcon-H1) it shares the
// block's normed input (`shared_input`).
void mamba_mixer(const Plan& p, const Shape& d, BlockActivations& a, bool shared_input = false);
// The block's dense MLP (gated or plain) with its input.
void dense_mlp(const Plan& p, const Shape& d, BlockActivations& a);

}  // namespace act
}  // namespace vramcalc
