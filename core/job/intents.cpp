#include "job/intents.hpp"

namespace vramcalc {
namespace {

const std::vector<Intent> kIntents = {
    {"run_locally",
     "Run locally",
     "Which quantization of this model runs on my GPU, fully offloaded or with -ngl N?",
     {
         {"mode", "\"inference\"", "running a model: inference"},
         {"engine", "\"llamacpp\"", "llama.cpp, the runtime under Ollama and LM Studio (ggml-org/llama.cpp)"},
         {"dtype", "\"q4_k_m\"", "Ollama library: a model's default tag is its Q4_K_M GGUF (e.g. llama3:8b = 8b-instruct-q4_K_M)"},
         {"seq", "4096", "llama.cpp common/common.h: n_ctx = 4096 by default"},
         {"batch", "1", "one conversation at a time (llama-server's default --parallel 1)"},
         {"n_gpu_layers", "-1", "every layer offloaded when it fits (Ollama and LM Studio try full offload first); the quant ladder gives the most -ngl that fits"},
     },
     {},
     "ladder"},
    {"serve",
     "Serve",
     "How many GPUs to serve N users at C tokens, and how much KV cache is left?",
     {
         {"mode", "\"inference\"", "serving: inference"},
         {"engine", "\"vllm\"", "vLLM, the most used open-source server (vllm-project/vllm)"},
         {"dtype", "\"auto\"", "vllm serve --dtype auto: the checkpoint's own format (its quantization_config)"},
         {"batch", "16", "16 users at once: a load to size against; set it to yours (vLLM's own ceiling is max_num_seqs 256)"},
         {"seq", "8192", "8,192 tokens of prompt and answer per user; set it to yours (vLLM reserves max_model_len for each)"},
         {"gpu_memory_utilization", "0.9", "vllm/config CacheConfig.gpu_memory_utilization = 0.9"},
     },
     {},
     "serving"},
    {"fine_tune",
     "Fine-tune",
     "Does a LoRA / QLoRA fine-tune of this model fit my GPU?",
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
     "verdict"},
    {"pretrain",
     "Pre-train / full fine-tune",
     "How many GPUs, how long and at what cost to train every weight?",
     {
         {"mode", "\"train\"", "every weight trained"},
         {"framework", "\"torchtitan\"", "torchtitan, PyTorch's reference for pre-training (pytorch/torchtitan)"},
         {"seq", "8192", "torchtitan train_configs/llama3_8b.toml: training.seq_len = 8192"},
         {"batch", "1", "torchtitan train_configs/llama3_8b.toml: training.local_batch_size = 1"},
         {"gpus", "8", "one 8-GPU node (torchtitan's llama3_8b config runs on 8 GPUs)"},
     },
     {
         {"gpus", "8", "one 8-GPU node to start from; the planner recommends layouts for more"},
         {"tokens", "\"1T\"", "one trillion tokens: a budget to time; set it to yours"},
     },
     "cluster"},
};

// Issue 36: the "Post-train (RL / DPO)" entry point, which the page offers after the four above
// (web/panels/intents.js): TRL's GRPO on a LoRA policy with vLLM colocated on one GPU.
const std::vector<Intent> kPostTrain = {
    {"post_train",
     "Post-train (RL / DPO)",
     "Does GRPO (or DPO, PPO) of this model fit my GPU, which phase peaks, and how long may completions be?",
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
     "posttrain"},
};

}  // namespace

const std::vector<Intent>& intents() { return kIntents; }
const std::vector<Intent>& posttrain_intents() { return kPostTrain; }

}  // namespace vramcalc
