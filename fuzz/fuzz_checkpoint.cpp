// libFuzzer target: the input is checkpoint metadata as the page and the CLI
// read it (a safetensors header or index, or a GGUF header; raw bytes), for a
// one-layer Llama: inspect_checkpoint, then use_checkpoint and estimates with
// the exact bytes (dtype auto), one through llama.cpp's per-layer split of a
// GGUF header. scripts/fuzz.sh runs it twice, seeded with safetensors and with
// GGUF headers. Run: scripts/fuzz.sh [seconds] safetensors gguf
#include <cstdint>
#include <string>

#include "api/api.hpp"
#include "checkpoint/checkpoint.hpp"
#include "check.hpp"

namespace {

const char* kConfig = R"({"model_type":"llama","architectures":["LlamaForCausalLM"],"hidden_size":256,)"
                      R"("intermediate_size":512,"num_hidden_layers":1,"num_attention_heads":4,"num_key_value_heads":2,)"
                      R"("vocab_size":64,"tie_word_embeddings":false})";

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string bytes(reinterpret_cast<const char*>(data), size);
    fuzz::check(vramcalc::inspect_checkpoint(bytes, kConfig));
    fuzz::check(vramcalc::use_config(kConfig));
    fuzz::check(vramcalc::use_checkpoint(bytes));
    fuzz::check(vramcalc::estimate_current(R"({"dtype":"auto"})"));
    fuzz::check(vramcalc::estimate_current(R"({"dtype":"auto","engine":"llamacpp","gpu":"t4","n_gpu_layers":1})"));
    return 0;
}
