// quantization_config -> WeightQuant: the weight format a checkpoint ships
// in, with its storage cost per weight derived from the scheme.
#include <cmath>
#include <cstdio>

#include "model/config_arch.hpp"
#include "model/config_read.hpp"
#include "model/skip_lists.hpp"

namespace vramcalc {
namespace {

using nlohmann::json;
using namespace cfg;

std::string fmt(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.4g", v);
    return buf;
}

// A list of module names or patterns; at most kMaxListedModules (model/skip_lists.hpp) entries.
std::vector<std::string> name_list(const json& q, const char* key, const std::string& field = "") {
    const std::string name = field.empty() ? std::string("config.quantization_config.") + key : field;
    std::vector<std::string> out;
    auto it = q.find(key);
    if (it == q.end() || it->is_null()) return out;
    if (!it->is_array()) throw InputError(name, "must be a list of module names");
    if (it->size() > kMaxListedModules)
        throw InputError(name, "lists " + std::to_string(it->size()) + " modules; at most " + std::to_string(kMaxListedModules) +
                                   " are read (a list per layer and expert of DeepSeek-V3 would have about 45,000)");
    for (const auto& v : *it) out.push_back(text_field(v, name));
    return out;
}

// Fields of quantization_config, named with their full path in errors.
bool q_bool(const json& q, const char* key, bool fallback) {
    auto it = q.find(key);
    if (it == q.end() || it->is_null()) return fallback;
    return bool_field(*it, std::string("config.quantization_config.") + key);
}
std::string q_text(const json& q, const char* key, const std::string& fallback, const char* path = "config.quantization_config.") {
    auto it = q.find(key);
    if (it == q.end() || it->is_null()) return fallback;
    return text_field(*it, std::string(path) + key);
}

int64_t q_count(const json& q, std::initializer_list<const char*> keys, int64_t min, int64_t max, int64_t fallback) {
    const char* key = present_key(q, keys);
    if (!key) return fallback;
    return whole_field(q.at(key), std::string("config.quantization_config.") + key, min, max);
}

// GPTQ (Frantar et al. 2022; AutoGPTQ/optimum packing) and AWQ (Lin et al.
// 2023; AutoAWQ GEMM packing) store, per group of g weights of one output
// column, an fp16 scale and a b-bit zero point: b + (16 + b)/g bits per weight.
// group_size -1 means one group per column (cost ~0 per weight).
void integer_groups(const json& q, WeightQuant& w, const char* name) {
    w.weight_bits = q_count(q, {"bits", "w_bit"}, 2, 8, 4);
    w.group_size = q_count(q, {"group_size", "q_group_size"}, -1, 1 << 20, 128);
    if (w.group_size == 0) throw InputError("config.quantization_config.group_size", "must be -1 or positive");
    w.desc_act = q.contains("desc_act") && q.at("desc_act").is_boolean() && q.at("desc_act").get<bool>();
    const double b = static_cast<double>(w.weight_bits);
    w.bits = w.group_size > 0 ? b + (16 + b) / static_cast<double>(w.group_size) : b;
    w.bits_source = w.group_size > 0 ? fmt(b) + " + (16-bit scale + " + fmt(b) + "-bit zero) / " +
                                           std::to_string(w.group_size)
                                     : fmt(b) + " bits, one scale per output column";
    w.scheme = std::string(name) + " " + std::to_string(w.weight_bits) + "-bit" +
               (w.group_size > 0 ? ", group " + std::to_string(w.group_size) : ", per channel") +
               (w.desc_act ? ", desc_act (adds an int32 g_idx per input row)" : "");
    w.format = &format(w.weight_bits == 4 && w.group_size == 128 ? (w.method == "awq" ? FormatId::Awq : FormatId::Gptq)
                        : w.weight_bits == 8                       ? FormatId::Int8
                                                                   : FormatId::Int4);
}

// compressed-tensors (vLLM llm-compressor): config_groups.*.weights gives
// num_bits, type int/float, strategy tensor/channel/group/block, group_size.
// Scales are 16-bit (symmetric schemes: no zero point).
void compressed_tensors(const json& q, WeightQuant& w) {
    auto groups = q.find("config_groups");
    if (groups == q.end() || !groups->is_object() || groups->empty())
        throw InputError("config.quantization_config.config_groups", "missing (compressed-tensors lists its schemes there)");
    const json& g = groups->begin().value();
    auto weights = g.find("weights");
    if (weights == g.end() || !weights->is_object())
        throw InputError("config.quantization_config.config_groups.weights", "missing");
    const json& wt = *weights;
    w.weight_bits = q_count(wt, {"num_bits"}, 1, 16, 8);
    const std::string type = q_text(wt, "type", "int", "config.quantization_config.config_groups.weights.");
    const std::string strategy = q_text(wt, "strategy", "tensor", "config.quantization_config.config_groups.weights.");
    const bool sym = !wt.contains("symmetric") || !wt.at("symmetric").is_boolean() || wt.at("symmetric").get<bool>();
    const double b = static_cast<double>(w.weight_bits);
    w.bits = b;
    w.bits_source = fmt(b) + " bits, " + strategy + " scales (negligible per weight)";
    if (strategy == "group") {
        w.group_size = q_count(wt, {"group_size"}, 1, 1 << 20, 128);
        w.bits = b + (16 + (sym ? 0 : b)) / static_cast<double>(w.group_size);
        w.bits_source = fmt(b) + " + (16-bit scale" + (sym ? "" : " + zero") + ") / " + std::to_string(w.group_size);
    } else if (strategy == "block") {
        w.group_size = 128 * 128;
        w.bits = b + 16.0 / (128 * 128);
        w.bits_source = fmt(b) + " + 16-bit scale per 128×128 block";
    }
    auto acts = g.find("input_activations");
    const bool act_quant = acts != g.end() && acts->is_object();
    const int64_t act_bits = act_quant ? q_count(*acts, {"num_bits"}, 1, 16, 8) : 16;
    w.scheme = "compressed-tensors W" + std::to_string(w.weight_bits) + "A" + std::to_string(act_bits) + " (" + type +
               ", " + strategy + (w.group_size > 0 && strategy == "group" ? " " + std::to_string(w.group_size) : "") + ")";
    w.format = &format(type == "float" && w.weight_bits == 8 ? FormatId::Fp8 : w.weight_bits == 8 ? FormatId::Int8 : FormatId::Int4);
    // compressed-tensors quantizes the modules a group targets ("Linear": every nn.Linear, the lm_head
    // too) and not ignored (compressed_tensors/utils/match.py match_named_modules, is_match): the head
    // is quantized unless the ignore list names it.
    w.not_converted = name_list(q, "ignore");
    w.not_converted_key = "ignore";
    w.compressed_tensors_rules = true;
    for (auto group = groups->begin(); group != groups->end(); ++group)
        if (group->is_object())
            for (const std::string& t : name_list(*group, "targets", "config.quantization_config.config_groups.targets"))
                w.targets.push_back(t);
    if (w.targets.empty()) w.targets.push_back("Linear");
    w.head_kept = false;
}

}  // namespace

void parse_quantization(const json& root, ModelConfig& m) {
    auto it = root.find("quantization_config");
    if (it == root.end() || it->is_null()) {
        auto text = root.find("text_config");
        if (text == root.end() || !text->is_object()) return;
        it = text->find("quantization_config");
        if (it == text->end() || it->is_null()) return;
    }
    if (!it->is_object()) throw InputError("config.quantization_config", "must be an object");
    const json& q = *it;
    WeightQuant& w = m.quant;
    w.method = q_text(q, "quant_method", q.contains("load_in_4bit") || q.contains("load_in_8bit") ? "bitsandbytes" : "");
    if (w.method.empty()) throw InputError("config.quantization_config.quant_method", "missing");
    w.not_converted = name_list(q, "modules_to_not_convert");
    w.not_converted_key = "modules_to_not_convert";
    const std::string& method = w.method;
    if (method == "gptq" || method == "awq") {
        integer_groups(q, w, method == "gptq" ? "GPTQ" : "AWQ");
    } else if (method == "fp8") {
        // DeepSeek-V3 / Qwen3-FP8: e4m3 weights with one fp32 scale
        // (weight_scale_inv) per 128×128 block; per-tensor fp8 has one scale per matrix.
        w.weight_bits = 8;
        w.format = &format(FormatId::Fp8);
        auto block = q.find("weight_block_size");
        if (block != q.end() && block->is_array() && block->size() == 2) {
            const int64_t r = whole_field((*block)[0], "config.quantization_config.weight_block_size", 1, 1 << 20);
            const int64_t c = whole_field((*block)[1], "config.quantization_config.weight_block_size", 1, 1 << 20);
            w.group_size = r * c;
            w.bits = 8 + 32.0 / static_cast<double>(r * c);
            w.bits_source = "8 + 32-bit scale per " + std::to_string(r) + "×" + std::to_string(c) + " block";
            w.scheme = "FP8 e4m3, block " + std::to_string(r) + "×" + std::to_string(c);
        } else {
            w.bits = 8;
            w.bits_source = "8 bits, one scale per tensor";
            w.scheme = "FP8 e4m3, per tensor";
        }
    } else if (method == "bitsandbytes") {
        if (q_bool(q, "load_in_4bit", false)) {
            // QLoRA (Dettmers et al. 2023) §3: 4-bit codes, fp32 absmax per 64
            // weights (+0.5 bit), or 8-bit absmax + fp32 per 256 blocks with
            // double quantization (8/64 + 32/(64·256) = 0.127 bit).
            const bool dq = q_bool(q, "bnb_4bit_use_double_quant", false);
            const std::string type = q_text(q, "bnb_4bit_quant_type", "fp4");
            w.weight_bits = 4;
            w.group_size = 64;
            w.bits = dq ? 4.127 : 4.5;
            w.bits_source = dq ? "4 + 8/64 + 32/(64·256) (double quantization)" : "4 + 32-bit absmax / 64";
            w.scheme = "bitsandbytes 4-bit " + type + (dq ? ", double quant" : "");
            w.format = &format(type == "nf4" && dq ? FormatId::Nf4 : FormatId::Int4);
        } else if (q_bool(q, "load_in_8bit", false)) {
            // LLM.int8() (Dettmers et al. 2022): int8 weights + one fp32 scale per row.
            w.weight_bits = 8;
            w.bits = 8;
            w.bits_source = "8 bits + one 32-bit scale per row (negligible per weight)";
            w.scheme = "bitsandbytes LLM.int8()";
            w.format = &format(FormatId::Int8);
        } else {
            throw InputError("config.quantization_config.load_in_4bit", "bitsandbytes config sets neither load_in_4bit nor load_in_8bit");
        }
        w.not_converted.clear();  // transformers' BitsAndBytesConfig reads no modules_to_not_convert
        w.not_converted_key.clear();
        // transformers' bitsandbytes quantizer (quantizer_bnb_4bit.py / _8bit.py) passes llm_int8_skip_modules
        // to get_modules_to_not_convert without add_default_skips: a list given replaces the default (the
        // output embedding, lm_head), so the head is quantized unless the list names it.
        if (q.contains("llm_int8_skip_modules") && !q.at("llm_int8_skip_modules").is_null()) {
            w.not_converted = name_list(q, "llm_int8_skip_modules");
            w.not_converted_key = "llm_int8_skip_modules";
            w.head_kept = false;
        }
    } else if (method == "mxfp4") {
        // OCP Microscaling spec v1.0 §6.3: FP4 (E2M1) elements in blocks of 32
        // sharing one E8M0 scale: 4 + 8/32 = 4.25 bits. gpt-oss quantizes only
        // the MoE experts (attention, router, embeddings, head in modules_to_not_convert).
        w.weight_bits = 4;
        w.group_size = 32;
        w.bits = 4.25;
        w.bits_source = "4 + 8-bit shared scale / 32";
        w.scheme = "MXFP4 (E2M1, block 32, E8M0 scale)";
        w.format = &format(FormatId::Mxfp4);
        w.experts_only = m.is_moe();
    } else if (method == "compressed-tensors") {
        compressed_tensors(q, w);
    } else {
        throw InputError("config.quantization_config.quant_method",
                         "unknown method '" + short_text(method) + "'; supported: gptq, awq, fp8, bitsandbytes, mxfp4, compressed-tensors");
    }
}

}  // namespace vramcalc
