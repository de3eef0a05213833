// Recipe fields that change what a training step holds: FSDP's sync_module_states
// wrap, torchtitan's per-op checkpointing, and the autograd function of a QLoRA
// base layer. Each figure is derived by hand in the test.
#include <doctest/doctest.h>

#include "text/errors.hpp"
#include "helpers.hpp"
#include "step/timeline.hpp"

using namespace vramcalc;
using nlohmann::json;

namespace {
double term(const Breakdown& b, TermIndex t) { return b.bytes[t]; }
Breakdown run(const std::string& model_id, const json& job) {
    return compute_breakdown(test::model(model_id), test::job(job));
}
}  // namespace

TEST_CASE("FSDP sync_module_states: the largest unit's moved tensors, flat copy and broadcast bucket stay reserved") {
    // Llama-2-7B (fsdp_qlora): the root unit is the 32000 × 4096 embedding plus the untied head in bf16,
    // 2 × 262,144,000 bytes = 524,288,000 bytes; a QLoRA decoder layer in NF4 is smaller.
    const double root = 2.0 * 32000 * 4096 * 2;
    const double bucket = 250.0 * 1024 * 1024;  // torch FSDP PARAM_BROADCAST_BUCKET_SIZE
    const json base = {{"mode", "qlora"}, {"gpus", 2}, {"zero", 3}, {"seq", 512}, {"report", "reserved"}, {"fragmentation", 0.1}};
    json with = base;
    with["sync_module_states"] = true;
    const Estimate plain = estimate(test::model("llama-2-7b"), test::job(base));
    const Estimate wrapped = estimate(test::model("llama-2-7b"), test::job(with));
    CHECK(wrapped.allocated_bytes == plain.allocated_bytes);  // no live tensor: only reserved memory
    // sharded: the moved tensors and the flat copy are both freed, plus the bucket
    CHECK(wrapped.reserved_bytes - plain.reserved_bytes == doctest::Approx(2 * root + bucket));
    // NO_SHARD (one copy per GPU): the flat tensor is the parameter, only the moved tensors are freed
    with["zero"] = 0;
    json base0 = base;
    base0["zero"] = 0;
    CHECK(estimate(test::model("llama-2-7b"), test::job(with)).reserved_bytes -
              estimate(test::model("llama-2-7b"), test::job(base0)).reserved_bytes ==
          doctest::Approx(root + bucket));
}

TEST_CASE("per-op selective checkpointing (torchtitan): block input, every other matmul output, attention output") {
    // Llama 3.1 8B, batch 2 × 8192, 8 GPUs. Per token per layer, bf16: the block input (4096 × 2),
    // matmul outputs 1, 3, 5, 7 of q, k, v, o, w1, w3, w2 = q (4096) + v (1024) + w1 (14336) + w2 (4096),
    // × 2 bytes; the attention output (4096 × 2) and its fp32 logsumexp (32 heads × 4).
    const double per_token = 4096 * 2 + (4096 + 1024 + 14336 + 4096) * 2 + 4096 * 2 + 32 * 4;
    const Estimate e = estimate(test::model("llama-3.1-8b"), test::job({{"framework", "torchtitan"}, {"gpus", 8}, {"batch", 2}, {"seq", 8192}}));
    CHECK(e.timeline.phases[0].bytes[kActivations] == doctest::Approx(per_token * 32 * 2 * 8192));
    // Adapters add matmuls and change which outputs are saved: refused with the field named.
    try {
        estimate(test::model("llama-3.1-8b"), test::job({{"mode", "lora"}, {"checkpointing", "selective_op"}}));
        FAIL("accepted");
    } catch (const InputError& err) {
        CHECK(err.field() == "job.checkpointing");
    }
}

TEST_CASE("QLoRA base layers: bitsandbytes keeps every quantized linear's input, torchao's linear_nf4 none") {
    // Llama-2-7B, adapters on q and v (no dropout: their shared input is saved either way), 1000 tokens, no
    // checkpointing. bitsandbytes MatMul4Bit also keeps, per layer, o_proj's input (the attention output
    // re-laid as h = 4096 values), the MLP input (h) and down_proj's input (the SwiGLU product, I = 11008),
    // each 2 bytes per value: (2 × 4096 + 11008) × 2 × 1000 tokens × 32 layers = 1,228,800,000 bytes.
    json job = {{"mode", "qlora"}, {"lora_targets", "q_proj,v_proj"}, {"lora_dropout", 0}, {"seq", 1000},
                {"attention", "sdpa"}, {"report", "allocated"}, {"checkpointing", "none"}};
    job["qlora_matmul"] = "bitsandbytes";
    const Breakdown bnb = run("llama-2-7b", job);
    job["qlora_matmul"] = "torchao";
    const Breakdown ao = run("llama-2-7b", job);
    CHECK(term(bnb, kActivations) - term(ao, kActivations) == doctest::Approx(1'228'800'000.0));
    // torchtune's preset says torchao; the default (PEFT, fsdp_qlora, LitGPT) is bitsandbytes.
    CHECK(test::job({{"framework", "torchtune"}, {"mode", "qlora"}}).qlora_matmul == QloraMatmul::Torchao);
    CHECK(test::job({{"mode", "qlora"}}).qlora_matmul == QloraMatmul::Bitsandbytes);
}

TEST_CASE("QLoRA checkpoints activations by default, as its recipes do; a framework or the user can say otherwise") {
    // peft prepare_model_for_kbit_training(use_gradient_checkpointing=True) is what QLoRA recipes call.
    const Job q = test::job({{"mode", "qlora"}});
    CHECK(q.checkpointing == Checkpointing::Full);
    REQUIRE(q.assumptions.size() == 1);
    CHECK(q.assumptions[0].by == "QLoRA fine-tuning");
    CHECK(q.assumptions[0].key == "checkpointing");
    CHECK(q.assumptions[0].value == "\"full\"");
    CHECK(q.assumptions[0].source.rfind("peft utils/other.py", 0) == 0);
    CHECK(test::job({{"mode", "qlora"}, {"checkpointing", "none"}}).checkpointing == Checkpointing::None);
    CHECK(test::job({{"mode", "lora"}}).checkpointing == Checkpointing::None);   // LoRA on a 16-bit base: as before
    CHECK(test::job({{"mode", "train"}}).checkpointing == Checkpointing::None);
    // Unsloth sets its own (offloaded) checkpointing; the mode's default does not replace it.
    CHECK(test::job({{"mode", "qlora"}, {"framework", "unsloth"}}).activation_offload);
    // What it changes: Llama 3 8B QLoRA at 4096 tokens from 39.67 GB (every block's tensors) to 15.39 GB.
    CHECK(compute_breakdown(test::model("llama-3-8b"), q).total() == doctest::Approx(15.39e9).epsilon(0.001));
    CHECK(compute_breakdown(test::model("llama-3-8b"), test::job({{"mode", "qlora"}, {"checkpointing", "none"}})).total() ==
          doctest::Approx(39.67e9).epsilon(0.001));
}
