#pragma once
// A post-training step (issue 36): the policy's training step (core/step/) inside a timeline of
// its own. A persistent part stays on the GPU all along (the policy's model states, the
// reference, reward and critic models, what a sleeping rollout engine keeps); the phases around
// it are the rollout's generation (vLLM colocated, its share of the whole GPU, or the policy's own
// transformers generate), the scoring forwards (reference and old-policy log-probs, rewards,
// values), the policy's forward, backward and optimizer step, and for PPO the critic's update.
// One function per part here; core/step/posttrain_step.cpp lays them out over the phases.
#include <cstdint>
#include <string>
#include <vector>

#include "job/layout.hpp"
#include "job/plan.hpp"
#include "memory/parallel.hpp"
#include "memory/terms.hpp"
#include "serving/serving_info.hpp"

namespace vramcalc {

// One item of a phase or of the persistent part: what it is, the term it counts under, its bytes.
struct PostPart {
    const char* key = "";    // policy_weights, policy_optimizer, reference, reward_model, critic_weights, critic_optimizer,
                             // rollout_weights, rollout_kv, rollout_activations, rollout_buffers, generate_kv,
                             // generate_activations, gathered_weights, scoring_activations, scoring_logits,
                             // gradients, activations, logits, buffers
    const char* label = "";
    int term = kWeights;     // memory/terms.hpp TermIndex
    double bytes = 0;
    bool engine = false;     // held by the rollout engine (outside the trainer's caching allocator)
    std::string why;         // filled only when explanations are asked for
};
double sum_parts(const std::vector<PostPart>& parts);

struct PostPhase {
    PhaseKind kind = PhaseKind::Forward;
    const char* key = "";
    const char* label = "";
    std::vector<PostPart> parts;  // the persistent part's items first, then the phase's own
    double total() const { return sum_parts(parts); }
};

// The rollout engine as the trainer's GPU sees it.
struct Rollout {
    const char* engine = "none";      // vllm | transformers_generate | none (preference modes)
    std::vector<PostPart> awake;      // while it generates
    std::vector<PostPart> asleep;     // while the policy trains
    double cpu = 0;                   // host RAM while asleep (sleep level 1 moves vLLM's weights there)
    ServingInfo serving;              // vLLM's own accounting of the rollout (budget, pool, concurrency)
    int64_t sequences = 0;            // completions one engine generates at once
    int64_t engines = 0;              // engines over the trainer's (colocate) or the server's GPUs
    int64_t max_model_len = 0;        // vLLM's context (vllm_max_model_length, else the model's)
    bool starts = true;               // vLLM starts: its pool holds one max_model_len request
    // vllm_mode server: the server's own GPUs (the trainer's hold no rollout memory).
    bool server = false;
    int64_t server_gpus = 0;
    Breakdown server_breakdown;
    double server_device = 0;
    bool server_fits = true;
    std::string why;
};

struct PostTrainInfo {
    bool active = false;
    std::vector<PostPart> persistent;
    std::vector<PostPhase> phases;    // in the order of the step's timeline
    int peak = 0;
    Rollout rollout;
    double cpu_bytes = 0;             // host RAM: offloaded reference, sleeping engine, trainer states in sleep
    int64_t rows = 0;                 // sequences in one training micro-batch per GPU (DPO: chosen + rejected)
    int64_t tokens = 0;               // tokens per sequence (prompt + completion)
    int64_t logit_tokens = 0;         // tokens per sequence with logits (the completion for online modes)
    std::vector<std::string> notes;
};

// The policy's own training job: the micro-batch and sequence as the trainer runs them (online
// modes: prompt + completion, logits over the completion only; DPO and ORPO: chosen and
// rejected in one batch). The PPO critic's: the policy's architecture with a one-output head
// (TRL's value model, AutoModelForTokenClassification with num_labels 1), trained in full.
Job policy_job(const Job& job);
Job critic_job(const Job& job);

// The reference and reward models beside the policy (frozen weights, sharded like ZeRO-3 /
// FSDP shards the policy's), on the GPU unless offloaded (`cpu` receives what is not).
std::vector<PostPart> resident_models(const Plan& policy, const Layout& l, double& cpu, bool explain);
// What the reference model adds while its forward runs when it lives in host RAM (verl
// ref.fsdp_config.param_offload): its weights, gathered back for the forward.
std::vector<PostPart> offloaded_reference(const Plan& policy, const Layout& l, bool explain);
// One no-grad forward of a training micro-batch (reference or old-policy log-probs, values,
// rewards): one layer's temporaries and the log-probs' logits.
std::vector<PostPart> scoring_forward(const Plan& policy, const Layout& l, bool explain);
// The rollout engine on the trainer's GPUs (or the server's): awake and asleep.
Rollout rollout_engine(const Plan& policy, const Layout& l, bool explain);

}  // namespace vramcalc
