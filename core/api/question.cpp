#include "api/question.hpp"

#include <algorithm>
#include <cstring>
#include <iterator>

#include "cluster/kernels.hpp"
#include "text/errors.hpp"
#include "text/field_labels.hpp"
#include "text/json_text.hpp"
#include "text/json_writer.hpp"
#include "answers/notes.hpp"

namespace vramcalc {
namespace {

using nlohmann::json;

const char* const kPartNames[] = {"head", "what_fits", "charts", "planner", "matrix", "ladder"};
// The machine: its GPUs, and (issue 32, core/machine/) its system RAM, unified memory and whether it has a GPU.
const char* const kMachineKeys[] = {"gpu",          "gpus",        "device_gb",   "device_gib",   "ram_gb",
                                    "ram_gib",      "ram_used_gb", "ram_used_gib", "swap_gb",     "ram_kind",
                                    "ram_channels", "ram_mts",     "ram_bandwidth_gbs", "cpu_only", "wired_limit_mb",
                                    "carveout_gb",  "gtt_gb",      "uma_backend"};
constexpr size_t kMaxModelName = 200;

// FP8 training as one choice (issue 33): the planner's recipe (its GEMM rates and casts,
// cluster/kernels.cpp) and the memory model it implies for the job (memory/parallel.cpp, job.fp8):
// torchao's float8 linears (their FSDP all-gather in fp8 when asked), or Transformer Engine's fp8 weight
// caches; DeepSeek-V3's blockwise scaling runs as Transformer Engine's Float8BlockScaling (its recipe's source).
// Blockwise FP8 is run by either: Transformer Engine's Float8BlockScaling under Megatron and NeMo, torchao's
// blockwise float8 linears (torchao/prototype/blockwise_fp8_training) under FSDP frameworks.
struct Fp8Choice {
    const char* id;      // the planner's recipe id
    const char* memory;  // job.fp8: "torchao", "te", or "by_framework" (te under Megatron and NeMo, else torchao)
};
const Fp8Choice kFp8[] = {
    {"tensorwise", "torchao"}, {"rowwise", "torchao"}, {"rowwise_gw_hp", "torchao"}, {"mxfp8", "torchao"},
    {"te_delayed", "te"},      {"te_current", "te"},   {"blockwise", "by_framework"},
};

std::string machine_key_names() {
    std::string names;
    for (const char* k : kMachineKeys) names += (names.empty() ? "" : ", ") + std::string(k);
    return names;
}

bool is_machine_key(const std::string& key) {
    for (const char* k : kMachineKeys)
        if (key == k) return true;
    return false;
}

// A whole number the job gives for `key` (as JSON), or `fallback` when absent or not a whole number
// (parse_job names a bad one).
int64_t whole(const json& job, const char* key, int64_t fallback) {
    const auto it = job.find(key);
    if (it == job.end() || !it->is_number()) return fallback;
    const double v = it->get<double>();
    return v >= 1 && v == static_cast<double>(static_cast<int64_t>(v)) ? static_cast<int64_t>(v) : fallback;
}

// The largest d ≤ most with ok(d) (1 always qualifies).
template <class Ok>
int64_t largest_degree(int64_t most, Ok ok) {
    for (int64_t d = most; d > 1; --d)
        if (ok(d)) return d;
    return 1;
}

std::string gpus_words(int64_t n) { return "your " + std::to_string(n) + (n == 1 ? " GPU" : " GPUs"); }

// Degrees the intent brought, fitted to the machine's count (never the other way round).
void fit_degrees(const Model& model, Query& q) {
    json& job = q.job;
    const ModelConfig& c = model.config;
    const int64_t n = whole(job, "gpus", 1), pp = whole(job, "pp", 1);
    auto from_intent = [&](const char* key) {
        for (const RecipeField& f : q.recipe_fields)
            if (f.key == key) return true;
        return false;
    };
    auto refit = [&](const char* key, int64_t asked, int64_t fitted, const std::string& label) {
        if (fitted == asked) return;
        if (fitted <= 1) job.erase(key);
        else job[key] = fitted;
        q.adapted.push_back(label + " " + std::to_string(asked) + " in " + q.recipe + " → " + std::to_string(fitted) + " on " +
                            gpus_words(n));
    };
    if (from_intent("tp")) {
        const int64_t tp = whole(job, "tp", 1);
        refit("tp", tp, largest_degree(tp, [&](int64_t d) { return n % (d * pp) == 0 && (c.heads <= 0 || c.heads % d == 0); }),
              "Tensor parallel (TP)");
    }
    if (from_intent("ep") && c.experts > 0) {
        const int64_t ep = whole(job, "ep", 1), tp = whole(job, "tp", 1), etp = whole(job, "etp", tp);
        const int64_t stage = n % pp == 0 ? n / pp : 1;
        refit("ep", ep, largest_degree(ep, [&](int64_t d) { return c.experts % d == 0 && stage % (d * etp) == 0; }),
              "Expert parallel (EP)");
    }
}

bool training_mode(const json& job) {
    const auto it = job.find("mode");
    return it != job.end() && it->is_string() && (*it == "train" || *it == "lora" || *it == "qlora");
}

}  // namespace

std::vector<const char*> answer_part_names() { return {std::begin(kPartNames), std::end(kPartNames)}; }

Query read_query(const Model& model, const json& question) {
    if (!question.is_object()) throw InputError("question", "must be a JSON object, got " + describe_value(question));
    static const char* const kKnown[] = {"model_name", "machine", "intent", "job", "fp8", "cluster", "parts"};
    for (auto it = question.begin(); it != question.end(); ++it) {
        bool known = false;
        for (const char* k : kKnown) known = known || it.key() == k;
        if (!known)
            throw InputError("question." + short_text(it.key()), "unknown field; known: model_name, machine, intent, job, fp8, cluster, parts");
    }
    Query q;
    if (auto it = question.find("model_name"); it != question.end()) {
        q.model_name = text_field(*it, "model_name");
        if (q.model_name.size() > kMaxModelName)
            throw InputError("model_name", "is longer than " + std::to_string(kMaxModelName) + " characters");
    }
    if (auto it = question.find("parts"); it != question.end()) {
        if (!it->is_array()) throw InputError("parts", "must be a list of part names, got " + describe_value(*it));
        q.parts = 0;
        for (const json& p : *it) {
            const std::string name = text_field(p, "parts");
            unsigned bit = 0;
            for (size_t i = 0; i < std::size(kPartNames); ++i)
                if (name == kPartNames[i]) bit = 1u << i;
            if (!bit) throw InputError("parts", "must name head, what_fits, charts, planner, matrix or ladder, got '" + short_text(name) + "'");
            q.parts |= bit;
        }
    }
    // The intent's fields for this model, then the user's over them, then the machine over both.
    if (auto it = question.find("intent"); it != question.end() && !(it->is_string() && it->get<std::string>().empty())) {
        const ResolvedIntent r = resolve_intent(find_intent(text_field(*it, "intent")), model.config, model.params.total);
        q.intent = r.intent;
        q.recipe = r.recipe;
        for (const PresetField& f : r.job) {
            q.job[f.key] = json::parse(f.value);
            q.recipe_fields.push_back({f.key, field_label(std::string("job.") + f.key), value_in_words(f.value), f.source});
        }
        for (const PresetField& f : r.intent->cluster) q.cluster[f.key] = json::parse(f.value);
    }
    if (auto it = question.find("job"); it != question.end()) {
        if (!it->is_object()) throw InputError("job", "must be a JSON object, got " + describe_value(*it));
        for (auto f = it->begin(); f != it->end(); ++f) {
            q.job[f.key()] = f.value();
            // A field the user set is theirs, not the recipe's.
            q.recipe_fields.erase(std::remove_if(q.recipe_fields.begin(), q.recipe_fields.end(),
                                                 [&](const RecipeField& r) { return r.key == f.key(); }),
                                  q.recipe_fields.end());
        }
    }
    if (auto it = question.find("machine"); it != question.end()) {
        if (!it->is_object()) throw InputError("machine", "must be a JSON object, got " + describe_value(*it));
        for (auto f = it->begin(); f != it->end(); ++f)
            if (!is_machine_key(f.key()))
                throw InputError("machine." + short_text(f.key()), "unknown field; known: " + machine_key_names());
        for (const char* key : kMachineKeys) q.job.erase(key);
        for (auto f = it->begin(); f != it->end(); ++f) q.job[f.key()] = f.value();
    }
    if (auto it = question.find("cluster"); it != question.end()) {
        if (!it->is_object()) throw InputError("cluster", "must be a JSON object, got " + describe_value(*it));
        for (auto f = it->begin(); f != it->end(); ++f) {
            // With a machine, the planner runs on it: its GPU and count are the machine's.
            if (question.contains("machine") && (f.key() == "gpu" || f.key() == "gpus")) continue;
            q.cluster[f.key()] = f.value();
        }
    }
    if (question.contains("machine")) {
        const json& m = question["machine"];
        if (m.contains("gpu")) q.cluster["gpu"] = m["gpu"];
    }
    if (auto it = question.find("fp8"); it != question.end()) {
        const std::string id = text_field(*it, "fp8");
        if (!id.empty() && id != "none") {
            const Fp8Choice* choice = nullptr;
            for (const Fp8Choice& c : kFp8)
                if (id == c.id) choice = &c;
            if (!choice) {
                std::string names = "none";
                for (const Fp8Choice& c : kFp8) names += std::string(", ") + c.id;
                throw InputError("fp8", "must be one of " + names + ", got '" + short_text(id) + "'");
            }
            q.fp8 = id;
            // FP8 is a training recipe: an inference job keeps its own weights' format.
            if (training_mode(q.job)) {
                const auto fw = q.job.find("framework");
                const bool megatron = fw != q.job.end() && fw->is_string() && (*fw == "megatron" || *fw == "nemo");
                const std::string memory = std::string(choice->memory) == "by_framework" ? (megatron ? "te" : "torchao") : choice->memory;
                if (!q.job.contains("fp8")) q.job["fp8"] = memory;
                if (!q.cluster.contains("fp8")) q.cluster["fp8"] = id;
            }
        }
    }
    if (q.intent) fit_degrees(model, q);
    return q;
}

std::string fp8_recipes_json() {
    JsonWriter w;
    w.begin_array();
    for (const Fp8Choice& c : kFp8) {
        const LowPrecision* r = find_recipe(c.id, "fp8");
        w.begin_object().field("id", c.id).field("label", r->label).field("memory", c.memory).field("source", r->source).end_object();
    }
    return w.end_array().str();
}

}  // namespace vramcalc
