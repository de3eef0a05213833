// Native benchmark: nanoseconds per estimate over every model in models.json.
// Four levels are timed: the per-GPU numbers alone; with the GPU fit table;
// estimate() with the explanation texts too (what the CLI does after
// parsing); and estimate_request() with JSON text in and out (what the page
// does through WebAssembly on every input change).
// usage: vramcalc_bench [models.json] [rounds]
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "api/api.hpp"
#include "step/timeline.hpp"

using namespace vramcalc;
using Clock = std::chrono::steady_clock;

namespace {

const char* kJobs[] = {
    R"({})",
    R"({"mode":"train","checkpointing":"full","batch":4,"seq":2048})",
    R"({"mode":"qlora","lora_rank":64})",
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

}  // namespace

int main(int argc, char** argv) {
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
