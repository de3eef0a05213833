// Parameter counts: hand-derived from the architecture (derivations in the
// comments) and checked against the counts publishers state.
#include <doctest/doctest.h>

#include <algorithm>
#include <set>

#include "model/config.hpp"
#include "helpers.hpp"
#include "model/params.hpp"

using namespace vramcalc;

TEST_CASE("Llama-3-8B: 8,030,261,248 parameters, from the real config.json") {
    // h = 4096, L = 32, 32 heads, 8 KV heads of 128, I = 14336, V = 128256, untied.
    // embed = lm_head = 128256·4096 = 525,336,576
    // attention per layer = 4096·4096 (q) + 2·4096·1024 (k, v) + 4096·4096 (o) = 41,943,040
    // MLP per layer = 3·4096·14336 = 176,160,768; two RMSNorms = 8,192
    // 32·218,112,000 + 2·525,336,576 + 4,096 (final norm) = 8,030,261,248
    const Model m = prepare_model(parse_config_text(test::fixture("llama-3-8b.config.json")));
    CHECK(m.params.total == 8'030'261'248.0);
    CHECK(m.params.active == m.params.total);
    CHECK(m.params.embeddings == 2 * 525'336'576.0);
    // Published: 8.03 B (Hugging Face Hub safetensors metadata, meta-llama/Meta-Llama-3-8B).
    CHECK(m.params.total == doctest::Approx(8.03e9).epsilon(0.005));
}

TEST_CASE("Mistral-7B: 7,241,732,096 parameters") {
    // Same blocks as Llama-3-8B (218,112,000 per layer), vocabulary 32000:
    // 32·218,112,000 + 2·32000·4096 + 4096 = 7,241,732,096. Published 7.24 B (HF Hub).
    CHECK(test::model("mistral-7b").params.total == 7'241'732'096.0);
}

TEST_CASE("Mixtral-8x7B: 46.7 B total, 12.9 B active") {
    // Per layer: attention 41,943,040 + 8 experts · 176,160,768 + router 4096·8 + norms 8,192 = 1,451,270,144
    // total = 32·1,451,270,144 + 2·131,072,000 + 4,096 = 46,702,792,704
    // active: 2 experts per token: 32·(41,943,040 + 2·176,160,768 + 32,768 + 8,192) + 262,148,096 = 12,879,925,248
    // Published: 46.7 B total, 12.9 B active (Jiang et al. 2024, "Mixtral of Experts").
    const Model m = prepare_model(parse_config_text(test::fixture("mixtral-8x7b.config.json")));
    CHECK(m.params.total == 46'702'792'704.0);
    CHECK(m.params.active == 12'879'925'248.0);
    CHECK(m.params.total == doctest::Approx(46.7e9).epsilon(0.005));
    CHECK(m.params.active == doctest::Approx(12.9e9).epsilon(0.005));
}

TEST_CASE("DeepSeek-V3: 671 B total, 37 B active (MLA + 256 routed experts)") {
    // MLA per layer: q_a 7168·1536 + q_a_norm 1536 + q_b 1536·128·192 + kv_a 7168·576 + kv_a_norm 512
    //   + kv_b 512·128·256 + o 128·128·7168 = 187,107,328
    // dense MLP (first 3 layers) 3·7168·18432 = 396,361,728
    // MoE layer: 257 experts (256 routed + 1 shared) · 3·7168·2048 + gate 256·7168 + bias 256 = 11,320,178,944
    // norms 2·7168 per layer; embeddings 2·129280·7168 = 1,853,358,080; final norm 7168
    // total = 3·(187,107,328 + 396,361,728 + 14,336) + 58·(187,107,328 + 11,320,178,944 + 14,336)
    //       + 1,853,358,080 + 7,168 = 671,026,419,200
    const Model m = prepare_model(parse_config_text(test::fixture("deepseek-v3.config.json")));
    CHECK(m.params.total == 671'026'419'200.0);
    // Published: 671 B (DeepSeek-V3 technical report, arXiv:2412.19437, main model without the MTP module).
    CHECK(m.params.total == doctest::Approx(671e9).epsilon(0.005));
    // Active: 8 routed + 1 shared expert per MoE layer:
    // 58·(187,107,328 + 9·44,040,192 + 1,835,008 + 256 + 14,336) + 1,750,450,176 + 1,853,358,080 + 7,168
    CHECK(m.params.active == 37'552'297'472.0);
    // DeepSeek's "37B activated" leaves out the input embedding table (a lookup, not a matmul);
    // the same convention explains their V2-Lite figure (deepseek-ai/DeepSeek-V2 issue #73).
    // Without it our count lies inside the published figure's rounding interval [36.5, 37.5) B.
    const double without_input_embedding = m.params.active - 129280.0 * 7168;
    CHECK(without_input_embedding >= 36.5e9);
    CHECK(without_input_embedding < 37.5e9);
}

TEST_CASE("GPT-2 keys (n_embd, n_layer, n_head): 124,439,808 parameters") {
    // wte 50257·768 + wpe 1024·768 + 12 layers · (c_attn 768·2304 + 2304 + c_proj 768·768 + 768
    //   + c_fc 768·3072 + 3072 + c_proj 3072·768 + 768 + 2 LayerNorms 2·1536) + ln_f 1536, tied head
    // = 38,597,376 + 786,432 + 12·7,087,872 + 1,536 = 124,439,808
    const Model m = prepare_model(parse_config_text(test::fixture("gpt2.config.json")));
    CHECK(m.params.total == 124'439'808.0);
    CHECK(m.config.tied_embeddings);
}

TEST_CASE("GPT-NeoX (Pythia-1.4B): 1,414,647,808 parameters, matching the Pythia paper exactly") {
    // Biderman et al. 2023, Table 1 lists 1,414,647,808 total parameters for Pythia-1.4B.
    CHECK(test::model("pythia-1.4b").params.total == 1'414'647'808.0);
}

TEST_CASE("Gemma 2 (four norms per layer, head_dim 256) and Qwen2 (qkv bias)") {
    // Gemma-2-9B: 42·(attention 3584·4096·2 + 3584·2048·2 + MLP 3·3584·14336 + 4·3584) + 256000·3584 (tied) + 3584
    //           = 42·198,195,200 + 917,504,000 + 3,584 = 9,241,705,984 (HF Hub: 9.24 B)
    CHECK(test::model("gemma-2-9b").params.total == 9'241'705'984.0);
    // Qwen2.5-7B: 28·(29,360,128 attention + 4,608 qkv bias + 203,685,888 MLP + 7,168 norms)
    //           + 2·152064·3584 + 3,584 = 7,615,616,512 (model card: 7.61 B)
    CHECK(test::model("qwen2.5-7b").params.total == 7'615'616'512.0);
}

TEST_CASE("every model in models.json matches its published count within 1%") {
    // Published figures are rounded to 2-3 significant digits, hence 1%.
    REQUIRE(test::models().size() >= 20);
    for (const auto& entry : test::models()) {
        CAPTURE(entry.id);
        CAPTURE(entry.source);
        REQUIRE(entry.published_params > 0);
        const Model m = prepare_model(parse_config(entry.config));
        CHECK(m.params.total == doctest::Approx(entry.published_params).epsilon(0.01));
        CHECK(m.params.active <= m.params.total);
    }
}

TEST_CASE("the catalog: at least 80 models from 0.5B to 1T, ids unique, Hub ids filled, old ids kept") {
    const auto& models = test::models();
    CHECK(models.size() >= 80);
    std::set<std::string> ids;
    double smallest = 1e300, largest = 0;
    for (const auto& e : models) {
        CAPTURE(e.id);
        CHECK(ids.insert(e.id).second);
        CHECK(e.hf_id.find('/') != std::string::npos);
        CHECK_FALSE(e.source.empty());
        smallest = std::min(smallest, e.published_params);
        largest = std::max(largest, e.published_params);
    }
    CHECK(smallest <= 0.5e9);
    CHECK(largest >= 1e12);
    // Ids the page, tests and README use.
    for (const char* id : {"llama-3-8b", "deepseek-v3", "mixtral-8x7b", "mistral-7b", "qwen2.5-7b", "gpt2", "pythia-1.4b",
                           "gemma-2-9b", "llama-3.1-405b", "qwen3-30b-a3b"})
        CHECK(ids.count(id) == 1);
}

TEST_CASE("config parsing details") {
    SUBCASE("architectures[0] stands in for a missing model_type") {
        auto c = nlohmann::json::parse(test::fixture("llama-3-8b.config.json"));
        c.erase("model_type");
        CHECK(prepare_model(parse_config(c)).params.total == 8'030'261'248.0);
    }
    SUBCASE("multimodal configs: the language model under text_config is used") {
        nlohmann::json wrapper = {{"model_type", "llava"},
                                  {"text_config", nlohmann::json::parse(test::fixture("llama-3-8b.config.json"))}};
        CHECK(prepare_model(parse_config(wrapper)).params.total == 8'030'261'248.0);
    }
    SUBCASE("explicit parameter count without an architecture") {
        const Model m = prepare_model(parse_config(nlohmann::json{{"num_parameters", 7e9}}));
        CHECK(m.params.total == 7e9);
        CHECK(m.config.family == Family::Explicit);
    }
    SUBCASE("head_dim defaults to hidden/heads, kv heads to heads") {
        const ModelConfig c = parse_config(nlohmann::json{{"model_type", "llama"}, {"hidden_size", 512},
                                                          {"num_hidden_layers", 2}, {"num_attention_heads", 8},
                                                          {"intermediate_size", 1024}, {"vocab_size", 1000}});
        CHECK(c.head_dim == 64);
        CHECK(c.kv_heads == 8);
        // 1000·512·2 (untied) + 2·(4·512·512 + 3·512·1024 + 2·512) + 512
        CHECK(count_params(c).total == 1'024'000 + 2 * (1'048'576 + 1'572'864 + 1'024) + 512);
    }
}

TEST_CASE("formats by id: each FormatId names its own table entry, and names resolve to the same entry") {
    // The core names formats in code by id (model/formats.hpp) and resolves text once, when a
    // config or job is read; both must land on the same table entry.
    for (const NumberFormat& f : all_formats()) {
        CAPTURE(f.name);
        CHECK(&format(f.id) == &f);
        CHECK(&find_format(f.name, "test") == &f);
    }
    CHECK(all_formats().size() == static_cast<size_t>(FormatId::Q2_K) + 1);
}

TEST_CASE("tensor roles are resolved when the model is listed") {
    // Llama: q/k/v/o, gate/up/down, and the final norm; GPT-2's c_proj is the attention
    // output in attention and the MLP's down projection in the MLP.
    const Model llama = test::model("llama-3-8b");
    uint32_t seen = 0;
    for (const Tensor& t : llama.tensors) seen |= t.role;
    CHECK(seen == (kRoleQ | kRoleK | kRoleV | kRoleO | kRoleGate | kRoleUp | kRoleDown | kRoleFinalNorm));
    const Model gpt2 = prepare_model(parse_config_text(test::fixture("gpt2.config.json")));
    for (const Tensor& t : gpt2.tensors)
        if (std::string(t.module) == "c_proj") CHECK(t.role == (t.kind == TensorKind::Attention ? kRoleO : kRoleDown));
}
