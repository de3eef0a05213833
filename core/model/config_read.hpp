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

// Upper bounds well past any real model; they keep arithmetic finite and
// turn typos such as an extra zero-run into a clear message.
constexpr int64_t kMaxHidden = 1'000'000;
constexpr int64_t kMaxLayers = 10'000;
constexpr int64_t kMaxHeads = 100'000;
constexpr int64_t kMaxVocab = 100'000'000;
constexpr int64_t kMaxIntermediate = 10'000'000;
constexpr int64_t kMaxExperts = 100'000;

inline std::string field_name(const char* key) { return std::string("config.") + key; }

// First key of `keys` present (and not null) in `config`, or nullptr.
inline const char* present_key(const nlohmann::json& config, std::initializer_list<const char*> keys) {
    for (const char* key : keys) {
        auto it = config.find(key);
        if (it != config.end() && !it->is_null()) return key;
    }
    return nullptr;
}

// Reads a whole number from the first present key. Absent -> `fallback`
// (or an error when `required`). Fractions, negatives, zero (unless
// `allow_zero`) and values above `max` are rejected with the key's name.
inline int64_t read_count(const nlohmann::json& config, std::initializer_list<const char*> keys, int64_t max,
                          bool required, int64_t fallback = 0, bool allow_zero = false) {
    const char* key = present_key(config, keys);
    if (!key) {
        if (required) throw InputError(field_name(*keys.begin()), "missing (a required whole number)");
        return fallback;
    }
    return whole_field(config.at(key), field_name(key), allow_zero ? 0 : 1, max);
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
