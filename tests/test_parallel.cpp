// Multi-GPU training, one mechanism per test case, each checked against bytes
// written out by hand from the framework's code (core/memory/parallel.cpp cites
// the functions; the arithmetic is in the comments).
#include <doctest/doctest.h>

#include "helpers.hpp"
#include "memory/parallel.hpp"
#include "memory/states.hpp"
#include "step/timeline.hpp"

using namespace vramcalc;
using nlohmann::json;

namespace {

// Llama-3-8B (test_params.cpp): one block 218,112,000 params, embedding = head = 525,336,576,
// final norm 4,096; 32 blocks.
const double BLOCK8B = 218'112'000.0, EMB8B = 525'336'576.0, P8B = 8'030'261'248.0;

struct Run {
    Model model;
    Job job;
    Plan plan;
    Layout layout;
    Run(const std::string& id, const json& fields)
        : model(test::model(id)), job(test::job(fields)), plan(make_plan(model, job)), layout(resolve_layout(model.config, job)) {}
    Share share(int64_t stage) const { return share_of(plan, layout, stage); }
    Step step() const { return run_step(plan, layout, false); }
};

}  // namespace

TEST_CASE("pipeline stages: each holds its blocks, the first the embedding, the last the head") {
    // 32 blocks over 4 stages: 8 each. bf16 weights, no sharding.
    const Run r("llama-3-8b", {{"mode", "train"}, {"gpus", 4}, {"pp", 4}});
    const Share first = r.share(0), middle = r.share(1), last = r.share(3);
    CHECK(first.dense == 8 * BLOCK8B + EMB8B + 8 * 4'096.0 / 32);  // the final norm spreads with the blocks' share
    CHECK(middle.dense == 8 * BLOCK8B + 8 * 4'096.0 / 32);
    CHECK(last.dense == 8 * BLOCK8B + EMB8B + 8 * 4'096.0 / 32);
    CHECK(weights_term(r.plan, r.layout, first, nullptr) == doctest::Approx(2 * (8 * BLOCK8B + EMB8B + 1'024)));
    // The estimate describes the stage that needs the most; pp_stage names one.
    const Breakdown f = compute_breakdown(r.model, test::job({{"mode", "train"}, {"gpus", 4}, {"pp", 4}, {"pp_stage", "first"}}));
    const Breakdown l = compute_breakdown(r.model, test::job({{"mode", "train"}, {"gpus", 4}, {"pp", 4}, {"pp_stage", "last"}}));
    CHECK(r.step().breakdown.total() == std::max(f.total(), l.total()));
    CHECK(l.bytes[kLogits] > 0);  // the loss runs on the last stage only
    CHECK(f.bytes[kLogits] == 0);
}

TEST_CASE("pipeline schedules: micro-batches in flight on the first and last stage") {
    // p = 4 stages, m = 8 micro-batches, v = 2 stages per rank for interleaved 1F1B.
    // GPipe: all 8 forwards before any backward. 1F1B: min(m, p - r) = 4 on the first, 1 on the last.
    // Interleaved: warm-up (v-1)·p + 2·(p-1-r) chunks + 1 = 4 + 6 + 1 = 11 chunks of L/(p·v) layers
    // on the first = 5.5 stage-units; (4 + 0 + 1)/2 = 2.5 on the last. ZBV: p on every rank.
    const json base = {{"mode", "train"}, {"gpus", 4}, {"pp", 4}, {"grad_accum", 8}};
    auto in_flight = [&](const char* schedule, int64_t stage) {
        json j = base;
        j["pp_schedule"] = schedule;
        return Run("llama-3-8b", j).share(stage).in_flight;
    };
    CHECK(in_flight("gpipe", 0) == 8);
    CHECK(in_flight("1f1b", 0) == 4);
    CHECK(in_flight("1f1b", 3) == 1);
    CHECK(in_flight("interleaved_1f1b", 0) == 5.5);
    CHECK(in_flight("interleaved_1f1b", 3) == 2.5);
    CHECK(in_flight("zbv", 3) == 4);
    // Fewer micro-batches than stages cap 1F1B's warm-up; under PP at least pp are assumed.
    CHECK(Run("llama-3-8b", {{"mode", "train"}, {"gpus", 4}, {"pp", 4}}).share(0).microbatches == 4);
    // Activations follow: 1F1B's first stage holds 4 micro-batches × 8 layers, the whole model's one.
    const Run one("llama-3-8b", {{"mode", "train"}});
    const Run pp4("llama-3-8b", {{"mode", "train"}, {"gpus", 4}, {"pp", 4}, {"grad_accum", 8}});
    CHECK(model_activations(pp4.plan, pp4.layout, pp4.share(0)).blocks ==
          doctest::Approx(model_activations(one.plan, one.layout, one.share(0)).blocks));
}

TEST_CASE("tensor parallel without sequence parallelism keeps the hidden-width tensors whole") {
    // Korthikanti et al. 2022 Table 2: per layer s·b·h·(10 + 24/t) without SP, 34·s·b·h/t with it.
    // For a GPT-2 block with fused kernels and dropout (the published row korthikanti-gpt3-selective),
    // the hidden-width tensors are the two LayerNorms' inputs (2·(2h + 4) with their statistics), the
    // qkv and first MLP inputs (2h each) and two dropout masks (h each): 10h + 8 bytes per token.
    const json config = {{"model_type", "gpt2"}, {"n_embd", 12288}, {"n_layer", 96}, {"n_head", 96},
                         {"vocab_size", 51200}, {"n_positions", 2048}};
    const Model m = prepare_model(parse_config(config));
    json job = {{"mode", "train"}, {"seq", 2048}, {"batch", 1}, {"gpus", 8}, {"tp", 8}, {"checkpointing", "selective"},
                {"attention", "eager"}, {"compile", true}};
    const Estimate sp = estimate(m, test::job(job), false);
    job["sequence_parallel"] = false;
    const Estimate no_sp = estimate(m, test::job(job), false);
    const double h = 12288, tokens = 2048, layers = 96;
    CHECK(no_sp.activations_saved_bytes - sp.activations_saved_bytes ==
          doctest::Approx(layers * tokens * (10 * h + 8) * (1 - 1.0 / 8)));
}

TEST_CASE("Megatron's distributed optimizer: 6 + 12/d bytes per parameter, 4 + 12/d with bf16 gradients") {
    // docs/user-guide/features/dist_optimizer.md: bf16 params, fp32 grads: 6 + 12/d (the grad buffer is full size).
    const Estimate meg = estimate(test::model("llama-3-8b"), test::job({{"mode", "train"}, {"framework", "megatron"},
                                                                       {"gpus", 8}, {"zero", 1}}), false);
    CHECK(meg.model_states_bytes == doctest::Approx(P8B * (2 + 4 + 12.0 / 8)));
    // NeMo's bf16_with_fp8_mixed sets grad_reduce_in_fp32 = False: 4 + 12/d; the buffer stays allocated.
    const Estimate nemo = estimate(test::model("llama-3-8b"), test::job({{"mode", "train"}, {"framework", "nemo"}, {"gpus", 8},
                                                                        {"fp32_gradients", false}, {"report", "allocated"}}), false);
    CHECK(nemo.model_states_bytes == doctest::Approx(P8B * (2 + 2 + 12.0 / 8)));
    CHECK(nemo.steady_bytes == doctest::Approx(P8B * (2 + 2 + 12.0 / 8)));
}

TEST_CASE("FSDP2 (torchtitan): gathered units, reduce-scatter in fp32, the head kept gathered") {
    // torchtitan on 8 GPUs: bf16 gathers, fp32 reduce_dtype, bf16 unsharded gradients.
    // Forward: this unit and the prefetched one, the largest being the head: 2 · 2 · 525,336,576.
    // Backward of a block: two gathered blocks (2 · 2U) + its bf16 gradients (2U) + fp32 reduce-scatter input (4U).
    // [norm, output] is never resharded after forward: 2 · 525,336,576 kept.
    const Run r("llama-3-8b", {{"framework", "torchtitan"}, {"gpus", 8}});
    const CommBuffers b = comm_buffers(r.plan, r.layout, r.share(0));
    const double U = BLOCK8B + 4'096.0 / 32;
    CHECK(b.forward == doctest::Approx(2 * 2 * EMB8B));
    CHECK(b.backward == doctest::Approx((2 * 2 + 2 + 4) * U));
    CHECK(b.head_kept == 2 * EMB8B);
    CHECK(b.stage_unsharded == 0);
}

TEST_CASE("FSDP under pipeline parallelism keeps the stage gathered and accumulates fp32 gradients unsharded") {
    // torchtitan under PP: reshard_after_forward False for every block; torch pipelining runs the
    // non-last micro-batches' backward without gradient sync, accumulating in reduce_dtype (fp32).
    const Run r("llama-3-8b", {{"framework", "torchtitan"}, {"gpus", 16}, {"pp", 4}, {"grad_accum", 8}});
    const Share first = r.share(0);
    const CommBuffers b = comm_buffers(r.plan, r.layout, first);
    CHECK(b.stage_unsharded == doctest::Approx(2 * first.dense));
    CHECK(b.accumulated == doctest::Approx(4 * first.dense));
    CHECK(b.forward == 0);  // nothing left to gather
}

TEST_CASE("FSDP CPU offload: parameters, gradients and optimizer states in CPU memory") {
    // torchtune 70B_full.yaml fsdp_cpu_offload: CPUOffloadPolicy (params, grads, optimizer on the host,
    // the optimizer stepped there). bf16 everywhere (torchtune pure precision, bf16 AdamW states):
    // host RAM per GPU = (2 + 2 + 2·2 bytes) × 70.55 B / 8.
    const Estimate e = estimate(test::model("llama-3.1-70b"), test::job({{"framework", "torchtune"}, {"mode", "train"},
                                                                        {"gpus", 8}, {"zero", 3}, {"offload_params", true}}), false);
    CHECK(e.breakdown.bytes[kWeights] == 0);
    CHECK(e.breakdown.bytes[kGradients] == 0);
    CHECK(e.breakdown.bytes[kOptimizer] == 0);
    CHECK(e.cpu_bytes == doctest::Approx(e.params.total * (2 + 2 + 4) / 8));
}

TEST_CASE("context parallelism: ring attention gathers the sequence's K and V for one layer") {
    // torch _templated_ring_attention, all-gather rotater: c × local K+V. Llama-3-8B at 131,072 tokens
    // over CP 4: 32,768 local tokens; K+V per token 2 · 8 heads · 128 · 2 bytes = 4,096 bytes.
    // Backward adds fp32 dq/dk/dv for the local tokens: (4,096 + 2 · 1,024) · 4 bytes each.
    const Run r("llama-3-8b", {{"framework", "torchtitan"}, {"gpus", 8}, {"cp", 4}, {"seq", 131072}});
    const CommBuffers b = comm_buffers(r.plan, r.layout, r.share(0));
    CHECK(b.ring_forward == 4 * 32768.0 * 4096);
    CHECK(b.ring_backward == 4 * 32768.0 * 4096 + 32768.0 * (4096 + 2 * 2048) * 4);
}

TEST_CASE("expert parallelism: experts split over EP, all-to-all buffers for the routed copies") {
    // Mixtral 8x7B, EP 8 on 8 GPUs: each GPU holds one expert per layer (8 · 3 · 4096 · 14336 ·
    // 32 layers / 8), and its optimizer shards over GPUs / EP = 1. Dispatch: 4,096 tokens × top-2
    // routed copies permuted and received, 2 · 8,192 · 4,096 · 2 bytes.
    const Run r("mixtral-8x7b", {{"mode", "train"}, {"gpus", 8}, {"ep", 8}});
    const Share s = r.share(0);
    CHECK(s.experts == doctest::Approx(8.0 * 3 * 4096 * 14336 * 32 / 8));
    CHECK(s.expert_dp == 1);
    CHECK(comm_buffers(r.plan, r.layout, s).dispatch == 2 * 4096.0 * 2 * 4096 * 2);
    CHECK_THROWS_WITH(Run("mixtral-8x7b", {{"mode", "train"}, {"gpus", 3}, {"ep", 3}}).share(0), doctest::Contains("job.ep"));
}

TEST_CASE("Transformer Engine fp8: fp8 linear inputs saved, fp8 weights and transposes cached") {
    // te _Linear.forward saves the fp8 cast of its input (1 byte instead of 2); with is_first_microbatch,
    // the fp8 weight and its transpose are cached: 2 bytes per linear weight, none with fp8 parameters.
    const Run bf16("llama-3-8b", {{"mode", "train"}, {"framework", "megatron"}, {"gpus", 8}, {"zero", 1}});
    const Run te("llama-3-8b", {{"mode", "train"}, {"framework", "megatron"}, {"gpus", 8}, {"zero", 1}, {"fp8", "te"}});
    const Run te_params("llama-3-8b", {{"mode", "train"}, {"framework", "megatron"}, {"gpus", 8}, {"zero", 1}, {"fp8", "te"}, {"fp8_all_gather", true}});
    const double linears = 32 * (BLOCK8B - 2 * 4096);
    CHECK(comm_buffers(te.plan, te.layout, te.share(0)).persistent == doctest::Approx(2 * linears));
    CHECK(comm_buffers(te_params.plan, te_params.layout, te_params.share(0)).persistent == 0);
    // Saved linear inputs per token per block: the q/k/v input (4096), the MLP input (4096) and the
    // down_proj input (14336) one byte each instead of two; o_proj's bf16 input was a view of the
    // flash-attention output (saved anyway), under TE it is a new fp8 copy (+4096 bytes).
    const double tokens = 4096;
    CHECK(kept_block(bf16.plan, bf16.layout, false).total - kept_block(te.plan, te.layout, false).total ==
          doctest::Approx(tokens * (4096 + 4096 + 14336 - 4096)));
}

TEST_CASE("Megatron's vocab-parallel cross-entropy: one fp32 copy, reused as the gradient") {
    // tensor_parallel/cross_entropy.py: bf16 logits (2) + fp32 copy (4) at the forward peak; the saved
    // softmax becomes the gradient in place, cast back to bf16: 6 bytes per logit at the backward peak,
    // beside the output layer's saved input (4096 × 4096 × 2 bytes).
    const Estimate e = estimate(test::model("llama-3-8b"), test::job({{"mode", "train"}, {"framework", "megatron"}, {"gpus", 8}, {"zero", 1}}), false);
    const double TV = 4096.0 * 128256;
    CHECK(e.breakdown.bytes[kLogits] == doctest::Approx(6 * TV + 4096.0 * 4096 * 2));
}

TEST_CASE("DeepSpeed: the reduce bucket and ZeRO-2/3's model-dtype gradient partitions") {
    // zero/config.py reduce_bucket_size 5e8 elements, one flat bucket in the model dtype: 1 GB in bf16.
    // ZeRO-3 keeps bf16 gradient partitions and upcasts one 1e9-element sub-group at the step.
    const Run r("llama-3-8b", {{"mode", "train"}, {"framework", "deepspeed"}, {"gpus", 8}, {"zero", 3}});
    CHECK(comm_buffers(r.plan, r.layout, r.share(0)).bucket == 5e8 * 2);
    CHECK(gradients_term(r.plan, r.layout, r.share(0), nullptr) == doctest::Approx(P8B * 2 / 8));
    const Run z1("llama-3-8b", {{"mode", "train"}, {"framework", "deepspeed"}, {"gpus", 8}, {"zero", 1}});
    CHECK(gradients_term(z1.plan, z1.layout, z1.share(0), nullptr) == doctest::Approx(P8B * 4));  // BF16_Optimizer fp32
}

TEST_CASE("hybrid sharding: FSDP shards inside a group of ranks and replicates across groups") {
    // FSDP1 HYBRID_SHARD over 16 GPUs in nodes of 8: full training states 16 bytes per parameter
    // shard over 8, not 16 (torch fsdp api.py ShardingStrategy.HYBRID_SHARD).
    const Estimate hsdp = estimate(test::model("llama-3-8b"), test::job({{"mode", "train"}, {"gpus", 16}, {"zero", 3},
                                                                        {"shard_degree", 8}}), false);
    CHECK(hsdp.model_states_bytes == doctest::Approx(16 * P8B / 8));
    const Model m = test::model("llama-3-8b");
    CHECK_THROWS_WITH(compute_breakdown(m, test::job({{"mode", "train"}, {"gpus", 16}, {"zero", 3}, {"shard_degree", 3}})),
                      doctest::Contains("job.shard_degree"));
}

TEST_CASE("Megatron's unfused attention keeps 16-bit probabilities where Hugging Face's eager keeps fp32 ones") {
    // megatron/core/transformer/dot_product_attention.py: baddbmm scores, FusedScaleMaskSoftmax returns the
    // input dtype: 2 bytes per score (no dropout). HF eager_attention_forward (Llama): softmax in fp32 (4) and the
    // cast-back copy the ·v matmul saves (2): 6. Llama-3-8B, 32 heads × 4096 keys per query token, 4096 tokens.
    const Model m = test::model("llama-3-8b");
    const Job eager = test::job({{"mode", "train"}, {"attention", "eager"}});
    const Job unfused = test::job({{"mode", "train"}, {"attention", "unfused"}});
    const Plan pe = make_plan(m, eager), pu = make_plan(m, unfused);
    const double scores = 32.0 * 4096 * 4096;
    CHECK(kept_block(pe, Layout{}, false).attention_core - kept_block(pu, Layout{}, false).attention_core == doctest::Approx(scores * 4));
}

TEST_CASE("FSDP QLoRA: bitsandbytes' quant states are neither sharded nor offloaded") {
    // NF4 with double quantization: 4 bits + an 8-bit absmax per 64 values + an fp32 absmax per 256 of
    // those = 4.127 bits. The 0.127 bits are Params4bit.quant_state, an attribute FSDP does not shard
    // or offload (fsdp_qlora train.py load_and_quantize quantizes on the GPU and moves only the data):
    // Llama-2 70B's 68.45 B quantized weights keep 68.45e9 · 0.127 / 8 bytes on each GPU.
    const Model m = test::model("llama-2-70b");
    const Estimate off = estimate(m, test::job({{"mode", "qlora"}, {"gpus", 2}, {"zero", 3}, {"offload_params", true}}), false);
    const double quantized = m.params.total - m.params.embeddings;
    CHECK(off.breakdown.bytes[kWeights] == doctest::Approx(quantized * 0.127 / 8));
}
