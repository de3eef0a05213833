// Issue 33's one answer after issues 32, 34 and 36: the answer carries the machine's RAM and the local
// runtime's answer (two pools, speed, command), the planner's TPOT with its range, and post-training's
// phases, each from the same question as the rest, so no part contradicts another. Each figure is checked
// against the part of the core that computes it on its own (estimate_request, solve_request,
// cluster_request), and the layout llama.cpp's --fit chooses against issue 32's CLI test (24 layers'
// experts in RAM for gpt-oss-120b on an RTX 4090 with 64 GB: tests/cli_test.sh "printed command").
#include <doctest/doctest.h>

#include "api/answer.hpp"
#include "helpers.hpp"
#include "job/serving_extras.hpp"
#include "model/model.hpp"

using nlohmann::json;
using namespace vramcalc;

namespace {

json ask(const std::string& id, const json& question) { return json::parse(answer_for(test::model(id), question.dump())); }
std::string config_of(const std::string& id) { return find_model(test::models(), id).config.dump(); }

}  // namespace

TEST_CASE("a local job's answer: the machine's RAM, the two pools, the speed and the command, and what fits on --fit's layout") {
    const json machine = {{"gpu", "rtx4090"}, {"ram_gb", 64}};
    const json a = ask("gpt-oss-120b", {{"model_name", "gpt-oss-120b"}, {"machine", machine}, {"job", {{"engine", "llamacpp"}}}});
    REQUIRE(a["ok"] == true);
    // The machine, said once: its GPU and its RAM.
    CHECK(a["machine"]["text"] == "1 × RTX 4090 24GB, 25.38 GB usable each; 64.00 GB of system RAM");
    CHECK(a["machine"]["ram_bytes"].get<double>() == 64e9);
    // The local answer is the estimate's own for the same job (the page and the CLI read the same figures).
    const json e = json::parse(estimate_request(config_of("gpt-oss-120b"), R"({"engine":"llamacpp","gpu":"rtx4090","ram_gb":64})"));
    REQUIRE(e["ok"] == true);
    CHECK(a["local"] == e["local"]);
    CHECK(a["command"] == e["command"]);
    CHECK(a["verdict"]["text"] == e["verdict"]["text"]);
    CHECK(a["local"]["ram"]["known"] == true);
    CHECK(a["command"]["text"] == "llama-server -m MODEL-MXFP4.gguf -c 4096 -ngl 37 --n-cpu-moe 24 -fa on -ctk f16 -ctv f16");
    // What fits is asked on the layout the verdict judged (--fit: context 4,096, 24 layers' experts in RAM),
    // never on every expert on the GPU: before, it said "not even one token fits" beside a verdict that fits.
    const json& wf = a["what_fits"];
    CHECK(wf["text"].get<std::string>().find("as the runtime runs it (--fit: context 131,072 → 4,096; the routed experts of the first 24 "
                                             "of 36 layers in RAM)") != std::string::npos);
    bool context = false, moe = false;
    for (const json& r : wf["rows"]) {
        CAPTURE(r.dump());
        if (r["question"] == "max_context") {
            context = true;
            CHECK(r["found"] == true);
            CHECK(r["answer"].get<int64_t>() >= 4096);  // the verdict's context fits
        }
        if (r["question"] == "n_cpu_moe") {
            moe = true;
            const json solved = json::parse(solve_request(config_of("gpt-oss-120b"),
                                                          R"({"engine":"llamacpp","gpu":"rtx4090","ram_gb":64,"seq":4096})", "n_cpu_moe"));
            CHECK(r["answer"] == 24);
            CHECK(solved["answer"] == 24);
        }
    }
    CHECK(context);
    CHECK(moe);
}

TEST_CASE("a local runtime's job is echoed as it runs: Ollama caps its VRAM tier's context at the model's (Gemma 2 27B)") {
    // Ollama 0.15.5+ asks 262,144 tokens on a 128 GB Mac (server/routes.go tiers) and caps it at the model's 8,192
    // (llm/server.go): the figures are of 8,192, and so are the echoed job and the context warning (none).
    const json a = ask("gemma-2-27b", {{"machine", {{"gpu", "m4-max-128"}}}, {"job", {{"engine", "ollama"}}}, {"parts", {"head"}}});
    REQUIRE(a["ok"] == true);
    CHECK(a["local"]["context"] == 8192);
    CHECK(a["job"]["seq"] == 8192);
    CHECK(a["context_warning"] == "");
    for (const json& t : a["terms"])
        if (t["key"] == "kv_cache") CHECK(t["why"].get<std::string>().find("× 8192 tokens ×") != std::string::npos);
}

TEST_CASE("a machine without a GPU: the answer is its RAM's, and nothing answers for a GPU it does not have") {
    const json a = ask("llama-3.1-8b", {{"machine", {{"cpu_only", true}, {"ram_gb", 32}}}, {"intent", "run_locally"}});
    REQUIRE(a["ok"] == true);
    CHECK(a["machine"]["given"] == true);
    CHECK(a["machine"]["text"] == "CPU only, 32.00 GB of system RAM");
    CHECK(a["what_fits"]["chosen"] == "none");
    CHECK(a["what_fits"]["rows"].empty());
    CHECK(a["planner"]["ok"] == false);
    CHECK(a["planner"]["error"]["field"] == "machine.cpu_only");
    // A machine field the question does not know is named with the ones it does.
    const json bad = ask("llama-3.1-8b", {{"machine", {{"ram", 32}}}});
    CHECK(bad["error"]["field"] == "machine.ram");
    CHECK(bad["error"]["message"].get<std::string>().find("ram_gb") != std::string::npos);
}

TEST_CASE("serving: the planner part is the planner's own answer, TPOT and its range included (issue 34)") {
    const json a = ask("llama-3-8b", {{"machine", {{"gpu", "h100"}}}, {"job", {{"engine", "vllm"}}}, {"parts", {"planner"}}});
    REQUIRE(a["ok"] == true);
    const json c = json::parse(cluster_request(config_of("llama-3-8b"), R"({"engine":"vllm","gpu":"h100"})", R"({"gpu":"h100"})"));
    REQUIRE(c["ok"] == true);
    CHECK(a["planner"]["serve"]["tpot_text"] == c["serve"]["tpot_text"]);
    CHECK(a["planner"]["serve"]["tpot_s"].get<double>() > 0);
    CHECK(a["planner"]["serve"]["tpot_range_s"] == c["serve"]["tpot_range_s"]);
}

TEST_CASE("post-training through the one answer: the intent's recipe, its phases, its completions asked, the planner out") {
    const json a = ask("llama-3.1-8b", {{"machine", {{"gpu", "h100"}}}, {"intent", "post_train"}});
    REQUIRE(a["ok"] == true);
    CHECK(a["intent"]["id"] == "post_train");
    CHECK(a["recipe"]["text"].get<std::string>().rfind("GRPO of a LoRA policy, TRL's GRPO with vLLM colocated: ", 0) == 0);
    CHECK(a["recipe"]["text"].get<std::string>().find(" (each with 8 completions of 1,024 tokens per prompt)") != std::string::npos);
    // The phases are the estimate's own for the same job.
    const json e = json::parse(estimate_request(
        config_of("llama-3.1-8b"), R"({"mode":"grpo","framework":"trl","policy":"lora","use_vllm":true,"vllm_mode":"colocate",)"
                                   R"("num_generations":8,"max_completion_length":1024,"gpu":"h100"})"));
    REQUIRE(e["ok"] == true);
    CHECK(a["posttrain"] == e["posttrain"]);
    CHECK(a["total_text"] == e["total_text"]);
    // What fits asks a generating job its completions, not a context.
    std::vector<std::string> asked;
    for (const json& r : a["what_fits"]["rows"]) asked.push_back(r["question"]);
    CHECK(std::find(asked.begin(), asked.end(), "max_completion_length") != asked.end());
    CHECK(std::find(asked.begin(), asked.end(), "max_context") == asked.end());
    // The planner times pre-training and serving; it says so, naming the mode.
    CHECK(a["planner"]["ok"] == false);
    CHECK(a["planner"]["error"]["field"] == "job.mode");
}

TEST_CASE("several models on one GPU: one `machine` in the answer, their shared verdict inside it") {
    set_model_resolver([](const json& ref, const std::string&) { return std::make_shared<const Model>(test::model(ref.get<std::string>())); });
    const json job = {{"engine", "vllm"}, {"dtype", "awq"}, {"gpu_memory_utilization", 0.6}, {"seq", 8192}, {"max_model_len", 8192},
                      {"machine_jobs", json::array({{{"model", "bge-m3"}, {"engine", "hf"}, {"batch", 32}, {"seq", 512}}})}};
    const std::string text = answer_for(test::model("qwen2.5-7b"), json({{"machine", {{"gpu", "rtx4090"}}}, {"job", job}, {"parts", {"head"}}}).dump());
    // nlohmann keeps the last of two equal keys: count them in the text itself.
    size_t machines = 0;
    for (size_t at = text.find("\"machine\":"); at != std::string::npos; at = text.find("\"machine\":", at + 1)) ++machines;
    CHECK(machines == 1);
    const json a = json::parse(text);
    REQUIRE(a["ok"] == true);
    json with_gpu = job;
    with_gpu["gpu"] = "rtx4090";
    const json e = json::parse(estimate_request(config_of("qwen2.5-7b"), with_gpu.dump()));
    CHECK(a["machine"]["shared"] == e["colocation"]);
    CHECK(a["machine"]["shared"]["jobs"].size() == 2);
}

TEST_CASE("what fits under a local runtime: Ollama takes no --n-cpu-moe; the smallest --n-cpu-moe keeps every layer on the GPU") {
    // gpt-oss-120b on an RTX 4090 with 32 GB of RAM under Ollama: the part answers (before, the runtime's --n-cpu-moe
    // was added to Ollama's job, which refuses it: job.n_cpu_moe).
    const json ollama = ask("gpt-oss-120b", {{"machine", {{"gpu", "rtx4090"}, {"ram_gb", 32}}}, {"job", {{"engine", "ollama"}}}, {"parts", {"what_fits"}}});
    REQUIRE(ollama["ok"] == true);
    CHECK(ollama["what_fits"]["rows"].size() >= 4);
    // llama.cpp before --fit (2025-08) loads -ngl 13 of 37; the smallest --n-cpu-moe is asked with every layer on
    // the GPU, as it is used (-ngl all --n-cpu-moe N): 24, the --solve n_cpu_moe answer, not 0 at -ngl 13.
    const json old = ask("gpt-oss-120b", {{"machine", {{"gpu", "rtx4090"}, {"ram_gb", 64}}},
                                          {"job", {{"engine", "llamacpp"}, {"llamacpp_version", "2025-08"}}}, {"parts", {"what_fits"}}});
    REQUIRE(old["ok"] == true);
    json moe;
    for (const json& r : old["what_fits"]["rows"])
        if (r["question"] == "n_cpu_moe") moe = r;
    CHECK(moe["answer"] == 24);
}
