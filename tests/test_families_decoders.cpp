// The remaining decoder families of issue 24: each fixture a published
// checkpoint's config.json, counted with the decoder layout and its own module
// names; derivations in the comments, published counts (cited) within 1 %.
#include <doctest/doctest.h>

#include "helpers.hpp"
#include "model/config.hpp"
#include "model/params.hpp"

using namespace vramcalc;

namespace {

ModelConfig config_of(const std::string& name) { return parse_config_text(test::fixture(name + ".config.json")); }
double count(const std::string& name) { return count_params(config_of(name)).total; }

bool has_module(const ModelConfig& c, const char* module) {
    for (const Tensor& t : list_tensors(c))
        if (std::string(t.module) == module) return true;
    return false;
}

}  // namespace

TEST_CASE("BLOOM-560m: fused query_key_value, embedding LayerNorm, ALiBi, tied head") {
    const ModelConfig c = config_of("bloom-560m");
    CHECK(c.arch == Arch::Bloom);
    CHECK(c.alibi);
    CHECK(c.position_rows == 0);  // ALiBi: no position table
    CHECK(c.intermediate == 4096);
    CHECK(has_module(c, "query_key_value"));
    // word 250880·1024 + word_embeddings_layernorm 2048; 24 × (qkv 1024·3072 + 3072, dense 1024² + 1024,
    // h_to_4h 1024·4096 + 4096, 4h_to_h 4096·1024 + 1024, 2 LayerNorms 4096); ln_f 2048.
    const double layer = 1024.0 * 3072 + 3072 + 1024.0 * 1024 + 1024 + 1024.0 * 4096 + 4096 + 4096.0 * 1024 + 1024 + 4096;
    CHECK(count("bloom-560m") == 250880.0 * 1024 + 2048 + 24 * layer + 2048);
    // Model card bigscience/bloom-560m: "Number of Parameters: 559,214,592" (exactly).
    CHECK(count("bloom-560m") == 559'214'592.0);
}

TEST_CASE("OPT: learned positions with 2 extra rows, biases, tied head; OPT-350m projects in and out") {
    const ModelConfig c = config_of("opt-1.3b");
    CHECK(c.position_rows == 2050);
    CHECK(c.activation == Activation::Relu);
    // embed 50272·2048 + positions 2050·2048; 24 × (4 × (2048² + 2048) + fc1 2048·8192 + 8192 + fc2 8192·2048
    // + 2048 + 2 LayerNorms 8192); final_layer_norm 4096; lm_head tied.
    const double layer = 4 * (2048.0 * 2048 + 2048) + 2048.0 * 8192 + 8192 + 8192.0 * 2048 + 2048 + 8192;
    CHECK(count("opt-1.3b") == 50272.0 * 2048 + 2050.0 * 2048 + 24 * layer + 4096);
    // Hub safetensors metadata for facebook/opt-1.3b: 1.32B params.
    CHECK(count("opt-1.3b") == doctest::Approx(1.32e9).epsilon(0.01));
    const ModelConfig small = config_of("opt-350m");
    CHECK(small.embed_proj == 512);
    CHECK(small.post_norm);
    CHECK_FALSE(small.final_norm);  // do_layer_norm_before false: no final_layer_norm
    CHECK(has_module(small, "project_in"));
    // Hub safetensors metadata for facebook/opt-350m: 331M params.
    CHECK(count("opt-350m") == doctest::Approx(331e6).epsilon(0.01));
}

TEST_CASE("GPT-J 6B and GPT-NeoX 20B: parallel blocks, untied heads") {
    const ModelConfig j = config_of("gpt-j-6b");
    CHECK(j.norms_per_layer == 1);
    CHECK(j.activation == Activation::GeluTanhComposite);
    // wte 50400·4096; 28 × (ln_1 8192 + q, k, v, out 4·4096² + fc_in 4096·16384 + 16384 + fc_out 16384·4096
    // + 4096); ln_f 8192; lm_head 4096·50400 + bias 50400 = 6,050,882,784.
    const double layer = 8192 + 4 * 4096.0 * 4096 + 4096.0 * 16384 + 16384 + 16384.0 * 4096 + 4096;
    CHECK(count("gpt-j-6b") == 50400.0 * 4096 + 28 * layer + 8192 + 4096.0 * 50400 + 50400);
    // Model card EleutherAI/gpt-j-6b: "n_parameters 6,053,381,344".
    CHECK(count("gpt-j-6b") == doctest::Approx(6'053'381'344.0).epsilon(0.01));
    // GPT-NeoX-20B (Black et al. 2022, arXiv:2204.06745): 20,554,567,680 parameters; counted exactly.
    CHECK(count("gpt-neox-20b") == 20'554'567'680.0);
}

TEST_CASE("MPT-7B: fused Wqkv, no biases, LayerNorm weights only, ALiBi, tied head") {
    const ModelConfig c = config_of("mpt-7b");
    CHECK(c.alibi);
    CHECK(c.position_rows == 0);  // learned_pos_emb is ignored under ALiBi
    CHECK_FALSE(c.norm_bias);
    // wte 50432·4096; 32 × (norm_1, norm_2 2·4096 + Wqkv 4096·12288 + out_proj 4096² + up 4096·16384 + down);
    // norm_f 4096 = 6,649,286,656.
    const double layer = 2 * 4096.0 + 4096.0 * 12288 + 4096.0 * 4096 + 2 * 4096.0 * 16384;
    CHECK(count("mpt-7b") == 50432.0 * 4096 + 32 * layer + 4096);
    // Model card mosaicml/mpt-7b: "n_parameters 6.7B".
    CHECK(count("mpt-7b") == doctest::Approx(6.7e9).epsilon(0.01));
}

TEST_CASE("StableLM 2, Baichuan 2, InternLM2.5, EXAONE 3.5: Llama layouts with their own names and norms") {
    const ModelConfig s = config_of("stablelm-2-1.6b");
    CHECK(s.norm == NormKind::LayerNorm);
    CHECK(s.norm_bias);
    // 2 × 100352·2048 (untied) + 24 × (q, k, v, o 4·2048² + qkv bias 3·2048 + SwiGLU 3·2048·5632 + 2 LayerNorms 8192)
    // + final norm 4096 = 1,644,515,328.
    const double s_layer = 4 * 2048.0 * 2048 + 3 * 2048 + 3 * 2048.0 * 5632 + 8192;
    CHECK(count("stablelm-2-1.6b") == 2 * 100352.0 * 2048 + 24 * s_layer + 4096);
    // Hub safetensors metadata for stabilityai/stablelm-2-1_6b: 1.64B params.
    CHECK(count("stablelm-2-1.6b") == doctest::Approx(1.64e9).epsilon(0.01));
    const ModelConfig b7 = config_of("baichuan2-7b-base"), b13 = config_of("baichuan2-13b-base");
    CHECK_FALSE(b7.alibi);  // hidden 4096: RoPE
    CHECK(b13.alibi);       // 13B: ALiBi
    CHECK(has_module(b7, "W_pack"));
    // Hub safetensors metadata: Baichuan2-7B-Base 7.51B, Baichuan2-13B-Base 13.9B params.
    CHECK(count("baichuan2-7b-base") == doctest::Approx(7.51e9).epsilon(0.01));
    CHECK(count("baichuan2-13b-base") == doctest::Approx(13.9e9).epsilon(0.01));
    const ModelConfig i = config_of("internlm2.5-7b");
    CHECK(has_module(i, "wqkv"));
    CHECK(has_module(i, "feed_forward.w2"));
    // tok_embeddings + output 2·92544·4096; 32 × (wqkv 4096·6144 + wo 4096² + w1, w3, w2 3·4096·14336 + 2 norms).
    CHECK(count("internlm2.5-7b") ==
          2 * 92544.0 * 4096 + 32 * (4096.0 * 6144 + 4096.0 * 4096 + 3 * 4096.0 * 14336 + 8192) + 4096);
    // Hub safetensors metadata for internlm/internlm2_5-7b-chat: 7.74B params.
    CHECK(count("internlm2.5-7b") == doctest::Approx(7.74e9).epsilon(0.01));
    // Model card LGAI-EXAONE/EXAONE-3.5-7.8B-Instruct: 7.8B parameters, "6.98B without embeddings".
    const double exaone = count("exaone-3.5-7.8b");
    CHECK(exaone == doctest::Approx(7.8e9).epsilon(0.01));
    CHECK(exaone - 2 * 102400.0 * 4096 == doctest::Approx(6.98e9).epsilon(0.01));
}

TEST_CASE("ChatGLM3-6B and Qwen-7B (v1): fused projections with a q/k/v bias, padded vocabularies") {
    const ModelConfig g = config_of("chatglm3-6b");
    CHECK(g.kv_heads == 2);  // multi_query_group_num
    CHECK(g.head_dim == 128);  // kv_channels
    CHECK(g.vocab == 65024);   // padded_vocab_size
    CHECK(g.head == Head::CausalLM);  // "ChatGLMModel" holds output_layer
    // 2·65024·4096 + 28 × (qkv 4096·4608 + 4608, dense 4096², h_to_4h 4096·27392, 4h_to_h 13696·4096, 2 norms)
    // + final_layernorm 4096 = 6,243,584,000.
    CHECK(count("chatglm3-6b") == 2 * 65024.0 * 4096 +
                                      28 * (4096.0 * 4608 + 4608 + 4096.0 * 4096 + 4096.0 * 27392 + 13696.0 * 4096 + 8192) + 4096);
    // Hub safetensors metadata for THUDM/chatglm3-6b: 6.24B params.
    CHECK(count("chatglm3-6b") == doctest::Approx(6.24e9).epsilon(0.01));
    const ModelConfig q = config_of("qwen-7b");
    CHECK(q.intermediate == 11008);  // intermediate_size 22016 is w1 + w2
    // 2·151936·4096 + 32 × (c_attn 4096·12288 + 12288, c_proj 4096², w1, w2 2·4096·11008, c_proj 11008·4096, 2 norms).
    CHECK(count("qwen-7b") == 2 * 151936.0 * 4096 +
                                  32 * (4096.0 * 12288 + 12288 + 4096.0 * 4096 + 3 * 4096.0 * 11008 + 8192) + 4096);
    // Hub safetensors metadata for Qwen/Qwen-7B: 7.72B params.
    CHECK(count("qwen-7b") == doctest::Approx(7.72e9).epsilon(0.01));
}

TEST_CASE("StarCoder2-3B: biases everywhere, LayerNorm, a 4096-token window in every layer") {
    const ModelConfig c = config_of("starcoder2-3b");
    CHECK(c.kv_kind_count(ModelConfig::KvKind::Sliding) == 30);
    CHECK(c.sliding_window == 4096);
    CHECK(c.tied_embeddings);  // Starcoder2Config default
    // 49152·3072; 30 × (q, o 2·(3072² + 3072) + k, v 2·(3072·256 + 256) + c_fc 3072·12288 + 12288 + c_proj 12288·3072
    // + 3072 + 2 LayerNorms 12288); final norm 6144 = 3,030,371,328.
    const double layer = 2 * (3072.0 * 3072 + 3072) + 2 * (3072.0 * 256 + 256) + 3072.0 * 12288 + 12288 + 12288.0 * 3072 + 3072 + 12288;
    CHECK(count("starcoder2-3b") == 49152.0 * 3072 + 30 * layer + 6144);
    // Hub safetensors metadata for bigcode/starcoder2-3b: 3.03B params.
    CHECK(count("starcoder2-3b") == doctest::Approx(3.03e9).epsilon(0.01));
}

TEST_CASE("LoRA targets match module names by suffix, as PEFT does") {
    const Model bert = prepare_model(config_of("bert-large-uncased"));
    // "dense" is attention.output.dense (1024²), intermediate.dense (1024·4096) and output.dense (4096·1024):
    // r·(in + out) × 24 layers each, r = 8; the MLM transform dense (1024²) once.
    const Job j = test::job({{"mode", "lora"}, {"lora_rank", 8}, {"lora_targets", "dense"}});
    CHECK(make_plan(bert, j).trainable == 8.0 * (24 * (2048 + 5120 + 5120) + 2048));
    const Job q = test::job({{"mode", "lora"}, {"lora_rank", 8}, {"lora_targets", "query,value"}});
    CHECK(make_plan(bert, q).trainable == 8.0 * 24 * 2 * 2048);
    // T5's "q" is the self-attention's and the cross-attention's (EncDecAttention.q): 12 + 2·12 copies.
    const Model t5 = prepare_model(parse_config_text(test::fixture("t5-base.config.json")));
    const Job tq = test::job({{"mode", "lora"}, {"lora_rank", 4}, {"lora_targets", "q"}});
    CHECK(make_plan(t5, tq).trainable == 4.0 * (768 + 768) * (12 + 12 + 12));
}
