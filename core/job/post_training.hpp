#pragma once
// Post-training (issue 36): preference and RL modes as job fields, in the frameworks' own words
// (TRL's GRPOConfig / DPOConfig, verl's ppo_trainer.yaml, OpenRLHF's train_ppo_ray flags,
// Unsloth's from_pretrained). A job whose `mode` is one of these trains a policy (the job's
// own `policy`: full, LoRA or QLoRA) around a rollout engine and the models the algorithm adds
// (reference, critic, reward model). Read in core/job/posttrain_fields.cpp, defaults as data in
// core/job/posttrain_presets.cpp; the phases are core/posttrain/.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace vramcalc {

struct Job;
struct NumberFormat;

enum class PostMode { None, Dpo, Kto, Orpo, Grpo, Ppo, Rloo };
// TRL GRPOConfig.vllm_mode: vLLM inside the training processes on their GPUs, or a vLLM server
// on GPUs of its own (trl vllm-serve).
enum class VllmMode { Colocate, Server };

struct PostTraining {
    PostMode mode = PostMode::None;
    // Online modes (GRPO, PPO, RLOO): what is generated per step.
    int64_t num_generations = 8;           // completions per prompt (TRL num_generations, verl rollout.n)
    int64_t max_prompt_length = 512;       // prompt tokens (verl data.max_prompt_length)
    int64_t max_completion_length = 512;   // generated tokens (verl data.max_response_length)
    int64_t generation_batch_size = 0;     // completions generated at once over every trainer GPU; 0 = batch × DP × grad_accum
    // The rollout engine.
    bool use_vllm = false;                 // else the policy's own transformers generate
    VllmMode vllm_mode = VllmMode::Colocate;
    double vllm_gpu_memory_utilization = 0.3;  // vLLM's share of the WHOLE GPU (its budget, weights included)
    int64_t sleep_mode = 0;                // vLLM sleep while training: 0 off, 1 weights to host RAM + KV freed, 2 both freed
    int64_t vllm_tensor_parallel_size = 1;
    int64_t vllm_gpus = 0;                 // server mode: the server's GPUs (0 = vllm_tensor_parallel_size)
    int64_t vllm_max_model_length = 0;     // 0: the model's context (max_position_embeddings), as vLLM defaults it
    int64_t vllm_max_num_batched_tokens = 0;  // 0: vLLM's own default
    bool vllm_enforce_eager = false;
    bool vllm_shares_weights = false;      // Unsloth fast_inference: the policy's base weights are vLLM's
    std::string vllm_version;              // the rollout engine's release ("" = the newest)
    std::shared_ptr<const Job> rollout;    // the rollout engine's job (engine vllm, its version's fields), built once
    // The models the algorithm adds.
    double beta = 0;                       // KL coefficient: > 0 keeps a reference model (GRPO, RLOO, PPO)
    bool precompute_ref_log_probs = false; // DPO / KTO: reference log-probs computed before training, no reference kept
    bool ref_param_offload = false;        // verl ref.fsdp_config.param_offload: the reference lives in host RAM
    const NumberFormat* ref_dtype = nullptr;  // the reference's and reward model's weights (null: as the policy's are stored)
    bool reward_model = false;             // a reward model (the policy's architecture) scores the completions
    // PPO: the critic trains with the policy's LoRA / QLoRA (OpenRLHF, ms-swift), else fully (TRL, verl).
    bool critic_lora = false;
    bool deepspeed_enable_sleep = false;   // OpenRLHF --deepspeed_enable_sleep: trainer states in host RAM while vLLM generates
};

// The job fields that apply to some modes only, with those modes (core/job/posttrain_fields.cpp): another mode
// refuses them, naming the field. The page leaves such a field out of the job it sends for another mode (options
// `field_modes`), as it leaves out a serving engine for training.
struct ModeBoundField {
    std::string field;
    std::vector<std::string> modes;
};
std::vector<ModeBoundField> mode_bound_fields();
// A job request for another mode (the precision × mode matrix's cells): `request` without the fields `mode`
// refuses, its mode set to `mode`.
nlohmann::json job_for_mode(nlohmann::json request, const std::string& mode);

inline bool post_training(const PostTraining& p) { return p.mode != PostMode::None; }
// The modes that generate their own completions each step.
inline bool generates(const PostTraining& p) {
    return p.mode == PostMode::Grpo || p.mode == PostMode::Ppo || p.mode == PostMode::Rloo;
}
// A colocated vLLM takes a share of the GPU it runs on: the step depends on the device.
inline bool rollout_sized_by_device(const PostTraining& p) {
    return generates(p) && p.use_vllm && p.vllm_mode == VllmMode::Colocate;
}
// Preference modes: chosen and rejected (DPO, ORPO) or single labelled completions (KTO).
inline bool pairwise(const PostTraining& p) { return p.mode == PostMode::Dpo || p.mode == PostMode::Orpo; }

// The names the job reads for policy and vllm_mode (job/posttrain_fields.cpp's tables), for the option lists.
std::vector<const char*> policy_names();
std::vector<const char*> vllm_mode_names();

}  // namespace vramcalc
