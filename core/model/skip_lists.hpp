#pragma once
// The parameters a checkpoint's quantization_config keeps in 16 bits, module
// by module: the skip list (modules_to_not_convert, llm_int8_skip_modules,
// compressed-tensors ignore) and compressed-tensors' targets, matched against
// each linear layer's Hugging Face name, layer by layer, and expert by expert
// when the list can tell experts apart.
//
// Names are written as transformers' decoders name them (LlamaForCausalLM and
// its kin): model.embed_tokens, model.layers.N.self_attn.q_proj,
// model.layers.N.mlp.gate_proj, model.layers.N.mlp.experts.E.down_proj, the
// router model.layers.N.mlp.gate, model.layers.N.mixer.in_proj, lm_head, and
// the vision tower under its family's prefix (visual, vision_tower, vision_model).
//
// Matching, as each library does it:
// - transformers (modules_to_not_convert, llm_int8_skip_modules;
//   quantizers/quantizers_utils.py should_convert_module): a module stays
//   16-bit when a key, read as a regular expression, matches the start of its
//   name (re.match), or its name ends with the key: "lm_head", "model.layers.1"
//   (also model.layers.1x), "mlp.gate", "model.layers.*.self_attn".
// - compressed-tensors (ignore, targets; utils/match.py match_name): the exact
//   name, or "re:" and a regular expression matched at its start; "Linear" (a
//   class name) is every linear layer.
#include <cstdint>
#include <string>
#include <vector>

#include "model/config.hpp"
#include "model/params.hpp"

namespace vramcalc {

// Entries of one list, and name × pattern comparisons of one model: a real list names a few to a
// few hundred modules (one router per layer of DeepSeek-V3: 58), and both bounds keep a hostile
// list's cost under a fraction of a second. A comparison costs 14-25 ns natively: 5 × 10^7 of them
// (the bound before issue 37) took 0.7 s, 4.1 s before match_prefix stopped allocating per call.
constexpr size_t kMaxListedModules = 10'000;
constexpr double kMaxNameChecks = 1e7;
// The automaton states all the patterns' matches visit together (Pattern::match_prefix), counted as
// they run: a pattern of 10,000 states that stays open over every character of each name costs
// ~10^6 visits a name (issue 37 H2: 100 such patterns on Llama 3 8B took 22 s); a visit costs
// about 4 ns natively, and gpt-oss-120b's own list (model.layers.*.self_attn and kin against 14,005
// names) makes 3 to 4 million. With Pattern::kMaxTotalStates (compiling) and kMaxNameChecks, a
// hostile list costs at most about 0.2 s natively for each bound before it is refused.
constexpr double kMaxPatternVisits = 5e7;

// The method quantizes linear layers only (transformers converts nn.Linear modules; compressed-tensors'
// "Linear" targets): embeddings, norms and biases stay 16-bit, and the head unless the method reaches it.
struct QuantSplit {
    double quantized = 0;        // parameters in the checkpoint's quantized format
    double kept = 0;             // parameters kept in 16 bits
    double listed = 0;           // of these, the linear layers the skip list (or compressed-tensors' targets) keeps
    int64_t listed_modules = 0;  // modules it keeps (per layer and expert)
    bool head_quantized = false; // the lm_head is quantized (a bitsandbytes list or compressed-tensors targets)
};

// For a config with a quantization_config. Throws InputError naming the list for a pattern it
// cannot read or a list past the bounds above.
QuantSplit quant_split(const ModelConfig& c, const std::vector<Tensor>& tensors, const ParamCounts& params);

}  // namespace vramcalc
