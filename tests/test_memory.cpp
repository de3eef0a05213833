// Memory terms, each checked against a value computed by hand from the
// documented formula (arithmetic in the comments) or a published figure.
#include <doctest/doctest.h>

#include "errors.hpp"
#include "helpers.hpp"

using namespace vramcalc;
using nlohmann::json;

namespace {

const double P8B = 8'030'261'248.0;  // Llama-3-8B, see test_params.cpp
const double EMB8B = 2 * 525'336'576.0;

double term(const Breakdown& b, TermIndex t) { return b.bytes[t]; }
Breakdown run(const std::string& model_id, const json& job) {
    return compute_breakdown(test::model(model_id), test::job(job));
}
const GpuFit& fit_for(const Estimate& e, const std::string& id) {
    for (const auto& f : e.fits)
        if (f.id == id) return f;
    throw std::runtime_error("no gpu " + id);
}

}  // namespace

TEST_CASE("seed example: Llama-3-8B BF16 weights are 16.06 GB") {
    const Breakdown b = run("llama-3-8b", {{"dtype", "bf16"}});
    CHECK(term(b, kWeights) == P8B * 2);  // 16,060,522,496 bytes
    CHECK(term(b, kWeights) / test::GB == doctest::Approx(16.06).epsilon(0.001));
}

TEST_CASE("seed example: Llama-3-8B inference fits a 24 GB GPU") {
    const Estimate e = estimate(test::model("llama-3-8b"), test::job({{"mode", "inference"}}));
    // weights 16,060,522,496
    // KV: 32 layers · 2 · 8 heads · 128 · 4096 tokens · 2 bytes = 536,870,912
    // working set: 4096 · (2·4096 + 3·14336) · 2 = 419,430,400, + last-token logits 4 · 128256 = 513,024
    // overhead: 1e9 + 5% of 17,017,336,832
    const double tensors = P8B * 2 + 536'870'912.0 + 419'430'400.0 + 513'024.0;
    CHECK(e.breakdown.total() == doctest::Approx(tensors * 1.05 + 1e9));
    CHECK(e.breakdown.total() < 24 * test::GiB);
    CHECK(fit_for(e, "rtx4090").fits_as_configured);
    CHECK(fit_for(e, "rtx4090").gpus_needed == 1);
    CHECK_FALSE(fit_for(e, "t4").fits_as_configured);  // 16 GiB is less than the 16.06 GB of weights alone
}

TEST_CASE("seed example: mixed-precision AdamW training of Llama-3-8B needs 120+ GB, 6-10x the weights") {
    const Estimate e = estimate(test::model("llama-3-8b"), test::job({{"mode", "train"}, {"optimizer", "adamw"}}));
    const auto& by = e.breakdown.bytes;
    // ZeRO paper (Rajbhandari et al. 2019, §3.1): 2 + 2 + 12 = 16 bytes per parameter of model states.
    CHECK(by[kWeights] == P8B * 2);
    CHECK(by[kGradients] == P8B * 2);
    CHECK(by[kOptimizer] == P8B * 12);
    // Activations (flash attention, no checkpointing): 32 · 34 · 4096 · 1 · 4096 = 18,253,611,008
    // + fp32 logits 4 · 4096 · 128256 = 2,101,346,304
    CHECK(by[kActivations] == 18'253'611'008.0 + 2'101'346'304.0);
    // total = (128,484,179,968 + 20,354,957,312) · 1.05 + 1e9 = 157,281,094,144
    CHECK(e.breakdown.total() == doctest::Approx(157'281'094'144.0));
    CHECK(e.breakdown.total() >= 120 * test::GB);
    CHECK(e.ratio_to_weights == doctest::Approx(157'281'094'144.0 / (P8B * 2)));
    CHECK(e.ratio_to_weights > 6);
    CHECK(e.ratio_to_weights < 10);
}

TEST_CASE("training / weights ratio lands in 6-10x across typical settings (derived, not hard-coded)") {
    struct Case { json job; double expected_total; };
    const Case cases[] = {
        // full checkpointing, b=1, s=4096: activations 32·2·4096·4096 + 34·4096·4096 + 4·4096·128256
        //   = 1,073,741,824 + 570,425,344 + 2,101,346,304 = 3,745,513,472
        {{{"mode", "train"}, {"checkpointing", "full"}}, (16 * P8B + 3'745'513'472.0) * 1.05 + 1e9},
        // full checkpointing, b=8, s=2048: 4,294,967,296 + 2,281,701,376 + 8,405,385,216 = 14,982,053,888
        {{{"mode", "train"}, {"checkpointing", "full"}, {"batch", 8}, {"seq", 2048}},
         (16 * P8B + 14'982'053'888.0) * 1.05 + 1e9},
    };
    for (const auto& c : cases) {
        CAPTURE(c.job.dump());
        const Estimate e = estimate(test::model("llama-3-8b"), test::job(c.job));
        CHECK(e.breakdown.total() == doctest::Approx(c.expected_total));
        CHECK(e.ratio_to_weights > 6);
        CHECK(e.ratio_to_weights < 10);
    }
}

TEST_CASE("activations follow Korthikanti et al. 2022") {
    // b=1, s=2048, h=4096, a=32, L=32, V=128256
    const double logits = 4.0 * 2048 * 128256;  // 1,050,673,152
    SUBCASE("no recomputation, eager attention: s·b·h·(34 + 5·a·s/h) per layer") {
        // 2048·4096·(34 + 5·32·2048/4096) = 8,388,608 · 114 = 956,301,312 per layer
        const Breakdown b = run("llama-3-8b", {{"mode", "train"}, {"seq", 2048}, {"flash_attention", false}});
        CHECK(term(b, kActivations) == 32 * 956'301'312.0 + logits);
    }
    SUBCASE("selective recomputation drops the 5·a·s/h term") {
        const Breakdown b = run("llama-3-8b", {{"mode", "train"}, {"seq", 2048}, {"flash_attention", false},
                                               {"checkpointing", "selective"}});
        CHECK(term(b, kActivations) == 32 * 34 * 8'388'608.0 + logits);
    }
    SUBCASE("full checkpointing keeps 2·s·b·h per layer plus one live layer") {
        const Breakdown b = run("llama-3-8b", {{"mode", "train"}, {"seq", 2048}, {"flash_attention", false},
                                               {"checkpointing", "full"}});
        CHECK(term(b, kActivations) == 32 * 2 * 8'388'608.0 + 956'301'312.0 + logits);
    }
    SUBCASE("tensor parallelism with sequence parallelism divides by t") {
        const Breakdown b = run("llama-3-8b", {{"mode", "train"}, {"seq", 2048}, {"gpus", 8}, {"tp", 8}});
        CHECK(term(b, kActivations) == (32 * 34 * 8'388'608.0 + logits) / 8);
    }
    SUBCASE("fp32 training doubles the 16-bit activation bytes, logits stay fp32") {
        const Breakdown b = run("llama-3-8b", {{"mode", "train"}, {"seq", 2048}, {"dtype", "fp32"}});
        CHECK(term(b, kActivations) == 2 * 32 * 34 * 8'388'608.0 + logits);
    }
}

TEST_CASE("KV cache") {
    SUBCASE("Llama-3-8B GQA: 128 KiB per token in bf16") {
        // 32 layers · 2 · 8 kv heads · 128 · 2 bytes = 131,072 bytes per token
        const Breakdown b = run("llama-3-8b", {{"seq", 8192}, {"batch", 4}});
        CHECK(term(b, kKvCache) == 131'072.0 * 8192 * 4);
    }
    SUBCASE("fp8 KV cache halves it") {
        CHECK(term(run("llama-3-8b", {{"seq", 8192}, {"kv_dtype", "fp8"}}), kKvCache) == 65'536.0 * 8192);
    }
    SUBCASE("DeepSeek-V3 MLA caches a 512 + 64 latent per layer") {
        // 61 layers · (512 + 64) · 2 bytes = 70,272 bytes per token (DeepSeek-V2 paper §2.1.2: (d_c + d_h^R)·l)
        CHECK(term(run("deepseek-v3", {{"seq", 1000}}), kKvCache) == 70'272.0 * 1000);
    }
    SUBCASE("tensor parallel splits KV heads, replicating them beyond kv_heads") {
        const double full = 131'072.0 * 4096;
        CHECK(term(run("llama-3-8b", {{"gpus", 8}}), kKvCache) == full / 8);
        // TP 16 > 8 KV heads: each rank still holds one whole head -> 1/8 of the cache
        CHECK(term(run("llama-3-8b", {{"gpus", 16}}), kKvCache) == full / 8);
    }
    SUBCASE("training keeps no KV cache") {
        CHECK(term(run("llama-3-8b", {{"mode", "train"}}), kKvCache) == 0);
    }
}

TEST_CASE("ZeRO stages partition model states over data-parallel GPUs") {
    // ZeRO paper Fig. 1 with K = 12, N_d = 8: per-GPU model states
    //   stage 0: 16Ψ, stage 1: 4Ψ + 12Ψ/8, stage 2: 2Ψ + 14Ψ/8, stage 3: 16Ψ/8
    const double expected[] = {16 * P8B, 4 * P8B + 12 * P8B / 8, 2 * P8B + 14 * P8B / 8, 16 * P8B / 8};
    for (int stage = 0; stage <= 3; ++stage) {
        CAPTURE(stage);
        const Breakdown b = run("llama-3-8b", {{"mode", "train"}, {"gpus", 8}, {"zero", stage}});
        CHECK(term(b, kWeights) + term(b, kGradients) + term(b, kOptimizer) == doctest::Approx(expected[stage]));
    }
}

TEST_CASE("pipeline parallel splits model states but not first-stage activations") {
    const Breakdown one = run("llama-3-8b", {{"mode", "train"}});
    const Breakdown pp4 = run("llama-3-8b", {{"mode", "train"}, {"gpus", 4}, {"pp", 4}});
    CHECK(term(pp4, kWeights) == term(one, kWeights) / 4);
    CHECK(term(pp4, kOptimizer) == term(one, kOptimizer) / 4);
    CHECK(term(pp4, kActivations) == term(one, kActivations));
}

TEST_CASE("LoRA and QLoRA") {
    // LoRA r=16 on every linear layer of Llama-3-8B, per layer:
    // q 16·(4096+4096) + k 16·(4096+1024) + v 16·(4096+1024) + o 16·(4096+4096) + 3 · 16·(4096+14336)
    // = 131,072 + 81,920 + 81,920 + 131,072 + 884,736 = 1,310,720; · 32 layers = 41,943,040
    // (the "trainable params: 41,943,040" PEFT prints for this setup)
    const double lora = 41'943'040.0;
    SUBCASE("LoRA: frozen bf16 base, fp32 adapters with AdamW") {
        const Breakdown b = run("llama-3-8b", {{"mode", "lora"}});
        CHECK(trainable_params(test::model("llama-3-8b"), test::job({{"mode", "lora"}})) == lora);
        CHECK(term(b, kWeights) == P8B * 2 + lora * 4);
        CHECK(term(b, kGradients) == lora * 4);
        CHECK(term(b, kOptimizer) == lora * 8);  // m + v; adapters are already fp32, no master copy
    }
    SUBCASE("LoRA targets by module name: q_proj,v_proj only") {
        // 32 · (131,072 + 81,920) = 6,815,744 (PEFT's default Llama targets)
        CHECK(trainable_params(test::model("llama-3-8b"),
                               test::job({{"mode", "lora"}, {"lora_targets", "q_proj,v_proj"}})) == 6'815'744.0);
    }
    SUBCASE("QLoRA: NF4 base (4.127 bits, Dettmers et al. 2023), embeddings kept bf16") {
        const Breakdown b = run("llama-3-8b", {{"mode", "qlora"}});
        CHECK(term(b, kWeights) == doctest::Approx((P8B - EMB8B) * 4.127 / 8 + EMB8B * 2 + lora * 4));
        CHECK(term(b, kWeights) < 7 * test::GB);
    }
}

TEST_CASE("weight formats") {
    SUBCASE("GGUF Q4_K_M: 4.85 bits on every tensor") {
        // llama.cpp's Meta-Llama-3-8B Q4_K_M file is 4.92 GB; 8.03 B · 4.85 / 8 = 4.87 GB is within 1%.
        const double bytes = term(run("llama-3-8b", {{"dtype", "q4_k_m"}}), kWeights);
        CHECK(bytes == doctest::Approx(P8B * 4.85 / 8));
        CHECK(bytes == doctest::Approx(4.92e9).epsilon(0.015));
    }
    SUBCASE("INT4 (AWQ/GPTQ-style) quantizes linear layers, keeps embeddings 16-bit") {
        CHECK(term(run("llama-3-8b", {{"dtype", "int4"}}), kWeights) == (P8B - EMB8B) * 0.5 + EMB8B * 2);
    }
    SUBCASE("fp32 is 4 bytes, int8 1 byte for linear layers") {
        CHECK(term(run("llama-3-8b", {{"dtype", "fp32"}}), kWeights) == P8B * 4);
        CHECK(term(run("llama-3-8b", {{"dtype", "int8"}}), kWeights) == (P8B - EMB8B) + EMB8B * 2);
    }
}

TEST_CASE("optimizers") {
    SUBCASE("SGD, momentum, 8-bit Adam with fp32 master weights") {
        CHECK(term(run("llama-3-8b", {{"mode", "train"}, {"optimizer", "sgd"}}), kOptimizer) == 4 * P8B);
        CHECK(term(run("llama-3-8b", {{"mode", "train"}, {"optimizer", "sgd"}, {"master_weights", false}}),
                   kOptimizer) == 0);
        CHECK(term(run("llama-3-8b", {{"mode", "train"}, {"optimizer", "sgd_momentum"}}), kOptimizer) == 8 * P8B);
        CHECK(term(run("llama-3-8b", {{"mode", "train"}, {"optimizer", "adam_8bit"}}), kOptimizer) ==
              doctest::Approx((2 + 8.0 / 2048 + 4) * P8B));
    }
    SUBCASE("fp32 training has no separate master copy: 4 + 4 + 8 = 16 bytes") {
        const Breakdown b = run("llama-3-8b", {{"mode", "train"}, {"dtype", "fp32"}});
        CHECK(term(b, kWeights) + term(b, kGradients) + term(b, kOptimizer) == 16 * P8B);
    }
    SUBCASE("Adafactor keeps rows + columns per matrix") {
        // Tiny Llama: h=512, L=2, 8 heads, I=1024, V=1000, untied. Factored values:
        // embed 1000+512, per layer q,k,v,o 4·1024 + gate,up,down 3·1536 = 8,704 (·2 layers),
        // norms 4·512 + 512 (full vectors), lm_head 512+1000 -> 22,992 fp32 values
        // P = 1,024,000 + 2·(1,048,576 + 1,572,864 + 1,024) + 512 = 6,269,440 (master copy 4 bytes each)
        const Model tiny = prepare_model(parse_config(json{{"model_type", "llama"}, {"hidden_size", 512},
                                                           {"num_hidden_layers", 2}, {"num_attention_heads", 8},
                                                           {"intermediate_size", 1024}, {"vocab_size", 1000}}));
        const Breakdown b = compute_breakdown(tiny, test::job({{"mode", "train"}, {"optimizer", "adafactor"}}));
        CHECK(term(b, kOptimizer) == 4 * 22'992.0 + 4 * 6'269'440.0);
    }
}

TEST_CASE("MoE: DeepSeek-class 671 B at FP16 is about 1.3-1.5 TB, far less quantized") {
    const Estimate fp16 = estimate(test::model("deepseek-v3"), test::job({{"dtype", "fp16"}}));
    CHECK(fp16.breakdown.bytes[kWeights] == 671'026'419'200.0 * 2);  // 1.342 TB
    CHECK(fp16.breakdown.total() > 1.3e12);
    CHECK(fp16.breakdown.total() < 1.5e12);
    const Breakdown q4 = run("deepseek-v3", {{"dtype", "q4_k_m"}});
    CHECK(term(q4, kWeights) == doctest::Approx(671'026'419'200.0 * 4.85 / 8));
    CHECK(q4.total() < 0.35 * fp16.breakdown.total());
}

TEST_CASE("GPU fit: smallest sharded count") {
    SUBCASE("DeepSeek-V3 FP16 inference takes 24 H100s, 8 B200s") {
        // 16 H100: 1342.05/16 = 83.88 GB of weights, · 1.05 + 1 GB > 85.9 GB -> no; 24: 55.9 GB of weights -> yes.
        // 8 B200: 167.8 GB of weights, about 177.5 GB with overhead < 193.3 GB (180 GiB).
        const Estimate e = estimate(test::model("deepseek-v3"), test::job({{"dtype", "fp16"}}));
        CHECK(fit_for(e, "h100").gpus_needed == 24);
        CHECK(fit_for(e, "b200").gpus_needed == 8);
        CHECK_FALSE(fit_for(e, "h100").fits_as_configured);
    }
    SUBCASE("GPT-2's 12 heads split 4 ways, not 8: 8 GPUs are TP 4 x PP 2") {
        // Batch 1024 x 1024 tokens on 16 GiB (17.18 GB) T4s. KV: 12 layers · 2 · 768 · 2 bytes = 36,864 bytes
        // per token · 1,048,576 tokens = 38.65 GB; working set b·s·(2h + 3·I/t)·2 with h = 768, I = 3072.
        // 4 GPUs (TP 4): 38.65/4 + 1,048,576·(1536 + 2304)·2 = 9.66 + 8.05 GB, ·1.05 + 1 = 19.7 GB: too much.
        // 8 GPUs (TP 4 x PP 2): 4.83 + 8.05 GB, ·1.05 + 1 = 14.6 GB: fits.
        const Estimate e = estimate(test::model("gpt2"), test::job({{"batch", 1024}, {"seq", 1024}}));
        CHECK(fit_for(e, "t4").gpus_needed == 8);
        CHECK_THROWS_WITH_AS(estimate(test::model("gpt2"), test::job({{"gpus", 8}})),
                             doctest::Contains("job.gpus: tensor parallel degree 8 must divide num_attention_heads (12)"),
                             InputError);
        const Breakdown tp4pp2 = run("gpt2", {{"gpus", 8}, {"tp", 4}, {"pp", 2}});
        CHECK(term(tp4pp2, kKvCache) == 12 * 2 * 768 * 2.0 * 4096 / 8);
    }
    SUBCASE("Llama-3-8B AdamW training needs 4 H100 with ZeRO-3") {
        // per GPU = (128.48 GB / n + 20.35 GB) · 1.05 + 1 GB: n=2 -> 89.8 GB > 85.9; n=4 -> 56.1 GB
        const Estimate e = estimate(test::model("llama-3-8b"), test::job({{"mode", "train"}}));
        CHECK(fit_for(e, "h100").gpus_needed == 4);
        // 16 GiB T4: activations alone (20.35 GB · 1.05 + 1) exceed it at any count
        CHECK(fit_for(e, "t4").gpus_needed == 0);
    }
}
