#include "model/formats.hpp"

#include "text/errors.hpp"

namespace vramcalc {
namespace {

// Bits per weight. Sources:
// - GPTQ / AWQ 4-bit, group size 128: one fp16 scale and one 4-bit zero per
//   128 weights -> 4 + (16 + 4) / 128 = 4.156 bits (Frantar et al. 2022; AutoAWQ packing).
// - NF4 with double quantization: 4 + 0.127 bits (Dettmers et al. 2023, QLoRA §3).
// - GGUF block formats, llama.cpp ggml-common.h block layouts:
//   Q8_0 = 34 bytes / 32 weights = 8.5; Q4_0 = 18 / 32 = 4.5; Q6_K = 210 / 256 = 6.5625.
//   Q4_K_M and Q5_K_M mix block types per tensor; 4.85 and 5.69 are the
//   averages llama.cpp's quantize tool reports for Llama-class models.
// - MXFP4 (OCP Microscaling Formats spec v1.0 §6.3, used by gpt-oss experts):
//   32 FP4 E2M1 values share one 8-bit E8M0 scale -> 4 + 8/32 = 4.25 bits
//   (ggml-common.h block_mxfp4: 17 bytes / 32 weights, the same figure).
// Built on first use (a Job's defaults name formats, and a Job may be built
// during static initialisation), in FormatId order.
const std::vector<NumberFormat>& table() {
    static const std::vector<NumberFormat> kFormats = {
        {FormatId::Fp32, "fp32", "FP32", 32, true, false},
        {FormatId::Fp16, "fp16", "FP16", 16, true, false},
        {FormatId::Bf16, "bf16", "BF16", 16, true, false},
        {FormatId::Fp8, "fp8", "FP8", 8, false, true},
        {FormatId::Int8, "int8", "INT8", 8, false, true},
        {FormatId::Int4, "int4", "INT4", 4, false, true},
        {FormatId::Gptq, "gptq", "GPTQ 4-bit (g128)", 4 + 20.0 / 128, false, true},
        {FormatId::Awq, "awq", "AWQ 4-bit (g128)", 4 + 20.0 / 128, false, true},
        {FormatId::Nf4, "nf4", "NF4 (bitsandbytes, double-quant)", 4.127, false, true},
        {FormatId::Mxfp4, "mxfp4", "MXFP4 (block 32)", 4.25, false, true},
        {FormatId::Q8_0, "q8_0", "GGUF Q8_0", 8.5, false, false},
        {FormatId::Q6_K, "q6_k", "GGUF Q6_K", 6.5625, false, false},
        {FormatId::Q5_K_M, "q5_k_m", "GGUF Q5_K_M", 5.69, false, false},
        {FormatId::Q4_K_M, "q4_k_m", "GGUF Q4_K_M", 4.85, false, false},
        {FormatId::Q4_0, "q4_0", "GGUF Q4_0", 4.5, false, false},
        // Mixes of K-quant blocks (ggml-common.h block_q3_K 110 B / 256, block_q2_K 84 B / 256 with
        // q3_K..q6_K tensors by llama-quant.cpp's rules): the averages core/serving/gguf.cpp computes tensor by
        // tensor for Llama-3-8B; the llama.cpp engine uses the per-tensor sizes for any model.
        {FormatId::Q3_K_M, "q3_k_m", "GGUF Q3_K_M", 4.00, false, false},
        {FormatId::Q2_K, "q2_k", "GGUF Q2_K", 3.16, false, false},
    };
    return kFormats;
}

}  // namespace

const std::vector<NumberFormat>& all_formats() { return table(); }

const NumberFormat& format(FormatId id) { return table()[static_cast<size_t>(id)]; }

std::string format_names() {
    std::string names;
    for (const auto& f : table()) names += (names.empty() ? "" : ", ") + std::string(f.name);
    return names;
}

bool has_format(const std::string& name) {
    for (const auto& f : table())
        if (name == f.name) return true;
    return false;
}

const NumberFormat& find_format(const std::string& name, const std::string& field) {
    for (const auto& f : table())
        if (name == f.name) return f;
    throw InputError(field, "unknown format '" + short_text(name) + "'; choose one of " + format_names());
}

// KV cache formats: float, fp8 (per-tensor scale), int8/int4 (per-token, per-head
// fp16 scale and zero, LMDeploy quant_policy 8/4: added per head in core/kv.cpp), and
// llama.cpp's q8_0 / q4_0 blocks (scales inside the 8.5 / 4.5 bits).
bool is_kv_format(const NumberFormat& f) {
    return f.bits == 32 || f.bits == 16 || f.bits == 8 || f.id == FormatId::Int4 || f.id == FormatId::Q8_0 ||
           f.id == FormatId::Q4_0;
}

std::vector<const char*> kv_format_names() {
    std::vector<const char*> names = {"auto"};
    for (const auto& f : table())
        if (is_kv_format(f)) names.push_back(f.name);
    return names;
}

}  // namespace vramcalc
