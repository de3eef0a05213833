#pragma once
// Running a model on your own machine (issue 32): what llama.cpp, Ollama and MLX do with it (their --fit,
// their schedulers), the two pools the answer is judged against (GPU memory and system RAM, or one
// unified memory), how fast each token is, and the command that runs the layout. One file per concept:
// fit.cpp (the runtime's own placement), pools.cpp (the verdict), speed.cpp (tokens per second),
// command.cpp (the launch line), quote.cpp (shell quoting).
#include <cstdint>
#include <string>
#include <vector>

#include "job/layout.hpp"
#include "job/plan.hpp"
#include "machine/machine.hpp"
#include "memory/terms.hpp"
#include "serving/serving_info.hpp"

namespace vramcalc {

// What the runtime chose before loading: llama.cpp's --fit (context, then MoE tensors, then layers),
// Ollama's context tier and scheduler. The job afterwards is the layout the runtime runs.
struct FitReport {
    bool ran = false;              // the runtime fitted the job to the GPUs
    bool fits = true;              // it found a layout that keeps its margin
    int64_t ctx_from = 0, ctx_to = 0;  // the context before and after (ctx_from 0: unchanged)
    int64_t n_cpu_moe = 0;         // layers whose experts it moved to RAM
    int64_t gpu_layers = -1;       // -ngl it chose (-1: all)
    std::string text;              // "--fit: context 131,072 → 33,024; experts of the first 12 layers in RAM"
};
// The job as the runtime runs it on the job's machine; `model` gives the trained context.
Job runtime_job(const Model& model, const Job& job, FitReport& report);
// Whether the runtime loads the job as set, every layer and expert where the job puts them: the fullest GPU
// within its memory, less fit_target_mib when --fit is on. runtime_job changes nothing then (the first test
// of --fit and of the older runtimes' placement). False on a machine without a GPU.
bool fits_as_set(const Model& model, const Job& job);
// llama.cpp --solve n_cpu_moe: the smallest N with the routed experts of the first N layers in RAM that
// keeps every GPU within its memory less fit_target_mib (the margin --fit keeps). found = false when even
// N = every layer does not fit. Throws InputError for a dense model.
int64_t smallest_n_cpu_moe(const Model& model, const Job& job, bool& found, double& total_at, double& total_next);

// One pool of the machine and what the job needs of it.
struct PoolUse {
    const char* key = "";          // "gpu", "ram", "unified"
    std::string label;             // "GPU memory (RTX 4090 24GB)", "system RAM", "unified memory"
    bool known = true;             // its size is known (the RAM is given, or the machine's own)
    double need_bytes = 0;         // per GPU for the GPU pool
    double have_bytes = 0;
    double short_bytes = 0;        // need − have when it does not fit
    bool fits = true;
    std::string text;              // "21.84 GB of 25.38 GB (86 %)", "needs 12.30 GB more"
    std::string detail;            // what it holds
};

// Tokens per second, from the bytes each token reads in each pool (speed.cpp).
struct LocalSpeed {
    bool known = false;
    double decode_tps = 0, decode_low = 0, decode_high = 0;    // one sequence's decode, with its range
    double prefill_tps = 0, prefill_low = 0, prefill_high = 0;  // the prompt, at n_ubatch / prefill_step_size
    double gpu_read_bytes = 0, ram_read_bytes = 0;  // per decoded token
    double gpu_s = 0, ram_s = 0, hop_s = 0, floor_s = 0;  // per decoded token, by what it waits on
    int64_t hops = 0;              // GPU ↔ CPU hand-overs per token
    double prefill_copy_s = 0;     // per ubatch: RAM-resident weights copied to the GPU (op offload)
    double prefill_compute_s = 0;  // per ubatch: the matmuls
    std::string bound;             // "system RAM bandwidth", "GPU memory bandwidth", "PCIe copies", ...
    std::string text, decode_text, prefill_text, why;
};

// The command that runs the layout (command.cpp), and the environment or Modelfile it needs.
struct LaunchCommand {
    std::string kind;              // "llama-server", "ollama", "mlx_lm.server", "vllm", "sglang"; "" when none
    std::string text;              // one line to paste into a shell (every argument quoted where needed)
    std::vector<std::string> env;  // OLLAMA_* variables (already in `text` for Ollama's serve line)
    std::string modelfile;         // Ollama: PARAMETER lines of a Modelfile
    std::string note;
};

// The local answer: both pools, one verdict, the speed and the command.
struct LocalAnswer {
    bool applies = false;          // llama.cpp, Ollama or MLX
    MachinePools machine;
    PoolUse gpu, ram;              // unified machines: gpu is the GPU's share, ram the whole memory
    const char* status = "none";   // fits | tight | slow (pages weights from disk) | no
    std::string symbol, verdict;   // "✓ fits: GPU 21.84 of 25.38 GB, RAM 61.53 of 64 GB; about 28 tokens/s (22 – 34)"
    std::string shortfall;         // "needs 12.30 GB more RAM"
    std::string layout_text;       // "the routed experts of the first 24 of 36 layers in RAM (--n-cpu-moe 24)"
    std::vector<std::string> warnings;  // pinned host memory, mmap paging, the wired limit, ...
    std::string runtime;           // the runtime and version in force
    std::string runtime_error;     // Ollama's own refusal, as it prints it ("model requires more system memory ...")
    FitReport fit;
    LocalSpeed speed;
};

// The local answer for the job as the runtime runs it (`p.job`, after runtime_job), its layout and step.
LocalAnswer local_answer(const Plan& p, const Layout& l, const Breakdown& b, const ServingInfo& s, const FitReport& fit);
// `prompt_tokens` sizes the prefill's ubatch; decode is timed at `decode_context` tokens of context
// (the local answer: 64, the start of a conversation).
LocalSpeed local_speed(const Plan& p, const Layout& l, const Breakdown& b, const ServingInfo& s, const MachinePools& pools,
                       int64_t prompt_tokens, int64_t decode_context = 64);
// The cluster planner's hook (core/cluster/recommend.cpp): a local runtime's speed for the job as laid out
// (its gpus, tp, pp) on `gpu` (the request's figures), decoding at `decode_context` tokens of context.
LocalSpeed local_speed_on(const Model& m, const Job& job, const Gpu& gpu, int64_t prompt_tokens, int64_t decode_context);
// The launch line for any engine that has one (llama.cpp, Ollama, MLX, vLLM, SGLang); kind "" otherwise.
LaunchCommand launch_command(const Plan& p, const Layout& l, const std::string& model_id);
// A word for a POSIX shell: as is when it holds only safe characters, else in single quotes.
std::string shell_quote(const std::string& word);

}  // namespace vramcalc
