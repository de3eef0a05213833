#pragma once
// Exact weight sizes from checkpoint metadata, without the weights:
// - model.safetensors.index.json: metadata.total_size (bytes of all tensors);
// - a safetensors header: 8-byte little-endian length + JSON {name: {dtype,
//   shape, data_offsets}} (on the Hub, the first 8 + N bytes of the file);
// - a GGUF header (v2/v3): KV metadata + tensor infos (ggml type, dims).
// Input is the raw bytes (a std::string may hold NULs). No I/O here.
#include <cstdint>
#include <string>
#include <unordered_set>
#include <vector>

#include <nlohmann/json.hpp>

namespace vramcalc {

struct Model;

struct CheckpointTensor {
    std::string name;
    std::string dtype;           // safetensors dtype ("BF16", "F8_E4M3", "I32") or ggml type ("Q4_K", "F16")
    std::vector<int64_t> shape;  // as stored (safetensors: row-major; GGUF: ne0 first)
    int64_t elements = 0;        // product of shape (packed quantized tensors: stored elements)
    int64_t bytes = 0;           // exact bytes of the tensor data
};

struct DtypeTotal {
    std::string dtype;
    int64_t tensors = 0, elements = 0, bytes = 0;
};

struct CheckpointInfo {
    std::string format;          // "safetensors-index", "safetensors" or "gguf"
    int64_t weight_bytes = 0;    // exact bytes of all tensor data (headers and padding excluded)
    int64_t elements = 0;        // sum of tensor elements (0 for an index, which lists no shapes)
    int64_t tensor_count = 0;
    std::vector<CheckpointTensor> tensors;   // empty for an index
    std::vector<DtypeTotal> by_dtype;        // per dtype / ggml type, in first-seen order
    nlohmann::json metadata = nlohmann::json::object();  // safetensors __metadata__ / GGUF KV: the first 64 keys, long values cut
    int64_t metadata_keys = 0;   // keys in the file's metadata (all of them)
    std::string architecture;    // GGUF general.architecture ("" otherwise)
    int64_t gguf_version = 0;
    std::unordered_set<std::string> names;   // tensor names seen (a name given twice is refused)
    bool packed_quantized = false;  // safetensors: integer/packed tensors (GPTQ/AWQ qweight): elements are not parameters
};

// Detects the format and parses it. Throws InputError("checkpoint...", ...)
// on anything malformed, truncated or absurd.
CheckpointInfo read_checkpoint(const std::string& bytes);

// How many leading bytes of a checkpoint file read_checkpoint needs, judged
// from its first 8: a GGUF header (at most kMaxGgufHeaderBytes, KV metadata +
// tensor infos, well under that even with a 256k-token vocabulary), a
// safetensors file's 8 + N, or JSON text (an index or a bare header) up to one
// byte past the JSON limit. For readers of files (the CLI); the core does no I/O.
constexpr size_t kMaxGgufHeaderBytes = size_t{64} << 20;
size_t checkpoint_bytes_needed(const std::string& first8);

// The weights term when checkpoint metadata is present: exact bytes.
double exact_weight_bytes(const CheckpointInfo& info);

// {"ok":true,"checkpoint":{format, weight_bytes, elements, tensor_count,
//   by_dtype:[...], tensors:[{name,dtype,shape,elements,bytes}], metadata, ...,
//   "config_comparison":{...} when config_json is not empty}} or the error shape.
// The comparison reports the architecture-derived parameter count next to the
// element count from the shapes and their difference.
std::string inspect_checkpoint(const std::string& bytes, const std::string& config_json = "");
// The same answer for an already-read checkpoint; architecture_params > 0
// adds the comparison, and a note (ExactWeights::note) is passed on as "note".
std::string checkpoint_answer(const CheckpointInfo& info, double architecture_params, const std::string& note = "");
// Makes the checkpoint's byte total the model's exact weights (used when the
// job's dtype is auto). Throws InputError("checkpoint") for an empty one.
void attach_checkpoint(Model& model, const CheckpointInfo& info);
// A short name of where exact bytes came from: "safetensors header", ...
const char* checkpoint_source(const CheckpointInfo& info);

}  // namespace vramcalc
