#pragma once
// What serving adds beside the model itself (issue 36), per GPU, each with its source:
// speculative decoding's draft model, EAGLE / EAGLE-3 head or multi-token-prediction layers and
// their KV (core/serving/speculative.cpp), and multi-LoRA serving's adapter slots and host cache
// (core/serving/lora_slots.cpp). vLLM and SGLang take them from the budget before sizing the KV
// pool; llama.cpp and transformers allocate them beside the model.
#include <string>

#include "job/layout.hpp"
#include "job/plan.hpp"

namespace vramcalc {

struct SpecCost {
    double weights = 0;        // the draft's, head's or MTP layers' weights on this GPU
    double params = 0;         // their parameters (the whole proposer, before TP)
    double kv_per_token = 0;   // their KV per token on this GPU (pooled with the target's by vLLM and SGLang)
    int64_t layers = 0;        // the draft's attention layers
    std::string why;
};
// Throws InputError("job.speculative_model") for a draft of another vocabulary, and
// InputError("job.speculative_method") for a method the model or engine does not have.
SpecCost speculative_cost(const Plan& p, const Layout& l, bool explain);

struct LoraSlots {
    double gpu = 0;            // the adapter slots on this GPU (max_loras × max_lora_rank per module)
    double cpu = 0;            // adapters cached in host RAM (max_cpu_loras)
    std::string why;
};
LoraSlots lora_slots(const Plan& p, const Layout& l, bool explain);

}  // namespace vramcalc
