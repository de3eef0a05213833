// Findings of the third adversarial pass (issue 37, "Hostile input, round three"; docs/hostile-input.md,
// "Adversarial pass 3"), the core's part: each case names its finding and fails on the code before its fix.
// Timed bounds are CPU time (std::clock), as the issue asks "natively"; the sanitizer build runs them
// test::kSlowdown times looser.
#include <doctest/doctest.h>

#include <string>

#include "answers/ladder.hpp"
#include "api/api.hpp"
#include "api/intents.hpp"
#include "checkpoint/checkpoint.hpp"
#include "helpers.hpp"
#include "job/plan.hpp"
#include "model/skip_lists.hpp"
#include "text/errors.hpp"
#include "text/pattern.hpp"

using namespace vramcalc;
using nlohmann::json;

namespace {

json llama_with(const json& quantization, int layers = 0) {
    json c = json::parse(test::fixture("llama-3-8b.config.json"));
    if (layers > 0) c["num_hidden_layers"] = layers;
    c["quantization_config"] = quantization;
    return c;
}

// The refusal prepare_model gives for `config` (its field and message), and the CPU seconds it took.
struct Refusal {
    std::string field, message;
    double seconds = 0;
};
Refusal refusal_of(const json& config) {
    Refusal r;
    r.seconds = test::cpu_seconds([&] {
        try {
            prepare_model(parse_config(config));
        } catch (const InputError& e) {
            r.field = e.field();
            r.message = e.what();
        }
    });
    return r;
}

json list_of(const std::string& entry, int n) {
    json list = json::array();
    for (int i = 0; i < n; ++i) list.push_back(entry);
    return list;
}

}  // namespace

TEST_CASE("issue 37 H2: 10,000 skip-list patterns of x{9990} are refused by name in under 0.5 s") {
    // Before: each pattern compiled its 9,990 states; 10^8 states in all, 4.7 GB and 30 s for
    // `vramcalc --config` (a 110 KB config that zlib packs to 491 bytes); 3,000 gave std::bad_alloc in wasm.
    const json bnb = {{"quant_method", "bitsandbytes"}, {"load_in_8bit", true}, {"llm_int8_skip_modules", list_of("x{9990}", 10'000)}};
    const Refusal r = refusal_of(llama_with(bnb));
    CHECK(r.field == "config.quantization_config.llm_int8_skip_modules[10]");  // the first past 100,000 states in all
    CHECK(r.message.find("states left of the 100000 that all the patterns of one config may hold") != std::string::npos);
    CHECK(r.seconds < 0.5 * test::kSlowdown);
    // transformers' modules_to_not_convert, and compressed-tensors' ignore and targets with re: patterns, the same.
    const json gptq = {{"quant_method", "gptq"}, {"bits", 4}, {"group_size", 128}, {"modules_to_not_convert", list_of("x{9990}", 10'000)}};
    const Refusal g = refusal_of(llama_with(gptq));
    CHECK(g.field == "config.quantization_config.modules_to_not_convert[10]");
    CHECK(g.seconds < 0.5 * test::kSlowdown);
    json ct = {{"quant_method", "compressed-tensors"}, {"ignore", list_of("re:x{9990}", 10'000)},
               {"config_groups", {{"group_0", {{"targets", list_of("re:y{9990}", 10'000)},
                                               {"weights", {{"num_bits", 4}, {"type", "int"}, {"group_size", 128}}}}}}}};
    const Refusal c = refusal_of(llama_with(ct));
    CHECK(c.field == "config.quantization_config.ignore[10]");
    CHECK(c.seconds < 0.5 * test::kSlowdown);
    // The budget is shared by both lists: 5 patterns in ignore, the rest of the states in targets.
    ct["ignore"] = list_of("re:x{9990}", 5);
    const Refusal t = refusal_of(llama_with(ct));
    CHECK(t.field == "config.quantization_config.config_groups.targets[5]");
    // Under the budget a list still compiles and works: 9 such patterns match nothing of Llama 3 8B.
    json nine = bnb;
    nine["llm_int8_skip_modules"] = list_of("x{9990}", 9);
    nine["llm_int8_skip_modules"].push_back("lm_head");
    const Model m = prepare_model(parse_config(llama_with(nine)));
    CHECK(m.quant.listed == 0);
}

TEST_CASE("issue 37 H2: patterns that stay open over every name are refused by the work they do, in under 0.5 s") {
    // Before: 100 patterns (.?){4990}z (10,000 states each, every state live at every character) took 22 s
    // natively on Llama 3 8B's 225 module names; now one alone is past the 5 × 10^7 visits bound.
    const json one = {{"quant_method", "bitsandbytes"}, {"load_in_8bit", true}, {"llm_int8_skip_modules", {"(.?){4990}z"}}};
    const Refusal r = refusal_of(llama_with(one));
    CHECK(r.field == "config.quantization_config.llm_int8_skip_modules");
    CHECK(r.message.find("visits more than 50,000,000 automaton states") != std::string::npos);
    CHECK(r.seconds < 0.5 * test::kSlowdown);
    // The matcher's own count: a name of n characters against an open pattern of s states visits about s × n.
    uint64_t visits = 0;
    CHECK_FALSE(Pattern("(.?){400}z", "f").match_prefix(std::string(100, 'a'), visits));
    CHECK(visits > 100 * 400);
    CHECK(visits <= 101 * 801);
}

TEST_CASE("issue 37 H2: 10,000 short patterns against 4,901 module names are past the comparison bound") {
    // Before: 4.9 × 10^7 comparisons were allowed (the bound was 5 × 10^7) and took 4.1 s natively,
    // each comparison allocating its automaton's scratch; the bound is now 10^7 (0.14 s at most).
    json list = json::array();
    for (int i = 0; i < 10'000; ++i) list.push_back("q" + std::to_string(i) + "*");
    const Refusal r = refusal_of(llama_with({{"quant_method", "bitsandbytes"}, {"load_in_8bit", true}, {"llm_int8_skip_modules", list}}, 700));
    CHECK(r.field == "config.quantization_config.llm_int8_skip_modules");
    CHECK(r.message.find("module names takes 49,014,901 comparisons; at most 10,000,000") != std::string::npos);
    CHECK(r.seconds < 0.5 * test::kSlowdown);
}

TEST_CASE("issue 37 M2: the ladder costs the same with any head (gpt-oss-120b, --head base: under 50 ms)") {
    // Before: every plan of a job whose head differs from the config's prepared the model again
    // (tensors, parameters, the MXFP4 skip list) with an empty GGUF-size cache: 2 s of CPU for the
    // ladder's searches, against 0.03 s with the LM head.
    const Model model = test::model("gpt-oss-120b");
    for (const char* job : {R"({"head":"base","gpu":"rtx3060"})", R"({"head":"sequence_classification","num_labels":1000,"gpu":"rtx3060"})"}) {
        CAPTURE(job);
        std::string answer;
        const double seconds = test::cpu_seconds([&] { answer = ladder_for(model, job); });
        CHECK(json::parse(answer).at("ok").get<bool>());
        CHECK(seconds < 0.05 * test::kSlowdown);
    }
    // The same answer as a model prepared with that head from the start.
    json config = find_model(test::models(), "gpt-oss-120b").config;
    config["architectures"] = {"GptOssModel"};
    const Model base = prepare_model(parse_config(config));
    const json direct = json::parse(ladder_for(base, R"({"gpu":"rtx3060"})"));
    const json reheaded = json::parse(ladder_for(model, R"({"head":"base","gpu":"rtx3060"})"));
    CHECK(direct.at("rungs") == reheaded.at("rungs"));
}

TEST_CASE("issue 37 M2: a model kept with another head follows the checkpoint attached afterwards") {
    Model m = prepare_model(parse_config_text(test::fixture("tiny-llama.config.json")));
    const Job job = test::job({{"head", "base"}, {"dtype", "auto"}});
    CHECK_FALSE(make_plan(m, job).exact);  // kept with the base head, without a checkpoint
    attach_checkpoint(m, read_checkpoint(test::fixture("tiny-llama.safetensors-header")));
    const Plan p = make_plan(m, job);
    CHECK(p.exact);
    CHECK(p.m.exact.bytes == m.exact.bytes);
    CHECK(p.reheaded == make_plan(m, job).reheaded);  // the same copy, not prepared again
}

TEST_CASE("issue 37 L3: vllm_version refuses text after the release, as other malformed versions") {
    // Before: "0.6.5 abc" and "0.10\"><x>" read as 0.6.5 and 0.10, and the text travelled into links.
    for (const char* bad : {"0.6.5 abc", "0.10\"><x>", "0.6.5+", "0.6.5rc", "1.2.3.4.5", "0.", "0.1x", "0.6.5.post"}) {
        CAPTURE(bad);
        CHECK_THROWS_WITH_AS(test::job({{"engine", "vllm"}, {"vllm_version", bad}}),
                             doctest::Contains("job.vllm_version: must be a vLLM release"), InputError);
    }
    // pip's forms of real releases (PEP 440): post and dev releases, release candidates, four parts, local tags.
    const std::pair<const char*, const char*> good[] = {{"0.19.0", "0.19.0"}, {"v0.6.5.post1", "0.6.5"}, {"0.10.1.1", "0.10.1"},
                                                        {"0.15.2rc1.dev93", "0.15.2"}, {"0.6.3+cu118", "0.6.3"}, {"0.10", "0.10.0"}};
    for (const auto& [given, read] : good) {
        const char* g = given;
        CAPTURE(g);
        CHECK(test::job({{"engine", "vllm"}, {"vllm_version", given}}).vllm_version == read);
    }
}

TEST_CASE("issue 37 I3: a GGUF of another architecture than the config's is said so") {
    // Before: taken as the exact weights without a word. Its blocks cover the config, so its bytes stay taken.
    const std::string header = test::fixture("tiny-llama.gguf-header");
    json config = json::parse(test::fixture("tiny-llama.config.json"));
    auto notes_with = [&](const std::string& model_type) {
        config["model_type"] = model_type;
        Model m = prepare_model(parse_config(config));
        attach_checkpoint(m, read_checkpoint(header));
        const Estimate e = estimate(m, test::job({{"dtype", "auto"}, {"engine", "llamacpp"}}));
        CHECK(e.weights_source == WeightsSource::Exact);
        std::string all;
        for (const std::string& n : e.notes) all += n + "\n";
        return all;
    };
    CHECK(notes_with("qwen2").find("general.architecture is 'llama', not what llama.cpp writes for the config's model_type "
                                   "'qwen2'") != std::string::npos);
    CHECK(notes_with("llama").find("general.architecture") == std::string::npos);
    CHECK(notes_with("mistral").find("general.architecture") == std::string::npos);  // llama.cpp converts Mistral as llama
}

TEST_CASE("llama.cpp on a million-GPU cluster: no split over more than 16 devices is ever laid out (fuzz_job's slow unit)") {
    // fuzz_job found it: the planner laid the verdict's layout (-sm row, tp = every GPU) over 10^6 GPUs and
    // sized llama.cpp's per-device buffers for each: 2.0 s of CPU natively, past libFuzzer's 30 s under ASan
    // on a loaded machine. llama_max_devices() is 16, so no such layout exists.
    const std::string config = test::fixture("llama-3-8b.config.json");
    const json job = {{"engine", "llamacpp"}, {"dtype", "q4_k_m"}, {"gpu", "t4"}, {"n_gpu_layers", 20}, {"gpus", 2}, {"split_mode", "row"}};
    const json cluster = {{"gpu", "t4"}, {"gpus", 1000000}, {"concurrency", 1000000}};
    json answer;
    const double seconds = test::cpu_seconds([&] { answer = json::parse(cluster_request(config, job.dump(), cluster.dump())); });
    CHECK(seconds < 0.1 * test::kSlowdown);
    CHECK(answer.contains("ok"));
}
