// Native benchmark: nanoseconds per estimate over every model in models.json.
// Four levels are timed: the per-GPU numbers alone; with the GPU fit table;
// estimate() with the explanation texts too (what the CLI does after
// parsing); and estimate_request() with JSON text in and out (what the page
// does through WebAssembly on every input change).
// With --hostile: each answer's time on the deepest configs the core reads (docs/hostile-input.md,
// "Bounded cost"): a 10,000-layer Llama served by llama.cpp (the issue-25 share link) for every
// question, and the cluster planner on 10,000 sliding-window layers with a million GPUs and requests.
// With --what-fits: "What can I run?" (issue 35) over the whole catalog: the first list (every model prepared,
// every format's GGUF sizes computed) and each later one (another machine, filter or order), per intent.
// usage: vramcalc_bench [models.json] [rounds]   |   vramcalc_bench --hostile [rounds]   |   vramcalc_bench --what-fits [rounds]
#include <algorithm>
#include <chrono>
#include <ctime>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

#include "answers/inverse.hpp"
#include "api/api.hpp"
#include "api/catalog.hpp"
#include "api/what_fits_json.hpp"
#include "step/timeline.hpp"

using namespace vramcalc;
using Clock = std::chrono::steady_clock;

namespace {

const char* kJobs[] = {
    R"({})",
    R"({"mode":"train","checkpointing":"full","batch":4,"seq":2048})",
    R"({"mode":"qlora","lora_rank":32})",  // 32: DeepSeek-V3.2's indexer.weights_proj is 6144 × 32
    R"({"mode":"train","gpus":64,"zero":3,"pp":4,"optimizer":"adam_8bit"})",
};

template <class F>
double ns_per_call(F&& body, int calls_per_round, int rounds) {
    double best = 1e300;
    for (int r = 0; r < rounds; ++r) {  // best of several rounds: least disturbed by other load
        const auto start = Clock::now();
        body();
        const double ns = std::chrono::duration<double, std::nano>(Clock::now() - start).count() / calls_per_round;
        if (ns < best) best = ns;
    }
    return best;
}

// The issue-25 link's config, and the sliding-window one of its cluster case.
const char* kDeepLlama = R"({"model_type":"llama","hidden_size":4096,"num_hidden_layers":10000,"num_attention_heads":32,)"
                         R"("num_key_value_heads":8,"intermediate_size":14336,"vocab_size":128256})";
const char* kDeepWindow = R"({"model_type":"mistral","hidden_size":4096,"num_hidden_layers":10000,"num_attention_heads":32,)"
                          R"("num_key_value_heads":8,"intermediate_size":14336,"vocab_size":32000,"sliding_window":4096})";

int hostile(int rounds) {
    // Each call as the page makes it: JSON text in, the model prepared afresh (no cache carried over).
    struct Case {
        std::string name, variant;
        std::function<std::string()> call;
    };
    const std::string link = R"({"engine":"llamacpp","dtype":"q4_k_m","gpu":"rtx3060","n_gpu_layers":)";
    const std::pair<const char*, std::string> jobs[] = {
        {"the link: -ngl 5000", link + "5000}"},
        {"-ngl 0: searches run far", link + "0}"},
        {"seq 1e7: nothing fits", link + R"(5000,"seq":10000000})"},
    };
    std::vector<Case> cases;
    for (const char* q : question_names())
        for (const auto& [variant, job] : jobs) cases.push_back({q, variant, [q, job = job] { return solve_request(kDeepLlama, job, q); }});
    for (const auto& [variant, job] : jobs) cases.push_back({"estimate", variant, [job = job] { return estimate_request(kDeepLlama, job); }});
    cases.push_back({"cluster", "serve, 1e6 GPUs × 1e6 requests",
                     [] { return cluster_request(kDeepWindow, "{}", R"({"gpus":1000000,"concurrency":1000000})"); }});
    cases.push_back({"cluster", "train, 1e6 GPUs",
                     [] { return cluster_request(kDeepWindow, R"({"mode":"train"})", R"({"gpus":1000000})"); }});
    // Cold: another config asked first, so the model is prepared afresh (its per-layer GGUF sizes too);
    // warm: the same model again (the page's use_config path), best of `rounds`.
    const char* other = R"({"model_type":"llama","hidden_size":64,"num_hidden_layers":1,"num_attention_heads":1,"vocab_size":8})";
    std::printf("10,000 layers: ms per answer, JSON in and out; cold (model prepared) and warm (best of %d)\n", rounds);
    double worst = 0;
    for (const Case& c : cases) {
        std::string answer;
        inspect_config(other);
        estimate_request(other, "{}");
        const double cold = ns_per_call([&] { answer = c.call(); }, 1, 1);
        const double warm = ns_per_call([&] { answer = c.call(); }, 1, rounds);
        worst = std::max(worst, cold);
        const bool ok = answer.rfind("{\"ok\":true", 0) == 0;
        std::printf("  %-15s %-32s %9.2f ms cold %9.2f ms warm%s\n", c.name.c_str(), c.variant.c_str(), cold / 1e6, warm / 1e6,
                    ok ? "" : "  (an error answer)");
        if (!ok) std::printf("    %s\n", answer.substr(0, 200).c_str());
    }
    std::printf("slowest answer: %.2f ms\n", worst / 1e6);
    return 0;
}

// The machines and intents the what-fits figures of docs/what-fits.md are measured on.
const char* kFitsRequests[] = {
    R"({"job":{"gpu":"rtx4090","ram_gb":64}})",
    R"({"job":{"gpu":"rtx3060"}})",
    R"({"job":{"gpu":"m3-max-128"}})",
    R"({"job":{"gpu":"cpu","ram_gb":32}})",
    R"({"job":{"gpu":"rtx4090","ram_gb":64},"sort":"speed","filters":{"family":"Qwen3"}})",
    R"({"intent":"serve","job":{"gpu":"h100"}})",
    R"({"intent":"finetune","job":{"gpu":"rtx4090"}})",
};

int what_fits_bench(int rounds) {
    std::ifstream in(VRAMCALC_DEFAULT_MODELS);
    std::stringstream text;
    text << in.rdbuf();
    use_catalog(text.str());
    std::string answer;
    const double first = ns_per_call([&] { answer = what_fits_request(kFitsRequests[0]); }, 1, 1);
    std::printf("what-fits, whole catalog (ms per list, JSON in and out; later: best of %d)\n", rounds);
    std::printf("  first list (prepares every model and its GGUF sizes): %8.2f ms\n", first / 1e6);
    std::printf("  wall ms (CPU ms)     KB  request\n");
    for (const char* request : kFitsRequests) {
        answer = what_fits_request(request);  // warms this intent's formats
        const double ns = ns_per_call([&] { answer = what_fits_request(request); }, 1, rounds);
        // The process's CPU time too: on a shared machine the wall clock counts other programs' turns.
        double cpu = 1e300;
        for (int r = 0; r < rounds; ++r) {
            const std::clock_t c0 = std::clock();
            answer = what_fits_request(request);
            cpu = std::min(cpu, 1e3 * static_cast<double>(std::clock() - c0) / CLOCKS_PER_SEC);
        }
        std::printf("  %7.2f (%6.2f)  %5zu  %s\n", ns / 1e6, cpu, answer.size() / 1024, request);
        if (answer.rfind("{\"ok\":true", 0) != 0) std::printf("    %s\n", answer.substr(0, 200).c_str());
    }
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc > 1 && std::string(argv[1]) == "--hostile") return hostile(argc > 2 ? std::atoi(argv[2]) : 3);
    if (argc > 1 && std::string(argv[1]) == "--what-fits") return what_fits_bench(argc > 2 ? std::atoi(argv[2]) : 5);
    const std::string path = argc > 1 ? argv[1] : VRAMCALC_DEFAULT_MODELS;
    const int rounds = argc > 2 ? std::atoi(argv[2]) : 20;
    std::ifstream in(path);
    std::stringstream text;
    text << in.rdbuf();
    const auto entries = parse_models(text.str());

    std::vector<Model> models;
    std::vector<std::string> config_texts;
    for (const auto& e : entries) {
        models.push_back(prepare_model(parse_config(e.config)));
        config_texts.push_back(e.config.dump());
    }
    std::vector<Job> jobs;
    for (const char* j : kJobs) jobs.push_back(parse_job(nlohmann::json::parse(j)));
    const int calls = static_cast<int>(models.size() * jobs.size());

    double sink = 0;
    const double numbers_ns = ns_per_call([&] {
        for (const auto& m : models)
            for (const auto& j : jobs) sink += compute_breakdown(m, j).total();
    }, calls, rounds);
    const double fit_ns = ns_per_call([&] {
        for (const auto& m : models)
            for (const auto& j : jobs) sink += estimate(m, j, false).fits.size();
    }, calls, rounds);
    const double core_ns = ns_per_call([&] {
        for (const auto& m : models)
            for (const auto& j : jobs) sink += estimate(m, j).breakdown.total();
    }, calls, rounds);
    for (const auto& c : config_texts)  // every timed call must be a real estimate, not a quick rejection
        for (const char* j : kJobs)
            if (estimate_request(c, j).rfind("{\"ok\":true", 0) != 0) {
                std::fprintf(stderr, "bench job rejected: %s\n", j);
                return 1;
            }
    size_t bytes = 0;
    const double json_ns = ns_per_call([&] {
        for (const auto& c : config_texts)
            for (const char* j : kJobs) bytes += estimate_request(c, j).size();
    }, calls, rounds);

    std::printf("models: %zu, jobs per model: %zu, rounds: %d (best round reported)\n", models.size(), jobs.size(), rounds);
    std::printf("compute_breakdown(): numbers only     %8.0f ns per estimate\n", numbers_ns);
    std::printf("estimate(explain=false): + GPU fit    %8.0f ns per estimate\n", fit_ns);
    std::printf("estimate(): + explanation texts       %8.0f ns per estimate\n", core_ns);
    std::printf("estimate_request() JSON text in/out:  %8.0f ns per estimate\n", json_ns);
    return sink > 0 && bytes > 0 ? 0 : 1;
}
