#pragma once
// Storage formats for weights and KV cache: bits per value including the
// quantization scales, and which formats also exist as compute dtypes.
#include <string>
#include <vector>

namespace vramcalc {

// Every format by identity, in the table's order (model/formats.cpp). Code
// that needs a particular format names it by id, never by its text.
enum class FormatId { Fp32, Fp16, Bf16, Fp8, Int8, Int4, Gptq, Awq, Nf4, Mxfp4, Q8_0, Q6_K, Q5_K_M, Q4_K_M, Q4_0, Q3_K_M, Q2_K };

struct NumberFormat {
    FormatId id;
    const char* name;    // key used in JSON / CLI
    const char* label;   // shown to people
    double bits;         // bits per stored value, scales included
    bool trainable;      // fp32/fp16/bf16: usable as a compute and training dtype
    bool quantized_linear_only;  // GPTQ/AWQ/bitsandbytes keep embeddings + lm_head in 16-bit
};

// Resolving a name, once, where a config or job is read. Throws InputError(field)
// listing the valid names when `name` is unknown.
const NumberFormat& find_format(const std::string& name, const std::string& field);
std::string format_names();
bool has_format(const std::string& name);
// The table entry of a format named in code.
const NumberFormat& format(FormatId id);
const std::vector<NumberFormat>& all_formats();
bool is_kv_format(const NumberFormat& f);  // formats inference engines offer for the KV cache
std::vector<const char*> kv_format_names();  // "auto" then every format is_kv_format accepts

}  // namespace vramcalc
