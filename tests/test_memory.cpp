// Memory terms, each checked against a value computed by hand from the
// documented formula (arithmetic in the comments) or a published figure.
#include <doctest/doctest.h>

#include "text/errors.hpp"
#include "helpers.hpp"
#include "step/timeline.hpp"

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

// Llama-3-8B block, bytes saved per token (h 4096, 32 heads, 8 KV heads of 128, I 14336), bf16, full training,
// derived op by op in core/activations.cpp and checked against autograd in tests/calibration/:
//   norms 2 · (fp32 copy 4h + rstd 4 + normalized 2h) = 49,160; q/k/v input 2h = 8,192;
//   q 2·4096 + k, v at KV width 2 · 2·1024 = 12,288; flash output 2·4096 + fp32 logsumexp 4·32 = 8,320;
//   o_proj input: a view of that output; MLP input 2h = 8,192; gate, silu, up, product 4 · 2·14336 = 114,688
const double kLlama8BFlash = 49'160 + 8'192 + 12'288 + 8'320 + 8'192 + 114'688;  // 200,840
const double kTV4096 = 4096.0 * 128256;  // tokens × vocabulary
const double kHeadInput4096 = 4096.0 * 4096 * 2;  // lm_head's input (tokens × hidden, bf16), saved for its weight gradient

TEST_CASE("seed example: mixed-precision AdamW training of Llama-3-8B needs 120+ GB, 6-10x the weights") {
    const Estimate e = estimate(test::model("llama-3-8b"), test::job({{"mode", "train"}, {"optimizer", "adamw"}}));
    const auto& by = e.breakdown.bytes;
    // ZeRO paper (Rajbhandari et al. 2019, §3.1): 2 + 2 + 12 = 16 bytes per parameter of model states.
    CHECK(e.model_states_bytes == P8B * 16);
    // The peak is the loss backward: weights and optimizer states, every block's saved tensors and the
    // cross-entropy's fp32 buffers (saved log-probabilities + NLL gradient + log_softmax gradient = 12 bytes
    // per logit); of the gradients only lm_head's exists yet (128256 × 4096 × 2 bytes), the rest were freed
    // by zero_grad(set_to_none=True) and appear during the layers' backward.
    CHECK(std::string(e.timeline.phases[e.timeline.peak].key) == "loss_backward");
    CHECK(by[kWeights] == P8B * 2);
    CHECK(by[kOptimizer] == P8B * 12);
    CHECK(by[kGradients] == 128256.0 * 4096 * 2);
    CHECK(by[kActivations] == 32 * 4096 * kLlama8BFlash);  // 26,324,131,840
    // + lm_head's saved input (the final norm's output, 4096 tokens × 4096 × 2 bytes) for its weight gradient
    CHECK(by[kLogits] == 12 * kTV4096 + kHeadInput4096);   // 6,304,038,912 + 33,554,432
    const double allocated = 14 * P8B + 128256.0 * 4096 * 2 + 32 * 4096 * kLlama8BFlash + 12 * kTV4096 + kHeadInput4096;
    CHECK(e.allocated_bytes == doctest::Approx(allocated));
    CHECK(e.breakdown.total() == doctest::Approx(allocated * 1.05 + 1e9));  // 154.44 GB
    CHECK(e.breakdown.total() >= 120 * test::GB);
    CHECK(e.ratio_to_weights == doctest::Approx(e.breakdown.total() / (P8B * 2)));
    CHECK(e.ratio_to_weights > 6);
    CHECK(e.ratio_to_weights < 10);
}

TEST_CASE("training timeline: the phase that peaks depends on the recipe") {
    SUBCASE("small activations and a foreach AdamW step: the optimizer step peaks") {
        // checkpointed, 512 tokens: step = 2P weights + 2P gradients + 12P states + 4P fp32 sqrt(v) temporary
        const Estimate e = estimate(test::model("llama-3-8b"), test::job({{"mode", "train"}, {"seq", 512},
                                                                          {"checkpointing", "full"}, {"optimizer_impl", "foreach"}}));
        CHECK(std::string(e.timeline.phases[e.timeline.peak].key) == "optimizer");
        CHECK(e.allocated_bytes == doctest::Approx(20 * P8B));
    }
    SUBCASE("optimizer in backward: no step phase, one tensor's gradient at a time") {
        const Estimate e = estimate(test::model("llama-3-8b"),
                                    test::job({{"mode", "train"}, {"seq", 512}, {"checkpointing", "full"},
                                               {"optimizer_in_backward", true}, {"precision", "pure"}, {"optimizer_dtype", "bf16"}}));
        CHECK(e.timeline.count == 3);
        // backward end: the largest tensor's gradient: the 128256 × 4096 embedding, 2 bytes
        const Phase& bw = e.timeline.phases[2];
        CHECK(bw.bytes[kGradients] == 2 * 525'336'576.0);
        CHECK(e.model_states_bytes == 8 * P8B);  // pure bf16: 2 + 2 + 2·2
    }
    SUBCASE("gradient accumulation keeps gradients through forward") {
        const Breakdown b = run("llama-3-8b", {{"mode", "train"}, {"grad_accum", 4}});
        CHECK(term(b, kGradients) == 2 * P8B);
    }
}

TEST_CASE("activations: what one block saves, per attention kernel and recipe") {
    const Model m = test::model("llama-3-8b");
    auto layer = [&](const json& job) { return estimate(m, test::job(job), false).layer.total; };
    const double T = 2048;
    CHECK(layer({{"mode", "train"}, {"seq", 2048}}) == kLlama8BFlash * T);
    // SDPA after repeat_kv: k and v at all 32 heads (+16,384) and o_proj's transposed input (+8,192)
    CHECK(layer({{"mode", "train"}, {"seq", 2048}, {"attention", "sdpa"}}) == 221'320 * T);
    // eager: fp32 softmax 4·32·2048 + its bf16 copy 2·32·2048 instead of output + lse
    CHECK(layer({{"mode", "train"}, {"seq", 2048}, {"attention", "eager"}}) == 606'216 * T);
    // torch.compile: norms keep input + rstd (2 · 8,196), SwiGLU keeps g, u and the product (6 · 14336)
    CHECK(layer({{"mode", "train"}, {"seq", 2048}, {"compile", true}}) == 139'400 * T);
    // fp32: norms 2 · (4h + 4 + 4h), everything else at 4 bytes
    CHECK(layer({{"mode", "train"}, {"seq", 2048}, {"dtype", "fp32"}}) == 368'776 * T);
    // LoRA on q, v (frozen base): frozen linears save no input, frozen norm weights no normalized copy;
    // lora_A keeps the shared input (2h) and lora_B each A output (2 · 16 · 2 bytes)
    CHECK(layer({{"mode", "lora"}, {"seq", 2048}, {"lora_targets", "q_proj,v_proj"}}) ==
          (2 * (4 * 4096 + 4) + 8'192 + 64 + 12'288 + 8'320 + 3 * 2 * 14336) * T);
    SUBCASE("checkpointing") {
        const Estimate full = estimate(m, test::job({{"mode", "train"}, {"seq", 2048}, {"checkpointing", "full"}}), false);
        const Estimate sel = estimate(m, test::job({{"mode", "train"}, {"seq", 2048}, {"attention", "eager"},
                                                    {"checkpointing", "selective"}}), false);
        const Estimate none = estimate(m, test::job({{"mode", "train"}, {"seq", 2048}, {"attention", "eager"}}), false);
        // full: each block's input (2h per token) kept; at the end of backward (all gradients live) the
        // last block's input, that block recomputed, and the gradients flowing through it
        const Phase& bw = full.timeline.phases[2];
        CHECK(bw.bytes[kGradients] == 2 * P8B);
        CHECK(bw.bytes[kActivations] == doctest::Approx(2 * 4096 * T + kLlama8BFlash * T + T * (2 * 4096 + 2 * 14336) * 2));
        CHECK(full.timeline.phases[0].bytes[kActivations] == 32 * 2 * 4096 * T);
        // selective: the eager scores (393,216 per token per block) are dropped and recomputed
        CHECK(sel.timeline.phases[0].bytes[kActivations] ==
              none.timeline.phases[0].bytes[kActivations] - 32 * 393'216 * T);
        CHECK(full.breakdown.total() < sel.breakdown.total());
        CHECK(sel.breakdown.total() < none.breakdown.total());
    }
    SUBCASE("tensor + sequence parallelism and context parallelism divide a block") {
        CHECK(layer({{"mode", "train"}, {"seq", 2048}, {"gpus", 8}, {"tp", 8}}) == kLlama8BFlash * T / 8);
        CHECK(layer({{"mode", "train"}, {"seq", 2048}, {"gpus", 4}, {"cp", 4}}) == kLlama8BFlash * T / 4);
    }
}

TEST_CASE("cross-entropy buffers by loss implementation") {
    const Model m = test::model("llama-3-8b");
    auto logits = [&](const json& job) { return estimate(m, test::job(job), false).timeline.phases[1].bytes[kLogits]; };
    // Each beside lm_head's saved input (kHeadInput4096), which a trained head keeps for its weight gradient.
    // full: 12 bytes per logit while its gradient is computed
    CHECK(logits({{"mode", "train"}}) == 12 * kTV4096 + kHeadInput4096);
    // torchtune chunked (8 chunks): the saved fp32 log-probabilities of every chunk + one chunk's
    // NLL and log_softmax gradients (fp32) and its bf16 gradient: 4 + 10/8 bytes per logit
    CHECK(logits({{"mode", "train"}, {"loss", "chunked"}}) == doctest::Approx((4 + 10.0 / 8) * kTV4096 + kHeadInput4096));
    // compiled chunked: the bf16 chunks are kept, the fused backward writes one chunk's bf16 gradient: 2 + 2/8
    CHECK(logits({{"mode", "train"}, {"loss", "chunked"}, {"compile", true}}) == doctest::Approx((2 + 2.0 / 8) * kTV4096 + kHeadInput4096));
    // legacy fp32 logits (transformers <= 4.45): held fp32 logits + saved log-probs + two fp32 gradients
    CHECK(logits({{"mode", "train"}, {"loss", "full_fp32"}}) == 16 * kTV4096 + kHeadInput4096);
    // Compiled full cross-entropy saves its input and writes its gradient in the input's dtype
    // (Inductor's scatter_upon_const_tensor fuses nll_loss's backward): the 16-bit logits when the upcast
    // is inside the compiled loss (torchtitan: 2 + 2 bytes per logit), the model's fp32 logits when the
    // model upcasts them (torchtune: 4 + 4).
    CHECK(logits({{"mode", "train"}, {"compile", true}}) == 4 * kTV4096 + kHeadInput4096);
    CHECK(logits({{"mode", "train"}, {"compile", true}, {"logits_fp32", true}}) == 8 * kTV4096 + kHeadInput4096);
    // A frozen head keeps no input (LoRA on the blocks only): the logits' buffers alone.
    CHECK(logits({{"mode", "lora"}}) == 12 * kTV4096);
    // fused linear + CE keeps the input gradient (and the head's, which trains): 4096·4096·2 + 128256·4096·2
    CHECK(logits({{"mode", "train"}, {"loss", "fused"}}) == 4096.0 * 4096 * 2 + 128256.0 * 4096 * 2);
}

TEST_CASE("precision styles and memory kinds") {
    const Model m = test::model("llama-3-8b");
    // autocast: fp32 params, gradients, Adam m and v: 4 + 4 + 8 = 16 bytes per parameter
    const Estimate amp = estimate(m, test::job({{"mode", "train"}, {"precision", "autocast"}}), false);
    CHECK(amp.model_states_bytes == 16 * P8B);
    CHECK(amp.breakdown.bytes[kWeights] == 4 * P8B);
    // torchtune-style pure bf16 with bf16 AdamW states: 2 + 2 + 4
    CHECK(estimate(m, test::job({{"mode", "train"}, {"precision", "pure"}, {"optimizer_dtype", "bf16"}}), false)
              .model_states_bytes == 8 * P8B);
    // DeepSpeed / Megatron: fp32 gradient buffers make it 2 + 4 + 12 = 18
    CHECK(estimate(m, test::job({{"mode", "train"}, {"fp32_gradients", true}}), false).model_states_bytes == 18 * P8B);
    const Estimate kinds = estimate(m, test::job({{"mode", "train"}, {"report", "allocated"}}), false);
    CHECK(kinds.breakdown.total() == kinds.allocated_bytes);
    CHECK(kinds.reserved_bytes == doctest::Approx(kinds.allocated_bytes * 1.05));
    CHECK(kinds.device_bytes == doctest::Approx(kinds.allocated_bytes * 1.05 + 1e9));
    CHECK(estimate(m, test::job({{"mode", "train"}, {"report", "reserved"}}), false).breakdown.total() ==
          doctest::Approx(kinds.reserved_bytes));
}

TEST_CASE("framework presets set recipe fields, and the user's fields win") {
    const Job tt = test::job({{"mode", "train"}, {"framework", "torchtune"}});
    CHECK(tt.precision == Precision::Pure);
    CHECK(tt.optimizer_dtype->bits == 16);
    CHECK(tt.loss == Loss::Chunked);
    CHECK(tt.report == MemoryKind::Allocated);
    CHECK_FALSE(tt.assumptions.empty());
    const Job own = test::job({{"mode", "train"}, {"framework", "torchtune"}, {"loss", "full"}});
    CHECK(own.loss == Loss::Full);
    for (const auto& a : own.assumptions) CHECK(a.key != "loss");
    const Job ds = test::job({{"mode", "train"}, {"framework", "deepspeed"}});
    CHECK(ds.fp32_gradients);
    CHECK(ds.precision == Precision::Master);
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
        CHECK(term(run("llama-3-8b", {{"gpus", 16}, {"tp", 16}}), kKvCache) == full / 8);
        // 16 GPUs with no degree chosen: TP 8 inside the node × 2 pipeline stages (16 layers each) -> 1/16
        CHECK(term(run("llama-3-8b", {{"gpus", 16}}), kKvCache) == full / 16);
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
        const Estimate e = estimate(test::model("llama-3-8b"), test::job({{"mode", "train"}, {"gpus", 8}, {"zero", stage}}), false);
        CHECK(e.model_states_bytes == doctest::Approx(expected[stage]));
    }
}

// Pipeline stages, schedules and the other multi-GPU mechanisms: tests/test_parallel.cpp.

TEST_CASE("LoRA and QLoRA") {
    // LoRA r=16 on every linear layer of Llama-3-8B, per layer:
    // q 16·(4096+4096) + k 16·(4096+1024) + v 16·(4096+1024) + o 16·(4096+4096) + 3 · 16·(4096+14336)
    // = 131,072 + 81,920 + 81,920 + 131,072 + 884,736 = 1,310,720; · 32 layers = 41,943,040
    // (the "trainable params: 41,943,040" PEFT prints for this setup)
    const double lora = 41'943'040.0;
    SUBCASE("LoRA: frozen bf16 base, fp32 adapters with AdamW") {
        const Estimate e = estimate(test::model("llama-3-8b"), test::job({{"mode", "lora"}}), false);
        CHECK(trainable_params(test::model("llama-3-8b"), test::job({{"mode", "lora"}})) == lora);
        CHECK(e.breakdown.bytes[kWeights] == P8B * 2 + lora * 4);
        CHECK(e.breakdown.bytes[kOptimizer] == lora * 8);  // m + v; adapters are already fp32, no master copy
        CHECK(e.model_states_bytes == P8B * 2 + lora * 16);
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
              doctest::Approx((2 + 8.0 / 256 + 4) * P8B));
    }
    SUBCASE("fp32 training has no separate master copy: 4 + 4 + 8 = 16 bytes") {
        CHECK(estimate(test::model("llama-3-8b"), test::job({{"mode", "train"}, {"dtype", "fp32"}}), false).model_states_bytes ==
              16 * P8B);
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
        // H100: 79.11 GiB = 84.94 GB usable (core/gpus.cpp). 16 (TP 8 × PP 2): 1342.05/16 = 83.88 GB of
        // weights -> no; 17 (17 is prime: PP 17): 78.94 GB of weights + 1.06 GB activations and KV,
        // · 1.05 + 1 GB = 85.00 GB -> no, by 0.06 GB; 18 (TP 2 × PP 9): 74.56 GB of weights, 80.17 GB -> fits.
        // 8 B200: 167.8 GB of weights, about 177.5 GB with overhead < 191.5 GB (178.35 GiB).
        const Estimate e = estimate(test::model("deepseek-v3"), test::job({{"dtype", "fp16"}}));
        CHECK(fit_for(e, "h100").gpus_needed == 18);
        CHECK(fit_for(e, "b200").gpus_needed == 8);
        CHECK_FALSE(fit_for(e, "h100").fits_as_configured);
    }
    SUBCASE("GPT-2's 12 heads split 3 ways: exact counts, not a coarse list") {
        // Batch 1024 x 1024 tokens on T4s (14.56 GiB = 15.63 GB usable). KV: 12 layers · 2 · 768 · 2 bytes =
        // 36,864 bytes per token · 1,048,576 tokens = 38.65 GB. No engine: one prefill chunk of 8,192 tokens,
        // working set 8192·(2h + 3·I/t)·2 with h = 768, I = 3072, + last-token fp32 logits 4·1024·50257/t.
        // 2 GPUs (TP 2): 19.33 + 0.09 + 0.10 GB, ·1.05 + 1 = 21.5 GB: too much.
        // 3 GPUs (TP 3): 12.88 + 8192·(1536 + 3072)·2 + 4·1024·50257/3 = 12.88 + 0.08 + 0.07 GB,
        // ·1.05 + 1 = 14.7 GB: fits.
        const Estimate e = estimate(test::model("gpt2"), test::job({{"batch", 1024}, {"seq", 1024}}));
        CHECK(fit_for(e, "t4").gpus_needed == 3);
        CHECK_THROWS_WITH_AS(estimate(test::model("gpt2"), test::job({{"gpus", 8}, {"tp", 8}})),
                             doctest::Contains("job.tp: tensor parallel degree 8 must divide num_attention_heads (12)"),
                             InputError);
        const Breakdown tp4pp2 = run("gpt2", {{"gpus", 8}, {"tp", 4}, {"pp", 2}});
        CHECK(term(tp4pp2, kKvCache) == 12 * 2 * 768 * 2.0 * 4096 / 8);
        // Every count the table names is one the gpus field accepts: 8 with no degree chosen is the
        // table's layout (8 does not divide 12 heads; TP 4 × PP 2), and so are 5 (PP 5) and 6 (TP 6).
        CHECK(run("gpt2", {{"gpus", 8}}).bytes == tp4pp2.bytes);
        CHECK(term(run("gpt2", {{"gpus", 5}}), kKvCache) == 12 * 2 * 768 * 2.0 * 4096 / 5);
        CHECK(term(run("gpt2", {{"gpus", 6}}), kKvCache) == 12 * 2 * 768 * 2.0 * 4096 / 6);
    }
    SUBCASE("Llama-3-8B AdamW training needs 3 H100 with ZeRO-3") {
        // peak (loss backward) per GPU = (112.42 GB / n + 26.32 + 6.34 GB + gathered layers) · 1.05 + 1 GB:
        // n=2 -> 93.4 GB > 85.9; n=3 -> 73.7 GB
        const Estimate e = estimate(test::model("llama-3-8b"), test::job({{"mode", "train"}}));
        CHECK(fit_for(e, "h100").gpus_needed == 3);
        // 16 GiB T4: activations alone (20.35 GB · 1.05 + 1) exceed it at any count
        CHECK(fit_for(e, "t4").gpus_needed == 0);
    }
}

TEST_CASE("a sequence past the model's context (max_position_embeddings) is a hint in the answer, not an error") {
    const std::string cfg = vramcalc::find_model(test::models(), "llama-3-8b").config.dump();
    const nlohmann::json at = nlohmann::json::parse(vramcalc::estimate_request(cfg, R"({"seq":8192})"));
    CHECK(at["context_length"] == 8192);  // meta-llama/Meta-Llama-3-8B config.json
    CHECK(at["context_warning"] == "");
    const nlohmann::json past = nlohmann::json::parse(vramcalc::estimate_request(cfg, R"({"seq":8193})"));
    CHECK(past["ok"] == true);
    CHECK(past["context_warning"] == "Longer than the model's context of 8192 tokens (max_position_embeddings).");
}
