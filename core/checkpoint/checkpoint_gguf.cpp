// GGUF header: exact tensor bytes from ggml types, without the tensor data.
// Layout (ggml docs/gguf.md, "File Structure"): magic "GGUF", uint32 version,
// uint64 tensor_count, uint64 metadata_kv_count, the KV pairs, then per tensor
// {string name, uint32 n_dims, uint64 ne[n_dims], uint32 ggml_type, uint64 offset}.
// All little-endian; strings are uint64 length + UTF-8 bytes.
#include "checkpoint/checkpoint_gguf.hpp"

#include <cstring>
#include <unordered_set>

#include "text/errors.hpp"

namespace vramcalc {
namespace {

using nlohmann::json;

struct GgmlType {
    int id;
    const char* name;
    int64_t block;  // values per block (blck_size)
    int64_t bytes;  // bytes per block (type_size)
};

// ggml-org/ggml src/ggml.c type_traits[] (blck_size, type_size) with the block
// sizes from src/ggml-common.h static_asserts (K_SCALE_SIZE 12, QK_K 256,
// IQ3S_N_SCALE = QK_K/64); ids from include/ggml.h enum ggml_type.
const GgmlType kTypes[] = {
    {0, "F32", 1, 4},          {1, "F16", 1, 2},          {2, "Q4_0", 32, 18},      {3, "Q4_1", 32, 20},
    {6, "Q5_0", 32, 22},       {7, "Q5_1", 32, 24},       {8, "Q8_0", 32, 34},      {9, "Q8_1", 32, 36},
    {10, "Q2_K", 256, 84},     {11, "Q3_K", 256, 110},    {12, "Q4_K", 256, 144},   {13, "Q5_K", 256, 176},
    {14, "Q6_K", 256, 210},    {15, "Q8_K", 256, 292},    {16, "IQ2_XXS", 256, 66}, {17, "IQ2_XS", 256, 74},
    {18, "IQ3_XXS", 256, 98},  {19, "IQ1_S", 256, 50},    {20, "IQ4_NL", 32, 18},   {21, "IQ3_S", 256, 110},
    {22, "IQ2_S", 256, 82},    {23, "IQ4_XS", 256, 136},  {24, "I8", 1, 1},         {25, "I16", 1, 2},
    {26, "I32", 1, 4},         {27, "I64", 1, 8},         {28, "F64", 1, 8},        {29, "IQ1_M", 256, 56},
    {30, "BF16", 1, 2},        {34, "TQ1_0", 256, 54},    {35, "TQ2_0", 256, 66},   {39, "MXFP4", 32, 17},
    {40, "NVFP4", 64, 36},     {41, "Q1_0", 128, 18},     {42, "Q2_0", 64, 18},
};

const GgmlType& ggml_type(uint32_t id, const std::string& field) {
    for (const auto& t : kTypes)
        if (static_cast<uint32_t>(t.id) == id) return t;
    throw InputError(field, "unknown ggml type " + std::to_string(id));
}

class Reader {
public:
    explicit Reader(const std::string& bytes) : b_(bytes) {}
    template <class T>
    T num(const char* what) {
        need(sizeof(T), what);
        T v;
        std::memcpy(&v, b_.data() + pos_, sizeof(T));  // GGUF is little-endian, as are x86, ARM and wasm
        pos_ += sizeof(T);
        return v;
    }
    std::string str(const char* what) {
        const uint64_t n = num<uint64_t>(what);
        need(n, what);
        std::string s = b_.substr(pos_, n);
        pos_ += n;
        return s;
    }
    void skip(uint64_t n, const char* what) {
        need(n, what);
        pos_ += n;
    }

private:
    void need(uint64_t n, const char* what) {
        if (n > b_.size() - pos_)
            throw InputError("checkpoint", std::string("GGUF header truncated while reading ") + what +
                                               " (send more of the file's beginning)");
    }
    const std::string& b_;
    size_t pos_ = 0;
};

// GGUF metadata value types (gguf.md "gguf_metadata_value_type").
enum : uint32_t { U8, I8, U16, I16, U32, I32, F32, BOOL, STRING, ARRAY, U64, I64, F64 };

json scalar(Reader& r, uint32_t type) {
    switch (type) {
        case U8: return r.num<uint8_t>("u8");
        case I8: return r.num<int8_t>("i8");
        case U16: return r.num<uint16_t>("u16");
        case I16: return r.num<int16_t>("i16");
        case U32: return r.num<uint32_t>("u32");
        case I32: return r.num<int32_t>("i32");
        case F32: return r.num<float>("f32");
        case BOOL: return r.num<uint8_t>("bool") != 0;
        case STRING: return r.str("string");
        case U64: return r.num<uint64_t>("u64");
        case I64: return r.num<int64_t>("i64");
        case F64: return r.num<double>("f64");
        default: throw InputError("checkpoint.metadata", "unknown GGUF value type " + std::to_string(type));
    }
}

// A value; arrays longer than 16 (tokenizer vocabularies) are summarised as
// {"array_of": type, "length": n} and skipped without storing them.
json value(Reader& r, uint32_t type, int depth) {
    if (type != ARRAY) return scalar(r, type);
    if (depth > 4) throw InputError("checkpoint.metadata", "GGUF arrays nested too deeply");
    const uint32_t item = r.num<uint32_t>("array type");
    const uint64_t n = r.num<uint64_t>("array length");
    static const uint64_t kFixed[] = {1, 1, 2, 2, 4, 4, 4, 1, 0, 0, 8, 8, 8};
    if (item > F64) throw InputError("checkpoint.metadata", "unknown GGUF array type " + std::to_string(item));
    // Nested arrays and long ones (tokenizer vocabularies) are summarised and skipped
    // without storing them; only short flat arrays are kept.
    if (n > 16 || item == ARRAY) {
        if (item != STRING && item != ARRAY) {
            if (n > (uint64_t(1) << 40) / kFixed[item]) throw InputError("checkpoint.metadata", "absurd GGUF array");
            r.skip(n * kFixed[item], "array");
        } else {
            for (uint64_t i = 0; i < n; ++i) value(r, item, depth + 1);
        }
        return json{{"array_of", item}, {"length", n}};
    }
    json out = json::array();
    for (uint64_t i = 0; i < n; ++i) out.push_back(value(r, item, depth + 1));
    return out;
}

}  // namespace

CheckpointInfo read_gguf(const std::string& bytes) {
    Reader r(bytes);
    CheckpointInfo info;
    info.format = "gguf";
    r.skip(4, "magic");
    const uint32_t version = r.num<uint32_t>("version");
    if (version < 2 || version > 3)
        throw InputError("checkpoint.gguf_version", "GGUF version " + std::to_string(version) + " unsupported (2 or 3)");
    info.gguf_version = version;
    const uint64_t tensors = r.num<uint64_t>("tensor count");
    const uint64_t kvs = r.num<uint64_t>("metadata count");
    // Every tensor info and KV pair takes at least 8 bytes: counts beyond the input are hostile.
    if (tensors > bytes.size() / 8 || kvs > bytes.size() / 8)
        throw InputError("checkpoint", "GGUF counts (" + std::to_string(tensors) + " tensors, " + std::to_string(kvs) +
                                           " metadata pairs) exceed what the bytes can hold");
    // Real GGUF files carry a few dozen keys (llama.cpp gguf-py constants.py Keys); the answer
    // keeps the first kKeptKeys, strings cut to kKeptString bytes, and counts the rest.
    constexpr uint64_t kMaxKeys = 10'000;
    constexpr size_t kKeptKeys = 64, kKeptString = 256;
    if (kvs > kMaxKeys)
        throw InputError("checkpoint.metadata", "holds " + std::to_string(kvs) + " keys (a real GGUF has a few dozen)");
    std::unordered_set<std::string> keys;
    for (uint64_t i = 0; i < kvs; ++i) {
        std::string key = r.str("metadata key");
        const uint32_t type = r.num<uint32_t>("metadata type");
        json v = value(r, type, 0);
        if (!keys.insert(key).second) throw InputError("checkpoint.metadata." + short_text(key), "given twice");
        if (key == "general.architecture" && v.is_string()) info.architecture = v.get<std::string>().substr(0, kKeptString);
        if (info.metadata.size() >= kKeptKeys) continue;
        if (v.is_string() && v.get_ref<const std::string&>().size() > kKeptString)
            v = short_text(v.get<std::string>());
        info.metadata[std::move(key)] = std::move(v);
    }
    info.metadata_keys = static_cast<int64_t>(kvs);
    for (uint64_t i = 0; i < tensors; ++i) {
        CheckpointTensor t;
        t.name = r.str("tensor name");
        const std::string field = "checkpoint.tensors." + t.name;
        const uint32_t dims = r.num<uint32_t>("tensor dims");
        if (dims == 0 || dims > 4) throw InputError(field, "has " + std::to_string(dims) + " dimensions (ggml allows 1-4)");
        t.elements = 1;
        for (uint32_t d = 0; d < dims; ++d) {
            const uint64_t n = r.num<uint64_t>("tensor shape");
            if (n == 0 || n > static_cast<uint64_t>(kMaxCheckpointBytes) ||
                static_cast<uint64_t>(t.elements) > static_cast<uint64_t>(kMaxCheckpointBytes) / n)
                throw InputError(field, "describes an absurd tensor");
            t.shape.push_back(static_cast<int64_t>(n));
            t.elements *= static_cast<int64_t>(n);
        }
        const GgmlType& type = ggml_type(r.num<uint32_t>("tensor type"), field);
        r.num<uint64_t>("tensor offset");
        t.dtype = type.name;
        // ggml_row_size: ne0 / blck_size blocks of type_size bytes per row.
        if (t.shape[0] % type.block != 0)
            throw InputError(field, "row length " + std::to_string(t.shape[0]) + " is not a multiple of the " + type.name +
                                        " block (" + std::to_string(type.block) + ")");
        t.bytes = t.elements / type.block * type.bytes;
        checkpoint_add_tensor(info, std::move(t));
    }
    return info;
}

namespace {

// Lowercase letters and digits only: "gpt_oss" and "gpt-oss", "qwen2_moe" and "qwen2moe" are one name.
std::string squeezed(const std::string& name) {
    std::string out;
    for (char ch : name)
        if ((ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9')) out += ch;
        else if (ch >= 'A' && ch <= 'Z') out += static_cast<char>(ch - 'A' + 'a');
    return out;
}

// model_types whose GGUF architecture has another name: llama.cpp convert_hf_to_gguf.py registers
// their transformers classes on these MODEL_ARCH values (gguf-py/gguf/constants.py MODEL_ARCH_NAMES).
struct ArchAlias {
    const char* model_type;
    const char* gguf;
};
constexpr ArchAlias kArchAliases[] = {
    {"mistral", "llama"}, {"mixtral", "llama"}, {"llava", "llama"},  // LlamaModel: Mistral, Mixtral, LLaVA's text model
    {"deepseek_v2", "deepseek2"}, {"deepseek_v3", "deepseek2"}, {"kimi_k2", "deepseek2"},  // DeepseekV2Model
    {"cohere", "command-r"}, {"gemma3_text", "gemma3"}, {"gpt_bigcode", "starcoder"}, {"qwen2_5_vl", "qwen2vl"},
    {"qwen2_vl", "qwen2vl"}, {"granitemoehybrid", "granitehybrid"}, {"hunyuan_v1_moe", "hunyuan-moe"},
    {"roberta", "bert"}, {"xlm-roberta", "bert"}, {"distilbert", "bert"}, {"modernbert", "modern-bert"},
    {"mt5", "t5"}, {"umt5", "t5"}, {"chatglm", "glm4"},
};

}  // namespace

std::string gguf_architecture_mismatch(const std::string& model_type, const std::string& architecture) {
    if (model_type.empty() || architecture.empty()) return "";
    const std::string gguf = squeezed(architecture);
    if (squeezed(model_type) == gguf || squeezed(model_type + "encoder") == gguf) return "";
    for (const ArchAlias& a : kArchAliases)
        if (model_type == a.model_type && squeezed(a.gguf) == gguf) return "";
    return "The GGUF's general.architecture is '" + short_text(architecture) + "', not what llama.cpp writes for the "
           "config's model_type '" + short_text(model_type) + "': check that this file is this model's (its tensors "
           "cover the config's blocks, so its bytes are taken as the weights).";
}

}  // namespace vramcalc
