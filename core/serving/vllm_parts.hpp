#pragma once
// vLLM's accounting in parts (core/serving/vllm*.cpp): the version's defaults
// resolved for the device, the profile run's peak, non-torch memory and the
// CUDA graphs. Every number comes from the job's fields, which the version's
// preset set (core/job/vllm_versions.cpp).
#include <cstdint>
#include <string>

#include "job/layout.hpp"
#include "job/plan.hpp"

namespace vramcalc {

// The scheduler settings the version derives from the device (engine/arg_utils.py).
struct VllmSetup {
    int64_t seqs = 0;           // max_num_seqs
    int64_t tokens = 0;         // max_num_batched_tokens: the profile run's tokens
    int64_t max_model_len = 0;
    bool chunked = true;
    bool large_gpu = false;     // the version's large-GPU defaults apply
};
VllmSetup vllm_setup(const Plan& p, double device);

// The profile run's peak of torch-allocated memory on one GPU (torch peak increase).
struct VllmProfile {
    double forward = 0;   // one layer's temporaries for `tokens` (+ eager scores, + stage outputs)
    double sampler = 0;   // logits of max_num_seqs rows and the sampler's temporaries
    double encoder = 0;   // the vision encoder over the dummy images (peak of that phase)
    double images_kept = 0;  // image embeddings kept while the language model runs
    double fixed = 0;     // the sampler's workspace (kept throughout)
    double moe_kept = 0;  // fused-MoE shared workspaces, kept from the forward through the sampler
    int64_t images = 0;
    double peak() const;
    std::string why;
};
// `samples`: this GPU runs the sampler (V1: every TP rank of the last stage; V0: the driver);
// `last_stage`: no stage outputs to hand on.
VllmProfile vllm_profile(const Plan& p, const Layout& l, const VllmSetup& v, bool samples, bool last_stage, bool explain);

// The vision encoder's part of the profile (core/serving/multimodal.cpp): the dummy images a
// version feeds the encoder and the memory of that phase, per GPU.
struct EncoderProfile {
    int64_t images = 0, patches = 0, tokens = 0;  // images, encoder positions, language-model tokens
    double peak = 0;        // the encoder phase
    double kept = 0;        // outputs kept while the language model runs (encoder cache, embeddings)
    std::string why;
};
EncoderProfile encoder_profile(const Plan& p, const Layout& l, const VllmSetup& v, bool explain);

// CUDA graphs (core/serving/vllm_graphs.cpp).
struct VllmGraphs {
    int64_t count = 0, largest = 0;
    double bytes = 0;
    std::string why;
};
VllmGraphs vllm_graphs(const Plan& p, const Layout& l, const VllmSetup& v, bool explain);

// vLLM's non-torch memory on one GPU (NCCL, cuBLAS, kernel modules).
double vllm_non_torch(const Plan& p, const Layout& l, bool samples, std::string* why);

}  // namespace vramcalc
