#pragma once
// A model prepared once from its config: the tensor list, the parameter
// counts, and the exact weight bytes of a checkpoint when one is attached.
// Everything a job needs from the model reads this, never the config text.
#include <memory>
#include <string>
#include <vector>

#include "model/config.hpp"
#include "model/params.hpp"

namespace vramcalc {

// Exact weight bytes read from checkpoint metadata (core/checkpoint.hpp):
// a safetensors header or index, or a GGUF header.
struct ExactWeights {
    double bytes = 0;          // 0: none attached
    std::string source;        // "safetensors header", "GGUF header", ...
    double elements = 0;       // tensor elements in the shapes (0 for an index)
    // A GGUF header also gives where the bytes sit, for llama.cpp's -ngl split:
    std::vector<double> layer, experts;  // per blk.N (bytes), and of which *_exps tensors
    double token_embd = 0, output = 0;    // token_embd.weight; output + output_norm + the rest
    std::string mix;                      // "193 q4_K + 33 q6_K + 65 f32"
    bool present() const { return bytes > 0; }
};

struct Model {
    ModelConfig config;
    std::vector<Tensor> tensors;
    ParamCounts params;
    ExactWeights exact;        // attached with attach_checkpoint; used when job.dtype is auto
};
Model prepare_model(const ModelConfig& config);

// The model with another head (core/model/heads.hpp), prepared once: nullptr when
// `head` and `labels` (0: the config's) are the model's own. An attached
// checkpoint's exact bytes are kept. Throws InputError(field) for a head the
// family does not have.
std::shared_ptr<const Model> with_head(const Model& m, Head head, int64_t labels, const char* field);

}  // namespace vramcalc
