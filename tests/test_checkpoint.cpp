// Exact weight bytes from checkpoint metadata (safetensors header / index,
// GGUF header). Fixtures come from tests/fixtures/make_checkpoint_fixtures.py.
#include <doctest/doctest.h>

#include "checkpoint/checkpoint.hpp"
#include "model/config.hpp"
#include "text/errors.hpp"
#include "helpers.hpp"
#include "model/params.hpp"

using namespace vramcalc;
using nlohmann::json;

namespace {
// tiny-llama: h 256, 1 layer, 4 heads / 2 KV heads of 64, I 512, V 64, untied.
// embed + head 2·64·256 + q, o 2·256² + k, v 2·256·128 + MLP 3·256·512 + norms 3·256
constexpr double kTinyParams = 2 * 64 * 256 + 2 * 65536 + 2 * 32768 + 3 * 131072 + 3 * 256;
}  // namespace

TEST_CASE("safetensors header: BF16 bytes exact, element count equals the architecture count") {
    static_assert(kTinyParams == 623'360, "hand sum");
    const CheckpointInfo info = read_checkpoint(test::fixture("tiny-llama.safetensors-header"));
    CHECK(info.format == "safetensors");
    CHECK(info.tensor_count == 12);
    CHECK(info.weight_bytes == 2 * 623'360);
    CHECK(exact_weight_bytes(info) == 1'246'720.0);
    CHECK(info.elements == count_params(parse_config_text(test::fixture("tiny-llama.config.json"))).total);
    const json r = json::parse(inspect_checkpoint(test::fixture("tiny-llama.safetensors-header"),
                                                  test::fixture("tiny-llama.config.json")));
    REQUIRE(r["ok"] == true);
    CHECK(r["checkpoint"]["config_comparison"]["difference"] == 0.0);
    CHECK(r["checkpoint"]["by_dtype"][0]["dtype"] == "BF16");
    CHECK(r["checkpoint"]["metadata"]["format"] == "pt");
    // Every figure the page shows comes as text too.
    CHECK(r["checkpoint"]["weight_bytes_text"] == "1,246,720 bytes");
    CHECK(r["checkpoint"]["weight_text"] == "0.00 GB");
    CHECK(r["checkpoint"]["by_dtype"][0]["bytes_text"] == "1,246,720");
    CHECK(r["checkpoint"]["config_comparison"]["difference_percent_text"] == "+0.00 %");
    CHECK(r["checkpoint"]["config_comparison"]["architecture_params_text"] == "623,360");
}

TEST_CASE("a safetensors length prefix whose first byte is '{' is still a length, not JSON") {
    // N = 0x7B = 123: the header's first byte is '{'.
    const std::string json_text = R"({"w": {"dtype": "BF16", "shape": [2], "data_offsets": [0, 4]}})";
    std::string header = json_text + std::string(123 - json_text.size(), ' ');
    std::string bytes = std::string(1, '\x7b') + std::string(7, '\0') + header;
    const CheckpointInfo info = read_checkpoint(bytes);
    CHECK(info.format == "safetensors");
    CHECK(info.weight_bytes == 4);
}

TEST_CASE("safetensors header of a GPTQ checkpoint: packed bytes exact, elements flagged as not parameters") {
    const CheckpointInfo info = read_checkpoint(test::fixture("tiny-llama-gptq.safetensors-header"));
    CHECK(info.packed_quantized);
    // Per quantized matrix in × out: qweight in·out/2 bytes, qzeros in/128·out/2, scales in/128·out·2, g_idx 4·in.
    // Sum over q, k, v, o, gate, up, down + F16 embed, norms and head (2·(2·16384 + 768)).
    auto gptq = [](double in, double out) { return in * out / 2 + in / 128 * out / 2 + in / 128 * out * 2 + 4 * in; };
    const double expected = gptq(256, 256) * 2 + gptq(256, 128) * 2 + gptq(256, 512) * 2 + gptq(512, 256) +
                            2 * (2 * 16384 + 768);
    CHECK(info.weight_bytes == expected);
    const json r = json::parse(inspect_checkpoint(test::fixture("tiny-llama-gptq.safetensors-header"),
                                                  test::fixture("tiny-llama.config.json")));
    CHECK(r["checkpoint"]["config_comparison"].contains("note"));
}

TEST_CASE("GGUF v3 header: bytes from ggml block sizes, metadata, per-tensor types") {
    const CheckpointInfo info = read_checkpoint(test::fixture("tiny-llama.gguf-header"));
    CHECK(info.format == "gguf");
    CHECK(info.gguf_version == 3);
    CHECK(info.architecture == "llama");
    // Q8_0 34 B / 32, Q4_K 144 B / 256, Q6_K 210 B / 256 (ggml-common.h), F32 4 B:
    // token_embd 64·8·34 + attn_q 256·144 + attn_k 128·144 + attn_v 128·210 + attn_output 256·144
    // + ffn_gate, ffn_up 512·144 each + ffn_down 256·2·210 + norms 3·256·4 + output 64·210
    CHECK(info.weight_bytes == 17408 + 36864 + 18432 + 26880 + 36864 + 2 * 73728 + 107520 + 3072 + 13440);
    CHECK(info.elements == 623'360);  // GGUF dims are logical: the parameter count
    CHECK(info.tensors[1].dtype == "Q4_K");
    CHECK(info.tensors[1].shape == std::vector<int64_t>{256, 256});
    CHECK(info.metadata["tokenizer.ggml.tokens"]["length"] == 64);
    CHECK(info.metadata["llama.rope.dimension_sections"] == json::array({1, 2, 3, 4}));
    CHECK(info.metadata["general.name"] == "tiny-llama");
}

TEST_CASE("model.safetensors.index.json: metadata.total_size") {
    const CheckpointInfo info = read_checkpoint(test::fixture("llama-3-8b.safetensors.index.json"));
    CHECK(info.format == "safetensors-index");
    // meta-llama/Meta-Llama-3-8B index: 16,060,522,496 bytes = 2 bytes × 8,030,261,248 parameters.
    CHECK(info.weight_bytes == 16'060'522'496);
    CHECK(info.weight_bytes == 2 * count_params(parse_config_text(test::fixture("llama-3-8b.config.json"))).total);
}

TEST_CASE("hostile checkpoint bytes get one clear error, never a crash") {
    auto field = [](const std::string& bytes) {
        const json r = json::parse(inspect_checkpoint(bytes));
        REQUIRE(r["ok"] == false);
        return r["error"]["field"].get<std::string>();
    };
    CHECK(field("") == "checkpoint");
    CHECK(field(std::string("\xff\xff\xff\xff\xff\xff\xff\xff", 8)) == "checkpoint");  // absurd header length
    const std::string header = test::fixture("tiny-llama.safetensors-header");
    CHECK(field(header.substr(0, 100)) == "checkpoint");                                // truncated
    const std::string gguf = test::fixture("tiny-llama.gguf-header");
    for (size_t cut = 4; cut < gguf.size(); cut += 37) CHECK(field(gguf.substr(0, cut)).rfind("checkpoint", 0) == 0);
    CHECK(field(R"({"w": {"dtype": "BF16", "shape": [2, 2], "data_offsets": [0, 7]}})") == "checkpoint.w.data_offsets");
    CHECK(field(R"({"w": {"dtype": "Q9", "shape": [2]}})") == "checkpoint.dtype");
    CHECK(field(R"({"metadata": {"total_size": -5}, "weight_map": {}})") == "checkpoint.metadata.total_size");
    std::string bad_type = gguf;
    bad_type[4] = 9;  // version 9
    CHECK(field(bad_type) == "checkpoint.gguf_version");
}

TEST_CASE("mutated headers: every answer is ok or a named error") {
    // Deterministic LCG (Numerical Recipes constants) so failures reproduce.
    uint32_t state = 12345;
    auto next = [&] { return state = state * 1664525u + 1013904223u; };
    for (const char* name : {"tiny-llama.gguf-header", "tiny-llama.safetensors-header"}) {
        const std::string original = test::fixture(name);
        for (int i = 0; i < 3000; ++i) {
            std::string bytes = original;
            for (int k = 0; k < 1 + static_cast<int>(next() % 4); ++k)
                bytes[next() % bytes.size()] = static_cast<char>(next() & 0xff);
            const json r = json::parse(inspect_checkpoint(bytes));
            if (r["ok"] == true) {
                CHECK(r["checkpoint"]["weight_bytes"].get<double>() >= 0);
            } else {
                CHECK(r["error"]["field"].get<std::string>().rfind("checkpoint", 0) == 0);
            }
        }
    }
}

TEST_CASE("adversarial review: length prefixes that look like text, names given twice, absurd block numbers, huge headers") {
    // A header of 0x120 bytes: the length's first byte is a space (0x20), yet bytes 5-7 are NUL,
    // which JSON text never holds: a safetensors file, not a JSON text.
    const CheckpointInfo spaced = read_checkpoint(test::fixture("space-prefix.safetensors-header"));
    CHECK(spaced.format == "safetensors");
    CHECK(spaced.weight_bytes == 32);
    // The same tensor named twice in a GGUF header: its bytes would be counted twice.
    std::string gguf = test::fixture("tiny-llama.gguf-header");
    const size_t q = gguf.find("blk.0.attn_q.weight");
    REQUIRE(q != std::string::npos);
    gguf[q + 11] = 'k';  // now a second blk.0.attn_k.weight
    const json twice = json::parse(inspect_checkpoint(gguf));
    CHECK(twice["ok"] == false);
    CHECK(twice["error"]["message"].get<std::string>().find("names a tensor twice") != std::string::npos);
    // Past 100,000 tensors a header is refused by name, and an answer lists at most 100 of them.
    std::string many = "{";
    for (int i = 0; i < 100001; ++i)
        many += "\"t" + std::to_string(i) + "\":{\"dtype\":\"BF16\",\"shape\":[1],\"data_offsets\":[" + std::to_string(2 * i) +
                "," + std::to_string(2 * i + 2) + "]},";
    many.back() = '}';
    CHECK(json::parse(inspect_checkpoint(many))["error"]["message"].get<std::string>().find("more than 100000 tensors") !=
          std::string::npos);
    std::string some = "{";
    for (int i = 0; i < 500; ++i)
        some += "\"t" + std::to_string(i) + "\":{\"dtype\":\"BF16\",\"shape\":[1],\"data_offsets\":[" + std::to_string(2 * i) +
                "," + std::to_string(2 * i + 2) + "]},";
    some.back() = '}';
    const json listed = json::parse(inspect_checkpoint(some));
    CHECK(listed["checkpoint"]["tensor_count"] == 500);
    CHECK(listed["checkpoint"]["tensors"].size() == 100);
    CHECK(listed["checkpoint"]["weight_bytes"] == 1000);
}
