#pragma once
// The model class around the stack (Head): resolved once from config.json's
// `architectures`, or chosen by the job's `head` field; which heads each
// family has (transformers' Auto classes).
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "model/config.hpp"

namespace vramcalc {

// The head the first class named in `architectures` implies (suffix rules:
// ForCausalLM / LMHeadModel, ForConditionalGeneration, ForMaskedLM, ...), else
// the family's usual one (decoders: CausalLM, encoders: Base, encoder-decoders: Seq2SeqLM).
Head head_from_architectures(const nlohmann::json& config, const ModelConfig& m);

// Classification outputs: len(id2label) when the config lists labels, else num_labels, else 2
// (transformers PretrainedConfig: num_labels defaults to 2).
int64_t labels_of(const nlohmann::json& config);

// Sets the head (and what follows from it: which layers cache keys and values) after
// checking that this family has it; throws InputError(field, ...) naming `field`.
void apply_head(ModelConfig& m, Head head, const char* field);

const char* head_name(Head head);
std::vector<const char*> head_names();
// "auto" is the config's own; returns false for an unknown name.
bool head_named(const std::string& name, Head& head);

}  // namespace vramcalc
