// Newer architectures (issue 10): each fixture is a trimmed config.json of a
// published checkpoint; the count must land within 1% of the publisher's figure.
// Where an exact figure is published (Hub safetensors metadata), it is checked exactly.
#include <doctest/doctest.h>

#include "model/config.hpp"
#include "text/errors.hpp"
#include "helpers.hpp"
#include "model/params.hpp"

using namespace vramcalc;

namespace {

ModelConfig config_of(const std::string& fixture) { return parse_config_text(test::fixture(fixture)); }
ParamCounts counts_of(const std::string& fixture) { return count_params(config_of(fixture)); }

int64_t count_layers(const ModelConfig& c, Mixer kind) {
    int64_t n = 0;
    for (const auto& k : c.layer_kinds) n += k.mixer == kind ? 1 : 0;
    return n;
}

}  // namespace

TEST_CASE("gpt_bigcode (OctoCoder / StarCoder 15.5B): multi-query fused c_attn, LayerNorm, plain GELU MLP") {
    const ModelConfig c = config_of("octocoder.config.json");
    CHECK(c.family == Family::Gpt2);
    CHECK(c.kv_heads == 1);
    CHECK(c.norm == NormKind::LayerNorm);
    CHECK_FALSE(c.gated_mlp);
    CHECK(c.activation == Activation::Gelu);  // gelu_pytorch_tanh: one fused op
    CHECK(c.attention_dropout == 0.1);
    // wte 49152·6144 + wpe 8192·6144 + 40·(c_attn 6144·(6144 + 2·128) + 6400 + c_proj 6144² + 6144
    //   + c_fc 6144·24576 + 24576 + c_proj 24576·6144 + 6144 + 2 LayerNorms 4·6144) + ln_f 2·6144, tied head
    const double layer = 6144.0 * 6400 + 6400 + 6144.0 * 6144 + 6144 + 2 * 6144.0 * 24576 + 24576 + 6144 + 4 * 6144;
    CHECK(counts_of("octocoder.config.json").total == 49152.0 * 6144 + 8192.0 * 6144 + 40 * layer + 2 * 6144);
    // Published: 15.5B (StarCoder paper, Li et al. 2023, arXiv:2305.06161 §1).
    CHECK(counts_of("octocoder.config.json").total == doctest::Approx(15.5e9).epsilon(0.01));
}

TEST_CASE("the octocoder config estimates end to end") {
    const std::string answer = estimate_request(test::fixture("octocoder.config.json"), R"({"mode":"inference"})");
    const auto r = nlohmann::json::parse(answer);
    REQUIRE(r["ok"] == true);
    CHECK(r["model"]["params_total"].get<double>() == doctest::Approx(15.52e9).epsilon(0.001));
}

TEST_CASE("Gemma 3 4B (multimodal): text_config + SigLIP tower, 5 local : 1 global layers") {
    const ModelConfig c = config_of("gemma-3-4b.config.json");
    const ParamCounts p = count_params(c);
    // Hub safetensors metadata for google/gemma-3-4b-it: 4,300,079,472 parameters (BF16).
    CHECK(p.total == 4'300'079'472.0);
    CHECK(p.vision == 419'420'160.0);
    CHECK(c.vision.kind == "siglip");
    CHECK(count_layers(c, Mixer::SlidingAttention) == 29);  // 34 layers, every 6th global
    CHECK(count_layers(c, Mixer::FullAttention) == 5);
    CHECK(c.layer_kinds[0].window == 1024);
    CHECK(c.layer_kinds[5].mixer == Mixer::FullAttention);
    CHECK(c.activation == Activation::Gelu);
}

TEST_CASE("Llama 4 Scout: 16 experts + shared expert in every layer, chunked attention with NoPE globals") {
    const ModelConfig c = config_of("llama-4-scout.config.json");
    const ParamCounts p = count_params(c);
    // Published: 109B total, 17B active (Meta Llama 4 model card).
    CHECK(p.total == doctest::Approx(109e9).epsilon(0.01));
    CHECK(p.active == doctest::Approx(17e9).epsilon(0.02));
    CHECK(c.shared_expert_intermediate == 8192);
    CHECK(c.intermediate == 16384);
    CHECK(c.dense_layers == 0);
    CHECK(count_layers(c, Mixer::ChunkedAttention) == 36);
    CHECK(c.layer_kinds[3].mixer == Mixer::FullAttention);
    CHECK(c.layer_kinds[0].window == 8192);
    CHECK(p.vision > 0.8e9);
}

TEST_CASE("gpt-oss-20b: MXFP4 experts, attention sinks, alternating 128-token sliding window") {
    const ModelConfig c = config_of("gpt-oss-20b.config.json");
    const ParamCounts p = count_params(c);
    // OpenAI gpt-oss model card (arXiv:2508.10925) Table 1: 20.91B total, 3.61B active;
    // their "active" leaves out the input embedding table (201088·2880 = 579,133,440).
    CHECK(p.total == doctest::Approx(20.91e9).epsilon(0.001));
    CHECK(p.active - 201088.0 * 2880 == doctest::Approx(3.61e9).epsilon(0.002));
    CHECK(c.attention_sinks);
    CHECK(count_layers(c, Mixer::SlidingAttention) == 12);
    CHECK(c.layer_kinds[0].window == 128);
    CHECK(c.quant.format == &format(FormatId::Mxfp4));
    CHECK(c.quant.bits == 4.25);
    CHECK(c.quant.experts_only);
}

TEST_CASE("Qwen3-Next-80B-A3B: 36 Gated DeltaNet + 12 attention layers, 512 experts") {
    const ModelConfig c = config_of("qwen3-next-80b-a3b.config.json");
    const ParamCounts p = count_params(c);
    // Hub safetensors metadata (without the MTP block): 79,674,391,296 total; 3,874,929,408 active.
    CHECK(p.total == 79'674'391'296.0);
    CHECK(p.active == 3'874'929'408.0);
    CHECK(c.attention_layers() == 12);
    CHECK(c.recurrent_layers() == 36);
    CHECK(c.layer_kinds[3].mixer == Mixer::FullAttention);
    // State per linear-attention layer per sequence: conv (2·16·128 + 32·128)·4, recurrent 32·128·128.
    CHECK(c.recurrent.conv_state_values == 32'768);
    CHECK(c.recurrent.ssm_state_values == 524'288);
}

TEST_CASE("MoE families: GLM-4.5-Air, Kimi K2, Phi-3.5-MoE, Granite 3.1 MoE, MiniMax-Text-01, Jamba") {
    // GLM-4.5-Air: 106B total, 12B active (Z.ai GLM-4.5 model card; MTP layer excluded).
    CHECK(counts_of("glm-4.5-air.config.json").total == doctest::Approx(106e9).epsilon(0.01));
    // Kimi K2: 61 MLA layers, 384 experts: 1,026,408,232,448 by tensor count; Hub: 1.03T; 32B activated (model card).
    const ParamCounts kimi = counts_of("kimi-k2.config.json");
    CHECK(kimi.total == doctest::Approx(1.03e12).epsilon(0.01));
    CHECK(kimi.active == doctest::Approx(32e9).epsilon(0.03));
    // Phi-3.5-MoE: 41.9B total, 6.6B active (model card).
    const ParamCounts phi = counts_of("phi-3.5-moe.config.json");
    CHECK(phi.total == doctest::Approx(41.9e9).epsilon(0.01));
    CHECK(phi.active == doctest::Approx(6.6e9).epsilon(0.01));
    CHECK(config_of("phi-3.5-moe.config.json").norm == NormKind::LayerNorm);
    // Granite 3.1 3B-A800M: 3.3B total (model card).
    CHECK(counts_of("granite-3.1-3b-a800m.config.json").total == doctest::Approx(3.3e9).epsilon(0.01));
    // MiniMax-Text-01: 456B total (MiniMax-01 report, arXiv:2501.08313); 7 lightning : 1 softmax layers.
    const ModelConfig mm = config_of("minimax-text-01.config.json");
    CHECK(count_params(mm).total == doctest::Approx(456e9).epsilon(0.01));
    CHECK(mm.attention_layers() == 10);
    CHECK(mm.recurrent.ssm_state_values == 64 * 128 * 128);
    // Jamba v0.1: 52B total, 12B active (AI21 model card); 1 attention : 7 Mamba layers.
    const ModelConfig jamba = config_of("jamba-v0.1.config.json");
    CHECK(count_params(jamba).total == doctest::Approx(52e9).epsilon(0.01));
    CHECK(count_params(jamba).active == doctest::Approx(12e9).epsilon(0.01));
    CHECK(jamba.attention_layers() == 4);
    CHECK(jamba.dense_layers == 16);
    CHECK(jamba.recurrent.ssm_state_values == 8192 * 16);
}

TEST_CASE("dense families: OLMo 2, Command R, Falcon, Mamba") {
    // OLMo-2-1124-7B: 7.30B (Hub safetensors metadata).
    CHECK(counts_of("olmo-2-7b.config.json").total == doctest::Approx(7.30e9).epsilon(0.005));
    // Command R v01: 35B (Cohere model card); one LayerNorm per parallel block, tied head.
    const ModelConfig cr = config_of("command-r.config.json");
    CHECK(count_params(cr).total == doctest::Approx(35e9).epsilon(0.01));
    CHECK(cr.parallel_block);
    CHECK(cr.norms_per_layer == 1);
    // Falcon-7B: multi-query fused QKV, parallel attention, tied head:
    // 65024·4544 + 32·(4544·(4544 + 128) + 4544² + 2·4544·18176 + 2·4544) + 2·4544
    const ModelConfig falcon = config_of("falcon-7b.config.json");
    CHECK(falcon.kv_heads == 1);
    CHECK(count_params(falcon).total ==
          65024.0 * 4544 + 32 * (4544.0 * 4672 + 4544.0 * 4544 + 2 * 4544.0 * 18176 + 2 * 4544) + 2 * 4544);
    // Mamba-2.8B: 2.77B (Hub safetensors metadata for state-spaces/mamba-2.8b-hf).
    const ModelConfig mamba = config_of("mamba-2.8b.config.json");
    CHECK(count_params(mamba).total == doctest::Approx(2.77e9).epsilon(0.005));
    CHECK(mamba.attention_layers() == 0);
    CHECK(mamba.recurrent.conv_state_values == 5120 * 4);
    CHECK(mamba.recurrent.ssm_state_values == 5120 * 16);
}

TEST_CASE("unknown architectures: estimated when the generic keys are there, else the missing keys are named") {
    const ModelConfig c = parse_config(nlohmann::json{{"model_type", "newarch"}, {"hidden_size", 512},
                                                      {"num_hidden_layers", 2}, {"num_attention_heads", 8},
                                                      {"intermediate_size", 1024}, {"vocab_size", 1000}});
    CHECK(c.approximate);
    CHECK(c.approximate_note.find("newarch") != std::string::npos);
    CHECK(count_params(c).total == 1'024'000 + 2 * (1'048'576 + 1'572'864 + 1'024) + 512);
    try {
        parse_config_text(test::fixture("unknown-arch.config.json"));
        FAIL("should have been rejected");
    } catch (const InputError& e) {
        CHECK(e.field() == "config.model_type");
        CHECK(std::string(e.what()).find("without num_attention_heads, intermediate_size") != std::string::npos);
    }
}

TEST_CASE("layer_types validation names the field") {
    auto c = nlohmann::json::parse(test::fixture("gpt-oss-20b.config.json"));
    c["layer_types"][0] = "teleport_attention";
    CHECK_THROWS_WITH_AS(parse_config(c), doctest::Contains("config.layer_types"), InputError);
    c["layer_types"] = nlohmann::json::array({"full_attention"});
    CHECK_THROWS_WITH_AS(parse_config(c), doctest::Contains("one type per layer"), InputError);
}

TEST_CASE("Granite 4.0 H Tiny: Mamba-2 layers + 4 attention layers, 64 experts + shared MLP") {
    const ModelConfig c = config_of("granite-4.0-h-tiny.config.json");
    CHECK(c.attention_layers() == 4);
    CHECK(c.recurrent_layers() == 36);
    CHECK(c.mamba2);
    CHECK(c.layer_kinds[5].mixer == Mixer::FullAttention);
    // Mamba-2 mixer (h 1536, 48 heads × 64, N 128, 1 group, conv 4):
    // in_proj 1536·(2·3072 + 2·128 + 48) + conv (3072 + 256)·4 + 3328 + dt_bias, A_log, D 3·48 + norm 3072
    // + out_proj 3072·1536
    const double mixer = 1536.0 * 6448 + 3328 * 4 + 3328 + 3 * 48 + 3072 + 3072.0 * 1536;
    // attention q, o 1536² each + k, v 1536·512 each (4 KV heads × 128); MoE 64·3·1536·512 + shared 3·1536·1024 + router 1536·64
    const double attention = 2 * 1536.0 * 1536 + 2 * 1536.0 * 512;
    const double mlp = 64 * 3 * 1536.0 * 512 + 3 * 1536.0 * 1024 + 1536.0 * 64;
    const double expected = 36 * mixer + 4 * attention + 40 * (mlp + 2 * 1536) + 100352.0 * 1536 + 1536;
    CHECK(count_params(c).total == expected);
    // Published: 7B total (IBM granite-4.0-h-tiny model card).
    CHECK(count_params(c).total == doctest::Approx(7e9).epsilon(0.01));
    // State per Mamba layer per sequence: conv (3072 + 2·128)·4, SSM 48·64·128.
    CHECK(c.recurrent.conv_state_values == 13'312);
    CHECK(c.recurrent.ssm_state_values == 393'216);
}

TEST_CASE("quantization_config selects the weight format, bits derived from the scheme") {
    auto quant = [](const nlohmann::json& q) {
        auto c = nlohmann::json::parse(test::fixture("llama-3-8b.config.json"));
        c["quantization_config"] = q;
        return parse_config(c).quant;
    };
    // TheBloke-style GPTQ: 4 bits, group 128, act-order: 4 + (16 + 4)/128 = 4.15625 bits.
    const WeightQuant gptq = quant({{"quant_method", "gptq"}, {"bits", 4}, {"group_size", 128}, {"desc_act", true},
                                    {"sym", true}, {"damp_percent", 0.1}});
    CHECK(std::string(gptq.format->name) == "gptq");
    CHECK(gptq.bits == 4 + 20.0 / 128);
    CHECK(gptq.desc_act);
    // GPTQ 8-bit per channel (group_size -1): 8 bits.
    CHECK(quant({{"quant_method", "gptq"}, {"bits", 8}, {"group_size", -1}}).bits == 8);
    // AutoAWQ GEMM: w_bit 4, q_group_size 64 -> 4 + 20/64.
    const WeightQuant awq = quant({{"quant_method", "awq"}, {"bits", 4}, {"group_size", 64}, {"zero_point", true},
                                   {"version", "gemm"}});
    CHECK(awq.bits == 4 + 20.0 / 64);
    CHECK(std::string(awq.format->name) == "int4");
    // DeepSeek-V3 FP8: 128x128 blocks with an fp32 scale each -> 8 + 32/16384.
    const WeightQuant fp8 = quant({{"quant_method", "fp8"}, {"activation_scheme", "dynamic"}, {"fmt", "e4m3"},
                                   {"weight_block_size", {128, 128}}});
    CHECK(std::string(fp8.format->name) == "fp8");
    CHECK(fp8.bits == 8 + 32.0 / 16384);
    // bitsandbytes NF4 with double quantization (QLoRA) and LLM.int8().
    const WeightQuant nf4 = quant({{"quant_method", "bitsandbytes"}, {"load_in_4bit", true},
                                   {"bnb_4bit_quant_type", "nf4"}, {"bnb_4bit_use_double_quant", true}});
    CHECK(std::string(nf4.format->name) == "nf4");
    CHECK(nf4.bits == 4.127);
    CHECK(quant({{"load_in_4bit", true}, {"bnb_4bit_quant_type", "fp4"}}).bits == 4.5);
    CHECK(quant({{"quant_method", "bitsandbytes"}, {"load_in_8bit", true}}).format == &format(FormatId::Int8));
    // compressed-tensors W4A16 (group 128, symmetric): 4 + 16/128; FP8 W8A8 per channel: 8.
    const WeightQuant w4a16 = quant(nlohmann::json::parse(R"({"quant_method": "compressed-tensors",
        "format": "pack-quantized", "ignore": ["lm_head"], "config_groups": {"group_0": {"targets": ["Linear"],
        "weights": {"num_bits": 4, "type": "int", "symmetric": true, "strategy": "group", "group_size": 128},
        "input_activations": null}}})"));
    CHECK(w4a16.bits == 4 + 16.0 / 128);
    CHECK(w4a16.scheme.find("W4A16") != std::string::npos);
    CHECK(w4a16.not_converted == std::vector<std::string>{"lm_head"});
    const WeightQuant w8a8 = quant(nlohmann::json::parse(R"({"quant_method": "compressed-tensors",
        "format": "float-quantized", "config_groups": {"group_0": {"targets": ["Linear"],
        "weights": {"num_bits": 8, "type": "float", "symmetric": true, "strategy": "channel"},
        "input_activations": {"num_bits": 8, "type": "float", "dynamic": true, "strategy": "token"}}}})"));
    CHECK(std::string(w8a8.format->name) == "fp8");
    CHECK(w8a8.bits == 8);
    CHECK(w8a8.scheme.find("W8A8") != std::string::npos);
    // Unknown methods and malformed schemes name the field.
    CHECK_THROWS_WITH_AS(quant({{"quant_method", "hqq"}}), doctest::Contains("config.quantization_config.quant_method"),
                         InputError);
    CHECK_THROWS_WITH_AS(quant({{"quant_method", "gptq"}, {"bits", 3.5}}),
                         doctest::Contains("config.quantization_config.bits"), InputError);
    CHECK_THROWS_AS(quant({{"quant_method", "compressed-tensors"}}), InputError);
}

TEST_CASE("Qwen2.5-VL: the flat config and the newer text_config layout count the same") {
    const auto& entry = find_model(test::models(), "qwen2.5-vl-7b");
    nlohmann::json nested = {{"model_type", "qwen2_5_vl"}, {"vision_config", entry.config["vision_config"]}};
    nested["text_config"] = entry.config;
    nested["text_config"].erase("vision_config");
    nested["text_config"]["model_type"] = "qwen2_5_vl_text";
    const ModelConfig flat = parse_config(entry.config), inner = parse_config(nested);
    CHECK_FALSE(inner.approximate);
    CHECK(count_params(inner).total == count_params(flat).total);
    // Hub safetensors metadata for Qwen/Qwen2.5-VL-7B-Instruct: 8.29B; the vision tower is 676M of it.
    CHECK(count_params(flat).total == doctest::Approx(8.29e9).epsilon(0.001));
    CHECK(count_params(flat).vision == doctest::Approx(676e6).epsilon(0.002));
}

TEST_CASE("Mamba trains: the fused mixer's saved tensors per token, hand-derived") {
    // mamba-2.8b: h 2560, d_inner 5120, N 16, dt_rank 160; bf16 full training, HF RMSNorm.
    // Per token per layer (bytes): norm fp32 input 4h + rstd 4 + normed output 2h (weight trains);
    // in_proj input 2h; xz 2·2·d_inner; x_dbl 2·(160 + 32); scan output 2·d_inner;
    // fp32 chunk states d_inner·2N·4 / 2048.
    const double h = 2560, di = 5120;
    const double per_token = (4 * h + 4 + 2 * h) + 2 * h + 4 * di + 2 * (160 + 32) + 2 * di + di * 32 * 4 / 2048;
    const Model m = prepare_model(config_of("mamba-2.8b.config.json"));
    const Estimate e = estimate(m, test::job({{"mode", "train"}, {"batch", 1}, {"seq", 2048}}), false);
    CHECK(e.layer.total == doctest::Approx(per_token * 2048));
    CHECK(e.activations_saved_bytes > 64 * per_token * 2048);  // + the final norm, logits and loss
    // Mamba-2 (Codestral Mamba 7B) trains too, with its own in_proj width.
    const Model m2 = test::model("mamba-codestral-7b");
    CHECK(estimate(m2, test::job({{"mode", "lora"}}), false).breakdown.total() > 0);
}

TEST_CASE("Falcon-H1 7B: attention and a Mamba-2 mixer side by side in all 44 layers") {
    const ModelConfig c = config_of("falcon-h1-7b.config.json");
    CHECK(c.parallel_hybrid);
    CHECK(c.attention_layers() == 44);
    CHECK(c.recurrent_layers() == 44);
    // Hand sum, tensor by tensor (transformers modeling_falcon_h1.py):
    // embed + untied head 2·130048·3072;
    // attention q 3072·1536, k, v 3072·256, o 1536·3072;
    // mixer in_proj 3072·(2·3072 + 2·256 + 24), conv1d (3072 + 512)·4 + bias 3584, dt_bias/A_log/D 3·24,
    //   out_proj 3072·3072 (mamba_rms_norm false: no mixer norm);
    // SwiGLU 3·3072·12288; input_layernorm + pre_ff_layernorm 2·3072; final norm 3072.
    const double layer = 3072.0 * 1536 * 2 + 3072.0 * 256 * 2 + 3072.0 * (2 * 3072 + 2 * 256 + 24) + 3584.0 * 4 + 3584 +
                         3 * 24 + 3072.0 * 3072 + 3 * 3072.0 * 12288 + 2 * 3072;
    const double total = 2 * 130048.0 * 3072 + 44 * layer + 3072;
    CHECK(count_params(c).total == total);
    CHECK(total == doctest::Approx(7.586e9).epsilon(0.001));  // the "7B" of the Falcon-H1 family
    // Every layer keeps KV (2 KV heads × 128 × 2 bytes × K and V = 1 KiB) and a Mamba-2 state.
    const Model m = prepare_model(c);
    const Estimate e = estimate(m, test::job({{"mode", "inference"}, {"seq", 4096}}), false);
    const double kv = 44 * 2 * 2 * 128 * 2.0 * 4096;
    const double state = 44 * ((4 - 1) * (3072 + 2 * 256) * 2.0 + 24 * 128 * 256 * 4.0);  // conv bf16 + SSM fp32
    CHECK(e.breakdown.bytes[kKvCache] == doctest::Approx(kv + state));
    // It trains: the mixer's tensors join the attention block's.
    const Estimate t = estimate(m, test::job({{"mode", "train"}, {"seq", 2048}}), false);
    double zxbcdt = 0;
    for (int i = 0; i < t.layer.count; ++i)
        if (std::string(t.layer.parts[i].name) == "in_proj output zxbcdt") zxbcdt = t.layer.parts[i].bytes;
    CHECK(zxbcdt == (2 * 3072.0 + 2 * 256 + 24) * 2 * 2048);  // bf16, one sequence of 2048 tokens
}

TEST_CASE("ERNIE 4.5 21B-A3B and Hunyuan-A13B: their own MoE keys, not the approximate path") {
    // ERNIE: layer 0 dense, layers 1-27 MoE (moe_layer_start_index 1): 64 experts of 1536, top-6,
    // 2 shared experts as one MLP of 2·1536, the router's e_score_correction_bias (moe_statics,
    // 1 × 64), tied embeddings. Hand sum, tensor by tensor:
    const double attn = 2 * 2560.0 * 2560 + 2 * 2560.0 * 512;
    const double moe = 64 * 3 * 2560.0 * 1536 + 3 * 2560.0 * 3072 + 2560.0 * 64 + 64;
    const double ernie = 103424.0 * 2560 + 28 * attn + 3 * 2560.0 * 12288 + 27 * moe + 28 * 2 * 2560.0 + 2560;
    const ModelConfig e = config_of("ernie-4.5-21b-a3b.config.json");
    CHECK_FALSE(e.approximate);
    CHECK(count_params(e).total == ernie);  // Baidu names it "21B" (ERNIE 4.5 model card)
    // Hub safetensors metadata for baidu/ERNIE-4.5-21B-A3B-Thinking: 21,825,437,888, exactly.
    CHECK(count_params(e).total == 21'825'437'888.0);
    CHECK(e.dense_layers == 1);
    // Hunyuan-A13B model card (tencent/Hunyuan-A13B-Instruct): 80B total, 13B active.
    const ModelConfig h = config_of("hunyuan-a13b.config.json");
    CHECK_FALSE(h.approximate);
    CHECK(count_params(h).total == doctest::Approx(80e9).epsilon(0.01));
    CHECK(count_params(h).active == doctest::Approx(13e9).epsilon(0.025));
    CHECK(h.experts_per_token == 8);  // the first of the per-layer moe_topk list
}

TEST_CASE("quantization_config errors name the field with its whole path") {
    nlohmann::json c = nlohmann::json::parse(test::fixture("tiny-llama.config.json"));
    c["quantization_config"] = {{"load_in_4bit", "yes"}};
    CHECK_THROWS_WITH_AS(parse_config(c), doctest::Contains("config.quantization_config.load_in_4bit:"), InputError);
    c["quantization_config"] = {{"quant_method", 5}};
    CHECK_THROWS_WITH_AS(parse_config(c), doctest::Contains("config.quantization_config.quant_method:"), InputError);
}

TEST_CASE("Llama 3.2 11B Vision (mllama): cross-attention layers in the text model, a tiled vision tower of its own") {
    const ModelConfig c = config_of("llama-3.2-11b-vision.config.json");
    CHECK(c.cross_attention_layers == 8);
    CHECK(c.vision.kind == "mllama");
    // Hand sum, tensor by tensor (transformers models/mllama/modeling_mllama.py):
    // text: embed (vocab + 8 image rows), untied lm_head, 40 layers of GQA attention + SwiGLU + 2 norms,
    // 8 cross-attention layers' q/k norms (head_dim) and two gates, final norm.
    const double h = 4096, V = 128256, I = 14336;
    const double text = (V + 8) * h + V * h + 40 * (2 * h * h + 2 * h * 1024 + 3 * h * I + 2 * h) + 8 * (2 * 128 + 2) + h;
    // vision: 32 local + 8 global layers (no attention biases; fc1/fc2 and LayerNorms with biases),
    // 16 global gates, conv patch 3·14·14·1280, class embedding, 1601 gated positions, tile embedding
    // 9 × (4·1601·1280), pre/post tile positions 9 × 2·4·1280, 3 gates, pre/post LayerNorms,
    // projector 7680 → 4096 with bias.
    const double vh = 1280, vi = 5120, P = 1601;
    const double layer = 4 * vh * vh + vh * vi + vi + vi * vh + vh + 4 * vh;
    const double vision = 40 * layer + 16 + 3 * 14 * 14 * vh + vh + P * vh + 9 * 4 * P * vh + 9 * 2 * 4 * vh + 3 + 4 * vh +
                          7680 * h + h;
    const ParamCounts n = count_params(c);
    CHECK(n.total == text + vision);
    CHECK(n.vision == doctest::Approx(vision).epsilon(0.001));  // the tower's matrices (its biases and norms count as vectors)
    CHECK(n.total == doctest::Approx(10.6e9).epsilon(0.01));  // Meta's Llama 3.2 model card: 10.6B
    // KV: 32 self-attention layers grow with the text (8 KV heads × 128 × K,V × bf16); the 8
    // cross-attention layers keep one image's keys and values: 4 tiles × 1601 tokens.
    const Estimate e = estimate(prepare_model(c), test::job({{"mode", "inference"}, {"seq", 4096}}), false);
    const double self = 32 * 2 * 8 * 128 * 2.0 * 4096, cross = 8 * 2 * 8 * 128 * 2.0 * 4 * 1601;
    CHECK(e.breakdown.bytes[kKvCache] == doctest::Approx(self + cross));
}
