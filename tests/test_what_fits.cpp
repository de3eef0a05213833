// "What can I run?" (issue 35): hand-derived rows on four machines, the order, the filters, bad input, and every
// row of the whole catalog against the single-model answer for the same model, format and machine.
#include <doctest/doctest.h>

#include <set>

#include "answers/inverse.hpp"
#include "api/catalog.hpp"
#include "api/what_fits_json.hpp"
#include "helpers.hpp"
#include "what_fits_helpers.hpp"
#include "local/local.hpp"

using namespace vramcalc;
using nlohmann::json;

namespace {

// The list for a request (what_fits_helpers.hpp).
json fits(const json& request) { return test::what_fits(request); }
const json& row_of(const json& answer, const std::string& id) {
    for (const json& r : answer["rows"])
        if (r["id"] == id) return r;
    FAIL("no row for " << id);
    static const json none;
    return none;
}
int64_t catalog_count() { return static_cast<int64_t>(test::models().size()); }
// The chat list's default: models that generate text (docs/what-fits.md, "Filters").
int64_t text_and_vision() {
    int64_t n = 0;
    for (const ModelEntry& e : test::models()) n += e.modality == "text" || e.modality == "vision";
    return n;
}

}  // namespace

TEST_CASE("24 GB GPU + 64 GB RAM: gpt-oss-120b with its experts in RAM at the machine issue's N, Llama 3.1 8B whole in F16") {
    const json a = fits({{"job", {{"gpu", "rtx4090"}, {"ram_gb", 64}}}});
    REQUIRE(a["ok"] == true);
    CHECK(a["considered"] == catalog_count());
    CHECK(a["count"] == text_and_vision());  // encoders and speech models are not chat models
    CHECK(a["filter_steps"][0] == "modality text or vision (the default of chat): " + std::to_string(text_and_vision()) + " left");
    CHECK(a["context"] == 8192);  // the stated default, not the model's 131,072
    // gpt-oss-120b ships MXFP4 (ggml-org's GGUF): 36 layers of 1,692,057,600 bytes of experts (test_machine.cpp) do
    // not fit 24 GB, so --fit moves the experts of the first N layers to RAM, N = the smallest --n-cpu-moe that
    // leaves fit_target_mib free (core/local/fit.cpp; the machine issue's solver, asked here on the row's job).
    const json& oss = row_of(a, "gpt-oss-120b");
    CHECK(oss["dtype"] == "mxfp4");
    CHECK(oss["fit"] == "experts_in_ram");
    CHECK(oss["context"] == 8192);
    const Answer n = solve(test::model("gpt-oss-120b"), parse_job(oss["job"]), Question::NCpuMoe);
    CHECK(n.found);
    CHECK(oss["n_cpu_moe"] == n.value);
    CHECK(oss["ram"]["have_bytes"] == 64e9);
    CHECK(oss["ram"]["need_bytes"].get<double>() > oss["n_cpu_moe"].get<double>() * 1'692'057'600.0);
    // At the machine issue's own 4,096 tokens the same row has N = 24 (test_machine.cpp, by hand).
    const json a4k = fits({{"job", {{"gpu", "rtx4090"}, {"ram_gb", 64}, {"seq", 4096}}}});
    CHECK(row_of(a4k, "gpt-oss-120b")["n_cpu_moe"] == 24);
    CHECK(row_of(a4k, "gpt-oss-120b")["command"].get<std::string>().find(" -c 4096 -ngl 37 --n-cpu-moe 24 ") != std::string::npos);
    // Llama 3.1 8B: F16 is 8,030,261,248 × 2 B = 16.06 GB of weights, its KV 32 layers × 8 heads × 128 × 2 (K, V) × 2 B =
    // 128 KiB a token, 1.07 GB at 8,192; with llama.cpp's compute buffers it stays under the RTX 4090's 25.38 GB
    // less --fit's 1 GiB: the largest format, whole on the GPU.
    const json& llama = row_of(a, "llama-3.1-8b");
    CHECK(llama["dtype"] == "fp16");
    CHECK(llama["fit"] == "full");
    CHECK(llama["gpu_layers"] == -1);
    const double need = llama["gpu"]["need_bytes"];
    CHECK(need > 16.06e9 + 8192 * 131072.0);
    CHECK(need < 23.64 * test::GiB - test::GiB);
    CHECK(llama["speed"]["known"] == true);
    CHECK(llama["speed"]["decode_low"].get<double>() < llama["speed"]["decode_tps"].get<double>());
    // The one-click job opens the same answer.
    CHECK(llama["job"]["dtype"] == "fp16");
    CHECK(llama["job"]["seq"] == 8192);
    CHECK(llama["job"]["ram_gb"] == 64);
}

TEST_CASE("a 12 GB GPU with no RAM stated: the list is capped by the GPU's memory") {
    const json a = fits({{"job", {{"gpu", "rtx3060"}}}});
    REQUIRE(a["ok"] == true);
    CHECK(a["machine"]["ram_given"] == false);
    // Without RAM nothing runs with layers or experts in RAM: every row that runs is whole on the GPU, within it.
    int runs = 0;
    for (const json& r : a["rows"]) {
        if (!r["runs"].get<bool>()) continue;
        ++runs;
        CHECK(r["fit"] == "full");
        CHECK(r["gpu"]["need_bytes"].get<double>() <= r["gpu"]["have_bytes"].get<double>());
    }
    CHECK(runs > 50);
    // Llama 3.1 8B: F16 (17.6 GB with its KV) does not fit 12 GB; Q8_0, 8.5 bits a weight (34 bytes per 32: 8.53 GB)
    // plus 1.07 GB of KV and the compute buffers does.
    const json& llama = row_of(a, "llama-3.1-8b");
    CHECK(llama["dtype"] == "q8_0");
    CHECK(llama["fit"] == "full");
    // Llama 3.1 70B even at Q2_K (3.16 bits: ~28 GB) does not: too large, and the row says RAM was not given.
    const json& big = row_of(a, "llama-3.1-70b");
    CHECK(big["runs"] == false);
    CHECK(big["fit"] == "too_large");
    CHECK(big["fit_text"].get<std::string>().find("ram_gb") != std::string::npos);
}

TEST_CASE("a 128 GB Mac at its default wired limit: the GPU's share of unified memory") {
    // macOS lets Metal wire 3/4 of RAM above 36 GB (recommendedMaxWorkingSetSize, docs/machine.md): 96 GiB of 128.
    const json a = fits({{"job", {{"gpu", "m3-max-128"}}}});
    REQUIRE(a["ok"] == true);
    CHECK(a["machine"]["unified"] == true);
    const json& oss = row_of(a, "gpt-oss-120b");
    CHECK(oss["fit"] == "full");
    CHECK(oss["gpu"]["have_bytes"] == 96 * test::GiB);
    CHECK(oss["ram"]["have_bytes"] == 128 * test::GiB);
    // Llama 3.1 70B: F16 (141 GB) is over the share; Q8_0, 70.55 B × 8.5 / 8 = 75.0 GB plus 80 layers × 8 heads ×
    // 128 × 2 × 2 B = 320 KiB a token (2.68 GB at 8,192), is under 96 GiB less --fit's 1 GiB.
    const json& big = row_of(a, "llama-3.1-70b");
    CHECK(big["dtype"] == "q8_0");
    CHECK(big["fit"] == "full");
    CHECK(big["gpu"]["need_bytes"].get<double>() > 75.0e9 + 8192 * 327680.0);
    CHECK(big["gpu"]["need_bytes"].get<double>() < 95 * test::GiB);
    // With the wired limit raised to 120 GiB (sudo sysctl iogpu.wired_limit_mb=122880) the share is that.
    const json raised = fits({{"job", {{"gpu", "m3-max-128"}, {"wired_limit_mb", 122880}}}});
    CHECK(row_of(raised, "gpt-oss-120b")["gpu"]["have_bytes"] == 120 * test::GiB);
}

TEST_CASE("the order: what runs first, then the key; stable, ties broken by name") {
    // Two pasted copies of one config have equal numbers: only their names order them, whichever comes first.
    const json config = json::parse(test::fixture("llama-3-8b.config.json"));
    const json a = fits({{"job", {{"gpu", "rtx4090"}, {"ram_gb", 64}}}, {"sort", "speed"},
                         {"configs", {{{"name", "zz copy"}, {"config", config}}, {{"name", "aa copy"}, {"config", config}}}}});
    std::vector<std::string> names;
    for (const json& r : a["rows"])
        if (r["pasted"] == true) names.push_back(r["name"]);
    CHECK(names == std::vector<std::string>{"aa copy", "zz copy"});
    double last = 1e300;
    bool runs = true;
    for (const json& r : a["rows"]) {
        if (r["runs"] != runs) {
            CHECK(runs);  // once a row does not run, no later row runs
            runs = false, last = 1e300;
        }
        const double key = r["speed"]["known"] == true ? r["speed"]["decode_tps"].get<double>() : -1;
        CHECK(key <= last);
        last = key;
    }
    // By name: A to Z, case aside.
    const json by_name = fits({{"job", {{"gpu", "rtx4090"}, {"ram_gb", 64}}}, {"sort", "name"}, {"filters", {{"runnable", true}}}});
    std::string previous;
    for (const json& r : by_name["rows"]) {
        std::string n = r["name"];
        for (char& c : n) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        CHECK(previous <= n);
        previous = n;
    }
    // The same request twice gives the same list.
    CHECK(fits({{"job", {{"gpu", "rtx4090"}, {"ram_gb", 64}}}}).dump() == fits({{"job", {{"gpu", "rtx4090"}, {"ram_gb", 64}}}}).dump());
}

TEST_CASE("filters: family, size, mixture of experts, modality, licence, context, speed; none left says which") {
    const json job = {{"gpu", "rtx4090"}, {"ram_gb", 64}};
    int64_t llama3 = 0;
    for (const ModelEntry& e : test::models()) llama3 += e.family == "Llama 3";
    const json fam = fits({{"job", job}, {"filters", {{"family", "llama 3"}}}});
    CHECK(fam["count"] == llama3);
    CHECK(fam["filter_steps"][0] == "family llama 3: " + std::to_string(llama3) + " left");
    for (const json& r : fam["rows"]) CHECK(r["family"] == "Llama 3");
    const json moe = fits({{"job", job}, {"filters", {{"moe", true}, {"size", {"small", "medium"}}}}});
    CHECK(moe["count"].get<int>() > 0);
    for (const json& r : moe["rows"]) {
        CHECK(r["moe"] == true);
        CHECK(std::set<std::string>{"small", "medium"}.count(r["size_class"].get<std::string>()) == 1);
        CHECK(r["params_total"].get<double>() >= 3e9);
        CHECK(r["params_total"].get<double>() < 35e9);
    }
    const json vision = fits({{"job", job}, {"filters", {{"modality", "vision"}, {"license", {"apache-2.0", "mit"}}, {"min_context", 32768}}}});
    CHECK(vision["count"].get<int>() > 0);
    for (const json& r : vision["rows"]) {
        CHECK(r["modality"] == "vision");
        CHECK((r["license"] == "apache-2.0" || r["license"] == "mit"));
        CHECK(r["trained_context"].get<int64_t>() >= 32768);
    }
    const json fast = fits({{"job", job}, {"filters", {{"min_tps", 100}}}});
    CHECK(fast["count"].get<int>() > 0);
    for (const json& r : fast["rows"]) CHECK(r["speed"]["decode_tps"].get<double>() >= 100);
    const json none = fits({{"job", job}, {"filters", {{"family", "Llama 3"}, {"min_tps", 5000}}}});
    CHECK(none["count"] == 0);
    CHECK(none["empty"]["field"] == "filters");
    CHECK(none["empty"]["message"] == "the filters leave none of the " + std::to_string(catalog_count()) + " models (family Llama 3: " +
                                          std::to_string(llama3) + " left; modality text or vision (the default of chat): " +
                                          std::to_string(llama3) + " left; at least 5000.0 tokens/s: none left)");
    // "any" lists every modality: the encoders too.
    CHECK(fits({{"job", job}, {"filters", {{"modality", "any"}}}})["count"] == catalog_count());
}

TEST_CASE("bad input: no machine says what to set; a pasted config that fails is named and the list stays") {
    const json nothing = fits({{"job", json::object()}});
    REQUIRE(nothing["ok"] == true);
    CHECK(nothing["count"] == 0);
    CHECK(nothing["empty"]["field"] == "job.gpu");
    CHECK(nothing["empty"]["message"].get<std::string>().find("ram_gb") != std::string::npos);
    CHECK(fits({{"intent", "serve"}, {"job", {{"ram_gb", 64}}}})["empty"]["field"] == "job.gpu");
    CHECK(fits({{"job", {{"gpu", "cpu"}}}})["empty"]["field"] == "job.ram_gb");
    // RAM alone: a machine without a GPU, every row on the CPU.
    const json cpu = fits({{"job", {{"ram_gb", 32}}}});
    CHECK(cpu["machine"]["cpu_only"] == true);
    CHECK(row_of(cpu, "qwen3-30b-a3b")["fit"] == "cpu");
    const json bad = fits({{"job", {{"gpu", "rtx4090"}}}, {"filters", {{"modality", "any"}}},
                           {"configs", {{{"name", "mine.json"}, {"config", R"({"model_type":"mamba3","hidden_size":8})"}}}}});
    REQUIRE(bad["ok"] == true);
    CHECK(bad["count"] == catalog_count());
    REQUIRE(bad["config_errors"].size() == 1);
    CHECK(bad["config_errors"][0]["name"] == "mine.json");
    CHECK(bad["config_errors"][0]["field"] == "config.model_type");
    CHECK(bad["config_errors"][0]["message"].get<std::string>().rfind("mine.json: config.model_type: unknown architecture 'mamba3'", 0) == 0);
    const json malformed = fits({{"job", {{"gpu", "rtx4090"}}}, {"configs", {{{"name", "x"}, {"config", "{not json"}}}}});
    CHECK(malformed["config_errors"][0]["field"] == "configs[0].config");
    auto error_field = [](const json& request) { return fits(request)["error"]["field"].get<std::string>(); };
    CHECK(error_field({{"intent", "train"}}) == "intent");
    // The single-model question's intent names ask the same list (job/intents.cpp's run_locally and fine_tune).
    CHECK(fits({{"intent", "run_locally"}, {"job", {{"gpu", "rtx4090"}}}})["intent"] == "chat");
    CHECK(fits({{"intent", "fine_tune"}, {"job", {{"gpu", "rtx4090"}}}})["intent"] == "finetune");
    CHECK(error_field({{"sort", "price"}}) == "sort");
    CHECK(error_field({{"job", {{"gpu", "rtx4090"}, {"dtype", "q8_0"}}}}) == "job.dtype");
    CHECK(error_field({{"job", {{"gpu", "rtx4090"}, {"engine", "vllm"}}}}) == "job.engine");
    CHECK(error_field({{"job", {{"gpu", "rtx4090"}, {"ram_gb", -1}}}}) == "job.ram_gb");
    CHECK(error_field({{"filters", {{"size", "huge"}}}}) == "filters.size");
    CHECK(error_field({{"filters", {{"colour", "red"}}}}) == "filters.colour");
    CHECK(error_field({{"machine", {}}}) == "request.machine");
    // Bounded: at most 16 pasted configs, 64 names in a filter (docs/hostile-input.md).
    CHECK(error_field({{"job", {{"gpu", "rtx4090"}}}, {"configs", json(std::vector<json>(17, json::object()))}}) == "configs");
    CHECK(error_field({{"job", {{"gpu", "rtx4090"}}}, {"filters", {{"family", std::vector<std::string>(65, "x")}}}}) == "filters.family");
    CHECK(json::parse(what_fits_request("[1,2"))["error"]["field"] == "request");
}

TEST_CASE("the page's Your-machine line: the machine with its GPU count, and what the rows were sized for") {
    // Two RTX 3090 and 128 GB of RAM: the count is the machine's (the row's gpu pool is the fullest one GPU).
    const json two = fits({{"job", {{"gpu", "rtx3090"}, {"gpus", 2}, {"ram_gb", 128}}}});
    REQUIRE(two["ok"] == true);
    CHECK(two["machine"]["text"] == "2 × " + two["machine"]["gpu_text"].get<std::string>() + " + " +
                                        two["machine"]["ram_text"].get<std::string>());
    CHECK(two["intent_text"] == "chat on " + two["runtime"].get<std::string>());
    // A model trained on a shorter context than the list's is sized at its own, and its row says so: OPT-30B at 2,048.
    CHECK(row_of(two, "opt-30b")["context_text"] == "at 2,048 tokens (its trained context)");
    CHECK(row_of(two, "llama-3.1-8b")["context_text"] == "at 8,192 tokens");
    // No RAM given: the chat list is capped by the GPU, and the line says so.
    const json alone = fits({{"job", {{"gpu", "rtx3060"}}}});
    CHECK(alone["machine"]["text"] == "RTX 3060 12GB (system RAM not given: only what runs whole on the GPU counts)");
    // No GPU: the RAM alone.
    const json cpu = fits({{"job", {{"gpu", "cpu"}, {"ram_gb", 32}}}});
    CHECK(cpu["machine"]["text"] == "no GPU, " + cpu["machine"]["ram_text"].get<std::string>());
    // Serving: the engine and the load, the Serve intent's 16 users unless the job says otherwise; RAM is not the engine's.
    const json serve = fits({{"intent", "serve"}, {"job", {{"gpu", "h100"}, {"batch", 8}, {"seq", 4096}}}});
    CHECK(serve["machine"]["text"] == "H100 80GB");
    CHECK(serve["intent_text"] == "serving on vLLM: 8 users × 4,096 tokens");
    const json sglang = fits({{"intent", "serve"}, {"job", {{"gpu", "h100"}, {"engine", "sglang"}}}});
    CHECK(sglang["intent_text"] == "serving on SGLang: 16 users × 8,192 tokens");
    // Fine-tuning: LoRA, else QLoRA, at the Fine-tune intent's batch 2 × 2,048 tokens; one mode when the job names it.
    CHECK(fits({{"intent", "finetune"}, {"job", {{"gpu", "rtx4090"}}}})["intent_text"] == "fine-tuning: LoRA, else QLoRA, at batch 2 × 2,048 tokens");
    CHECK(fits({{"intent", "finetune"}, {"job", {{"gpu", "rtx4090"}, {"mode", "qlora"}}}})["intent_text"] ==
          "fine-tuning: QLoRA, at batch 2 × 2,048 tokens");
}
