// The caching-allocator replay (core/allocator.cpp) against PyTorch's rules worked by hand,
// and the model-init replay (core/model_init.cpp) against the measured figure it explains.
#include <doctest/doctest.h>

#include "memory/allocator.hpp"
#include "text/errors.hpp"
#include "helpers.hpp"
#include "answers/estimate.hpp"
#include "memory/model_init.hpp"

using namespace vramcalc;
using nlohmann::json;

namespace {
constexpr double MiB = 1024.0 * 1024.0;
}

TEST_CASE("caching allocator: segment sizes, rounding, splitting and reuse as c10 CUDACachingAllocator") {
    CachingAllocator a;
    // 100 bytes: rounded to 512, from a new 2 MiB small segment.
    const auto tiny = a.malloc(100);
    CHECK(a.allocated() == 512);
    CHECK(a.reserved() == 2 * MiB);
    // A second small tensor is carved from the same segment's remainder.
    const auto small = a.malloc(1000);
    CHECK(a.allocated() == 512 + 1024);
    CHECK(a.reserved() == 2 * MiB);
    // 5 MiB (large, below 10 MiB): a 20 MiB segment; the 15 MiB rest stays cached.
    const auto mid = a.malloc(5 * MiB);
    CHECK(a.reserved() == 22 * MiB);
    // 12 MiB fits into the cached 15 MiB remainder: no new segment.
    const auto twelve = a.malloc(12 * MiB);
    CHECK(a.reserved() == 22 * MiB);
    // 3 MiB left in that segment is too small for 4 MiB: a new 20 MiB segment.
    const auto four = a.malloc(4 * MiB);
    CHECK(a.reserved() == 42 * MiB);
    // 30 MiB + 1 byte: its own segment, rounded up to a multiple of 2 MiB (32 MiB).
    const auto big = a.malloc(30 * MiB + 1);
    CHECK(a.reserved() == 74 * MiB);
    CHECK(a.peak_allocated() == doctest::Approx(512 + 1024 + 5 * MiB + 12 * MiB + 4 * MiB + 30 * MiB + 512));
    // Freeing keeps every segment reserved; the merged 20 MiB block then serves a 20 MiB request.
    a.free(mid);
    a.free(twelve);
    const auto twenty = a.malloc(20 * MiB);
    CHECK(a.reserved() == 74 * MiB);
    // Fragmentation: 30 MiB free in two places (the big segment and what is left of the 4 MiB one)
    // cannot serve 33 MiB: a new segment although enough bytes are free in total.
    a.free(big);
    const auto bigger = a.malloc(33 * MiB);
    CHECK(a.reserved() == 74 * MiB + 34 * MiB);
    a.free(tiny);
    a.free(small);
    a.free(four);
    a.free(twenty);
    a.free(bigger);
    CHECK(a.allocated() == 0);
}

TEST_CASE("model init replay: torchtune's April-2024 QLoRA init reserves what the tutorial measured") {
    // pytorch/torchtune docs/source/tutorials/qlora_finetune.rst (commit 0914d5c, 2024-04-15):
    // "QLoRA   9.13 GB   9.29 GB" (Peak memory reserved: model init, training; GB = 1e9 bytes)
    // for llama2/7B_qlora_single_device (LoRA rank 8 on every linear of the layers).
    const json job = {{"framework", "torchtune"}, {"mode", "qlora"}, {"lora_rank", 8}, {"batch", 2}, {"seq", 512},
                      {"lora_targets", "q_proj,k_proj,v_proj,o_proj,gate_proj,up_proj,down_proj"},
                      {"model_init", "torchao_0.1_nf4"}, {"report", "reserved"}, {"checkpointing", "full"}};
    const Model& model = test::model("llama-2-7b");
    const Job j = test::job(job);
    const Plan plan = make_plan(model, j);
    const InitReplay init = model_init_replay(plan);
    CHECK(init.reserved == doctest::Approx(9.13e9).epsilon(0.03));
    // What stays allocated is the model: 6.48 B NF4 weights at 0.547 bytes (torchao's packed
    // data, int8 scalers and the bf16 factor storage) + 2 × 32000 × 4096 bf16 embedding and head
    // + 20.0 M bf16 adapter parameters + RoPE caches: about 4.2 GB.
    CHECK(init.allocated == doctest::Approx(4.19e9).epsilon(0.03));
    // During init the largest temporaries are one MLP weight's to_nf4: 68 bytes per element
    // of the 4096 × 11008 weight (3.07 GB) on top of the growing model.
    CHECK(init.peak_allocated > init.allocated + 68.0 * 4096 * 11008 * 0.95);
    // The step's reserved memory cannot be below what init left reserved (no empty_cache).
    const Estimate e = estimate(model, j);
    CHECK(e.reserved_bytes == doctest::Approx(init.reserved));
    CHECK(e.reserved_bytes == doctest::Approx(9.29e9).epsilon(0.05));
    // Without the replay the same job is the step alone.
    json plain = job;
    plain.erase("model_init");
    CHECK(estimate(model, test::job(plain)).reserved_bytes < 0.6 * init.reserved);
}

TEST_CASE("model_init is for a QLoRA base and names its field otherwise") {
    try {
        test::job({{"mode", "lora"}, {"model_init", "torchao_0.1_nf4"}});
        FAIL("accepted");
    } catch (const InputError& e) {
        CHECK(e.field() == "job.model_init");
    }
    try {
        test::job({{"mode", "qlora"}, {"model_init", "torchao"}});
        FAIL("accepted");
    } catch (const InputError& e) {
        CHECK(e.field() == "job.model_init");
    }
}
