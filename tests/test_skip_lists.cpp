// Quantization skip lists applied tensor by tensor (core/model/skip_lists.cpp): the modules a
// quantization_config keeps (modules_to_not_convert, llm_int8_skip_modules, compressed-tensors
// ignore and targets) stay 16-bit. Bytes hand-derived for a 4-layer tiny Llama (hidden 256, MLP
// 512, 4 heads, 2 KV heads of 64, vocabulary 64, untied): per layer q 65,536, k 32,768, v 32,768,
// o 65,536, gate / up / down 131,072 each (589,824 linear), norms 512; embeddings and lm_head
// 16,384 each; final norm 256; 2,394,368 parameters in all.
#include <doctest/doctest.h>

#include "helpers.hpp"
#include "memory/states.hpp"
#include "model/skip_lists.hpp"
#include "text/errors.hpp"
#include "text/pattern.hpp"

using namespace vramcalc;
using nlohmann::json;

namespace {

json tiny(const json& quantization) {
    json c = json::parse(test::fixture("tiny-llama.config.json"));
    c["num_hidden_layers"] = 4;
    c["quantization_config"] = quantization;
    return c;
}

// Weights of dtype auto (the checkpoint's own format), inference: quantized × bits/8 + kept × 2 (BF16).
double weights(const json& config) {
    const Model m = prepare_model(parse_config(config));
    return estimate(m, test::job({{"dtype", "auto"}})).breakdown.bytes[kWeights];
}

const json kGptq = {{"quant_method", "gptq"}, {"bits", 4}, {"group_size", 128}};  // 4 + 20/128 bits

}  // namespace

TEST_CASE("skip lists: the tiny Llama's parameters and the unlisted baseline") {
    const Model m = prepare_model(parse_config(tiny(kGptq)));
    CHECK(m.params.total == 2'394'368);
    // GPTQ quantizes the 4 × 589,824 linear weights; embeddings, head and norms stay 16-bit.
    CHECK(m.quant.quantized == 2'359'296);
    CHECK(m.quant.kept == 35'072);
    CHECK(weights(tiny(kGptq)) == doctest::Approx(2'359'296 * 4.15625 / 8 + 35'072 * 2.0));
}

TEST_CASE("skip lists: transformers' modules_to_not_convert (prefix as a regular expression, or suffix)") {
    // "model.layers.1.mlp" keeps layer 1's gate, up and down (393,216); "self_attn.o_proj" ends the
    // name of every layer's o_proj (4 × 65,536): 655,360 listed, 1,703,936 quantized.
    json q = kGptq;
    q["modules_to_not_convert"] = {"model.layers.1.mlp", "self_attn.o_proj"};
    const Model m = prepare_model(parse_config(tiny(q)));
    CHECK(m.quant.listed == 655'360);
    CHECK(m.quant.listed_modules == 7);
    CHECK(m.quant.quantized == 1'703'936);
    CHECK(weights(tiny(q)) == 1'703'936 * 4.15625 / 8 + 690'432 * 2.0);  // 2,266,112 bytes
    // Every linear layer listed (by suffix): nothing quantized, the bytes of the BF16 model.
    q["modules_to_not_convert"] = {"q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"};
    CHECK(weights(tiny(q)) == 2'394'368 * 2.0);
    // "model.layers.1" as a regular expression also starts "model.layers.10..." (not in 4 layers) and
    // every layer-1 module: 589,824.
    q["modules_to_not_convert"] = {"model.layers.1"};
    CHECK(prepare_model(parse_config(tiny(q))).quant.listed == 589'824);
    // A pattern: "model.layers.*.self_attn" (gpt-oss's list) keeps every attention projection (4 × 196,608).
    q["modules_to_not_convert"] = {"model.layers.*.self_attn"};
    CHECK(prepare_model(parse_config(tiny(q))).quant.listed == 786'432);
}

TEST_CASE("skip lists: compressed-tensors ignore (exact names, re: patterns) and the head it quantizes") {
    // llm-compressor W4A16 (group 128, symmetric: 4 + 16/128 bits), targets Linear, as in
    // compressed-tensors' tests: ignore lm_head, every down_proj by pattern, layer 0's q_proj by name.
    json q = {{"quant_method", "compressed-tensors"}, {"format", "pack-quantized"},
              {"config_groups", {{"group_0", {{"targets", {"Linear"}},
                                              {"weights", {{"num_bits", 4}, {"type", "int"}, {"symmetric", true},
                                                           {"strategy", "group"}, {"group_size", 128}}}}}}},
              {"ignore", {"lm_head", "re:.*mlp.down_proj$", "model.layers.0.self_attn.q_proj"}}};
    Model m = prepare_model(parse_config(tiny(q)));
    CHECK(m.quant.listed == 4 * 131'072 + 65'536);
    CHECK(m.quant.quantized == 1'769'472);
    CHECK(weights(tiny(q)) == 1'769'472 * 4.125 / 8 + 624'896 * 2.0);  // 2,162,176 bytes
    // Without lm_head in ignore, "Linear" reaches the head too: it is quantized.
    q["ignore"] = {"re:.*mlp.down_proj$", "model.layers.0.self_attn.q_proj"};
    m = prepare_model(parse_config(tiny(q)));
    CHECK(m.quant.head_quantized);
    CHECK(weights(tiny(q)) == 1'785'856 * 4.125 / 8 + 608'512 * 2.0);  // 2,137,856 bytes
    // An exact name is exact: "q_proj" names no module (compressed-tensors match_name: target == name).
    q["ignore"] = {"lm_head", "q_proj"};
    CHECK(prepare_model(parse_config(tiny(q))).quant.listed == 0);
    // Targets by name: only layer 3's MLP is quantized (3 × 131,072), everything else stays.
    q["ignore"] = {"lm_head"};
    q["config_groups"]["group_0"]["targets"] = {"re:model.layers.3.mlp.*"};
    CHECK(prepare_model(parse_config(tiny(q))).quant.quantized == 393'216);
}

TEST_CASE("skip lists: bitsandbytes llm_int8_skip_modules replaces the default, so an unlisted head is quantized") {
    // transformers quantizer_bnb_4bit: get_modules_to_not_convert(model, llm_int8_skip_modules, ...)
    // without add_default_skips. Layer 0's attention (196,608) and all of layer 3 (589,824) stay.
    const json q = {{"quant_method", "bitsandbytes"}, {"load_in_4bit", true}, {"bnb_4bit_quant_type", "nf4"},
                    {"bnb_4bit_use_double_quant", true},
                    {"llm_int8_skip_modules", {"model.layers.0.self_attn", "model.layers.3"}}};
    const Model m = prepare_model(parse_config(tiny(q)));
    CHECK(m.quant.listed == 786'432);
    CHECK(m.quant.head_quantized);
    CHECK(m.quant.quantized == 1'572'864 + 16'384);
    CHECK(weights(tiny(q)) == doctest::Approx(1'589'248 * 4.127 / 8 + 805'120 * 2.0));
    // No list: the default keeps the head.
    json plain = q;
    plain.erase("llm_int8_skip_modules");
    CHECK_FALSE(prepare_model(parse_config(tiny(plain))).quant.head_quantized);
}

TEST_CASE("skip lists: MoE experts one by one, and gpt-oss's real list changes nothing it quantizes") {
    // The real openai/gpt-oss-20b config: MXFP4 on the routed experts; its list names attention,
    // router, embeddings and head, none of them quantized anyway.
    const Model oss = prepare_model(parse_config(json::parse(test::fixture("gpt-oss-20b.config.json"))));
    CHECK(oss.quant.quantized == oss.params.routed_experts);
    // A list naming experts 0 and 1 of every layer keeps 2 of 32 experts' three matrices.
    json c = json::parse(test::fixture("gpt-oss-20b.config.json"));
    // ("re:" means nothing to transformers: that key would be a pattern starting with the letters r, e, colon.)
    c["quantization_config"]["modules_to_not_convert"] = {"model\\.layers\\.\\d+\\.mlp\\.experts\\.[01]\\."};
    const Model two = prepare_model(parse_config(c));
    CHECK(two.quant.listed == doctest::Approx(oss.params.routed_experts * 2 / 32));
}

TEST_CASE("skip lists: hostile lists are refused by name, never slow") {
    json q = kGptq;
    q["modules_to_not_convert"] = {"(?=q)"};
    CHECK_THROWS_WITH_AS(prepare_model(parse_config(tiny(q))),
                         doctest::Contains("config.quantization_config.modules_to_not_convert[0]: the regular expression"),
                         InputError);
    q["modules_to_not_convert"] = json::array();
    for (int i = 0; i < 10'001; ++i) q["modules_to_not_convert"].push_back("x");
    CHECK_THROWS_WITH_AS(prepare_model(parse_config(tiny(q))),
                         doctest::Contains("config.quantization_config.modules_to_not_convert: lists 10001 modules"),
                         InputError);
    // 10,000 patterns against a 10,000-layer model: past the comparison budget, named.
    json deep = tiny(kGptq);
    deep["num_hidden_layers"] = 10'000;
    deep["quantization_config"]["modules_to_not_convert"] = json::array();
    for (int i = 0; i < 10'000; ++i) deep["quantization_config"]["modules_to_not_convert"].push_back("model.layers." + std::to_string(i) + ".mlp.up_proj");
    CHECK_THROWS_WITH_AS(prepare_model(parse_config(deep)), doctest::Contains("comparisons; at most 10,000,000"), InputError);
}

TEST_CASE("patterns: Python's re.match on module names, in linear time") {
    const std::pair<const char*, const char*> yes[] = {
        {".*mlp.gate$", "model.layers.0.mlp.gate"}, {"model.layers.*.self_attn", "model.layers.12.self_attn.q_proj"},
        {"model\\.layers\\.\\d+\\.mlp", "model.layers.1.mlp.down_proj"}, {"(a|b)*c", "bbc"}, {"a{2,3}", "aaa"},
        {"a{,2}b", "ab"}, {"(?P<n>model)\\.", "model.layers"}, {"\\Amodel", "model.embed_tokens"}, {"[]a]", "]"},
        {"[a-]x", "-x"}, {"a{x}", "a{x}"}, {"[\\d.]+$", "12.5"}, {"(ab|a)(bc|c)$", "abc"}};
    for (const auto& [pattern, name] : yes) {
        const char* p = pattern;  // CAPTURE's lambda cannot capture a structured binding before C++20
        CAPTURE(p);
        CHECK(Pattern(p, "f").match_prefix(name));
    }
    const std::pair<const char*, const char*> no[] = {
        {".*mlp.gate$", "model.layers.10.mlp.gate_proj"}, {"^lm", "model.lm"}, {"a{2}b", "ab"}, {"visual.*", "model.visual"}};
    for (const auto& [pattern, name] : no) {
        const char* p = pattern;
        CAPTURE(p);
        CHECK_FALSE(Pattern(p, "f").match_prefix(name));
    }
    for (const char* bad : {"(?=a)", "\\1", "a**", "a{2}{3}", "[z-a]", "(", ")", "[ab", "*a", "x{1,0}"}) {
        CAPTURE(bad);
        CHECK_THROWS_AS(Pattern(bad, "f"), InputError);
    }
    // Exponential for a backtracking engine (Python takes minutes on 60 a's): here one pass.
    CHECK_FALSE(Pattern("(a*)*b", "f").match_prefix(std::string(100'000, 'a') + "c"));
    CHECK_THROWS_WITH_AS(Pattern("(a{100}){100}{2}", "f"), doctest::Contains("repeats a repeat"), InputError);
    CHECK_THROWS_WITH_AS(Pattern("((a{100}){100})", "f"), doctest::Contains("more than 10000 states"), InputError);
}
