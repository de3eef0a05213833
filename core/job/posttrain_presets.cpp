#include "job/posttrain_presets.hpp"

#include "text/errors.hpp"

namespace vramcalc {
namespace {

// Sources: huggingface/trl at f2cd577 (v1.10.0.dev0, 2026-07-24) unless a release is named;
// volcengine/verl at b178a3c (0.8.0.dev, 2026-01-29); OpenRLHF/OpenRLHF at 3c3be62 (0.11.0,
// 2026-08-13); unslothai/unsloth at 015bdef (2026-08-22).
std::vector<PresetField> join(std::vector<PresetField> a, const std::vector<PresetField>& b) {
    a.insert(a.end(), b.begin(), b.end());
    return a;
}

// Every TRL trainer: TrainingArguments overridden the same way (grpo_config.py, dpo_config.py, ...:
// "gradient_checkpointing: Defaults to True instead of False") and per-token log-probs of the
// model's 16-bit logits (trainer/utils.py selective_log_softmax, one row's log_softmax at a time).
const std::vector<PresetField> kTrlCommon = {
    {"batch", "8", "transformers TrainingArguments per_device_train_batch_size = 8 (TRL's configs keep it; GRPO counts completions)"},
    {"checkpointing", "\"full\"", "trl grpo_config.py / dpo_config.py: gradient_checkpointing defaults to True"},
    {"loss", "\"logprobs\"", "trl trainer/utils.py selective_log_softmax over the model's bf16 logits, row by row"},
    {"ref_dtype", "\"auto\"", "trl trainer/utils.py create_model_from_path: the reference loads with the policy's model_init_kwargs"},
};
const std::vector<PresetField> kTrlOnline = join(kTrlCommon, {
    {"max_prompt_length", "512", "trl v0.19.0 grpo_config.py max_prompt_length = 512 (later releases keep prompts whole)"},
    {"use_vllm", "false", "trl grpo_config.py use_vllm = False: generation by the policy's own model.generate()"},
    {"vllm_mode", "\"colocate\"", "trl grpo_config.py vllm_mode = 'colocate'"},
    {"vllm_gpu_memory_utilization", "0.3", "trl grpo_config.py vllm_gpu_memory_utilization = 0.3 (colocate)"},
    {"sleep_mode", "0", "trl grpo_config.py vllm_enable_sleep_mode = False (True sleeps at level 2: generation/vllm_generation.py)"},
    {"vllm_tensor_parallel_size", "1", "trl grpo_config.py vllm_tensor_parallel_size = 1"},
    {"vllm_max_num_batched_tokens", "4096", "trl generation/vllm_generation.py LLM(..., max_num_batched_tokens=4096)"},
});
const std::vector<PresetField> kTrlGrpo = join(kTrlOnline, {
    {"num_generations", "8", "trl grpo_config.py num_generations = 8"},
    {"max_completion_length", "512", "trl grpo_config.py max_completion_length = 512 (256 up to v0.19)"},
    {"beta", "0", "trl grpo_config.py beta = 0.0: 'the reference model is not loaded'"},
});
const std::vector<PresetField> kTrlRloo = join(kTrlOnline, {
    {"num_generations", "2", "trl rloo_config.py num_generations = 2"},
    {"max_completion_length", "512", "trl rloo_config.py max_completion_length = 512"},
    {"beta", "0.05", "trl rloo_config.py beta = 0.05: the reference model is loaded"},
});
const std::vector<PresetField> kTrlPpo = join(kTrlOnline, {
    {"num_generations", "1", "trl experimental/ppo: one completion per prompt"},
    {"max_completion_length", "53", "trl experimental/ppo/ppo_config.py response_length = 53"},
    {"beta", "0.05", "trl experimental/ppo/ppo_config.py kl_coef = 0.05 against the reference policy"},
    {"reward_model", "true", "trl experimental/ppo/ppo_trainer.py: a reward model and a value model beside the policy"},
    {"critic_lora", "false", "trl experimental/ppo/ppo_trainer.py: peft_config wraps the policy only (get_peft_model(self.policy_model, ...)); the value model trains whole"},
});
const std::vector<PresetField> kTrlDpo = join(kTrlCommon, {
    {"seq", "1024", "trl dpo_config.py max_length = 1024 (prompt + completion, chosen and rejected each)"},
    {"beta", "0.1", "trl dpo_config.py beta = 0.1"},
    {"precompute_ref_log_probs", "false", "trl dpo_config.py precompute_ref_log_probs = False: the reference stays loaded"},
});
const std::vector<PresetField> kTrlKto = join(kTrlCommon, {
    {"seq", "1024", "trl kto_config.py max_length = 1024"},
    {"beta", "0.1", "trl kto_config.py beta = 0.1"},
    {"precompute_ref_log_probs", "false", "trl kto_config.py precompute_ref_log_probs = False"},
});
const std::vector<PresetField> kTrlOrpo = join(kTrlCommon, {
    {"seq", "1024", "trl experimental/orpo/orpo_config.py max_length = 1024 (ORPO keeps no reference model)"},
});

// verl: one FSDP worker holds actor, rollout and reference (the hybrid engine).
const std::vector<PresetField> kVerlOnline = {
    {"max_prompt_length", "512", "verl trainer/config/_generated_ppo_trainer.yaml data.max_prompt_length = 512"},
    {"max_completion_length", "512", "verl _generated_ppo_trainer.yaml data.max_response_length = 512"},
    {"use_vllm", "true", "verl rollout.name vllm (examples/grpo_trainer/run_qwen2-7b.sh)"},
    {"vllm_mode", "\"colocate\"", "verl hybrid engine: the rollout shares the actor's GPUs"},
    {"vllm_gpu_memory_utilization", "0.5", "verl _generated_ppo_trainer.yaml rollout.gpu_memory_utilization = 0.5"},
    {"sleep_mode", "2", "verl rollout.free_cache_engine = True: vllm_async_server.py sleeps at level 2 in the hybrid engine"},
    {"vllm_tensor_parallel_size", "2", "verl _generated_ppo_trainer.yaml rollout.tensor_model_parallel_size = 2"},
    {"vllm_max_num_batched_tokens", "8192", "verl _generated_ppo_trainer.yaml rollout.max_num_batched_tokens = 8192"},
    {"loss", "\"logprobs\"", "verl utils/torch_functional.py logprobs_from_logits on the actor's logits"},
    {"ref_dtype", "\"fp32\"", "verl trainer/config/engine/fsdp.yaml model_dtype: fp32 (the reference's FSDP module too)"},
};
const std::vector<PresetField> kVerlGrpo = join(kVerlOnline, {
    {"num_generations", "5", "verl examples/grpo_trainer/run_qwen2-7b.sh rollout.n=5 (default rollout.n = 1)"},
    {"beta", "0.001", "verl examples/grpo_trainer/run_qwen2-7b.sh use_kl_loss=True, kl_loss_coef=0.001: a reference is loaded"},
    {"ref_param_offload", "true", "verl examples/grpo_trainer/run_qwen2-7b.sh ref.fsdp_config.param_offload=True"},
});
const std::vector<PresetField> kVerlPpo = join(kVerlOnline, {
    {"num_generations", "1", "verl _generated_ppo_trainer.yaml rollout.n = 1"},
    {"beta", "0", "verl actor.use_kl_loss = False and algorithm.use_kl_in_reward = False: no reference"},
    {"reward_model", "false", "verl reward_model.enable = False: a rule-based reward function"},
    {"critic_lora", "false", "verl _generated_ppo_trainer.yaml critic.model.lora_rank = 0: the critic trains whole"},
});
const std::vector<PresetField> kVerlRloo = join(kVerlOnline, {
    {"num_generations", "5", "verl examples/rloo_trainer: rollout.n=5"},
    {"beta", "0", "verl actor.use_kl_loss = False: no reference"},
});

// OpenRLHF: vLLM engines on GPUs of their own unless --colocate_all_models.
const std::vector<PresetField> kOpenRlhfOnline = {
    {"max_prompt_length", "1024", "openrlhf cli/train_ppo_ray.py --data.max_len 2048 (prompt + response), half each here"},
    {"max_completion_length", "1024", "openrlhf cli/train_ppo_ray.py --data.max_len 2048 (prompt + response), half each here"},
    {"use_vllm", "true", "openrlhf cli/train_ppo_ray.py --vllm.num_engines: generation by vLLM engines"},
    {"vllm_mode", "\"server\"", "openrlhf: vLLM engines on their own GPUs unless --train.colocate_all"},
    {"vllm_gpu_memory_utilization", "0.95", "openrlhf cli/train_ppo_ray.py --vllm.gpu_memory_utilization default 0.95"},
    {"vllm_tensor_parallel_size", "1", "openrlhf cli/train_ppo_ray.py --vllm.tensor_parallel_size default 1"},
    {"beta", "0.01", "openrlhf cli/train_ppo_ray.py --algo.kl.init_coef 0.01 > 0: a reference model is loaded"},
    {"loss", "\"logprobs\"", "openrlhf models/utils.py log_probs_from_logits on the actor's logits"},
    {"ref_dtype", "\"bf16\"", "openrlhf: the reference is a DeepSpeed bf16 engine"},
};
const std::vector<PresetField> kOpenRlhfGrpo = join(kOpenRlhfOnline, {
    {"num_generations", "8", "openrlhf examples/scripts/train_reinforce_baseline_hybrid_engine.sh --rollout.n_samples_per_prompt 8"},
});
const std::vector<PresetField> kOpenRlhfPpo = join(kOpenRlhfOnline, {
    {"num_generations", "1", "openrlhf cli/train_ppo_ray.py --rollout.n_samples_per_prompt default 1"},
    {"reward_model", "true", "openrlhf cli/train_ppo_ray.py: a reward model (--reward.model_name_or_path) and a critic"},
    {"critic_lora", "true", "openrlhf trainer/ray/ppo_critic.py: the critic takes the actor's lora_rank and load_in_4bit (--ds.lora.rank)"},
});
const std::vector<PresetField> kOpenRlhfDpo = {
    {"seq", "2048", "openrlhf cli/train_dpo.py --max_len 2048"},
    {"beta", "0.1", "openrlhf cli/train_dpo.py --beta 0.1"},
    {"loss", "\"logprobs\"", "openrlhf models/loss.py DPO log-probs of the actor's logits"},
    {"ref_dtype", "\"bf16\"", "openrlhf: the reference is a DeepSpeed bf16 engine"},
};

// Unsloth wraps TRL's trainers (unsloth/models/rl.py PatchFastRL), with its own defaults.
const std::vector<PresetField> kUnslothRl = {
    {"policy", "\"lora\"", "unsloth notebooks: FastLanguageModel.get_peft_model (LoRA on the 16-bit or 4-bit base)"},
    {"use_vllm", "true", "unsloth FastLanguageModel.from_pretrained(fast_inference=True): vLLM in the same process"},
    {"vllm_mode", "\"colocate\"", "unsloth fast_inference: vLLM on the training GPU"},
    {"vllm_gpu_memory_utilization", "0.5", "unsloth models/llama.py from_pretrained gpu_memory_utilization = 0.5"},
    {"vllm_shares_weights", "true", "unsloth fast_inference: the LoRA model computes with vLLM's own weight tensors"},
    {"sleep_mode", "0", "unsloth: UNSLOTH_VLLM_STANDBY off unless set (standby frees vLLM's KV while training)"},
    {"loss", "\"fused\"", "unsloth's chunked GRPO loss (unsloth_zoo rl_replacements): no full logits"},
};

struct Entry {
    bool (*framework)(Framework);
    PostMode mode;
    const char* label;
    const std::vector<PresetField>* fields;
};
bool trl_like(Framework f) { return f != Framework::Verl && f != Framework::OpenRlhf && f != Framework::Unsloth; }
bool verl(Framework f) { return f == Framework::Verl; }
bool openrlhf(Framework f) { return f == Framework::OpenRlhf; }
bool unsloth(Framework f) { return f == Framework::Unsloth; }

const std::vector<PresetField> kUnslothGrpo = join(kTrlGrpo, kUnslothRl);
const std::vector<PresetField> kUnslothRloo = join(kTrlRloo, kUnslothRl);
const std::vector<PresetField> kUnslothDpo = join(kTrlDpo, {{"policy", "\"lora\"", "unsloth notebooks: DPO on a LoRA policy"}});
const std::vector<PresetField> kUnslothKto = join(kTrlKto, {{"policy", "\"lora\"", "unsloth notebooks: KTO on a LoRA policy"}});
const std::vector<PresetField> kUnslothOrpo = join(kTrlOrpo, {{"policy", "\"lora\"", "unsloth notebooks: ORPO on a LoRA policy"}});

const Entry kEntries[] = {
    {trl_like, PostMode::Grpo, "TRL GRPOTrainer", &kTrlGrpo},     {trl_like, PostMode::Rloo, "TRL RLOOTrainer", &kTrlRloo},
    {trl_like, PostMode::Ppo, "TRL PPOTrainer", &kTrlPpo},        {trl_like, PostMode::Dpo, "TRL DPOTrainer", &kTrlDpo},
    {trl_like, PostMode::Kto, "TRL KTOTrainer", &kTrlKto},        {trl_like, PostMode::Orpo, "TRL ORPOTrainer", &kTrlOrpo},
    {verl, PostMode::Grpo, "verl GRPO", &kVerlGrpo},               {verl, PostMode::Ppo, "verl PPO", &kVerlPpo},
    {verl, PostMode::Rloo, "verl RLOO", &kVerlRloo},
    {openrlhf, PostMode::Grpo, "OpenRLHF GRPO", &kOpenRlhfGrpo},   {openrlhf, PostMode::Ppo, "OpenRLHF PPO", &kOpenRlhfPpo},
    {openrlhf, PostMode::Rloo, "OpenRLHF RLOO", &kOpenRlhfGrpo},   {openrlhf, PostMode::Dpo, "OpenRLHF DPO", &kOpenRlhfDpo},
    {unsloth, PostMode::Grpo, "Unsloth GRPO", &kUnslothGrpo},      {unsloth, PostMode::Rloo, "Unsloth RLOO", &kUnslothRloo},
    {unsloth, PostMode::Dpo, "Unsloth DPO", &kUnslothDpo},         {unsloth, PostMode::Kto, "Unsloth KTO", &kUnslothKto},
    {unsloth, PostMode::Orpo, "Unsloth ORPO", &kUnslothOrpo},
};
const std::vector<PresetField> kNone = {};

const Entry* entry_for(Framework f, PostMode m) {
    if (m == PostMode::None) return nullptr;
    for (const Entry& e : kEntries)
        if (e.mode == m && e.framework(f)) return &e;
    throw InputError("job.framework", std::string(f == Framework::Verl ? "verl" : f == Framework::OpenRlhf ? "OpenRLHF" : "Unsloth") +
                                          " has no " + post_mode_name(m) + " trainer; choose trl for it");
}

}  // namespace

const std::vector<PresetField>& posttrain_defaults(Framework framework, PostMode mode) {
    const Entry* e = entry_for(framework, mode);
    return e ? *e->fields : kNone;
}

const char* posttrain_preset_label(Framework framework, PostMode mode) {
    const Entry* e = entry_for(framework, mode);
    return e ? e->label : "";
}

}  // namespace vramcalc
