// The GPU table's "GPUs needed" and the gpus field agree: every count the
// table names is a layout the field accepts, and at that count the job fits.
#include <doctest/doctest.h>

#include "helpers.hpp"

using namespace vramcalc;
using nlohmann::json;

TEST_CASE("every GPU count the fit table names is accepted by job.gpus and fits") {
    // Inference with no degree chosen (TP ≤ 8 dividing the heads, stages across) and training
    // with the chosen ZeRO stage; models whose heads make odd counts (gpt2: 12 heads; DeepSeek-V3: 128).
    const char* models[] = {"gpt2", "llama-3-8b", "llama-3-70b", "deepseek-v3"};
    const json jobs[] = {json::object(), {{"mode", "train"}, {"zero", 3}}, {{"mode", "train"}, {"zero", 2}}};
    int checked = 0;
    for (const char* id : models)
        for (const json& job : jobs) {
            const Model m = test::model(id);
            const Estimate e = estimate(m, test::job(job));
            for (const GpuFit& f : e.fits) {
                if (f.gpus_needed <= 1 || f.gpus_needed > 64 || f.custom) continue;
                CAPTURE(id);
                CAPTURE(job.dump());
                CAPTURE(f.id);
                CAPTURE(f.gpus_needed);
                json at = job;
                at["gpus"] = f.gpus_needed;
                const Breakdown b = compute_breakdown(m, test::job(at));  // throws if the count has no layout
                CHECK(b.total() <= f.capacity_bytes);
                ++checked;
            }
        }
    CHECK(checked > 40);
}
