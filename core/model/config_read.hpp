#pragma once
// Typed reads of config.json keys, shared by the config parsers
// (config.cpp, config_arch.cpp, config_quant.cpp). Internal to the core.
#include <cstdint>
#include <initializer_list>
#include <string>

#include <nlohmann/json.hpp>

#include "text/errors.hpp"
#include "text/json_text.hpp"

namespace vramcalc {
namespace cfg {

// Upper bounds well past any real model, each with the largest published value it is measured
// against: they keep arithmetic finite, bound what an answer costs (docs/hostile-input.md, "Bounded
// cost": per-layer work is linear in the layers), and turn typos such as an extra zero-run into a
// clear message that says why ("must be at most 10000 (...), got 20000").
struct Cap {
    int64_t max;
    const char* why;
    constexpr operator int64_t() const { return max; }
};
// DeepNet (Wang et al. 2022) trained 1,000-layer Transformers; Llama 3.1 405B has 126 layers.
constexpr Cap kMaxLayers{10'000, "10 × the deepest Transformer trained, DeepNet's 1,000 layers"};
// MT-NLG 530B (Smith et al. 2022): hidden 20,480; PaLM 540B: 18,432.
constexpr Cap kMaxHidden{1'000'000, "about 50 × the widest published model, MT-NLG 530B's 20,480"};
// Llama 3.1 405B and DeepSeek-V3: 128 attention heads.
constexpr Cap kMaxHeads{100'000, "about 780 × the most heads of a published model, 128"};
// Gemma 3: 262,144 tokens, the largest vocabulary in the catalog.
constexpr Cap kMaxVocab{100'000'000, "about 380 × Gemma 3's 262,144 tokens"};
// PaLM 540B (Chowdhery et al. 2022): d_ff 73,728.
constexpr Cap kMaxIntermediate{10'000'000, "about 135 × PaLM 540B's 73,728"};
// Kimi K2: 384 routed experts; DeepSeek-V3: 256.
constexpr Cap kMaxExperts{100'000, "about 260 × Kimi K2's 384 experts"};

// A whole number in [min, cap.max]; past the cap the error says why the cap is there.
inline int64_t capped_field(const nlohmann::json& v, const std::string& field, int64_t min, const Cap& cap) {
    if (v.is_number() && v.get<double>() > static_cast<double>(cap.max))
        throw InputError(field, "must be at most " + std::to_string(cap.max) + " (" + cap.why + "), got " + describe_value(v));
    return whole_field(v, field, min, cap.max);
}

inline std::string field_name(const char* key) { return std::string("config.") + key; }

// First key of `keys` present (and not null) in `config`, or nullptr.
inline const char* present_key(const nlohmann::json& config, std::initializer_list<const char*> keys) {
    for (const char* key : keys) {
        auto it = config.find(key);
        if (it != config.end() && !it->is_null()) return key;
    }
    return nullptr;
}

inline int64_t bounded_count(const nlohmann::json& v, const std::string& field, int64_t min, int64_t max) {
    return whole_field(v, field, min, max);
}
inline int64_t bounded_count(const nlohmann::json& v, const std::string& field, int64_t min, const Cap& cap) {
    return capped_field(v, field, min, cap);
}

// Reads a whole number from the first present key. Absent -> `fallback`
// (or an error when `required`). Fractions, negatives, zero (unless
// `allow_zero`) and values above `max` (a number, or a Cap that says why) are
// rejected with the key's name.
template <class Max>
int64_t read_count(const nlohmann::json& config, std::initializer_list<const char*> keys, const Max& max, bool required,
                   int64_t fallback = 0, bool allow_zero = false) {
    const char* key = present_key(config, keys);
    if (!key) {
        if (required) throw InputError(field_name(*keys.begin()), "missing (a required whole number)");
        return fallback;
    }
    return bounded_count(config.at(key), field_name(key), allow_zero ? 0 : 1, max);
}

// A fraction in [0, 1] (dropout probabilities) from the first present key, else `fallback`.
inline double read_fraction(const nlohmann::json& config, std::initializer_list<const char*> keys, double fallback) {
    const char* key = present_key(config, keys);
    return key ? number_field(config.at(key), field_name(key), 0, 1) : fallback;
}

inline bool read_bool(const nlohmann::json& config, const char* key, bool fallback) {
    auto it = config.find(key);
    if (it == config.end() || it->is_null()) return fallback;
    return bool_field(*it, field_name(key));
}

inline std::string read_text(const nlohmann::json& config, const char* key, const std::string& fallback) {
    auto it = config.find(key);
    if (it == config.end() || it->is_null()) return fallback;
    return text_field(*it, field_name(key));
}

}  // namespace cfg
}  // namespace vramcalc
