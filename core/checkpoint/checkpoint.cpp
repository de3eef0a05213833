#include "checkpoint/checkpoint.hpp"

#include <cmath>
#include <algorithm>
#include <cstring>

#include "checkpoint/checkpoint_gguf.hpp"
#include "model/config.hpp"
#include "text/errors.hpp"
#include "text/guarded.hpp"
#include "text/json_text.hpp"
#include "model/params.hpp"
#include "model/model.hpp"
#include "text/units.hpp"

namespace vramcalc {
namespace {

using nlohmann::json;

// A safetensors header above this is not a real checkpoint: the format's own
// reader refuses headers over 100 MB (huggingface/safetensors
// safetensors/src/tensor.rs, MAX_HEADER_SIZE = 100_000_000).
constexpr uint64_t kMaxHeader = 100'000'000;
constexpr int64_t kMaxTensors = 100'000;
// Tensors listed in an answer (all are summed per dtype).
constexpr size_t kListedTensors = 100;

// Bits per element of each safetensors dtype (huggingface/safetensors
// safetensors/src/tensor.rs Dtype::bitsize): F4 and F6 pack below a byte.
int64_t dtype_bits(const std::string& d) {
    static const std::pair<const char*, int64_t> kBits[] = {
        {"BOOL", 8}, {"U8", 8}, {"I8", 8}, {"F8_E5M2", 8}, {"F8_E4M3", 8}, {"F8_E8M0", 8}, {"I16", 16},
        {"U16", 16}, {"F16", 16}, {"BF16", 16}, {"I32", 32}, {"U32", 32}, {"F32", 32}, {"F64", 64},
        {"I64", 64}, {"U64", 64}, {"F4", 4}, {"F6_E2M3", 6}, {"F6_E3M2", 6}, {"C64", 64}};
    for (const auto& [name, bits] : kBits)
        if (d == name) return bits;
    throw InputError("checkpoint.dtype", "unknown safetensors dtype '" + short_text(d) + "'");
}

bool is_float_dtype(const std::string& d) { return d[0] == 'F' || d == "BF16"; }

void add_to_dtype(CheckpointInfo& info, const std::string& dtype, int64_t elements, int64_t bytes) {
    for (auto& t : info.by_dtype)
        if (t.dtype == dtype) {
            ++t.tensors;
            t.elements += elements;
            t.bytes += bytes;
            return;
        }
    info.by_dtype.push_back({dtype, 1, elements, bytes});
}

// The JSON header of a safetensors file: {"__metadata__": {...}, name:
// {"dtype", "shape", "data_offsets": [begin, end]}}. data_offsets give the
// exact byte span; dtype × shape must agree with it.
CheckpointInfo safetensors_header(const json& header) {
    if (!header.is_object()) throw InputError("checkpoint", "safetensors header must be a JSON object");
    CheckpointInfo info;
    info.format = "safetensors";
    for (auto it = header.begin(); it != header.end(); ++it) {
        if (it.key() == "__metadata__") {
            // Real files hold a few string pairs ({"format": "pt"}); keep 64, summarise long values.
            if (!it.value().is_object()) throw InputError("checkpoint.__metadata__", "must be an object of strings");
            for (auto m = it.value().begin(); m != it.value().end(); ++m) {
                ++info.metadata_keys;
                if (info.metadata.size() < 64)
                    info.metadata[m.key().substr(0, 256)] = m.value().is_string() && m.value().get_ref<const std::string&>().size() <= 256
                                                                ? m.value()
                                                                : json(describe_value(m.value()));
            }
            continue;
        }
        const std::string field = "checkpoint." + it.key();
        const json& v = it.value();
        if (!v.is_object()) throw InputError(field, "must be an object with dtype, shape, data_offsets");
        CheckpointTensor t;
        t.name = it.key();
        t.dtype = text_field(v.value("dtype", json()), field + ".dtype");
        auto shape = v.find("shape");
        if (shape == v.end() || !shape->is_array()) throw InputError(field + ".shape", "missing (a list of dimensions)");
        t.elements = 1;
        for (const auto& d : *shape) {
            const int64_t n = whole_field(d, field + ".shape", 0, kMaxCheckpointBytes);
            t.shape.push_back(n);
            if (n > 0 && t.elements > kMaxCheckpointBytes / n) throw InputError(field + ".shape", "describes an absurd tensor");
            t.elements *= n;
        }
        const int64_t bits = dtype_bits(t.dtype);
        t.bytes = (t.elements * bits + 7) / 8;
        auto offsets = v.find("data_offsets");
        if (offsets != v.end()) {
            if (!offsets->is_array() || offsets->size() != 2)
                throw InputError(field + ".data_offsets", "must be [begin, end]");
            const int64_t begin = whole_field((*offsets)[0], field + ".data_offsets", 0, kMaxCheckpointBytes);
            const int64_t end = whole_field((*offsets)[1], field + ".data_offsets", 0, kMaxCheckpointBytes);
            if (end - begin != t.bytes)
                throw InputError(field + ".data_offsets", "span " + std::to_string(end - begin) + " bytes but " + t.dtype +
                                                              " × shape needs " + std::to_string(t.bytes));
        }
        if (!is_float_dtype(t.dtype) && t.dtype != "BOOL") info.packed_quantized = true;
        checkpoint_add_tensor(info, std::move(t));
    }
    return info;
}

// A safetensors file starts with its header's length N: 8 bytes, little-endian.
uint64_t length_prefix(const std::string& bytes) {
    uint64_t n = 0;
    for (int i = 7; i >= 0; --i) n = (n << 8) | static_cast<unsigned char>(bytes[static_cast<size_t>(i)]);
    return n;
}

// Below 1 TB that length ends in NUL bytes, which JSON text never holds: its
// first byte may still be '{' (0x7B), ' ' or '\n'.
bool has_length_prefix(const std::string& bytes) {
    return bytes.size() >= 8 && bytes[5] == '\0' && bytes[6] == '\0' && bytes[7] == '\0';
}

CheckpointInfo safetensors_file(const std::string& bytes) {
    if (bytes.size() < 8) throw InputError("checkpoint", "too short for a safetensors header (needs 8 + N bytes)");
    const uint64_t n = length_prefix(bytes);
    if (n > kMaxHeader) throw InputError("checkpoint", "safetensors header length " + std::to_string(n) + " is absurd");
    // Between this JSON reader's 8 MB and the format's 100 MB: a real header (a few hundred KB even for
    // thousands of tensors) never gets here; say so before anyone reads or fetches it.
    if (n > kMaxJsonBytes)
        throw InputError("checkpoint", "safetensors header of " + std::to_string(n) + " bytes is larger than 8 MB, the limit for a JSON input");
    if (bytes.size() < 8 + n)
        throw InputError("checkpoint", "truncated: the header says " + std::to_string(n) + " bytes of JSON, only " +
                                           std::to_string(bytes.size() - 8) + " given (send the first 8 + N bytes)");
    return safetensors_header(parse_json_text(bytes.substr(8, n), "checkpoint"));
}

// model.safetensors.index.json: metadata.total_size is the sum of all tensor
// bytes (transformers modeling_utils.save_pretrained writes it so).
CheckpointInfo safetensors_index(const json& index) {
    CheckpointInfo info;
    info.format = "safetensors-index";
    const json& meta = index.at("metadata");
    if (!meta.is_object()) throw InputError("checkpoint.metadata", "must be an object");
    info.weight_bytes = whole_field(meta.value("total_size", json()), "checkpoint.metadata.total_size", 1, kMaxCheckpointBytes);
    auto map = index.find("weight_map");
    if (map != index.end() && map->is_object()) info.tensor_count = static_cast<int64_t>(map->size());
    info.metadata = meta;
    return info;
}

json tensor_json(const CheckpointTensor& t) {
    return json{{"name", t.name}, {"dtype", t.dtype}, {"shape", t.shape}, {"elements", t.elements}, {"bytes", t.bytes}};
}

}  // namespace

void checkpoint_add_tensor(CheckpointInfo& info, CheckpointTensor t) {
    // Real checkpoints hold at most a few thousand tensors per file (merged-expert GGUFs of
    // the largest MoE models: ~2,000; a 5 GB safetensors shard: a few thousand).
    if (info.tensor_count >= kMaxTensors)
        throw InputError("checkpoint", "holds more than " + std::to_string(kMaxTensors) + " tensors: not a real checkpoint header");
    if (!info.names.insert(t.name).second)
        throw InputError("checkpoint." + short_text(t.name), "names a tensor twice: its bytes would be counted twice");
    info.weight_bytes += t.bytes;
    info.elements += t.elements;
    if (info.weight_bytes > kMaxCheckpointBytes) throw InputError("checkpoint", "tensor sizes add up to an absurd total");
    add_to_dtype(info, t.dtype, t.elements, t.bytes);
    info.tensors.push_back(std::move(t));
    ++info.tensor_count;
}

CheckpointInfo read_checkpoint(const std::string& bytes) {
    if (bytes.size() >= 4 && std::memcmp(bytes.data(), "GGUF", 4) == 0) return read_gguf(bytes);
    if (!has_length_prefix(bytes) && bytes.size() > kMaxJsonBytes) throw_too_large("checkpoint");  // JSON text, or nothing known
    const size_t first = bytes.find_first_not_of(" \t\r\n");
    if (!has_length_prefix(bytes) && first != std::string::npos && bytes[first] == '{') {
        const json doc = parse_json_text(bytes, "checkpoint");
        const bool index = doc.is_object() && doc.contains("metadata") &&
                           (doc.contains("weight_map") || (doc.at("metadata").is_object() &&
                                                           doc.at("metadata").contains("total_size")));
        if (index)
            return safetensors_index(doc);
        return safetensors_header(doc);  // a safetensors header pasted without its 8-byte length
    }
    return safetensors_file(bytes);
}

size_t checkpoint_bytes_needed(const std::string& first) {
    if (first.rfind("GGUF", 0) == 0) return kMaxGgufHeaderBytes;
    // An index or a bare header: JSON text, one byte past the limit so the JSON reader refuses a longer one.
    if (!has_length_prefix(first)) return kMaxJsonBytes + 1;
    const uint64_t n = length_prefix(first);
    return n > kMaxJsonBytes ? 8 : 8 + static_cast<size_t>(n);  // too long: read_checkpoint names it from the length
}

double exact_weight_bytes(const CheckpointInfo& info) { return static_cast<double>(info.weight_bytes); }

namespace {

// blk.N.<name> -> N, or -1 for tensors outside the repeating blocks.
int64_t block_of(const std::string& name) {
    if (name.rfind("blk.", 0) != 0) return -1;
    int64_t n = 0;
    size_t i = 4;
    if (i >= name.size() || name[i] < '0' || name[i] > '9') return -1;
    // A block number past any real model saturates (and is then refused as beyond the layers).
    for (; i < name.size() && name[i] >= '0' && name[i] <= '9'; ++i) n = std::min<int64_t>(n * 10 + (name[i] - '0'), 1'000'000'000);
    return i < name.size() && name[i] == '.' ? n : -1;
}

// Where a GGUF's bytes sit: per block (llama.cpp offloads whole blocks with
// -ngl), the token embedding (kept in host memory) and the rest (output).
void place_gguf(LayerBytes& x, const CheckpointInfo& info, int64_t layers) {
    if (layers <= 0) return;
    x.layer.assign(static_cast<size_t>(layers), 0.0);
    x.experts.assign(static_cast<size_t>(layers), 0.0);
    for (const auto& t : info.tensors) {
        const int64_t b = block_of(t.name);
        const double bytes = static_cast<double>(t.bytes);
        if (b >= layers)
            throw InputError("checkpoint", "GGUF tensor " + short_text(t.name) + " lies beyond the config's " +
                                               std::to_string(layers) + " layers: header and config describe different models");
        if (b >= 0) {
            x.layer[static_cast<size_t>(b)] += bytes;
            if (t.name.find("_exps.") != std::string::npos) x.experts[static_cast<size_t>(b)] += bytes;
        } else if (t.name == "token_embd.weight") {
            x.token_embd += bytes;
        } else {
            x.output += bytes;
        }
    }
    for (const auto& d : info.by_dtype)
        x.mix += (x.mix.empty() ? "" : " + ") + std::to_string(d.tensors) + " " + d.dtype;
}

// Whether the header's tensors cover the architecture; its bytes are the model's weights only then.
// A GGUF needs every block (blk.N for N < layers) and token_embd.weight; any header with shapes
// (not packed quantized codes) needs at least kCovered of the architecture's text parameters (a
// vision tower ships apart in GGUF: mmproj). An index states the total of every shard: taken as is.
constexpr double kCovered = 0.9;

void check_covers(const Model& model, const CheckpointInfo& info) {
    const ModelConfig& c = model.config;
    if (c.family == Family::Explicit) return;
    const std::string refused = "; its bytes are not taken as the model's exact weights";
    if (info.format == "gguf" && c.layers > 0) {
        std::vector<bool> seen(static_cast<size_t>(c.layers), false);
        bool embedding = false;
        for (const auto& t : info.tensors) {
            const int64_t b = block_of(t.name);
            if (b >= 0 && b < c.layers) seen[static_cast<size_t>(b)] = true;
            embedding = embedding || t.name == "token_embd.weight";
        }
        std::string missing;
        int64_t count = 0;
        for (int64_t b = 0; b < c.layers; ++b)
            if (!seen[static_cast<size_t>(b)] && ++count <= 4) missing += (missing.empty() ? "blk." : ", blk.") + std::to_string(b);
        if (count > 4) missing += ", …";
        if (count > 0)
            throw InputError("checkpoint", "GGUF header does not cover the model: no tensors for " + missing + " (" +
                                               std::to_string(count) + " of the config's " + std::to_string(c.layers) +
                                               " blocks)" + refused);
        if (!embedding) throw InputError("checkpoint", "GGUF header does not cover the model: no token_embd.weight" + refused);
    }
    const double text_params = model.params.total - model.params.vision;
    const double elements = static_cast<double>(info.elements);
    if (info.elements > 0 && !info.packed_quantized && text_params > 0 && elements < kCovered * text_params)
        throw InputError("checkpoint", "header does not cover the model: its tensors hold " + grouped_text(elements) +
                                           " values, " + printf_text("%.2f", 100 * elements / text_params) +
                                           " % of the architecture's " + grouped_text(text_params) + " parameters" + refused);
}

}  // namespace

void attach_checkpoint(Model& model, const CheckpointInfo& info) {
    if (info.weight_bytes <= 0) throw InputError("checkpoint", "holds no tensor data: nothing to size the weights with");
    check_covers(model, info);
    ExactWeights x{static_cast<double>(info.weight_bytes), checkpoint_source(info),
                   info.packed_quantized ? 0.0 : static_cast<double>(info.elements), {}, {}};
    if (info.format == "gguf") {
        place_gguf(x.placed, info, model.config.layers);
        if (model.config.family != Family::Explicit) x.note = gguf_architecture_mismatch(model.config.model_type, info.architecture);
    }
    model.exact = std::move(x);
}

const char* checkpoint_source(const CheckpointInfo& info) {
    return info.format == "gguf" ? "GGUF header" : info.format == "safetensors-index" ? "safetensors index (metadata.total_size)"
                                                                                       : "safetensors header";
}

namespace {

// "+1,234" / "-1,234" / "0": a signed whole number, thousands grouped.
std::string signed_grouped(double v) {
    const double rounded = std::round(v);
    return (rounded > 0 ? "+" : rounded < 0 ? "-" : "") + grouped_text(std::fabs(rounded));
}

json comparison_json(const CheckpointInfo& info, double derived) {
    json cmp{{"architecture_params", derived}, {"architecture_params_text", grouped_text(derived)}};
    if (info.elements > 0 && !info.packed_quantized) {
        const double elements = static_cast<double>(info.elements);
        const double percent = 100.0 * (elements - derived) / derived;
        cmp["checkpoint_params"] = info.elements;
        cmp["checkpoint_params_text"] = grouped_text(elements);
        cmp["difference"] = elements - derived;
        cmp["difference_text"] = signed_grouped(elements - derived);
        cmp["difference_percent"] = percent;
        cmp["difference_percent_text"] = printf_text("%+.2f %%", percent);
        cmp["text"] = "The checkpoint's tensors hold " + grouped_text(elements) + " parameters; the config's architecture gives " +
                      grouped_text(derived) + " (difference " + signed_grouped(elements - derived) + ", " +
                      printf_text("%+.2f %%", percent) + ").";
    } else {
        cmp["note"] = info.elements == 0 ? "an index lists no shapes: only the byte total is exact"
                                         : "packed quantized tensors: stored elements are not parameters";
        cmp["text"] = "The config's architecture gives " + grouped_text(derived) + " parameters; " + cmp["note"].get<std::string>() + ".";
    }
    return cmp;
}

}  // namespace

// Besides the raw numbers, every figure the page shows is given as text.
std::string checkpoint_answer(const CheckpointInfo& info, double architecture_params, const std::string& note) {
    const double bytes = static_cast<double>(info.weight_bytes);
    json c{{"format", info.format}, {"weight_bytes", info.weight_bytes}, {"elements", info.elements},
           {"tensor_count", info.tensor_count}, {"exact", true}, {"metadata", info.metadata},
           {"metadata_keys", info.metadata_keys}};
    c["source"] = checkpoint_source(info);
    c["weight_text"] = gb_text(bytes);
    c["weight_bytes_text"] = grouped_text(bytes) + " bytes";
    c["elements_text"] = grouped_text(static_cast<double>(info.elements));
    c["tensor_count_text"] = grouped_text(static_cast<double>(info.tensor_count));
    if (!info.architecture.empty()) c["architecture"] = info.architecture;
    if (info.gguf_version) c["gguf_version"] = info.gguf_version;
    c["by_dtype"] = json::array();
    for (const auto& d : info.by_dtype)
        c["by_dtype"].push_back({{"dtype", d.dtype}, {"tensors", d.tensors}, {"elements", d.elements}, {"bytes", d.bytes},
                                 {"elements_text", grouped_text(static_cast<double>(d.elements))},
                                 {"bytes_text", grouped_text(static_cast<double>(d.bytes))},
                                 {"size_text", gb_text(static_cast<double>(d.bytes))}});
    // The first tensors as a sample (the per-dtype table sums them all): a header may hold
    // tens of thousands, and the answer should stay small.
    c["tensors"] = json::array();
    for (size_t i = 0; i < info.tensors.size() && i < kListedTensors; ++i) c["tensors"].push_back(tensor_json(info.tensors[i]));
    c["tensors_listed"] = std::min<size_t>(info.tensors.size(), kListedTensors);
    if (architecture_params > 0) c["config_comparison"] = comparison_json(info, architecture_params);
    if (!note.empty()) c["note"] = note;
    return json{{"ok", true}, {"checkpoint", c}}.dump(-1, ' ', false, json::error_handler_t::replace);
}

std::string inspect_checkpoint(const std::string& bytes, const std::string& config_json) {
    return guarded([&] {
        const CheckpointInfo info = read_checkpoint(bytes);
        return checkpoint_answer(info, config_json.empty() ? 0 : count_params(parse_config_text(config_json)).total);
    });
}

}  // namespace vramcalc
