// Property: the cluster planner recommends only layouts that fit. For every model × GPU × GPU count
// below, each layout the recommender ranks as fitting is re-estimated on its own, as a user would set
// it (the job's gpus, tp, pp, cp, ep, zero and micro-batches), and that estimate must fit the GPU;
// the answer's recommendation lists no other layout, and says so when none fits.
#include <doctest/doctest.h>

#include "cluster/cluster.hpp"
#include "hardware/gpus.hpp"
#include "helpers.hpp"
#include "step/timeline.hpp"

using namespace vramcalc;
using nlohmann::json;

TEST_CASE("the planner recommends only layouts that fit (models × GPUs × counts)") {
    const char* models[] = {"llama-3.2-1b", "llama-3.1-8b", "llama-3.1-70b", "mixtral-8x7b"};
    const char* gpus[] = {"rtx4090", "a100-40", "h100", "mi300x"};
    const int64_t counts[] = {1, 2, 8, 32};
    const json job_fields = {{"mode", "train"}, {"seq", 4096}, {"checkpointing", "full"}};
    int64_t checked = 0, none_fit = 0;
    for (const char* id : models) {
        const Model m = test::model(id);
        const Job job = test::job(job_fields);
        for (const char* gpu : gpus)
            for (const int64_t n : counts) {
                CAPTURE(id);
                CAPTURE(gpu);
                CAPTURE(n);
                const ClusterRequest r = parse_cluster(json{{"gpu", gpu}, {"gpus", n}}, job);
                const double capacity = gpu_bytes(r.gpu);
                bool any = false;
                for (const TrainStep& s : rank_layouts(m, job, r)) {
                    if (!s.fits) continue;
                    any = true;
                    Job laid = job;
                    laid.gpus = s.layout.gpus(), laid.tp = s.layout.tp, laid.pp = s.layout.pp, laid.cp = s.layout.cp;
                    laid.ep = s.layout.ep, laid.zero = s.layout.zero, laid.grad_accum = s.layout.microbatches;
                    const double own = compute_breakdown(m, laid).total();
                    CHECK(own <= capacity);
                    CHECK(s.memory_bytes >= own * (1 - 1e-9));  // the planner never counts less than the estimate
                    ++checked;
                }
                const json a = json::parse(cluster_request(find_model(test::models(), id).config.dump(), job_fields.dump(),
                                                           json{{"gpu", gpu}, {"gpus", n}}.dump()));
                const json& rec = a["recommendation"];
                for (const json& c : rec["candidates"]) CHECK(c["fits"] == true);
                if (!any) {
                    ++none_fit;
                    CHECK(rec["best"].is_null());
                    CHECK(rec["candidates"].empty());
                } else {
                    CHECK(rec["best"]["fits"] == true);
                    CHECK(rec["best"]["memory_bytes"].get<double>() <= capacity);
                }
            }
    }
    // Both sides of the property are exercised: layouts that fit and requests where none does
    // (70B on one 24 GB card; 1B fits everywhere).
    CHECK(checked > 100);
    CHECK(none_fit > 0);
}
