// Multi-GPU training mechanisms beyond tests/test_parallel.cpp, one per test case, each against bytes
// written out by hand from the framework's code (the functions are cited in core/memory/parallel.cpp,
// states.cpp and loss.cpp; the arithmetic is in the comments).
#include <doctest/doctest.h>

#include "helpers.hpp"
#include "memory/activations.hpp"
#include "memory/loss.hpp"
#include "memory/parallel.hpp"
#include "memory/states.hpp"
#include "step/timeline.hpp"

using namespace vramcalc;
using nlohmann::json;

namespace {

// Llama-3-8B: one block 218,112,000 params (+ the final norm's 4,096 spread over 32 blocks), the
// embedding and the untied head 128256 × 4096 = 525,336,576 each, 8,030,261,248 in all.
const double U8B = 218'112'000.0 + 4'096.0 / 32, EMB8B = 525'336'576.0, P8B = 8'030'261'248.0;

struct Run {
    Model model;
    Job job;
    Plan plan;
    Layout layout;
    Run(const Model& m, const json& fields)
        : model(m), job(test::job(fields)), plan(make_plan(model, job)), layout(resolve_layout(model.config, job)) {}
    Run(const std::string& id, const json& fields) : Run(test::model(id), fields) {}
    Share share(int64_t stage) const { return share_of(plan, layout, stage); }
    CommBuffers comm(int64_t stage = 0) const { return comm_buffers(plan, layout, share(stage)); }
};

json with(json base, const json& more) {
    for (auto it = more.begin(); it != more.end(); ++it) base[it.key()] = it.value();
    return base;
}

}  // namespace

TEST_CASE("FSDP1: two all-gathers in flight, BACKWARD_PRE's gradients, the side streams' pools; SHARD_GRAD_OP") {
    // torch fsdp/_runtime_utils.py with limit_all_gathers: the current and the prefetched unit gathered
    // (bf16: 2 bytes), the largest unit being the head: 2 · 2 · 525,336,576. BACKWARD_PRE: this unit and
    // the next gathered (2 · 2U), this unit's bf16 gradients (2U) and its reduce-scatter output (2U / 8).
    // The unshard and post-backward streams keep their blocks: 2 · 2U + 2U = 6U reserved.
    const json fsdp1 = {{"mode", "train"}, {"gpus", 8}, {"zero", 3}, {"sharding_impl", "fsdp1"}};
    const CommBuffers full = Run("llama-3-8b", fsdp1).comm();
    CHECK(full.forward == doctest::Approx(2 * 2 * EMB8B));
    CHECK(full.backward == doctest::Approx((2 * 2 + 2 + 2.0 / 8) * U8B));
    CHECK(full.side_pools == doctest::Approx(6 * U8B));
    // SHARD_GRAD_OP (reshard_after_forward never): every parameter stays gathered from its forward to its
    // backward, 2 bytes × all 8.03 B; nothing is gathered again.
    const CommBuffers grad_op = Run("llama-3-8b", with(fsdp1, {{"reshard_after_forward", "never"}})).comm();
    CHECK(grad_op.forward == 0);
    CHECK(grad_op.stage_unsharded == doctest::Approx(2 * P8B));
    CHECK(grad_op.backward == doctest::Approx((2 + 2.0 / 8) * U8B));
}

TEST_CASE("torchtitan before 83e6941: the root's embedding, norm and output and the last block stay gathered") {
    // parallelize_llama.py apply_fsdp (9dec370 .. e7c0cae): fully_shard(model) owns tok_embeddings, norm
    // and output, which FSDP2 never reshards after forward (_fsdp_state.py _lazy_init), and the last block
    // has reshard_after_forward False: 2 · (525,336,576 + 525,336,576 + 4,096) + 2 · U, the final norm
    // being spread over the blocks' share here. From 83e6941 only [norm, output]: 2 · 525,336,576.
    const json titan = {{"framework", "torchtitan"}, {"gpus", 8}};
    CHECK(Run("llama-3-8b", with(titan, {{"reshard_after_forward", "torchtitan_root"}})).comm().head_kept ==
          doctest::Approx(2 * (2 * EMB8B) + 2 * U8B));
    CHECK(Run("llama-3-8b", titan).comm().head_kept == doctest::Approx(2 * EMB8B));
}

TEST_CASE("torchao float8: fp8 all-gather of the blocks' linears, the embedding and output stay bf16") {
    // float8/fsdp_utils.py WeightWithDynamicFloat8CastTensor: FSDP gathers each converted weight in fp8
    // (1 byte); torchtitan's filter_fqns = ["output"] and the embedding is no nn.Linear: 2 bytes.
    // Backward of a block: fp8 gathers of this unit and the next (2 · 1U), bf16 gradients (2U) and the
    // fp32 reduce-scatter input (4U). Forward: max(2 · 1 · U, 2 · 2 · head) = the head's.
    const json f8 = {{"framework", "torchtitan"}, {"gpus", 8}, {"fp8", "torchao"}, {"fp8_all_gather", true}};
    const Run r("llama-3-8b", f8);
    CHECK(r.comm().backward == doctest::Approx((2 + 2 + 4) * U8B));
    CHECK(r.comm().forward == doctest::Approx(2 * 2 * EMB8B));
    CHECK(r.comm().head_kept == doctest::Approx(2 * EMB8B));
    // What the blocks save for backward is unchanged: Float8Linear saves its bf16 input and recomputes
    // the fp8 casts (torchao float8/float8_linear.py matmul_with_hp_or_float8_args).
    const Run bf16("llama-3-8b", {{"framework", "torchtitan"}, {"gpus", 8}});
    CHECK(kept_block(r.plan, r.layout, false).total == kept_block(bf16.plan, bf16.layout, false).total);
}

TEST_CASE("DeepSpeed ZeRO-Offload and ZeRO-Infinity: the states in host RAM, shown beside the GPU's") {
    // ZeRO-Offload (offload_optimizer): DeepSpeedCPUAdam's fp32 master weights (4) and m, v (8) and the fp32
    // gradients it reads (4) in CPU memory, 16 bytes per parameter over 8 ranks; no gradient or optimizer
    // bytes stay on the GPU. ZeRO-Infinity (offload_param too) adds each rank's bf16 shard (2 bytes).
    const json ds = {{"mode", "train"}, {"framework", "deepspeed"}, {"gpus", 8}, {"zero", 3}};
    const Estimate offload = estimate(test::model("llama-3-8b"), test::job(with(ds, {{"offload_optimizer", true}})), false);
    CHECK(offload.cpu_bytes == doctest::Approx(16 * P8B / 8));
    CHECK(offload.breakdown.bytes[kGradients] == 0);
    CHECK(offload.breakdown.bytes[kOptimizer] == 0);
    const Estimate infinity = estimate(test::model("llama-3-8b"),
                                       test::job(with(ds, {{"offload_optimizer", true}, {"offload_params", true}})), false);
    CHECK(infinity.cpu_bytes == doctest::Approx(18 * P8B / 8));
    CHECK(infinity.breakdown.bytes[kWeights] == 0);
    // ZeRO-3 without offload gathers module by module: the largest linear (down_proj, 14,336 × 4,096) and
    // stage3_prefetch_bucket_size = 5e7 elements ahead, in bf16 (partitioned_param_coordinator.py).
    CHECK(Run("llama-3-8b", ds).comm().forward == doctest::Approx(2 * (14336.0 * 4096 + 5e7)));
}

TEST_CASE("Megatron's distributed optimizer: buckets are views of the persistent buffers") {
    // distributed/param_and_grad_buffer.py: the param and grad buckets are slices of the contiguous
    // buffers (counted as weights and gradients); reduce-scatter and all-gather run in place.
    const CommBuffers b = Run("llama-3-8b", {{"mode", "train"}, {"framework", "megatron"}, {"gpus", 8}, {"zero", 1}}).comm();
    CHECK(b.forward == 0);
    CHECK(b.backward == 0);
    CHECK(b.bucket == 0);
}

TEST_CASE("loss parallel: torch's DTensor cross-entropy on vocab-sharded logits; Megatron's with SP") {
    // torch distributed/tensor/parallel/loss.py: at the backward, the saved fp32 log-probabilities, the
    // zeros with -1 scattered, exp(x) and their sum: 16 bytes per logit of this GPU's vocabulary shard
    // (128256 / 8 = 16,032), beside the output layer's input gathered from the sequence shards
    // (4096 × 4096 × 2, kept whole by ColwiseParallel's DTensor matmul).
    const Estimate titan = estimate(test::model("llama-3-8b"), test::job({{"framework", "torchtitan"}, {"gpus", 8}, {"tp", 8}}), false);
    CHECK(titan.timeline.phases[1].bytes[kLogits] == doctest::Approx(16 * 4096.0 * 16032 + 4096.0 * 4096 * 2));
    // Megatron with sequence parallelism: 6 bytes per logit (tensor_parallel/cross_entropy.py) and the
    // output layer saves its sequence shard only (4096 / 8 tokens), gathering it again in backward.
    const Estimate meg = estimate(test::model("llama-3-8b"), test::job({{"mode", "train"}, {"framework", "megatron"}, {"gpus", 8},
                                                                       {"tp", 8}, {"zero", 1}, {"sequence_parallel", true}}), false);
    CHECK(meg.timeline.phases[1].bytes[kLogits] == doctest::Approx(6 * 4096.0 * 16032 + 4096.0 / 8 * 4096 * 2));
}

TEST_CASE("async TP: one symmetric-memory workspace per TP group") {
    // torch distributed/_symmetric_memory get_symm_mem_workspace as torchtitan's micro-pipelined TP uses it:
    // two chunks of a block's sequence-sharded activation, 2 · (2 · 8192 / 8) · 4096 · 2 bytes.
    const json tp8 = {{"framework", "torchtitan"}, {"gpus", 8}, {"tp", 8}, {"batch", 2}, {"seq", 8192}};
    CHECK(Run("llama-3-8b", with(tp8, {{"async_tp", true}})).comm().persistent == 2 * (2 * 8192.0 / 8) * 4096 * 2);
    CHECK(Run("llama-3-8b", tp8).comm().persistent == 0);
}

TEST_CASE("expert parallelism: capacity factor pads each expert's rows; dropless keeps k copies per token") {
    // Megatron token_dispatcher.py with moe_expert_capacity_factor 1.25: 4,096 tokens × top-2 × 1.25 rows
    // permuted and received, there and back, in bf16: 2 · 10,240 · 4,096 · 2 bytes.
    const json ep8 = {{"mode", "train"}, {"gpus", 8}, {"ep", 8}};
    CHECK(Run("mixtral-8x7b", with(ep8, {{"capacity_factor", 1.25}})).comm().dispatch == 2 * 4096.0 * 2 * 1.25 * 4096 * 2);
    CHECK(Run("mixtral-8x7b", ep8).comm().dispatch == 2 * 4096.0 * 2 * 4096 * 2);
}

TEST_CASE("DualPipeV keeps half a chunk more than ZBV on every rank") {
    // torch pipelining ScheduleDualPipeV: p + 1/2 stage-units in flight (4.5 at p = 4, m = 8); ZBV p.
    const json base = {{"mode", "train"}, {"gpus", 4}, {"pp", 4}, {"grad_accum", 8}};
    CHECK(Run("llama-3-8b", with(base, {{"pp_schedule", "dualpipev"}})).share(0).in_flight == 4.5);
    CHECK(Run("llama-3-8b", with(base, {{"pp_schedule", "zbv"}})).share(0).in_flight == 4);
}

TEST_CASE("context parallelism at long sequence: the loss sees the local tokens only") {
    // 32k tokens × 128k vocabulary: the saved fp32 log-probabilities are 4 · 32,768 · 128,256 = 16.8 GB,
    // beside the head's input (32,768 × 4,096 × 2). CP 4 at 131,072 tokens holds the same per GPU.
    const json titan = {{"framework", "torchtitan"}, {"gpus", 8}, {"checkpointing", "full"}};
    const Run cp1("llama-3-8b", with(titan, {{"seq", 32768}}));
    const Run cp4("llama-3-8b", with(titan, {{"seq", 131072}, {"cp", 4}}));
    const double saved = 4 * 32768.0 * 128256 + 32768.0 * 4096 * 2;
    CHECK(loss_buffers(cp1.plan, cp1.layout, cp1.share(0)).saved == doctest::Approx(saved));
    CHECK(loss_buffers(cp4.plan, cp4.layout, cp4.share(0)).saved == doctest::Approx(saved));
}

TEST_CASE("multi-token prediction: one more MoE layer, eh_proj and norms, and the embedding on the last stage") {
    // Megatron multi_token_prediction.py MultiTokenPredictionLayer on the proxy (hidden 1024, MLA, 32
    // experts of 1024, one shared expert): eh_proj 2 · 1024 · 1024 = 2,097,152; enorm, hnorm, final norm
    // 3 · 1024; the MoE layer's own: q_down 1024 · 1536, q norm 1536, q_up 1536 · 32 · 192, kv_down
    // 1024 · 576, kv norm 512, kv_up 512 · 32 · 256, o 4096 · 1024, two norms 2 · 1024, router 32 · 1024,
    // shared expert 3 · 1024 · 1024: 23,171,072; the embedding 51,712 · 1024 = 52,953,088 (gpt_model.py
    // builds it when mtp_process). Dense ÷ TP 2; the routed experts 32 · 3 · 1024 · 1024 ÷ (EP 4 · ETP 1).
    const Model proxy = prepare_model(parse_config(json::parse(test::fixture("megatron-moe-mla-proxy.config.json"))));
    const json meg = {{"mode", "train"}, {"framework", "megatron"}, {"gpus", 8}, {"tp", 2}, {"pp", 2}, {"ep", 4}, {"etp", 1},
                      {"zero", 1}, {"sequence_parallel", true}, {"seq", 4096}, {"grad_accum", 4}};
    const Run none(proxy, meg), mtp(proxy, with(meg, {{"mtp_layers", 1}}));
    const double dense = (2'097'152.0 + 3 * 1024 + 23'171'072.0 + 52'953'088.0) / 2, experts = 32 * 3 * 1024.0 * 1024 / 4;
    CHECK(mtp.share(1).dense - none.share(1).dense == doctest::Approx(dense).epsilon(1e-6));
    CHECK(mtp.share(1).experts - none.share(1).experts == doctest::Approx(experts));
    CHECK(mtp.share(0).dense == none.share(0).dense);  // the first stage is unchanged
    // After the step (bf16 weight 2, fp32 grad buffer 4, distributed optimizer 12 over the ranks that
    // share it: 2 for the dense parts, 1 for these experts): 12 bytes per dense and 18 per expert parameter.
    Job last = mtp.job, last0 = none.job;
    last.pp_stage = last0.pp_stage = PpStage::Last;
    const double steady = estimate(proxy, last, false).steady_bytes - estimate(proxy, last0, false).steady_bytes;
    CHECK(steady == doctest::Approx(12 * dense + 18 * experts).epsilon(1e-6));
    // Its loss: the MTP logits' cross-entropy is kept for backward beside the main one.
    CHECK(loss_buffers(mtp.plan, mtp.layout, mtp.share(1)).saved == 2 * loss_buffers(none.plan, none.layout, none.share(1)).saved);
    CHECK_THROWS_WITH(test::job({{"mode", "inference"}, {"mtp_layers", 1}}), doctest::Contains("job.mtp_layers"));
}
