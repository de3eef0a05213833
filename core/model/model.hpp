#pragma once
// A model prepared once from its config: the tensor list, the parameter
// counts, and the exact weight bytes of a checkpoint when one is attached.
// Everything a job needs from the model reads this, never the config text.
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "model/config.hpp"
#include "model/params.hpp"
#include "model/skip_lists.hpp"

namespace vramcalc {

// Weight bytes where llama.cpp places them (serving/llama_cpp.cpp): each repeating block, for -ngl.
struct LayerBytes {
    std::vector<double> layer, experts;  // bytes per block, and of which routed experts (*_exps tensors)
    double output = 0;                   // output.weight + output_norm (+ the rest): the "+1" layer of -ngl
    double token_embd = 0;               // llama.cpp keeps it in host memory (get_rows runs on the CPU)
    std::string mix;                     // "193 q4_K + 33 q6_K + 65 f32"
    double total() const;
};

// Exact weight bytes read from checkpoint metadata (core/checkpoint.hpp):
// a safetensors header or index, or a GGUF header.
struct ExactWeights {
    double bytes = 0;          // 0: none attached
    std::string source;        // "safetensors header", "GGUF header", ...
    double elements = 0;       // tensor elements in the shapes (0 for an index)
    LayerBytes placed;         // a GGUF header: where its bytes sit, block by block (empty otherwise)
    std::string note;          // what the answer says about the file (a GGUF of another architecture), or ""
    bool present() const { return bytes > 0; }
};

// llama.cpp's per-tensor GGUF sizes of a model (serving/gguf.cpp gguf_weights), kept per GGUF file
// type and rules era once computed: the searches and the GPU table ask the same model hundreds of
// times, and each computation walks every layer's tensors. A copied Model starts with an empty
// cache (the copy's config may then change); single-threaded, like the rest of the core.
class LayerBytesCache {
  public:
    LayerBytesCache() = default;
    LayerBytesCache(const LayerBytesCache&) {}
    LayerBytesCache& operator=(const LayerBytesCache&) {
        entries_.clear();
        return *this;
    }
    const LayerBytes* find(uint32_t key) const {
        for (const auto& e : entries_)
            if (e.first == key) return e.second.get();
        return nullptr;
    }
    const LayerBytes& keep(uint32_t key, LayerBytes bytes) const {
        entries_.emplace_back(key, std::make_shared<const LayerBytes>(std::move(bytes)));
        return *entries_.back().second;
    }

  private:
    mutable std::vector<std::pair<uint32_t, std::shared_ptr<const LayerBytes>>> entries_;
};

struct Model;

// The model re-listed with another head (with_head), kept per head and label count once prepared:
// every plan of a job with a head other than the config's asks for it (the ladder, the searches and
// the GPU table make hundreds), and preparing lists every tensor and matches the skip lists again
// (issue 37 M2: gpt-oss-120b's ladder with --head base took 2 s, against 0.03 s with the LM head).
// A copied Model starts with an empty cache, as LayerBytesCache does; at most kKept heads are kept.
class HeadCache {
  public:
    HeadCache() = default;
    HeadCache(const HeadCache&) {}
    HeadCache& operator=(const HeadCache&) {
        entries_.clear();
        return *this;
    }
    struct Entry {
        int head;
        int64_t labels;
        std::shared_ptr<Model> model;
    };
    Entry* find(int head, int64_t labels) const;
    void keep(Entry entry) const;

  private:
    static constexpr size_t kKept = 4;
    mutable std::vector<Entry> entries_;
};

struct Model {
    ModelConfig config;
    std::vector<Tensor> tensors;
    ParamCounts params;
    ExactWeights exact;        // attached with attach_checkpoint; used when job.dtype is auto
    QuantSplit quant;          // a quantization_config: the parameters it quantizes and keeps (model/skip_lists.hpp)
    LayerBytesCache gguf;      // derived from config and tensors: serving/gguf.cpp
    HeadCache heads;           // derived from config: with_head
};
Model prepare_model(const ModelConfig& config);

// The model with another head (core/model/heads.hpp), prepared once: nullptr when
// `head` and `labels` (0: the config's) are the model's own. An attached
// checkpoint's exact bytes are kept. Throws InputError(field) for a head the
// family does not have.
std::shared_ptr<const Model> with_head(const Model& m, Head head, int64_t labels, const char* field);

}  // namespace vramcalc
