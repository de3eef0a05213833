#pragma once
// Storage formats for weights and KV cache: bits per value including the
// quantization scales, and which formats also exist as compute dtypes.
#include <string>
#include <vector>

namespace vramcalc {

struct NumberFormat {
    const char* name;    // key used in JSON / CLI
    const char* label;   // shown to people
    double bits;         // bits per stored value, scales included
    bool trainable;      // fp32/fp16/bf16: usable as a compute and training dtype
    bool quantized_linear_only;  // GPTQ/AWQ/bitsandbytes keep embeddings + lm_head in 16-bit
};

// Throws InputError(field) listing the valid names when `name` is unknown.
const NumberFormat& find_format(const std::string& name, const std::string& field);
std::string format_names();
bool has_format(const std::string& name);
const std::vector<NumberFormat>& all_formats();
bool is_kv_format(const NumberFormat& f);  // formats inference engines offer for the KV cache
std::vector<const char*> kv_format_names();  // "auto" then every format is_kv_format accepts

}  // namespace vramcalc
