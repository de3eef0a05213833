// libFuzzer target: the input is a job and a cluster object, split at the
// first NUL (no NUL: the cluster is {}), for Llama 3 8B and a sliding-window
// MoE (gpt-oss-20b's shape): estimate_request (every job field, presets,
// engines), solve_request for the question picked by the job's length (the
// searches), and cluster_request (the planner's fields and its layouts).
// Run: scripts/fuzz.sh [seconds] job
#include <cstdint>
#include <string>

#include "answers/inverse.hpp"
#include "api/api.hpp"
#include "check.hpp"

namespace {

const char* kConfigs[] = {
    R"({"model_type":"llama","hidden_size":4096,"intermediate_size":14336,"num_hidden_layers":32,)"
    R"("num_attention_heads":32,"num_key_value_heads":8,"vocab_size":128256,"max_position_embeddings":8192})",
    R"({"model_type":"gpt_oss","hidden_size":2880,"intermediate_size":2880,"num_hidden_layers":24,)"
    R"("num_attention_heads":64,"num_key_value_heads":8,"head_dim":64,"vocab_size":201088,"num_local_experts":32,)"
    R"("num_experts_per_tok":4,"sliding_window":128,"layer_types":["sliding_attention","full_attention"]})",
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string input(reinterpret_cast<const char*>(data), size);
    const size_t split = input.find('\0');
    const std::string job = input.substr(0, split);
    const std::string cluster = split == std::string::npos ? "{}" : input.substr(split + 1);
    const std::vector<const char*> questions = vramcalc::question_names();
    for (const char* config : kConfigs) {
        fuzz::check(vramcalc::estimate_request(config, job));
        fuzz::check(vramcalc::solve_request(config, job, questions[job.size() % questions.size()]));
        fuzz::check(vramcalc::cluster_request(config, job, cluster));
    }
    return 0;
}
