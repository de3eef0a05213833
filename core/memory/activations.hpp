#pragma once
// Training activations from what each op of a block saves for backward, per
// architecture (norm kind, attention kernel, gated or plain MLP, MoE routing,
// MLA), checked against PyTorch autograd in tests/calibration/. Sizes are per
// GPU: tokens are b·s/CP; tensor parallelism divides the per-head and
// intermediate tensors by TP, and the hidden-width ones (norm inputs, the inputs
// of the first linears, dropout masks) only with sequence parallelism
// (Korthikanti et al. 2022, Table 2: 10 + 24/t without, 34/t with).
#include <array>

#include "job/layout.hpp"
#include "job/plan.hpp"
#include "memory/parallel.hpp"

namespace vramcalc {

struct ActivationPart {
    const char* name;
    double bytes;
    bool hidden_wide = false;  // h wide along the sequence: TP splits it only with sequence parallelism
};

// The tensors one block keeps between its forward and its backward.
struct BlockActivations {
    std::array<ActivationPart, 20> parts{};
    int count = 0;
    double total = 0;
    double attention_core = 0;  // what selective recomputation drops (scores, softmax, dropout of attention)
    int core_part = -1;         // its entry in parts, if any
    void add(const char* name, double bytes, bool hidden_wide = false);
    void add_core(double bytes);  // the attention core: a part, and what selective recomputation drops
};

// A config given only as num_parameters must still name the dimensions activations need
// (hidden_size, num_hidden_layers, num_attention_heads, vocab_size): one error naming the first missing.
void require_dimensions(const ModelConfig& c);

// One block of the model (an MoE block when `moe`), per GPU.
BlockActivations block_activations(const Plan& p, const Layout& l, bool moe);

// What one block keeps from its forward to its backward under the job's
// checkpointing: everything (none), all but the attention core (selective), or
// only its input (full).
BlockActivations kept_block(const Plan& p, const Layout& l, bool moe);

// The saved activations of every block this GPU holds (its stage's blocks, for
// as many micro-batches as the pipeline schedule keeps in flight), and of the
// largest block (what recomputation re-creates during backward).
struct ModelActivations {
    double blocks = 0;          // all blocks' saved tensors (checkpoints only under full checkpointing)
    double recompute = 0;       // one block re-created during backward (checkpointing), else 0
    double largest_block = 0;   // the largest block without checkpointing
    double backward_work = 0;   // gradients flowing through one block during its backward
    double offloaded = 0;       // saved tensors kept in CPU memory (activation offloading)
};
ModelActivations model_activations(const Plan& p, const Layout& l, const Share& s);


}  // namespace vramcalc
