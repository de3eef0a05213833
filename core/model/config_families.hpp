#pragma once
// The architectures of issue 24 (encoders, encoder-decoders and the remaining
// decoders): their model_type table and the reading of their config.json keys,
// which differ family by family (d_model, n_heads, encoder_layers,
// padded_vocab_size, ...). Internal to the core (config.cpp calls it).
#include <initializer_list>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/config.hpp"

namespace vramcalc {

struct FamilyType {
    const char* model_type;
    const char* architecture;  // the class config.json names when model_type is missing
    Family family;
    Arch arch;
};

// The entry for a model_type (or an architecture class name), or nullptr.
const FamilyType* find_family_type(const std::string& model_type_or_class);

// Reads every dimension and flag of an issue-24 architecture from its config.json
// into `m` (m.model_type, m.family and m.arch already set); throws InputError
// naming the config key that is missing or wrong.
void parse_family(const nlohmann::json& c, ModelConfig& m);

// Attention heads (and kv heads from the first present of `kv`, else all heads), the
// head size from `head_dim` or hidden / heads; errors name the config key.
void read_attention_shape(const nlohmann::json& c, ModelConfig& m, std::initializer_list<const char*> heads,
                          std::initializer_list<const char*> kv, std::initializer_list<const char*> head_dim);

// A sentence-transformers checkpoint: modules.json (a list of modules) beside
// the Transformer module's config.json. `root` is either modules.json itself
// (an error naming the file to give instead) or an object of files by path
// {"modules.json": [...], "config.json": {...}, "2_Dense/config.json": {...}}.
// Returns the Transformer's config.json and appends each Dense module's
// (in, out, bias) to `dense`; returns nullptr when `root` is neither.
const nlohmann::json* sentence_transformers_config(const nlohmann::json& root, std::vector<int64_t>& dense);

}  // namespace vramcalc
