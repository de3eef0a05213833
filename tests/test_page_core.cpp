// Issue 23, what the page will receive besides the estimate: catalog search, the checkpoints'
// own quantization_config, the quantization ladder, intents, charts around the job, token budgets.
#include <doctest/doctest.h>

#include <filesystem>
#include <set>

#include "answers/inverse.hpp"
#include "answers/ladder.hpp"
#include "api/catalog.hpp"
#include "api/chart.hpp"
#include "api/intents.hpp"
#include "api/sweep.hpp"
#include "cluster/cluster.hpp"
#include "helpers.hpp"
#include "job/intents.hpp"
#include "text/errors.hpp"

using nlohmann::json;
using namespace vramcalc;

namespace {
std::vector<std::string> ids(const std::string& query) {
    std::vector<std::string> out;
    for (const SearchHit& h : search_models(test::models(), query)) out.push_back(h.entry->id);
    return out;
}
}  // namespace

TEST_CASE("search: the issue's queries find their model first") {
    CHECK(ids("deepseek v3").front() == "deepseek-v3");
    CHECK(ids("DeepSeek-V3").front() == "deepseek-v3");
    CHECK(ids("qwen 2.5 7b").front() == "qwen2.5-7b");
    CHECK(ids("llama3").front() == "llama-3-8b");  // Ollama's llama3
    CHECK(ids("phi4").front() == "phi-4");
    CHECK(ids("r1").front() == "deepseek-r1");
    CHECK(ids("meta-llama/Llama-3.1-8B-Instruct").front() == "llama-3.1-8b");
    CHECK(ids("google/gemma-2-9b-it").front() == "gemma-2-9b");
    CHECK(ids("meta-llama/Llama-2-7b-chat-hf").front() == "llama-2-7b");
    CHECK(ids("Qwen/Qwen2.5-7B-Instruct").front() == "qwen2.5-7b");
    CHECK(ids("mistralai/Mistral-7B-v0.1").front() == "mistral-7b");
    CHECK(ids("LLAMA_3.2.1b").front() == "llama-3.2-1b");
    // Every Llama 3 model matches "llama3"; the list is sorted best first, then by name.
    const std::vector<std::string> l3 = ids("llama3");
    for (const char* id : {"llama-3-70b", "llama-3.1-8b", "llama-3.3-70b"})
        CHECK(std::find(l3.begin(), l3.end(), id) != l3.end());
    CHECK(ids("").empty());
    CHECK(ids("zzzz-no-such").empty());
}

TEST_CASE("search through the API: the count counts what is listed; lookups resolve Hub ids; did you mean") {
    use_catalog(test::read_text(VRAMCALC_MODELS));
    for (const char* q : {"deepseek v3", "llama", "qwen 2.5 7b", "phi4", "x"}) {
        const json r = json::parse(search_catalog(q));
        REQUIRE(r["ok"] == true);
        CHECK(r["count"] == r["models"].size());
    }
    const json hub = json::parse(lookup_model("meta-llama/Llama-3.1-8B-Instruct"));
    CHECK(hub["id"] == "llama-3.1-8b");
    CHECK(hub["how"] == "resolved");
    const json unknown = json::parse(lookup_model("gpt-7"));
    CHECK(unknown["ok"] == false);
    CHECK(unknown["error"]["field"] == "model");
    CHECK(unknown["error"]["label"] == "Model");
    const std::string message = unknown["error"]["message"];
    CHECK(message.rfind("model: unknown model 'gpt-7'; did you mean ", 0) == 0);
    CHECK(message.size() < 200);  // a few suggestions, not the catalog
    CHECK(find_model(test::models(), "r1").id == "deepseek-r1");
    CHECK_THROWS_WITH_AS(find_model(test::models(), "llama-9"), doctest::Contains("did you mean"), InputError);
}

TEST_CASE("catalog: each entry's quantization_config is its Hub config's (tests/fixtures/quantization_config)") {
    const std::string dir = std::string(VRAMCALC_FIXTURES) + "/quantization_config";
    std::set<std::string> with_fixture;
    for (const auto& f : std::filesystem::directory_iterator(dir)) {
        const std::string id = f.path().stem().string();
        with_fixture.insert(id);
        const json fixture = json::parse(test::read_text(f.path().string()));
        CAPTURE(id);
        CHECK(find_model(test::models(), id).config["quantization_config"] == fixture["quantization_config"]);
    }
    CHECK(with_fixture == std::set<std::string>{"deepseek-v3", "deepseek-r1", "deepseek-r1-0528", "deepseek-v3.1", "kimi-k2",
                                                 "gpt-oss-20b", "gpt-oss-120b", "deepseek-v3-0324", "deepseek-v3.2-exp",
                                                 "deepseek-v3.2", "kimi-k2-0905", "minimax-m2", "minimax-m2.1",
                                                 "minimax-m2.5"});
    for (const ModelEntry& e : test::models())
        if (!with_fixture.count(e.id)) {
            const json& c = e.config.contains("text_config") ? e.config["text_config"] : e.config;
            CHECK_MESSAGE(!c.contains("quantization_config"), e.id);
            CHECK_MESSAGE(!e.config.contains("quantization_config"), e.id);
        }
    // Auto follows the checkpoint: DeepSeek-V3's routed and dense matrices FP8 with a 4-byte scale per
    // 128 × 128 block (8.002 bits), embedding and head BF16: about 671 GB, not BF16's 1.34 TB.
    const Estimate e = estimate(test::model("deepseek-v3"), test::job(json::object()));
    CHECK(e.weights_reference_bytes > 671e9 * 0.99);
    CHECK(e.weights_reference_bytes < 690e9);
    CHECK(e.weight_format_label.find("FP8") != std::string::npos);
}

TEST_CASE("the quantization ladder: full / partial -ngl N / too large, as the -ngl answer finds") {
    const Model m = test::model("llama-3-70b");
    const Job job = test::job({{"engine", "llamacpp"}, {"gpu", "rtx4090"}});
    const std::vector<LadderRung> ladder = quant_ladder(m, job);
    REQUIRE(ladder.size() == 8);
    CHECK(ladder.front().dtype == "fp16");
    CHECK(ladder.back().dtype == "q2_k");
    for (size_t i = 1; i < ladder.size(); ++i) CHECK(ladder[i].file_bytes < ladder[i - 1].file_bytes);
    for (const LadderRung& r : ladder) {
        CAPTURE(r.dtype);
        CHECK(std::string(r.status) != "size");
        if (std::string(r.status) == "partial") {
            Job at = job;
            at.dtype = &find_format(r.dtype, "dtype");
            at.dtype_auto = false;
            const Answer a = solve(m, at, Question::MaxGpuLayers);
            CHECK(a.value == r.gpu_layers);
            CHECK(r.gpu_bytes <= 23.64 * test::GiB);
        }
    }
    // 70B at FP16 (~141 GB) is partial on 24 GB; Mistral 7B Q4_K_M is a full offload.
    CHECK(std::string(ladder.front().status) == "partial");
    const std::vector<LadderRung> small = quant_ladder(test::model("mistral-7b"), test::job({{"engine", "llamacpp"}, {"gpu", "rtx4090"}}));
    CHECK(std::string(small[4].status) == "full");
    CHECK(small[4].dtype == "q4_k_m");
    CHECK_THROWS_AS(quant_ladder(m, test::job({{"engine", "vllm"}, {"gpu", "h100"}})), InputError);
    const json api = json::parse(ladder_for(m, R"({"gpu":"rtx3060"})"));  // no engine: asked as llama.cpp
    CHECK(api["ok"] == true);
    CHECK(api["rungs"].size() == 8);
}

TEST_CASE("intents: each is a job the core accepts, every value cited") {
    REQUIRE(intents().size() == 4);
    for (const Intent& i : intents()) {
        CAPTURE(i.id);
        json job = json::object();
        for (const PresetField& f : i.job) {
            job[f.key] = json::parse(f.value);
            CHECK(std::string(f.source).size() > 10);
        }
        CHECK_NOTHROW(parse_job(job));
    }
    const json all = json::parse(intents_json());
    CHECK(all["intents"][0]["job"]["engine"] == "llamacpp");
    CHECK(all["intents"][3]["cluster"]["tokens"] == "1T");
}

TEST_CASE("charts: a range around the job capped at the model's context, ticks and the capacity line") {
    use_config(find_model(test::models(), "llama-3-8b").config.dump());  // max_position_embeddings 8192
    const json c = json::parse(chart_current(R"({"gpu":"rtx4090"})", "seq"));
    REQUIRE(c["ok"] == true);
    const json& p = c["points"];
    // ¼× … 4× of 4096 is 1024 … 16384; capped at 8192 it spans 16× down to 512.
    CHECK(p.front()["value"] == 512);
    CHECK(p.back()["value"] == 8192);
    bool current = false;
    for (const json& x : p) current = current || (x["current"] == true && x["value"] == 4096);
    CHECK(current);
    CHECK(c["current"]["value"] == 4096);
    CHECK(c["current"]["label"].get<std::string>().rfind("4k tokens: 18.87 GB", 0) == 0);
    CHECK(c["capacity"]["bytes"].get<double>() == doctest::Approx(23.64 * test::GiB));
    CHECK(c["y"]["scale"] == "linear");
    const json& ticks = c["y"]["ticks"];
    CHECK(ticks.front()["bytes"] == 0);
    // Every mark inside the drawn range (issue 33: none past it, drawn on the edge with the wrong figure),
    // the last within one step of its top: 0, 10, 20 GB under the 25.38 GB line (no 30 GB on its edge).
    const double top = c["y"]["max_bytes"].get<double>(), step = ticks[1]["bytes"].get<double>();
    for (const json& t : ticks) CHECK(t["bytes"].get<double>() <= top);
    CHECK(ticks.back()["bytes"].get<double>() > top - step);
    CHECK(ticks.back()["text"] == "20 GB");
    // Batch from 1: 1 … 16, and a log axis once totals spread past 10×.
    const json b = json::parse(chart_current(R"({"mode":"train","seq":8192})", "batch"));
    CHECK(b["points"].front()["value"] == 1);
    CHECK(b["points"].back()["value"] == 16);
    CHECK(json::parse(chart_current("{}", "lora_rank"))["error"]["field"] == "sweep.axis");
}

TEST_CASE("the matrix under vLLM: what each format leaves for KV") {
    use_config(find_model(test::models(), "llama-3-8b").config.dump());
    const json m = json::parse(matrix_json(R"({"engine":"vllm","gpu":"h100","mode":"inference"})"));
    REQUIRE(m["ok"] == true);
    CHECK(m["shows"] == "kv");
    double bf16 = 0, fp8 = 0;
    for (const json& r : m["rows"]) {
        if (r["dtype"] == "bf16") bf16 = r["cells"][0]["pool_tokens"];
        if (r["dtype"] == "fp8") fp8 = r["cells"][0]["pool_tokens"];
    }
    CHECK(fp8 > bf16);  // 8 GB fewer weights: more tokens in the same budget
    CHECK(bf16 > 0);
}

TEST_CASE("cluster token budgets as people write them") {
    const Job job = test::job({{"mode", "train"}});
    auto tokens = [&](const json& t) { return parse_cluster({{"tokens", t}}, job).token_budget; };
    CHECK(tokens("1T") == 1e12);
    CHECK(tokens("15e12") == 15e12);
    CHECK(tokens("1.5 trillion") == 1.5e12);
    CHECK(tokens("300B") == 300e9);
    CHECK(tokens("2.5 billion tokens") == 2.5e9);
    CHECK(tokens("800M") == 800e6);
    CHECK(tokens(1e12) == 1e12);
    for (const char* bad : {"lots", "1X", "", "T", "1e", "-1T", "1 trillion trillion"})
        CHECK_THROWS_WITH_AS(tokens(bad), doctest::Contains("cluster.tokens: must be"), InputError);
}
