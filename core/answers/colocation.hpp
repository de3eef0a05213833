#pragma once
// Co-location (issue 36): several jobs on one GPU: an LLM beside an embedder, a reranker or a second LLM,
// each an ordinary job with its engine and share (job.machine_jobs). One verdict for the GPU they
// share, and each job's own figures and headroom.
#include <cstdint>
#include <string>
#include <vector>

namespace vramcalc {

struct Estimate;
struct Job;
struct Model;

struct ColocationEntry {
    std::string label;        // the model as given ("bge-m3"); the job's own model for the first entry
    std::string engine;       // the job's engine
    double share = 0;         // vLLM gpu_memory_utilization / SGLang mem_fraction_static (0: takes what it needs)
    double bytes = 0;         // what it holds on the GPU (per process: its CUDA context included)
    bool own_fits = true;     // its own test: vLLM / SGLang's pool holds its requests, llama.cpp's split
    double headroom_bytes = 0;// its pool less the KV its requests need (pooled engines), else 0
    std::string text, why;
};
struct ColocationAnswer {
    bool active = false;
    std::vector<ColocationEntry> jobs;  // the job itself first, then machine_jobs in order
    double total_bytes = 0, capacity_bytes = 0, free_bytes = 0, shares = 0;
    bool fits = false;
    std::string verdict;             // "✓ 3 jobs fit your RTX 4090 24GB: … free" / "✗ …"
};

// The machine of `job` (its GPU and its machine_jobs); `main` is the job's own estimate.
ColocationAnswer colocation_answer(const Job& job, const Estimate& main);

}  // namespace vramcalc
