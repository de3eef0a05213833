// Issue 35: every row of "What can I run?" equals the single-model answer for the same model, format and machine,
// over the whole catalog on several machines: the row's job (what one click opens) is estimated alone and each
// figure compared (to the 12 significant digits the JSON writes).
#include <doctest/doctest.h>

#include "api/catalog.hpp"
#include "api/what_fits_json.hpp"
#include "cluster/cluster.hpp"
#include "helpers.hpp"
#include "what_fits_helpers.hpp"
#include "step/timeline.hpp"

using namespace vramcalc;
using nlohmann::json;

namespace {

json fits(const json& request) {
    const json a = test::what_fits(request);
    REQUIRE(a["ok"] == true);
    return a;
}
doctest::Approx same(double v) { return doctest::Approx(v).epsilon(1e-11); }

// Every row of a chat list against estimate() of its job: the layout the runtime chose, both pools, the speed and
// the command. Returns the rows compared.
int check_chat(const json& machine) {
    const json a = fits({{"job", machine}, {"filters", {{"modality", "any"}}}});
    int compared = 0;
    for (const json& r : a["rows"]) {
        if (r["fit"] == "unsupported") continue;
        const std::string id = r["id"];
        CAPTURE(id);
        const Estimate e = estimate(test::model(id), parse_job(r["job"]));
        CHECK(r["status"] == e.local.status);
        CHECK(r["verdict"] == e.local.verdict);
        CHECK(r["n_cpu_moe"] == e.n_cpu_moe);
        CHECK(r["gpu_layers"] == e.gpu_layers);
        CHECK(r["context"] == e.context);
        CHECK(r["gpu"]["need_bytes"].get<double>() == same(e.local.gpu.need_bytes));
        CHECK(r["gpu"]["have_bytes"].get<double>() == same(e.local.gpu.have_bytes));
        CHECK(r["ram"]["need_bytes"].get<double>() == same(e.local.ram.need_bytes));
        CHECK(r["ram"]["have_bytes"].get<double>() == same(e.local.ram.have_bytes));
        CHECK(r["command"] == e.command.text);
        ++compared;
        if (r["runs"] == false) {  // a row that does not run lists no speed
            CHECK(r["speed"]["known"] == false);
            continue;
        }
        CHECK(r["speed"]["known"] == e.local.speed.known);
        CHECK(r["speed"]["decode_tps"].get<double>() == same(e.local.speed.decode_tps));
        CHECK(r["speed"]["decode_low"].get<double>() == same(e.local.speed.decode_low));
        CHECK(r["speed"]["decode_high"].get<double>() == same(e.local.speed.decode_high));
        CHECK(r["speed"]["prefill_tps"].get<double>() == same(e.local.speed.prefill_tps));
    }
    return compared;
}

}  // namespace

TEST_CASE("chat rows equal the single-model answer over the whole catalog: 24 GB + 64 GB, 12 GB alone, Macs, CPU only, Ollama, MLX") {
    const int64_t n = static_cast<int64_t>(test::models().size());
    // Every catalog model has a row and all but the few the runtime cannot run are compared.
    CHECK(check_chat({{"gpu", "rtx4090"}, {"ram_gb", 64}}) >= n - 8);
    CHECK(check_chat({{"gpu", "rtx3060"}}) >= n - 8);
    CHECK(check_chat({{"gpu", "m3-max-128"}}) >= n - 8);
    CHECK(check_chat({{"gpu", "cpu"}, {"ram_gb", 32}, {"ram_kind", "ddr5"}}) >= n - 8);
    CHECK(check_chat({{"gpu", "rtx3090"}, {"gpus", 2}, {"ram_gb", 128}, {"engine", "ollama"}, {"seq", 16384}}) >= n - 8);
    CHECK(check_chat({{"gpu", "m4-pro-48"}, {"engine", "mlx"}}) >= n - 8);
}

TEST_CASE("serving rows equal the single-model answer: the engine's test, the memory, the KV pool and the planner's speed") {
    const json a = fits({{"intent", "serve"}, {"job", {{"gpu", "h100"}, {"batch", 8}}}, {"filters", {{"modality", "any"}}}});
    int compared = 0, runs = 0;
    for (const json& r : a["rows"]) {
        if (r["fit"] == "unsupported") continue;
        const std::string id = r["id"];
        CAPTURE(id);
        const Model m = test::model(id);
        const Job job = parse_job(r["job"]);
        const Estimate e = estimate(m, job);
        CHECK(r["runs"] == e.serving.fits);
        CHECK(r["gpu"]["need_bytes"].get<double>() == same(e.breakdown.total()));
        CHECK(r["command"] == e.command.text);
        runs += r["runs"].get<bool>();
        // The planner's answer for the same job on the same GPU (`--gpu h100 --plan`), every 4th model (each
        // answer times every op of the step).
        if (compared++ % 4 != 0 || r["runs"] == false) continue;
        const json plan = json::parse(cluster_answer(m, job, parse_cluster(json{{"gpu", "h100"}}, job)));
        CHECK(r["speed"]["decode_tps"].get<double>() == same(plan["serve"]["tokens_per_s_per_seq"].get<double>()));
        CHECK(r["speed"]["total_tps"].get<double>() == same(plan["serve"]["tokens_per_s_replica"].get<double>()));
    }
    CHECK(compared > 150);
    CHECK(runs > 100);
}

TEST_CASE("fine-tuning rows equal the single-model answer: LoRA before QLoRA, the step's peak and the planner's tokens/s") {
    const json a = fits({{"intent", "finetune"}, {"job", {{"gpu", "rtx4090"}}}});
    CHECK(a["context"] == 2048);  // the Fine-tune intent's (Unsloth's max_seq_length)
    int compared = 0;
    for (const json& r : a["rows"]) {
        if (r["fit"] == "unsupported") continue;
        const std::string id = r["id"];
        CAPTURE(id);
        const Model m = test::model(id);
        const Job job = parse_job(r["job"]);
        const Estimate e = estimate(m, job);
        CHECK(r["gpu"]["need_bytes"].get<double>() == same(e.breakdown.total()));
        CHECK(r["runs"] == (e.breakdown.total() <= e.verdict.capacity_bytes));
        // LoRA is listed only when it fits; a QLoRA row is one whose LoRA did not.
        if (r["mode"] == "qlora") {
            json lora = r["job"];
            lora["mode"] = "lora";
            CHECK(compute_breakdown(m, parse_job(lora)).total() > e.verdict.capacity_bytes);
        }
        if (compared++ % 8 == 0 && r["runs"] == true) {
            const json plan = json::parse(cluster_answer(m, job, parse_cluster(json{{"gpu", "rtx4090"}}, job)));
            CHECK(r["speed"]["total_tps"].get<double>() == same(plan["train"]["tokens_per_s"].get<double>()));
        }
    }
    CHECK(compared > 150);
}
