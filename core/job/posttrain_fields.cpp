// The post-training fields of a job (job/post_training.hpp), read once into typed values, and
// the checks the frameworks themselves make (TRL's GRPOConfig.__post_init__, vLLM's share of
// the GPU), each an InputError naming its field.
#include <algorithm>
#include <cmath>

#include <nlohmann/json.hpp>

#include "job/choices.hpp"
#include "job/job.hpp"

namespace vramcalc {
namespace {

using nlohmann::json;

const Choice<PostMode> kPostModes[] = {{"dpo", PostMode::Dpo},   {"kto", PostMode::Kto},   {"orpo", PostMode::Orpo},
                                       {"grpo", PostMode::Grpo}, {"ppo", PostMode::Ppo},   {"rloo", PostMode::Rloo}};
const Choice<Mode> kPolicies[] = {{"full", Mode::Train}, {"lora", Mode::LoRA}, {"qlora", Mode::QLoRA}};
const Choice<VllmMode> kVllmModes[] = {{"colocate", VllmMode::Colocate}, {"server", VllmMode::Server}};

std::string count(int64_t n) { return std::to_string(n); }

// Fields of the post-training modes only, and of the modes that generate (checked in finish_posttrain).
const char* const kPostOnly[] = {"policy", "beta", "precompute_ref_log_probs", "ref_param_offload", "ref_dtype"};
const char* const kOnline[] = {"num_generations", "max_prompt_length", "max_completion_length", "generation_batch_size",
                               "use_vllm", "vllm_mode", "vllm_gpu_memory_utilization", "sleep_mode",
                               "vllm_enable_sleep_mode", "vllm_tensor_parallel_size", "vllm_gpus",
                               "vllm_max_model_length", "vllm_shares_weights", "reward_model", "critic_lora",
                               "deepspeed_enable_sleep"};
// Serving settings (finish_serving_extras refuses speculative decoding and LoRA slots in training), and the
// jobs sharing the GPU (refused beside a post-training job).
const char* const kServingOnly[] = {"speculative_method", "speculative_model", "num_speculative_tokens", "draft_max",
                                    "draft_vocab_size", "n_gpu_layers_draft", "ctx_size_draft", "enable_lora", "max_loras",
                                    "max_loras_per_batch", "max_lora_rank", "max_cpu_loras"};

// The rollout engine's job: vLLM as the version given resolves it (core/job/vllm_versions.cpp),
// with the settings the trainer passes to LLM(...) (TRL vllm_generation.py VLLMGeneration:
// gpu_memory_utilization, max_num_batched_tokens 4096, the LLM class). The device, batch and
// lengths are set per estimate (core/posttrain/rollout.cpp): they change with the GPU tried.
std::shared_ptr<const Job> rollout_job(const json& j, const Job& job) {
    json r = {{"engine", "vllm"}, {"vllm_offline", true}, {"enforce_eager", job.post.vllm_enforce_eager}};
    if (j.contains("vllm_version")) r["vllm_version"] = j.at("vllm_version");
    if (job.post.vllm_max_num_batched_tokens > 0) r["max_num_batched_tokens"] = job.post.vllm_max_num_batched_tokens;
    if (job.kv_dtype) r["kv_cache_dtype"] = job.kv_dtype->name;
    return std::make_shared<const Job>(parse_job(r));
}

}  // namespace

const char* post_mode_name(PostMode v) { return v == PostMode::None ? "none" : name_of(kPostModes, v); }
std::vector<const char*> post_mode_names() { return names_of(kPostModes); }
std::vector<const char*> policy_names() { return names_of(kPolicies); }
std::vector<const char*> vllm_mode_names() { return names_of(kVllmModes); }
bool post_mode_named(const std::string& name, PostMode& mode) {
    for (const auto& c : kPostModes)
        if (name == c.name) return mode = c.value, true;
    return false;
}
const char* policy_name(Mode v) { return name_of(kPolicies, v); }
const char* vllm_mode_name(VllmMode v) { return name_of(kVllmModes, v); }
const char* job_mode_name(const Job& job) { return post_training(job.post) ? post_mode_name(job.post.mode) : mode_name(job.mode); }

bool read_posttrain_field(Job& job, const std::string& key, const json& v, const std::string& field) {
    constexpr int64_t kTokens = 100'000'000;
    PostTraining& p = job.post;
    if (key == "policy") job.mode = read_choice(v, field, kPolicies);
    else if (key == "num_generations") p.num_generations = whole_field(v, field, 1, 100'000);
    else if (key == "max_prompt_length") p.max_prompt_length = whole_field(v, field, 1, kTokens);
    else if (key == "max_completion_length") p.max_completion_length = whole_field(v, field, 1, kTokens);
    else if (key == "generation_batch_size") p.generation_batch_size = whole_field(v, field, 0, 100'000'000);
    else if (key == "use_vllm") p.use_vllm = bool_field(v, field);
    else if (key == "vllm_mode") p.vllm_mode = read_choice(v, field, kVllmModes);
    else if (key == "vllm_gpu_memory_utilization") {
        // vLLM's own range (config/cache.py CacheConfig.gpu_memory_utilization: gt=0, le=1): a share of the whole GPU.
        const double x = number_field(v, field, 0, 1e9);
        if (!(x > 0 && x <= 1))
            throw InputError(field, "is vLLM's share of the whole GPU and must be above 0 and at most 1, got " + describe_value(v));
        p.vllm_gpu_memory_utilization = x;
    }
    else if (key == "sleep_mode") p.sleep_mode = whole_field(v, field, 0, 2);
    else if (key == "vllm_enable_sleep_mode") p.sleep_mode = bool_field(v, field) ? 2 : 0;  // TRL: llm.sleep(level=2)
    else if (key == "vllm_tensor_parallel_size") p.vllm_tensor_parallel_size = whole_field(v, field, 1, 1024);
    else if (key == "vllm_gpus") p.vllm_gpus = whole_field(v, field, 0, 100'000);
    else if (key == "vllm_max_model_length") p.vllm_max_model_length = whole_field(v, field, 0, kTokens);
    else if (key == "vllm_max_num_batched_tokens") p.vllm_max_num_batched_tokens = whole_field(v, field, 0, kTokens);
    else if (key == "vllm_enforce_eager") p.vllm_enforce_eager = bool_field(v, field);
    else if (key == "vllm_shares_weights") p.vllm_shares_weights = bool_field(v, field);
    else if (key == "beta") p.beta = number_field(v, field, 0, 1e6);
    else if (key == "precompute_ref_log_probs") p.precompute_ref_log_probs = bool_field(v, field);
    else if (key == "ref_param_offload") p.ref_param_offload = bool_field(v, field);
    else if (key == "reward_model") p.reward_model = bool_field(v, field);
    else if (key == "critic_lora") p.critic_lora = bool_field(v, field);
    else if (key == "deepspeed_enable_sleep") p.deepspeed_enable_sleep = bool_field(v, field);
    else if (key == "transformers_version") {
        // "4.57.1", "5", "v5.0": the major release decides how MoE experts are stored (memory/states.cpp).
        const std::string text = text_field(v, field);
        size_t i = text.rfind('v', 0) == 0 || text.rfind('V', 0) == 0 ? 1 : 0;
        int64_t major = 0;
        const size_t start = i;
        while (i < text.size() && i - start < 3 && text[i] >= '0' && text[i] <= '9') major = major * 10 + (text[i++] - '0');
        if (i == start || (i < text.size() && text[i] != '.') || major < 4)
            throw InputError(field, "must be a transformers release such as \"4.57.1\" or \"5.0\" (4 or later), got '" + short_text(text) + "'");
        job.transformers_major = major;
    }
    else if (key == "ref_dtype") {
        const std::string name = text_field(v, field);
        if (name == "auto") p.ref_dtype = nullptr;
        else {
            const NumberFormat& f = find_format(name, field);
            if (!f.trainable) throw InputError(field, "must be auto, fp32, fp16 or bf16, got '" + short_text(name) + "'");
            p.ref_dtype = &f;
        }
    }
    else return false;
    return true;
}

const char* posttrain_field_names() {
    return "policy, num_generations, max_prompt_length, max_completion_length, generation_batch_size, use_vllm, vllm_mode, "
           "vllm_gpu_memory_utilization, sleep_mode, vllm_enable_sleep_mode, vllm_tensor_parallel_size, vllm_gpus, "
           "vllm_max_model_length, vllm_max_num_batched_tokens, vllm_enforce_eager, vllm_shares_weights, beta, "
           "precompute_ref_log_probs, ref_param_offload, reward_model, critic_lora, deepspeed_enable_sleep, ref_dtype, transformers_version";
}

std::vector<ModeBoundField> mode_bound_fields() {
    std::vector<std::string> post, online = {"grpo", "ppo", "rloo"}, plain;
    for (const char* m : post_mode_names()) post.push_back(m);
    for (const char* m : mode_names()) plain.push_back(m);
    std::vector<ModeBoundField> out;
    for (const char* key : kPostOnly) out.push_back({key, key == std::string("precompute_ref_log_probs") ? std::vector<std::string>{"dpo", "kto"} : post});
    for (const char* key : kOnline) out.push_back({key, online});
    for (const char* key : kServingOnly) out.push_back({key, {"inference"}});
    out.push_back({"machine_jobs", plain});
    return out;
}

json job_for_mode(json request, const std::string& mode) {
    for (const ModeBoundField& f : mode_bound_fields())
        if (std::find(f.modes.begin(), f.modes.end(), mode) == f.modes.end()) request.erase(f.field);
    request["mode"] = mode;
    return request;
}

void finish_posttrain(const json& j, Job& job) {
    PostTraining& p = job.post;
    if (!post_training(p)) {
        for (const char* key : kPostOnly)
            if (j.contains(key))
                throw InputError(std::string("job.") + key, "applies to a post-training mode (mode dpo, kto, orpo, grpo, ppo or rloo)");
        for (const char* key : kOnline)
            if (j.contains(key))
                throw InputError(std::string("job.") + key, "applies to a post-training mode that generates (mode grpo, ppo or rloo)");
        return;
    }
    if (!generates(p))
        for (const char* key : kOnline)
            if (j.contains(key))
                throw InputError(std::string("job.") + key, std::string("applies to the modes that generate (grpo, ppo, rloo); mode ") +
                                                              post_mode_name(p.mode) + " trains on given completions");
    if (p.precompute_ref_log_probs && p.mode != PostMode::Dpo && p.mode != PostMode::Kto)
        throw InputError("job.precompute_ref_log_probs", "applies to mode dpo or kto (TRL DPOConfig / KTOConfig)");
    if (!generates(p)) return;
    // TRL GRPOConfig.__post_init__: the generation batch holds whole prompt groups, so it must be divisible by
    // num_generations; GRPO and RLOO need at least 2 completions per prompt for their advantages.
    const int64_t dp = std::max<int64_t>(1, job.gpus / std::max<int64_t>(1, job.tp) / std::max<int64_t>(1, job.pp) /
                                                std::max<int64_t>(1, job.cp));
    const int64_t global = job.batch * dp * job.grad_accum;
    if (p.generation_batch_size > 0 && p.generation_batch_size % (job.batch * dp) != 0)
        throw InputError("job.generation_batch_size", "must be a multiple of the global batch per step (batch " + count(job.batch) +
                                                          " × " + count(dp) + " GPUs = " + count(job.batch * dp) +
                                                          "; TRL GRPOConfig), got " + count(p.generation_batch_size));
    const int64_t generated = p.generation_batch_size > 0 ? p.generation_batch_size : global;
    if (p.mode != PostMode::Ppo && p.num_generations < 2)
        throw InputError("job.num_generations", std::string("must be at least 2: ") + post_mode_name(p.mode) +
                                                    " compares the completions of one prompt (TRL GRPOConfig), got " + count(p.num_generations));
    // verl and OpenRLHF multiply their prompt batch by n (rollout.n, n_samples_per_prompt): no such rule.
    // Unsloth sets the micro-batch to num_generations when they do not divide (unsloth/models/rl.py).
    const bool trl_rule = job.framework != Framework::Verl && job.framework != Framework::OpenRlhf;
    if (trl_rule && job.framework == Framework::Unsloth && generated % p.num_generations != 0 && p.generation_batch_size == 0) {
        assume(job, "Unsloth", "batch", count(p.num_generations),
               "unsloth/models/rl.py: 'We will change the batch size ... to the num_generations' (batch = num_generations)");
        job.batch = p.num_generations;
    } else if (trl_rule && generated % p.num_generations != 0)
        throw InputError("job.num_generations",
                         "must divide the global batch of " + count(generated) + " completions (batch " + count(job.batch) + " × " +
                             count(dp) + " GPUs × grad_accum " + count(job.grad_accum) +
                             (p.generation_batch_size > 0 ? ", generation_batch_size" : "") +
                             "): each prompt's group must be whole (TRL GRPOConfig: generation_batch_size must be divisible by "
                             "num_generations), got " + count(p.num_generations));
    if (p.vllm_shares_weights && !p.use_vllm)
        throw InputError("job.vllm_shares_weights", "shares the policy's weights with vLLM: set use_vllm true");
    if (p.use_vllm && p.vllm_mode == VllmMode::Colocate && job.gpus % p.vllm_tensor_parallel_size != 0)
        throw InputError("job.vllm_tensor_parallel_size", "must divide the trainer's GPUs (" + count(job.gpus) +
                                                              ") in colocate mode (TRL vllm_generation.py), got " +
                                                              count(p.vllm_tensor_parallel_size));
    if (p.use_vllm && p.vllm_mode == VllmMode::Server) {
        if (p.vllm_gpus == 0) p.vllm_gpus = p.vllm_tensor_parallel_size;
        if (!j.contains("vllm_gpu_memory_utilization")) {
            p.vllm_gpu_memory_utilization = 0.9;
            assume(job, "TRL's vLLM server", "vllm_gpu_memory_utilization", "0.9",
                   "trl scripts/vllm_serve.py ScriptArguments gpu_memory_utilization default 0.9; TRL's 0.3 is the colocated share");
        }
        if (p.vllm_gpus % p.vllm_tensor_parallel_size != 0)
            throw InputError("job.vllm_gpus", "must be a multiple of vllm_tensor_parallel_size (" + count(p.vllm_tensor_parallel_size) +
                                                  "), got " + count(p.vllm_gpus));
        if (p.sleep_mode > 0)
            throw InputError("job.sleep_mode", "applies to a colocated vLLM (vllm_mode colocate); a server keeps its GPUs");
        if (p.vllm_shares_weights)
            throw InputError("job.vllm_shares_weights", "applies to a colocated vLLM (vllm_mode colocate)");
    }
    if (p.use_vllm) {
        p.vllm_version = j.contains("vllm_version") ? text_field(j.at("vllm_version"), "job.vllm_version") : "";
        p.rollout = rollout_job(j, job);
    } else if (j.contains("vllm_version")) {
        throw InputError("job.vllm_version", "applies to engine vllm, or a post-training rollout with use_vllm true");
    }
}

}  // namespace vramcalc
