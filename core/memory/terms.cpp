#include "memory/terms.hpp"

namespace vramcalc {

const char* term_key(int term) {
    static const char* keys[] = {"weights", "gradients", "optimizer", "activations", "logits", "buffers", "kv_cache", "overhead"};
    return keys[term];
}
const char* term_label(int term) {
    static const char* labels[] = {"Weights", "Gradients", "Optimizer states", "Activations", "Logits and loss",
                                   "Step buffers", "KV cache", "Overhead"};
    return labels[term];
}

}  // namespace vramcalc
