#pragma once
// Inverse answers: for the chosen GPU and job, the largest context, the
// largest batch, the best format that still fits, the fewest GPUs and the
// most llama.cpp layers on the GPU. Each is solved exactly by monotone search
// over the numbers-only path (no explanations), and the answer comes with the
// estimate at it and at the next step, so callers can see it fits there and
// not one further.
#include <cstdint>
#include <string>
#include <vector>

#include "answers/estimate.hpp"

namespace vramcalc {

enum class Question { MaxContext, MaxBatch, BestFormat, MinGpus, MaxGpuLayers, NCpuMoe, MaxCompletionLength, MaxGenerations };

struct Answer {
    Question question;
    bool found = false;          // false: nothing fits even at the smallest value
    int64_t value = 0;           // seq, batch, GPUs, layers; for BestFormat the index in candidates
    std::string format;          // BestFormat: the format's name
    std::vector<std::string> candidates;  // BestFormat: formats tried, largest first
    double total_at = 0, total_next = 0;  // per-GPU totals at the answer and one step past it
    bool next_exists = false;    // false when the answer is the upper end of the range
    int64_t next = 0;            // the value one step past the answer: value + 1; for a minimum value − 1
                                 // (fewest GPUs: the largest smaller count that has a layout)
    bool fits_next = false;      // re-estimated one step past the answer (false unless the job is not monotone)
    std::string text;
    std::string answer_label, next_label;  // the answer and one step past it, as settings ("context 8192", "-ngl 33")
    // Under vLLM / SGLang the test is the engine's pool: the KV the requests need and the pool, per GPU,
    // at the answer and one step past it (the totals there are the engine's budget, the same on both sides).
    bool pooled = false;
    double kv_at = 0, pool_at = 0, kv_next = 0, pool_next = 0;
};

// Throws InputError("question") for an unknown name, InputError("job.gpu") when no GPU is chosen.
Question parse_question(const std::string& name);
const char* question_name(Question q);
std::vector<const char*> question_names();            // every job's
std::vector<const char*> posttrain_question_names();  // a post-training job's that generates

Answer solve(const Model& model, const Job& job, Question q);

// Formats largest first: GGUF file types for llama.cpp / Ollama, serving formats otherwise.
std::vector<FormatId> format_ladder(const Job& job);

// A post-training job that generates, on the user's GPU: the longest completion and the most
// completions per prompt that fit (empty for other jobs or without a GPU).
std::vector<PostLimit> post_limits(const Model& model, const Job& job);

// Whether `job` fits its chosen GPU (the engine's own test for vLLM / SGLang); `serving`: the engine's
// figures there (its pool and the KV needed).
bool fits_device(const Model& model, const Job& job, double* total = nullptr, ServingInfo* serving = nullptr);

}  // namespace vramcalc
