// Issue 33: one question, one coherent answer. Over a generated set of (model, machine, intent, job)
// questions, every answer's parts (api/answer.hpp) agree with each other: the same GPU and count and one
// unit everywhere, the planner's chosen layout fits when the verdict does, a what-fits row's two sides
// differ or say why, each breakdown row's formula ends in the row's figure, and no text shown to people
// holds one of the core's internal keys.
#include <doctest/doctest.h>

#include <map>
#include <regex>
#include <set>

#include "api/answer.hpp"
#include "helpers.hpp"
#include "job/engine_presets.hpp"
#include "job/intents.hpp"
#include "job/presets.hpp"
#include "job/vllm_versions.hpp"

using nlohmann::json;
using namespace vramcalc;

namespace {

// The questions: every model × machine × intent × job, drawn deterministically (a fixed LCG) down to
// kDrawn of them, so the set is the same on every run and spreads over every axis.
const char* const kModels[] = {"llama-3-8b",   "llama-3.1-8b", "llama-3-70b", "qwen3-30b-a3b", "deepseek-v3",
                               "mistral-7b",   "gpt-oss-20b",  "qwen2.5-14b", "mixtral-8x7b",  "gemma-2-9b",
                               "llama-3.2-1b", "phi-3-mini",   "bge-m3"};
const char* const kMachines[] = {R"({})",
                                 R"({"gpu":"rtx4090"})",
                                 R"({"gpu":"rtx3060"})",
                                 R"({"gpu":"h100","gpus":8})",
                                 R"({"gpu":"h100","gpus":256})",
                                 R"({"gpu":"a100-80","gpus":2})",
                                 R"({"device_gb":24})",
                                 R"({"gpu":"m4-max-128"})",
                                 R"({"gpu":"h200","gpus":4})",
                                 // issue 32: the machine's RAM, and a machine without a GPU
                                 R"({"gpu":"rtx4090","ram_gb":64})",
                                 R"({"cpu_only":true,"ram_gb":128})"};
const char* const kIntents[] = {"", "run_locally", "serve", "fine_tune", "pretrain", "post_train"};
const char* const kJobs[] = {R"({})", R"({"batch":16,"seq":32768})", R"({"mode":"train"})", R"({"mode":"qlora","batch":4})"};
constexpr size_t kDrawn = 400;

// Keys that are the engines' and frameworks' own public parameter names (vllm serve --max-model-len,
// llama.cpp -ngl's n_gpu_layers, ...): people set them by these names, so a text may name them.
const std::set<std::string> kPublicNames = {
    "gpu_memory_utilization", "max_model_len",   "max_num_seqs",       "max_num_batched_tokens", "n_gpu_layers",
    "mem_fraction_static",    "block_size",      "kv_cache_dtype",     "enforce_eager",          "chunked_prefill_size",
    "cuda_graph_max_bs",      "tensor_split",    "main_gpu",           "n_ubatch",               "limit_mm_per_prompt",
    "enable_prefix_caching",  "disable_cuda_graph", "max_cudagraph_capture_size", "cache_implementation",
    "swa_full_tokens_ratio",  "max_position_embeddings",
    // TRL's GRPOConfig (issue 36's post-training fields keep its names: people set them by these)
    "num_generations", "max_completion_length", "max_prompt_length", "generation_batch_size", "use_vllm", "vllm_mode",
    "vllm_gpu_memory_utilization", "vllm_max_model_length", "vllm_tensor_parallel_size"};

// The core's own keys, snake_case: the job's fields and every preset's (frameworks, engines, vLLM versions,
// intents), less the public names above.
std::set<std::string> internal_keys(const json& job) {
    std::set<std::string> keys;
    auto add = [&](const std::string& k) {
        if (k.find('_') != std::string::npos && !kPublicNames.count(k)) keys.insert(k);
    };
    for (auto it = job.begin(); it != job.end(); ++it) add(it.key());
    for (const Preset& p : all_presets())
        for (const PresetField& f : p.fields) add(f.key);
    for (const EnginePreset& p : all_engine_presets())
        for (const PresetField& f : p.fields) add(f.key);
    for (const VllmVersionPreset& v : vllm_presets())
        for (const auto* list : {&v.fields, &v.v0, &v.v1})
            for (const PresetField& f : *list) add(f.key);
    for (const Intent& i : intents())
        for (const PresetField& f : i.job) add(f.key);
    return keys;
}

// Every text shown to people: values of keys named text, why, label, title, detail, headline, value (an
// assumption's), engine_text, need_why, at_text, next_text, same_why, or ending in _text; and the notes,
// the recipe's adapted lines. Sources (citations of code) and ids are data, not texts.
void shown_texts(const json& v, const std::string& key, std::vector<std::pair<std::string, std::string>>& out) {
    static const std::set<std::string> kText = {"text", "why", "label", "title", "detail", "headline", "value", "same_why",
                                                "need_why", "engine_text", "at_text", "next_text", "name", "by"};
    if (v.is_string()) {
        const bool text = kText.count(key) || (key.size() > 5 && key.compare(key.size() - 5, 5, "_text") == 0) || key == "notes" ||
                          key == "adapted";
        if (text) out.emplace_back(key, v.get<std::string>());
        return;
    }
    if (v.is_array()) {
        for (const json& x : v) shown_texts(x, key, out);
        return;
    }
    if (!v.is_object()) return;
    for (auto it = v.begin(); it != v.end(); ++it) {
        if (it.key() == "job" || it.key() == "source" || it.key() == "capacity_source" || it.key() == "sources") continue;
        shown_texts(it.value(), it.key(), out);
    }
}

// A word of its own: a qualified name (sysctl iogpu.wired_limit_mb, a module path) is a public name, not our key.
bool has_word(const std::string& text, const std::string& word) {
    size_t at = 0;
    auto part = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
    while ((at = text.find(word, at)) != std::string::npos) {
        const bool left = at == 0 || !(part(text[at - 1]) || text[at - 1] == '.'), right = at + word.size() >= text.size() || !part(text[at + word.size()]);
        if (left && right) return true;
        at += word.size();
    }
    return false;
}

// The last size figure in a text ("… = 5.24 GB", "live at the peak (…): 0.01 GB"), or "" when it has none.
std::string last_size(const std::string& text, const std::string& unit) {
    static const std::regex size(R"((\d[\d,]*(?:\.\d+)?) (GB|GiB|TB|TiB|MB|MiB))");
    std::string last;
    for (auto it = std::sregex_iterator(text.begin(), text.end(), size); it != std::sregex_iterator(); ++it) last = it->str();
    (void)unit;
    return last;
}

// Whether a text names exactly this size ("16.06 GB", not "116.06 GB").
bool has_size(const std::string& text, const std::string& size) {
    for (size_t at = text.find(size); at != std::string::npos; at = text.find(size, at + 1))
        if (at == 0 || !(std::isdigit(static_cast<unsigned char>(text[at - 1])) || text[at - 1] == '.' || text[at - 1] == ',')) return true;
    return false;
}

struct Asked {
    std::string model, machine, intent, job;
};

std::vector<Asked> questions() {
    std::vector<Asked> all;
    for (const char* m : kModels)
        for (const char* g : kMachines)
            for (const char* i : kIntents)
                for (const char* j : kJobs) all.push_back({m, g, i, j});
    // A fixed linear congruential draw (Numerical Recipes' constants): the same kDrawn questions every run.
    std::vector<Asked> drawn;
    uint32_t x = 20260333u;
    std::set<size_t> taken;
    while (drawn.size() < kDrawn) {
        x = x * 1664525u + 1013904223u;
        const size_t i = x % all.size();
        if (taken.insert(i).second) drawn.push_back(all[i]);
    }
    return drawn;
}


}  // namespace

TEST_CASE("the one answer: its parts agree over generated questions (issue 33)") {
    size_t answered = 0, refused = 0, planner_checked = 0, rows = 0;
    std::map<std::string, size_t> refusals;  // by the field named
    for (const Asked& a : questions()) {
        json q = {{"model_name", a.model}, {"machine", json::parse(a.machine)}, {"job", json::parse(a.job)},
                  {"parts", {"head", "what_fits", "charts", "planner"}}};
        if (!a.intent.empty()) q["intent"] = a.intent;
        const Model model = test::model(a.model);
        const json ans = json::parse(answer_for(model, q.dump()));
        CAPTURE(q.dump());
        if (!ans.value("ok", false)) {
            // A refused question is one error naming a field (a job the model or mode does not allow).
            CHECK(ans["error"]["field"].get<std::string>().size() > 0);
            CHECK(ans["error"]["message"].get<std::string>().size() > 0);
            const std::string field = ans["error"]["field"];
            if (refusals[field]++ == 0) MESSAGE("refused: ", q.dump(), " → ", ans["error"]["message"].get<std::string>());
            ++refused;
            continue;
        }
        ++answered;
        const json& machine = ans["machine"];
        const json& v = ans["verdict"];
        const int64_t gpus = ans["layout"]["gpus"];
        // One machine, one count: the job, the layout, the verdict and the machine part (a CPU-only machine: none).
        const bool cpu_only = machine["cpu_only"] == true;
        CHECK(machine["gpus"] == (cpu_only ? 0 : gpus));
        CHECK(ans["job"]["gpus"] == gpus);
        CHECK(v["gpus"] == gpus);
        const std::string scope = gpus > 1 ? "each of " + std::to_string(gpus) + " GPUs" : "on one GPU";
        CHECK(ans["headline"]["scope_text"].get<std::string>().find(scope) != std::string::npos);
        for (const json& c : ans["cards"])
            if (c["current"] == true) CHECK(c["total_text"] == ans["headline"]["total_text"]);
        // One GPU: the verdict's, the what-fits part's and the planner's (yours, else the recommended one).
        const bool given = machine["given"] == true;
        const json& wf = ans["what_fits"];
        const json& planner = ans["planner"];
        if (cpu_only) {
            // No GPU: nothing answers for one (what fits has no rows, the planner names the machine).
            CHECK(wf["chosen"] == "none");
            CHECK(planner["error"]["field"] == "machine.cpu_only");
        } else if (given) {
            CHECK(v["gpu"] == machine["gpu"]);
            CHECK(wf["gpu"] == machine["gpu"]);
            CHECK(wf["gpus"] == gpus);
            if (planner.value("ok", false)) {
                CHECK(planner["hardware"]["gpu"]["id"] == machine["gpu"]);
                CHECK(planner["hardware"]["gpus"] == gpus);
            }
        } else if (v["recommendation"]["found"] == true) {
            CHECK(wf["gpu"] == v["recommendation"]["gpu"]);
            CHECK(wf["gpus"] == v["recommendation"]["gpus"]);
            if (planner.value("ok", false)) CHECK(planner["hardware"]["gpu"]["id"] == v["recommendation"]["gpu"]);
        }
        // One unit: every size written in the answer's unit (GB here).
        std::vector<std::pair<std::string, std::string>> texts;
        shown_texts(ans, "", texts);
        static const std::regex gib(R"(\d (GiB|MiB|TiB)\b)");
        for (const auto& shown : texts) {
            CAPTURE(shown.first);
            CAPTURE(shown.second);
            CHECK_FALSE(std::regex_search(shown.second, gib));
        }
        // The planner's chosen layout fits when the verdict fits (item 4: it times the verdict's layout first).
        const json& check = ans["planner_check"];
        if (check.contains("fits") && check.value("verdict_fits", false)) {
            ++planner_checked;
            CHECK(check["fits"] == true);
        }
        // A what-fits row's two sides differ, or it says why not.
        for (const json& r : wf["rows"]) {
            if (r.contains("error") || r["next"].is_null()) continue;
            ++rows;
            CAPTURE(r.dump());
            CHECK((r["at_figure"] != r["next_figure"] || !r["same_why"].get<std::string>().empty()));
        }
        // Each breakdown row equals its formula's result (the peak view, the classic count, the terms): a row
        // whose explanation works a figure out ("… = 5.24 GB") reaches the row's own figure, never another
        // ("Optimizer m + v 64.24 GB" beside a formula ending "= 96.36 GB" was the walk's).
        auto rows_agree = [&](const json& list) {
            for (const json& row : list) {
                const std::string why = row.value("why", ""), text = row["text"];
                if (why.find(" = ") == std::string::npos || row["bytes"].get<double>() <= 0) continue;
                CAPTURE(row.dump());
                CHECK((has_size(why, text) || last_size(why, "GB") == text));
            }
        };
        rows_agree(ans["terms"]);
        for (const json& view : ans["views"]) rows_agree(view["rows"]);
        // No text shown to people holds one of the core's internal keys.
        const std::set<std::string> keys = internal_keys(ans["job"]);
        for (const auto& shown : texts)
            for (const std::string& k : keys) {
                CAPTURE(k);
                CAPTURE(shown.first);
                CAPTURE(shown.second);
                CHECK_FALSE(has_word(shown.second, k));
            }
    }
    MESSAGE("answered ", answered, ", refused ", refused, ", what-fits rows ", rows, ", planner layouts checked beside a fitting verdict ",
            planner_checked);
    for (const auto& [field, n] : refusals) MESSAGE("refused on ", field, ": ", n);
    CHECK(answered + refused == kDrawn);
    CHECK(answered >= 200);
    CHECK(planner_checked >= 50);
}

TEST_CASE("intents keep the machine and follow the model (issue 33)") {
    // No intent names a GPU or a count.
    for (const Intent& i : intents()) {
        for (const PresetField& f : i.job) CHECK((std::string(f.key) != "gpu" && std::string(f.key) != "gpus"));
        for (const IntentVariant& v : i.variants)
            for (const PresetField& f : v.job) CHECK((std::string(f.key) != "gpu" && std::string(f.key) != "gpus"));
        for (const PresetField& f : i.cluster) CHECK((std::string(f.key) != "gpu" && std::string(f.key) != "gpus"));
    }
    // 256 H100 stay 256 under Pre-train, and Llama 3 70B takes torchtitan's 70B config (TP 8, full checkpointing).
    const json q = {{"machine", {{"gpu", "h100"}, {"gpus", 256}}}, {"intent", "pretrain"}, {"parts", {"head"}}};
    const json a = json::parse(answer_for(test::model("llama-3-70b"), q.dump()));
    REQUIRE(a["ok"] == true);
    CHECK(a["job"]["gpus"] == 256);
    CHECK(a["job"]["tp"] == 8);
    CHECK(a["job"]["checkpointing"] == "full");
    CHECK(a["job"]["batch"] == 8);
    CHECK(a["recipe"]["text"].get<std::string>().rfind("Full training, torchtitan's Llama 3 70B config: ", 0) == 0);
    // On one GPU its TP 8 is fitted to the machine, and the answer says so.
    const json one = json::parse(answer_for(test::model("llama-3-70b"), R"({"machine":{"gpu":"h100"},"intent":"pretrain","parts":["head"]})"));
    REQUIRE(one["ok"] == true);
    CHECK(one["job"]["tp"] == 0);
    CHECK(one["recipe"]["adapted"][0] == "Tensor parallel (TP) 8 in torchtitan's Llama 3 70B config → 1 on your 1 GPU");
    // An MoE takes expert parallelism and a checkpointing the core models (DeepSeek-V3 errored on selective_op).
    const json moe = json::parse(answer_for(test::model("deepseek-v3"), R"({"machine":{"gpu":"h100","gpus":256},"intent":"pretrain","parts":["head"]})"));
    REQUIRE(moe["ok"] == true);
    CHECK(moe["job"]["ep"] == 8);
    CHECK(moe["job"]["checkpointing"] == "full");
    // The user's field wins over the intent's.
    const json own = json::parse(answer_for(test::model("llama-3-70b"),
                                            R"({"machine":{"gpu":"h100","gpus":64},"intent":"pretrain","job":{"batch":2},"parts":["head"]})"));
    CHECK(own["job"]["batch"] == 2);
    CHECK(own["job"]["tp"] == 8);
}

TEST_CASE("the answer names its recipe, with the fine-tuning recipes beside it at the same batch and length") {
    const json a = json::parse(answer_for(test::model("llama-3.1-8b"),
                                          R"({"machine":{"gpu":"rtx4090"},"intent":"fine_tune","parts":["head"]})"));
    REQUIRE(a["ok"] == true);
    const std::string text = a["recipe"]["text"];
    CHECK(text.rfind("QLoRA, Unsloth's notebooks: " + a["total_text"].get<std::string>() + " · HF + PEFT: ", 0) == 0);
    // Each alternative is the same question under that framework, counted the same way (the job's memory kind).
    for (const json& alt : a["recipe"]["alternatives"]) {
        json job = {{"mode", "qlora"}, {"lora_rank", 16}, {"lora_targets", "all-linear"}, {"batch", 2}, {"grad_accum", 4}, {"seq", 2048},
                    {"optimizer", "adam_8bit"}, {"gpu", "rtx4090"}, {"framework", alt["framework"]}, {"report", a["job"]["report"]},
                    {"overhead_gb", a["job"]["overhead_gb"]}};
        CHECK(alt["total_text"] == json::parse(estimate_request(find_model(test::models(), "llama-3.1-8b").config.dump(), job.dump()))["total_text"]);
    }
}

TEST_CASE("serving answers in users and tokens: the headline is what the users need, the pool is the engine's") {
    const json a = json::parse(answer_for(test::model("qwen3-30b-a3b"),
                                          R"({"machine":{"gpu":"h100"},"intent":"serve","job":{"batch":16,"seq":32768},"parts":["head","what_fits"]})"));
    REQUIRE(a["ok"] == true);
    const json& s = a["serving_view"];
    // What the users need: every term but the pool, and the KV of 16 × 32,768 tokens instead.
    double fixed = 0;
    for (const json& t : a["terms"])
        if (t["key"] != "kv_cache") fixed += t["bytes"].get<double>();
    CHECK(a["headline"]["total_bytes"].get<double>() == doctest::Approx(fixed + s["kv_needed_bytes"].get<double>()));
    CHECK(a["headline"]["kind"] == "need");
    CHECK(a["headline"]["total_bytes"].get<double>() > a["total_bytes"].get<double>());  // more than the engine's budget: it does not fit
    // The capacity line is the GPU's, never the pool.
    CHECK(a["capacity"]["text"] == "H100 80GB: 84.94 GB usable each (" + a["verdict"]["capacity_source"].get<std::string>() + ").");
    CHECK(a["capacity"]["engine_text"].get<std::string>().rfind("vLLM's own view: it takes 0.90 × 84.94 GB = 76.45 GB of each GPU", 0) == 0);
    // What fits speaks in users and tokens, and its two sides differ.
    for (const json& r : a["what_fits"]["rows"]) {
        if (r["question"] == "max_batch") CHECK(r["text"].get<std::string>().rfind("most users at once: ", 0) == 0);
        if (r["next"].is_null()) continue;
        CHECK(r["at_figure"].get<std::string>().rfind("KV ", 0) == 0);
        CHECK(r["at_figure"] != r["next_figure"]);
    }
}

TEST_CASE("a recipe compared on an encoder never writes NaN (Unsloth's fused loss over an encoder's head)") {
    const json a = json::parse(answer_for(test::model("bge-m3"), R"({"job":{"mode":"qlora","lora_rank":64,"seq":1024},"parts":["head"]})"));
    REQUIRE(a["ok"] == true);
    for (const json& alt : a["recipe"]["alternatives"]) CHECK(alt["total_bytes"].get<double>() > 0);
}
