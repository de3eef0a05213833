// Bounds on what a job and an attached checkpoint may claim (issue 25): a LoRA rank past the
// smaller side of a targeted matrix, and a checkpoint header whose tensors do not cover the
// architecture, are refused by name.
#include <cstring>

#include <doctest/doctest.h>

#include "checkpoint/checkpoint.hpp"
#include "helpers.hpp"
#include "text/errors.hpp"

using namespace vramcalc;
using nlohmann::json;

namespace {

// A GGUF v3 header (ggml docs/gguf.md: magic, version, tensor and key counts, keys, tensor infos)
// with the given F16 tensors (name, ne0, ne1) and no metadata.
std::string gguf(const std::vector<std::tuple<std::string, uint64_t, uint64_t>>& tensors) {
    std::string b = "GGUF";
    auto put = [&b](const void* p, size_t n) { b.append(static_cast<const char*>(p), n); };
    const uint32_t version = 3, dims = 2, f16 = 1;
    const uint64_t count = tensors.size(), keys = 0;
    put(&version, 4), put(&count, 8), put(&keys, 8);
    uint64_t offset = 0;
    for (const auto& [name, ne0, ne1] : tensors) {
        const uint64_t length = name.size();
        put(&length, 8), b += name, put(&dims, 4), put(&ne0, 8), put(&ne1, 8), put(&f16, 4), put(&offset, 8);
        offset += (ne0 * ne1 * 2 + 31) / 32 * 32;
    }
    return b;
}

std::string attach_error(Model& m, const std::string& bytes) {
    try {
        attach_checkpoint(m, read_checkpoint(bytes));
    } catch (const InputError& e) {
        return e.what();
    }
    return "";
}

}  // namespace

TEST_CASE("bounds: a LoRA rank past the smaller side of a targeted matrix names job.lora_rank and the matrix") {
    const Model m = test::model("llama-3-8b");
    // all-linear: k_proj and v_proj are 4096 × 1024, the narrowest (1,024 = 8 KV heads × 128).
    CHECK_THROWS_WITH_AS(estimate(m, test::job({{"mode", "lora"}, {"lora_rank", 65536}})),
                         "job.lora_rank: must be at most 1024, the smaller side of the targeted matrix k_proj (4096 × 1024); "
                         "a larger rank adds parameters but no capacity, got 65536",
                         InputError);
    // At the bound: 1,024 × (in + out) per matrix, as LoRA counts it.
    const Estimate at = estimate(m, test::job({{"mode", "lora"}, {"lora_rank", 1024}}));
    CHECK(at.trainable_params == doctest::Approx(1024.0 * 32 * ((4096 + 4096) * 2 + (4096 + 1024) * 2 + (4096 + 14336) * 3)));
    // Only q_proj (4096 × 4096): 4,096 is the bound; QLoRA is held to it too.
    CHECK_NOTHROW(estimate(m, test::job({{"mode", "qlora"}, {"lora_targets", "q_proj"}, {"lora_rank", 4096}})));
    CHECK_THROWS_WITH_AS(estimate(m, test::job({{"mode", "qlora"}, {"lora_targets", "q_proj"}, {"lora_rank", 4097}})),
                         doctest::Contains("at most 4096, the smaller side of the targeted matrix q_proj"), InputError);
    // The JSON API answers it as a named error.
    const json r = json::parse(estimate_request(find_model(test::models(), "llama-3-8b").config.dump(),
                                                R"({"mode":"lora","lora_rank":65536})"));
    CHECK(r["error"]["field"] == "job.lora_rank");
}

TEST_CASE("bounds: a checkpoint whose tensors do not cover the architecture is not taken as exact") {
    // A one-tensor GGUF for Llama 3 8B (token_embd.weight, 128,256 × 4,096 F16: 1.05 GB): no block.
    Model llama = test::model("llama-3-8b");
    CHECK(attach_error(llama, gguf({{"token_embd.weight", 4096, 128256}})) ==
          "checkpoint: GGUF header does not cover the model: no tensors for blk.0, blk.1, blk.2, blk.3, … (32 of the "
          "config's 32 blocks); its bytes are not taken as the model's exact weights");
    CHECK_FALSE(llama.exact.present());
    // Every block but the embedding: named.
    std::vector<std::tuple<std::string, uint64_t, uint64_t>> blocks;
    for (int b = 0; b < 32; ++b) blocks.emplace_back("blk." + std::to_string(b) + ".attn_q.weight", 4096, 4096);
    CHECK(attach_error(llama, gguf(blocks)) ==
          "checkpoint: GGUF header does not cover the model: no token_embd.weight; its bytes are not taken as the "
          "model's exact weights");
    // Every block and the embedding, but a tenth of the parameters (32 × 4096² + 4096 × 128,256 = 1.06 B of 8.03 B).
    blocks.emplace_back("token_embd.weight", 4096, 128256);
    CHECK(attach_error(llama, gguf(blocks)) ==
          "checkpoint: header does not cover the model: its tensors hold 1,062,207,488 values, 13.23 % of the "
          "architecture's 8,030,261,248 parameters; its bytes are not taken as the model's exact weights");
    // The tiny Llama's own headers cover it: exact.
    Model tiny = prepare_model(parse_config_text(test::fixture("tiny-llama.config.json")));
    for (const char* name : {"tiny-llama.gguf-header", "tiny-llama.safetensors-header", "tiny-llama-gptq.safetensors-header"}) {
        CAPTURE(name);
        CHECK(attach_error(tiny, test::fixture(name)).empty());
        CHECK(tiny.exact.present());
    }
    // Through the page's path: the answer names the field, and the model keeps no exact bytes.
    use_config(find_model(test::models(), "llama-3-8b").config.dump());
    const json r = json::parse(use_checkpoint(gguf({{"token_embd.weight", 4096, 128256}})));
    CHECK(r["error"]["field"] == "checkpoint");
    CHECK(json::parse(estimate_current(R"({"dtype":"auto"})"))["weights_source"] != "exact");
}
