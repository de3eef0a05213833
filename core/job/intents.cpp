#include "job/intents.hpp"

#include <algorithm>
#include <cmath>

#include "text/errors.hpp"

namespace vramcalc {
namespace {

// torchtitan's train_configs/*.toml as of 238fa99 (2026-02-23, the last commit before the configs became
// config_registry.py in 9810191, where the same values stand); the MoE config is deepseek_v3_16b.toml.
const std::vector<Intent> kIntents = {
    {"run_locally",
     "Run locally",
     "Which quantization of this model runs on my GPU, fully offloaded or with -ngl N?",
     "llama.cpp's defaults with Ollama's default quantization",
     {
         {"mode", "\"inference\"", "running a model: inference"},
         {"engine", "\"llamacpp\"", "llama.cpp, the runtime under Ollama and LM Studio (ggml-org/llama.cpp)"},
         {"dtype", "\"q4_k_m\"", "Ollama library: a model's default tag is its Q4_K_M GGUF (e.g. llama3:8b = 8b-instruct-q4_K_M)"},
         {"seq", "4096", "llama.cpp common/common.h: n_ctx = 4096 by default"},
         {"batch", "1", "one conversation at a time (llama-server's default --parallel 1)"},
         {"n_gpu_layers", "-1", "every layer offloaded when it fits (Ollama and LM Studio try full offload first); the quant ladder gives the most -ngl that fits"},
     },
     {},
     {},
     "ladder"},
    {"serve",
     "Serve",
     "How many GPUs to serve N users at C tokens, and how much KV cache is left?",
     "vLLM's defaults",
     {
         {"mode", "\"inference\"", "serving: inference"},
         {"engine", "\"vllm\"", "vLLM, the most used open-source server (vllm-project/vllm)"},
         {"dtype", "\"auto\"", "vllm serve --dtype auto: the checkpoint's own format (its quantization_config)"},
         {"batch", "16", "16 users at once: a load to size against; set it to yours (vLLM's own ceiling is max_num_seqs 256)"},
         {"seq", "8192", "8,192 tokens of prompt and answer per user; set it to yours (vLLM reserves max_model_len for each)"},
         {"gpu_memory_utilization", "0.9", "vllm/config CacheConfig.gpu_memory_utilization = 0.9"},
     },
     {},
     {},
     "serving"},
    {"fine_tune",
     "Fine-tune",
     "Does a LoRA / QLoRA fine-tune of this model fit my GPU?",
     "Unsloth's notebooks",
     {
         {"mode", "\"qlora\"", "QLoRA (Dettmers et al. 2023): 4-bit NF4 base, LoRA adapters, the usual single-GPU fine-tune"},
         {"framework", "\"unsloth\"", "Unsloth's notebooks, the most copied single-GPU recipe (unslothai/notebooks)"},
         {"lora_rank", "16", "Unsloth notebooks: get_peft_model(r = 16)"},
         {"lora_targets", "\"all-linear\"", "Unsloth notebooks: target_modules q, k, v, o, gate, up, down_proj (every linear layer); QLoRA paper: all linear layers"},
         {"batch", "2", "Unsloth notebooks: per_device_train_batch_size = 2"},
         {"grad_accum", "4", "Unsloth notebooks: gradient_accumulation_steps = 4"},
         {"seq", "2048", "Unsloth notebooks: max_seq_length = 2048"},
         {"optimizer", "\"adam_8bit\"", "Unsloth notebooks: optim = 'adamw_8bit'"},
     },
     {},
     {},
     "verdict"},
    {"pretrain",
     "Pre-train / full fine-tune",
     "How many GPUs, how long and at what cost to train every weight?",
     "torchtitan",
     {
         {"mode", "\"train\"", "every weight trained"},
         {"framework", "\"torchtitan\"", "torchtitan, PyTorch's reference for pre-training (pytorch/torchtitan)"},
     },
     {
         {ModelScale::Dense8B,
          "torchtitan's Llama 3 8B config",
          {
              {"seq", "8192", "torchtitan train_configs/llama3_8b.toml: training.seq_len = 8192"},
              {"batch", "1", "torchtitan train_configs/llama3_8b.toml: training.local_batch_size = 1"},
          }},
         {ModelScale::Dense70B,
          "torchtitan's Llama 3 70B config",
          {
              {"seq", "8192", "torchtitan train_configs/llama3_70b.toml: training.seq_len = 8192"},
              {"batch", "8", "torchtitan train_configs/llama3_70b.toml: training.local_batch_size = 8"},
              {"tp", "8", "torchtitan train_configs/llama3_70b.toml: parallelism.tensor_parallel_degree = 8 (8-way TP)"},
              {"checkpointing", "\"full\"", "torchtitan train_configs/llama3_70b.toml: activation_checkpoint.mode = \"full\""},
          }},
         {ModelScale::Dense405B,
          "torchtitan's Llama 3 405B config",
          {
              {"seq", "8192", "torchtitan train_configs/llama3_405b.toml: training.seq_len = 8192"},
              {"batch", "2", "torchtitan train_configs/llama3_405b.toml: training.local_batch_size = 2"},
              {"tp", "8", "torchtitan train_configs/llama3_405b.toml: parallelism.tensor_parallel_degree = 8 (8-way TP)"},
              {"checkpointing", "\"full\"", "torchtitan train_configs/llama3_405b.toml: activation_checkpoint.mode = \"full\""},
              {"fp8", "\"torchao\"", "torchtitan train_configs/llama3_405b.toml: model.converters = [\"float8\"] (torchao Float8Linear)"},
              {"fp8_all_gather", "true", "torchtitan train_configs/llama3_405b.toml: quantize.linear.float8.enable_fsdp_float8_all_gather = true"},
          }},
         {ModelScale::Moe,
          "torchtitan's DeepSeek-V3 16B config",
          {
              {"seq", "4096", "torchtitan train_configs/deepseek_v3_16b.toml: training.seq_len = 4096"},
              {"batch", "4", "torchtitan train_configs/deepseek_v3_16b.toml: training.local_batch_size = 4"},
              {"ep", "8", "torchtitan train_configs/deepseek_v3_16b.toml: parallelism.expert_parallel_degree = 8"},
              {"etp", "1", "torchtitan train_configs/deepseek_v3_16b.toml: parallelism.expert_tensor_parallel_degree = 1"},
              {"checkpointing", "\"full\"",
               "torchtitan's MoE configs checkpoint per op (activation_checkpoint.mode = \"selective\", option \"op\"), which vramcalc "
               "models for dense blocks only; full checkpointing (each block's input) here, the nearest it models"},
          }},
     },
     {
         {"tokens", "\"1T\"", "one trillion tokens: a budget to time; set it to yours"},
     },
     "cluster"},
};

const std::vector<RecipeChoice> kFineTuneRecipes = {
    {"unsloth", "Unsloth"},
    {"hf", "HF + PEFT"},
    {"torchtune", "torchtune"},
};
const std::vector<RecipeChoice> kPostTrainRecipes = {
    {"trl", "TRL"},
    {"verl", "verl"},
    {"openrlhf", "OpenRLHF"},
    {"unsloth", "Unsloth"},
};

// Issue 36: the "Post-train (RL / DPO)" entry point, which the page offers after the four above
// (web/panels/intents.js): TRL's GRPO on a LoRA policy with vLLM colocated on one GPU.
const std::vector<Intent> kPostTrain = {
    {"post_train",
     "Post-train (RL / DPO)",
     "Does GRPO (or DPO, PPO) of this model fit my GPU, which phase peaks, and how long may completions be?",
     "TRL's GRPO with vLLM colocated",
     {
         {"mode", "\"grpo\"", "GRPO (DeepSeekMath), the RL recipe of 2025-26 reasoning models; TRL GRPOTrainer"},
         {"framework", "\"trl\"", "TRL, the reference trainers (huggingface/trl)"},
         {"policy", "\"lora\"", "LoRA on the policy: TRL's GRPO examples pass peft_config, and the reference is then the base itself"},
         {"use_vllm", "true", "TRL GRPOConfig use_vllm=True: vLLM generates the rollouts (the docs' recommended setup)"},
         {"vllm_mode", "\"colocate\"", "TRL GRPOConfig vllm_mode = 'colocate': vLLM on the training GPU"},
         {"num_generations", "8", "TRL GRPOConfig num_generations = 8"},
         {"max_completion_length", "1024", "1,024 generated tokens: a reasoning trace to size against; set it to yours"},
     },
     {},
     {},
     "posttrain"},
};

}  // namespace

const char* model_scale_name(ModelScale s) {
    switch (s) {
        case ModelScale::Dense8B: return "dense_8b";
        case ModelScale::Dense70B: return "dense_70b";
        case ModelScale::Dense405B: return "dense_405b";
        case ModelScale::Moe: return "moe";
        case ModelScale::Any: break;
    }
    return "any";
}

ModelScale model_scale(const ModelConfig& c, double params_total) {
    if (c.is_moe()) return ModelScale::Moe;
    // The torchtitan config nearest in size, on a log scale: 8B below √(8 · 70) B, 405B above √(70 · 405) B.
    if (params_total < std::sqrt(8.0 * 70.0) * 1e9) return ModelScale::Dense8B;
    if (params_total < std::sqrt(70.0 * 405.0) * 1e9) return ModelScale::Dense70B;
    return ModelScale::Dense405B;
}

const std::vector<Intent>& intents() { return kIntents; }
const std::vector<Intent>& posttrain_intents() { return kPostTrain; }

const Intent& find_intent(const std::string& id) {
    std::string names;
    for (const auto* list : {&kIntents, &kPostTrain})
        for (const Intent& i : *list) {
            if (id == i.id) return i;
            names += (names.empty() ? "" : ", ") + std::string(i.id);
        }
    throw InputError("intent", "must be one of " + names + ", got '" + short_text(id) + "'");
}

ResolvedIntent resolve_intent(const Intent& intent, const ModelConfig& c, double params_total) {
    ResolvedIntent r;
    r.intent = &intent;
    r.job = intent.job;
    r.recipe = intent.recipe;
    const ModelScale scale = model_scale(c, params_total);
    for (const IntentVariant& v : intent.variants) {
        if (v.scale != scale && v.scale != ModelScale::Any) continue;
        r.variant = &v;
        r.recipe = v.recipe;
        for (const PresetField& f : v.job) {
            const auto same = std::find_if(r.job.begin(), r.job.end(), [&](const PresetField& g) { return std::string(g.key) == f.key; });
            if (same != r.job.end()) *same = f;
            else r.job.push_back(f);
        }
        break;
    }
    return r;
}

const std::vector<RecipeChoice>& fine_tune_recipes() { return kFineTuneRecipes; }
const std::vector<RecipeChoice>& posttrain_recipes() { return kPostTrainRecipes; }

}  // namespace vramcalc
