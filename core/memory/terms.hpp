#pragma once
// The terms of the memory model, per GPU: weights, gradients, optimizer
// states, activations, logits and loss, step buffers, KV cache and overhead.
// A breakdown holds one byte count per term (and, when asked, the sentence
// that explains each); a training step's timeline holds one per phase.
#include <array>
#include <string>

namespace vramcalc {

enum TermIndex { kWeights, kGradients, kOptimizer, kActivations, kLogits, kBuffers, kKvCache, kOverhead, kTermCount };
const char* term_key(int term);    // "weights", "gradients", ...
const char* term_label(int term);  // "Weights", "Gradients", ...

inline double sum_of(const std::array<double, kTermCount>& bytes) {
    double t = 0;
    for (double b : bytes) t += b;
    return t;
}

struct Breakdown {
    std::array<double, kTermCount> bytes{};        // per GPU
    std::array<std::string, kTermCount> why{};     // filled only when explanations are asked for
    double total() const { return sum_of(bytes); }
};

// The moments of a training step, in order; `key` below is the kind's name for the JSON. A
// post-training step (core/posttrain/) adds its rollout's generation, the scoring forwards
// (reference, old policy, reward, values) and the critic's update around the policy's four.
enum class PhaseKind { Forward, LossBackward, Backward, Optimizer, Generation, Scoring, CriticUpdate };

// One moment of a training step and the bytes live then, by term (no overhead).
struct Phase {
    PhaseKind kind = PhaseKind::Forward;
    const char* key = "";
    const char* label = "";
    std::array<double, kTermCount> bytes{};
    double total() const { return sum_of(bytes); }
};
struct Timeline {
    std::array<Phase, 8> phases{};
    int count = 0;
    int peak = 0;  // index of the phase with the most live bytes
};

}  // namespace vramcalc
