// The 2025-26 architectures (issue 35): each fixture is a trimmed config.json of a published
// checkpoint (its "_source" names it); each count is derived tensor by tensor in the comments and
// checked against the Hub's safetensors total, exactly, after taking out what the Hub counts and
// a model does not hold as weights (the multi-token-prediction layer, FP8 block scales).
#include <doctest/doctest.h>

#include <map>

#include "answers/estimate.hpp"
#include "api/catalog.hpp"
#include "helpers.hpp"
#include "model/config.hpp"
#include "model/params.hpp"

using namespace vramcalc;

namespace {

ModelConfig config_of(const std::string& fixture) { return parse_config_text(test::fixture(fixture)); }

bool has_tensor(const ModelConfig& c, const std::string& module) {
    for (const Tensor& t : list_tensors(c))
        if (module == t.module) return true;
    return false;
}

// Qwen3-VL's vision tower (transformers Qwen3VLVisionModel) at hidden 1152, 27 blocks, MLP 4304:
// patch_embed Conv3d 3·2·16·16·1152 + bias 1152; pos_embed 2304·1152; per block qkv 1152·3456 + 3456,
// proj 1152² + 1152, fc1 1152·4304 + 4304, fc2 4304·1152 + 1152, two LayerNorms 4·1152; the merger
// LayerNorm 2·1152 and, for it and each DeepStack merger, fc1 4608² + 4608 and fc2 4608·out + out
// (DeepStack's LayerNorms over 4608: 2·4608 each).
double qwen3_vl_tower(double deepstack, double out) {
    const double block = 1152.0 * 3456 + 3456 + 1152.0 * 1152 + 1152 + 1152.0 * 4304 + 4304 + 4304.0 * 1152 + 1152 +
                         4 * 1152;
    const double merger = 4608.0 * 4608 + 4608 + 4608.0 * out + out;
    return 3 * 2 * 16 * 16 * 1152.0 + 1152 + 2304.0 * 1152 + 27 * block + 2 * 1152 + deepstack * 2 * 4608 +
           (1 + deepstack) * merger;
}

}  // namespace

TEST_CASE("Qwen3-VL 8B and 30B-A3B: the Qwen3 text model under text_config, a ViT with three DeepStack mergers") {
    const ModelConfig c = config_of("qwen3-vl-8b.config.json");
    CHECK_FALSE(c.approximate);
    CHECK(c.vision.kind == "qwen3_vl");
    CHECK(c.vision.deepstack == 3);
    CHECK_FALSE(c.tied_embeddings);  // tie_word_embeddings: false at the top level
    CHECK(c.qk_norm);
    // Text: Qwen3-8B's: 151936·4096 embedding and head + 36·(q 4096·4096, k and v 4096·1024 each,
    // o 4096·4096, q/k norms 2·128, MLP 3·4096·12288, 2 norms) + 4096 = 8,190,735,360.
    const double text = 2 * 151936.0 * 4096 +
                        36 * (2 * 4096.0 * 4096 + 2 * 4096.0 * 1024 + 256 + 3 * 4096.0 * 12288 + 2 * 4096) + 4096;
    const ParamCounts p = count_params(c);
    CHECK(p.total == text + qwen3_vl_tower(3, 4096));
    // Hub safetensors metadata for Qwen/Qwen3-VL-8B-Instruct: 8,767,123,696, exactly.
    CHECK(p.total == 8'767'123'696.0);
    CHECK(c.kv_kind_count(ModelConfig::KvKind::Full) == 36);

    // 30B-A3B: 48 layers of 128 experts (3·2048·768 each) + router 2048·128, no dense MLP.
    const ModelConfig m = config_of("qwen3-vl-30b-a3b.config.json");
    CHECK(m.is_moe());
    CHECK(m.dense_layers == 0);
    const double moe_text = 2 * 151936.0 * 2048 +
                            48 * (2048.0 * 4096 + 2 * 2048.0 * 512 + 4096.0 * 2048 + 256 + 128 * 3 * 2048.0 * 768 +
                                  2048.0 * 128 + 2 * 2048) + 2048;
    CHECK(count_params(m).total == moe_text + qwen3_vl_tower(3, 2048));
    // Hub safetensors metadata for Qwen/Qwen3-VL-30B-A3B-Thinking: 31,070,754,032, exactly.
    CHECK(count_params(m).total == 31'070'754'032.0);
}

TEST_CASE("Qwen3.5 27B and 35B-A3B: 3 Gated DeltaNet : 1 gated attention layers, a ViT without DeepStack") {
    const ModelConfig c = config_of("qwen3.5-27b.config.json");
    CHECK(c.kv_kind_count(ModelConfig::KvKind::Linear) == 48);
    CHECK(c.kv_kind_count(ModelConfig::KvKind::Full) == 16);
    CHECK(c.attn_output_gate);
    CHECK(c.vision.deepstack == 0);
    // The DeltaNet projections as Qwen3_5GatedDeltaNet names them (LoRA targets).
    CHECK(has_tensor(c, "in_proj_qkv"));
    CHECK(has_tensor(c, "in_proj_z"));
    CHECK_FALSE(has_tensor(c, "in_proj_qkvz"));
    // DeltaNet layer (16 key heads of 128, 48 value heads of 128): in_proj_qkv 5120·(2·2048 + 6144),
    // in_proj_z 5120·6144, in_proj_b and in_proj_a 5120·48 each, conv1d 10240·4, dt_bias and A_log
    // 48 each, gated norm 128, out_proj 6144·5120. Attention layer: q_proj with its gate 5120·2·24·256,
    // k and v 5120·4·256 each, o 6144·5120, q/k norms 2·256. Every layer: MLP 3·5120·17408, 2 norms.
    const double lin = 5120.0 * 10240 + 5120.0 * 6144 + 2 * 5120.0 * 48 + 10240.0 * 4 + 2 * 48 + 128 + 6144.0 * 5120;
    const double full = 5120.0 * 12288 + 2 * 5120.0 * 1024 + 6144.0 * 5120 + 512;
    const double text = 2 * 248320.0 * 5120 + 48 * lin + 16 * full + 64 * (3 * 5120.0 * 17408 + 2 * 5120) + 5120;
    const ParamCounts p = count_params(c);
    CHECK(p.total == text + qwen3_vl_tower(0, 5120));
    // Hub safetensors metadata for Qwen/Qwen3.5-27B: 27,781,427,952, which holds the MTP layer too:
    // one attention layer as above + MLP + 2 norms (372,255,232), fc 10240·5120 and 3 norms 3·5120.
    const double mtp = full + 3 * 5120.0 * 17408 + 2 * 5120 + 10240.0 * 5120 + 3 * 5120;
    CHECK(p.total == 27'781'427'952.0 - mtp);

    // 35B-A3B: 256 experts of 512 + a gated shared expert of 512 in all 40 layers; no intermediate_size.
    const ModelConfig m = config_of("qwen3.5-35b-a3b.config.json");
    CHECK(m.shared_expert_gate);
    const double mlin = 2048.0 * 8192 + 2048.0 * 4096 + 2 * 2048.0 * 32 + 8192.0 * 4 + 2 * 32 + 128 + 4096.0 * 2048;
    const double mfull = 2048.0 * 8192 + 2 * 2048.0 * 512 + 4096.0 * 2048 + 512;
    const double moe = 256 * 3 * 2048.0 * 512 + 2048.0 * 256 + 3 * 2048.0 * 512 + 2048;
    const double mtext = 2 * 248320.0 * 2048 + 30 * mlin + 10 * mfull + 40 * (moe + 2 * 2048) + 2048;
    CHECK(count_params(m).total == mtext + qwen3_vl_tower(0, 2048));
    // Hub for Qwen/Qwen3.5-35B-A3B: 35,951,822,704 with its MTP layer (attention + MoE + 2 norms,
    // fc 4096·2048, 3 norms).
    CHECK(count_params(m).total == 35'951'822'704.0 - (mfull + moe + 2 * 2048 + 4096.0 * 2048 + 3 * 2048));
}

TEST_CASE("DeepSeek-V3.2 and GLM-5: MLA + MoE with the DSA lightning indexer; the indexer's key cache") {
    const ModelConfig c = config_of("deepseek-v3.2.config.json");
    CHECK(c.family == Family::DeepSeek);
    CHECK(c.indexer_heads == 64);
    CHECK(c.indexer_head_dim == 128);
    // Per layer the indexer adds wq_b 1536·64·128, wk 7168·128, k_norm 2·128, weights_proj 7168·64
    // = 13,959,424 over DeepSeek-V3's 671,026,419,200 (tests/test_params.cpp's catalog entry).
    const double indexer = 1536.0 * 64 * 128 + 7168.0 * 128 + 256 + 7168.0 * 64;
    CHECK(count_params(c).total == 671'026'419'200.0 + 61 * indexer);
    // The Hub's 685,396,921,376 (deepseek-ai/DeepSeek-V3.2) exceeds V3's 684,531,386,000 by the
    // indexer of 62 layers (61 + the MTP layer) and its FP8 scales (wq_b 64·12 + wk 1·56 blocks):
    CHECK(685'396'921'376.0 - 684'531'386'000.0 == 62 * (indexer + 64 * 12 + 56));
    // KV per token per layer: the 512 + 64 latent in the KV dtype plus the indexer's key, 128 FP8
    // values and one fp32 scale (DeepSeek-V3.2 inference/model.py Indexer.k_cache, k_scale_cache).
    const Model model = prepare_model(c);
    const Estimate e = estimate(model, test::job({{"seq", 1000}, {"dtype", "bf16"}}), false);
    CHECK(e.breakdown.bytes[kKvCache] == 1000.0 * 61 * (576 * 2 + 128 + 4));

    // GLM-5: hidden 6144, 78 layers (3 dense of 12288), MLA of 64 heads (q_lora 2048, kv_lora 512,
    // qk 192 + 64, v 256), indexer of 32 heads of 128, 256 experts of 2048 + 1 shared, top-8.
    const ModelConfig g = config_of("glm-5.config.json");
    const double attn = 6144.0 * 2048 + 2048 + 2048.0 * 64 * 256 + 6144.0 * 576 + 512 + 512.0 * 64 * 448 +
                        64 * 256 * 6144.0;
    const double glm_indexer = 2048.0 * 32 * 128 + 6144.0 * 128 + 256 + 6144.0 * 32;
    const double glm_moe = 256 * 3 * 6144.0 * 2048 + 6144.0 * 256 + 256 + 3 * 6144.0 * 2048;
    const double glm = 2 * 154880.0 * 6144 + 78 * (attn + glm_indexer + 2 * 6144) + 3 * 3 * 6144.0 * 12288 +
                       75 * glm_moe + 6144;
    CHECK(count_params(g).total == glm);
    // Hub for zai-org/GLM-5: 753,864,139,008 with the MTP layer (a MoE layer + eh_proj 12288·6144 + 3 norms).
    CHECK(753'864'139'008.0 - glm == attn + glm_indexer + 2 * 6144 + glm_moe + 12288.0 * 6144 + 3 * 6144);
}

TEST_CASE("GLM-4.7-Flash (glm4_moe_lite): MLA heads of 192 + 64 though 2048 / 20 is not whole") {
    const ModelConfig c = config_of("glm-4.7-flash.config.json");
    CHECK(c.family == Family::DeepSeek);
    CHECK(c.head_dim == 256);
    CHECK(c.router_bias);
    // 47 layers: MLA q_a 2048·768 + 768, q_b 768·20·256, kv_a 2048·576 + 512, kv_b 512·20·448,
    // o 20·256·2048, 2 norms; layer 0 dense 3·2048·10240; 46 MoE layers of 64 experts 3·2048·1536,
    // router 64·2048 + bias 64, shared expert 3·2048·1536. Untied 154880·2048 tables.
    const double attn = 2048.0 * 768 + 768 + 768.0 * 20 * 256 + 2048.0 * 576 + 512 + 512.0 * 20 * 448 + 20 * 256 * 2048.0;
    const double moe = 64 * 3 * 2048.0 * 1536 + 64 * 2048.0 + 64 + 3 * 2048.0 * 1536;
    const double total = 2 * 154880.0 * 2048 + 47 * (attn + 2 * 2048) + 3 * 2048.0 * 10240 + 46 * moe + 2048;
    CHECK(count_params(c).total == total);
    // The checkpoint's 31,221,488,576 parameters hold layer 47, the MTP layer: a MoE layer, eh_proj
    // 2048·4096, its own embed_tokens and shared_head.head (154880·2048 each) and 3 norms.
    CHECK(31'221'488'576.0 - total == attn + 2 * 2048 + moe + 2048.0 * 4096 + 2 * 154880.0 * 2048 + 3 * 2048);
}

TEST_CASE("MiniMax-M2.5: whole-projection q/k norms, 256 sigmoid-routed experts, FP8 block weights") {
    const ModelConfig c = config_of("minimax-m2.5.config.json");
    CHECK(c.qk_norm_full);
    CHECK(c.router_bias);
    CHECK(c.quant.method == "fp8");
    // 62 layers: q 3072·6144, k and v 3072·1024, o 6144·3072, q_norm 6144 + k_norm 1024, 256 experts
    // 3·3072·1536, router 3072·256 + e_score_correction_bias 256, 2 norms; untied 200064·3072 tables.
    const double layer = 2 * 3072.0 * 6144 + 2 * 3072.0 * 1024 + 6144 + 1024 + 256 * 3 * 3072.0 * 1536 + 3072.0 * 256 +
                         256 + 2 * 3072;
    const double total = 2 * 200064.0 * 3072 + 62 * layer + 3072;
    CHECK(count_params(c).total == total);
    // Hub safetensors metadata (MiniMaxAI/MiniMax-M2.5): 228,703,644,928, which counts the fp32
    // weight_scale_inv of every 128 × 128 block: 62·(256 experts · 3 · 12·24 + q, o 48·24 + k, v 8·24).
    CHECK(228'703'644'928.0 - total == 62.0 * (256 * 3 * 12 * 24 + 2 * 48 * 24 + 2 * 8 * 24));
    CHECK(count_params(c).active == doctest::Approx(10e9).epsilon(0.11));  // model card: 10B active
}

TEST_CASE("SmolLM3 (NoPE every 4th layer), Seed-OSS (q/k/v biases, none on o_proj), Mistral Small 3.1 (Pixtral)") {
    // SmolLM3-3B: 128256·2048 tied + 36·(q 2048², k and v 2048·512, o 2048², MLP 3·2048·11008, 2 norms) + 2048.
    const ModelConfig s = config_of("smollm3-3b.config.json");
    CHECK_FALSE(s.approximate);
    CHECK(s.tied_embeddings);
    const double smol = 128256.0 * 2048 + 36 * (2 * 2048.0 * 2048 + 2 * 2048.0 * 512 + 3 * 2048.0 * 11008 + 2 * 2048) + 2048;
    // Hub safetensors metadata for HuggingFaceTB/SmolLM3-3B: 3,075,098,624, exactly.
    CHECK(count_params(s).total == smol);
    CHECK(smol == 3'075'098'624.0);

    // Seed-OSS-36B: 64 layers, q 5120·10240 + bias, k and v 5120·1024 + biases, o 10240·5120 without,
    // MLP 3·5120·27648, 2 norms; untied 155136·5120 tables. 36.15 B; model card: 36B.
    const ModelConfig o = config_of("seed-oss-36b.config.json");
    CHECK(o.qkv_bias);
    CHECK_FALSE(o.attn_output_bias);
    const double seed = 2 * 155136.0 * 5120 +
                        64 * (2 * 5120.0 * 10240 + 2 * 5120.0 * 1024 + 10240 + 2048 + 3 * 5120.0 * 27648 + 2 * 5120) + 5120;
    CHECK(count_params(o).total == seed);

    // Mistral Small 3.1 (mistral3): the 23,572,403,200-parameter Mistral Small 3 text model + Pixtral:
    // patch_conv 3·14·14·1024 (no bias), ln_pre 1024, 24·(q, k, v, o 1024², SwiGLU 3·1024·4096, 2 norms),
    // projector norm 1024, patch_merger 4096·1024, linear_1 1024·5120, linear_2 5120² (no biases).
    const ModelConfig m = config_of("mistral-small-3.1.config.json");
    CHECK(m.vision.kind == "pixtral");
    const double pixtral = 3 * 14 * 14 * 1024.0 + 1024 + 24 * (4 * 1024.0 * 1024 + 3 * 1024.0 * 4096 + 2 * 1024) + 1024 +
                           4096.0 * 1024 + 1024.0 * 5120 + 5120.0 * 5120;
    CHECK(count_params(m).total == 23'572'403'200.0 + pixtral);  // 24.01 B; model card: 24B
}

TEST_CASE("OLMo 3: OLMo 2's block (whole-projection q/k norms, post-norms) with 3 sliding : 1 full layers") {
    const ModelConfig c = config_of("olmo-3-7b.config.json");
    CHECK(c.qk_norm_full);
    CHECK(c.kv_kind_count(ModelConfig::KvKind::Sliding) == 24);
    CHECK(c.kv_kind_count(ModelConfig::KvKind::Full) == 8);
    CHECK(c.layer_kinds[3].mixer == Mixer::FullAttention);
    CHECK(c.layer_kinds[0].window == 4096);
    // 32 layers: q, k, v, o 4096², q_norm and k_norm 4096 each, MLP 3·4096·11008, 2 post-norms; untied
    // 100278·4096 tables. Hub safetensors metadata for allenai/Olmo-3-1025-7B: 7,298,011,136, exactly.
    const double layer = 4 * 4096.0 * 4096 + 2 * 4096 + 3 * 4096.0 * 11008 + 2 * 4096;
    CHECK(count_params(c).total == 2 * 100278.0 * 4096 + 32 * layer + 4096);
    CHECK(count_params(c).total == 7'298'011'136.0);
    // Without layer_types, transformers' Olmo3Config default pattern: every 4th layer full.
    nlohmann::json bare = nlohmann::json::parse(test::fixture("olmo-3-7b.config.json"));
    bare.erase("layer_types");
    const ModelConfig d = parse_config(bare);
    CHECK(d.kv_kind_count(ModelConfig::KvKind::Sliding) == 24);
    CHECK(d.layer_kinds[7].mixer == Mixer::FullAttention);
}

TEST_CASE("the catalog's entries carry family, licence, modality and release month, with their source") {
    const nlohmann::json root = nlohmann::json::parse(test::read_text(VRAMCALC_MODELS));
    std::map<std::string, nlohmann::json> by_id;
    for (const auto& e : root["models"]) {
        CAPTURE(e["id"].get<std::string>());
        REQUIRE(e.contains("family"));
        CHECK(e["family"].is_string());
        CHECK((e["license"].is_string() || e["license"].is_null()));
        const std::string modality = e["modality"];
        CHECK((modality == "text" || modality == "vision" || modality == "audio" || modality == "encoder"));
        CHECK((e["released"].is_null() || (e["released"].is_string() && e["released"].get<std::string>().size() == 7)));
        CHECK_FALSE(e["meta_source"].get<std::string>().empty());
        by_id[e["id"]] = e;
    }
    CHECK(by_id["qwen3-vl-8b"]["modality"] == "vision");
    CHECK(by_id["whisper-large-v3"]["modality"] == "audio");
    CHECK(by_id["bert-base-uncased"]["modality"] == "encoder");
    CHECK(by_id["gpt-oss-120b"]["license"] == "apache-2.0");
    CHECK(by_id["llama-3.1-8b"]["license"] == "llama3.1");
    CHECK(by_id["deepseek-v3.2"]["released"] == "2025-12");
    CHECK(by_id["qwen3.5-397b-a17b"]["family"] == "Qwen3.5");
    // The page's search and lookup find the new entries by Hub id and by name.
    CHECK(find_model(test::models(), "Qwen/Qwen3-VL-8B-Instruct").id == "qwen3-vl-8b");
    CHECK(find_model(test::models(), "MiniMaxAI/MiniMax-M2.5").id == "minimax-m2.5");
    CHECK(find_model(test::models(), "zai-org/GLM-4.7-Flash").id == "glm-4.7-flash");
}
