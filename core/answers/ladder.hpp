#pragma once
// "Run locally": each GGUF quantization of the model on the user's GPUs as llama.cpp loads it
// (issue 23; LM Studio badges each quant full offload / partial / too large): fully offloaded,
// partially with the most -ngl that fits (answers/inverse.cpp), or too large even for that.
#include <string>
#include <vector>

#include "answers/estimate.hpp"

namespace vramcalc {

struct LadderRung {
    std::string dtype, label;    // "q4_k_m", "GGUF Q4_K_M"
    double file_bytes = 0;       // the GGUF's tensors, as llama.cpp types them (serving/gguf.cpp)
    double total_bytes = 0;      // the fullest GPU fully offloaded
    const char* status = "size"; // full | partial | too_large; size when no GPU is given
    int64_t gpu_layers = 0, layers = 0;
    double gpu_bytes = 0, cpu_bytes = 0;  // at the rung's offload: the fullest GPU and system RAM
    std::string text;
};

// The ladder for a llama.cpp / Ollama job (throws InputError("job.engine") for another engine).
std::vector<LadderRung> quant_ladder(const Model& m, const Job& job);

}  // namespace vramcalc
