// Post-training (issue 36): each phase of a GRPO, DPO and PPO step derived by hand from the
// frameworks' code (TRL grpo_trainer.py / dpo_trainer.py, vLLM's budget), and the errors the
// frameworks give for bad settings.
#include <doctest/doctest.h>

#include "answers/inverse.hpp"
#include "api/intents.hpp"
#include "api/job_text.hpp"
#include "api/sweep.hpp"
#include "hardware/gpus.hpp"
#include "job/intents.hpp"
#include "helpers.hpp"
#include "text/errors.hpp"

using namespace vramcalc;
using nlohmann::json;

namespace {

const PostPhase& phase(const Estimate& e, const std::string& key) {
    for (const PostPhase& p : e.post.phases)
        if (p.key == key) return p;
    FAIL("no phase " << key);
    return e.post.phases.front();
}
double part(const PostPhase& p, const std::string& key) {
    double bytes = 0;
    for (const PostPart& x : p.parts)
        if (x.key == key) bytes += x.bytes;
    return bytes;
}
double persistent(const Estimate& e, const std::string& key) {
    double bytes = 0;
    for (const PostPart& x : e.post.persistent)
        if (x.key == key) bytes += x.bytes;
    return bytes;
}
std::string error_field(const json& job, const std::string& model = "qwen2.5-7b") {
    try {
        estimate(test::model(model), test::job(job));
    } catch (const InputError& e) {
        return e.field();
    }
    return "";
}

// GRPO on Qwen2.5-7B with LoRA on one 80 GB H100, vLLM colocated at 0.3, G = 8, 512 + 1024 tokens.
const json kGrpo = {{"mode", "grpo"}, {"policy", "lora"}, {"dtype", "bf16"}, {"gpu", "h100"}, {"use_vllm", true},
                    {"vllm_gpu_memory_utilization", 0.3}, {"num_generations", 8}, {"max_prompt_length", 512},
                    {"max_completion_length", 1024}, {"batch", 8}};

}  // namespace

TEST_CASE("GRPO, Qwen2.5-7B LoRA on one H100, vLLM colocated at 0.3, G = 8, 512 + 1024 tokens: each phase by hand") {
    const Model m = test::model("qwen2.5-7b");
    const Estimate e = estimate(m, test::job(kGrpo));
    REQUIRE(e.post.active);
    const double P = m.params.total;  // 7,615,616,512 (model card 7.61 B)
    CHECK(P == doctest::Approx(7.6156e9).epsilon(1e-4));
    // LoRA r16 on q, k, v, o, gate, up, down of 28 layers (h 3584, kv 512, I 18944):
    // r · (in + out) per matrix = 16 · [(3584+3584) + 2·(3584+512) + (3584+3584) + 2·(3584+18944) + (18944+3584)] · 28.
    const double adapters = 16.0 * ((3584 + 3584) + 2 * (3584 + 512) + (3584 + 3584) + 2 * (3584 + 18944) + (18944 + 3584)) * 28;
    CHECK(e.trainable_params == doctest::Approx(adapters));
    // The persistent part: the bf16 base, fp32 adapters (PEFT autocast_adapter_dtype) and their Adam m + v.
    CHECK(persistent(e, "policy_weights") == doctest::Approx(P * 2 + adapters * 4));
    CHECK(persistent(e, "policy_optimizer") == doctest::Approx(adapters * 8));
    CHECK(persistent(e, "reference") == 0);  // LoRA: the reference is the base with its adapters disabled (and beta 0)
    // Generation: the persistent part + vLLM's whole share, 0.3 × the device (vLLM >= 0.21 counts its CUDA
    // graphs inside the budget: weights + activations + non-torch + graphs + KV = the budget).
    const double device = gpu_bytes(*test::job(kGrpo).gpu);
    const double share = 0.3 * device;
    const PostPhase& gen = phase(e, "generation");
    CHECK(gen.total() == doctest::Approx(P * 2 + adapters * 12 + share).epsilon(1e-6));
    CHECK(part(gen, "rollout_weights") == doctest::Approx(P * 2).epsilon(0.002));  // + vLLM's RoPE tables
    // Logits over the completion only (logits_to_keep = 1024), 16-bit, vocab 152,064: selective_log_softmax
    // keeps one log_softmax output per row (×1), the forward holds the logits too (×2), the backward ×3.
    const double logits = 8.0 * 1024 * 152064 * 2;
    CHECK(part(phase(e, "forward"), "logits") == doctest::Approx(2 * logits));
    CHECK(part(phase(e, "loss_backward"), "logits") == doctest::Approx(3 * logits));
    // Scoring: the no-grad log-probs of one micro-batch: 8 rows' logits + one row's log_softmax.
    CHECK(part(phase(e, "scoring"), "scoring_logits") == doctest::Approx(9.0 * 1024 * 152064 * 2));
    // No sleep mode (TRL's default): vLLM keeps its share through training.
    CHECK(part(phase(e, "loss_backward"), "rollout_kv") == part(gen, "rollout_kv"));
    CHECK(e.post.phases[static_cast<size_t>(e.post.peak)].key == std::string("loss_backward"));
    // Sleep level 2 frees vLLM's weights and KV while training: the training phases drop by them.
    json slept = kGrpo;
    slept["sleep_mode"] = 2;
    const Estimate s = estimate(m, test::job(slept));
    const double freed = part(gen, "rollout_weights") + part(gen, "rollout_kv") + part(gen, "rollout_activations");
    CHECK(phase(e, "loss_backward").total() - phase(s, "loss_backward").total() == doctest::Approx(freed));
    CHECK(phase(s, "generation").total() == doctest::Approx(gen.total()));
    CHECK(s.post.phases[static_cast<size_t>(s.post.peak)].key == std::string("generation"));
    // Sleep level 1 moves the weights to host RAM.
    slept["sleep_mode"] = 1;
    CHECK(estimate(m, test::job(slept)).post.cpu_bytes == doctest::Approx(part(gen, "rollout_weights")));
}

TEST_CASE("GRPO inverse: the longest completion and the most completions per prompt that fit") {
    const Model m = test::model("qwen2.5-7b");
    const Job job = test::job(kGrpo);
    const Answer c = solve(m, job, Question::MaxCompletionLength);
    REQUIRE(c.found);
    CHECK(c.value > 1024);
    CHECK(c.total_at <= gpu_bytes(*job.gpu));
    CHECK_FALSE(c.fits_next);
    const Answer g = solve(m, job, Question::MaxGenerations);
    REQUIRE(g.found);
    CHECK(g.value >= 8);
    CHECK_FALSE(g.fits_next);
    // The estimate carries both.
    CHECK(estimate(m, job).post_limits.size() == 2);
}

TEST_CASE("DPO, Llama 3.1 8B full on 8 GPUs with ZeRO-3: the reference's share") {
    const Model m = test::model("llama-3.1-8b");
    const double P = m.params.total;  // 8,030,261,248
    // TRL loads the reference with the policy's float32 default and shards it like the policy under ZeRO-3.
    const Estimate e = estimate(m, test::job({{"mode", "dpo"}, {"gpus", 8}, {"zero", 3}, {"batch", 1}}));
    CHECK(persistent(e, "reference") == doctest::Approx(P * 4 / 8));
    CHECK(e.post.rows == 2);  // chosen and rejected in one batch
    CHECK(e.post.tokens == 1024);  // DPOConfig max_length
    // ZeRO-2: each GPU keeps a whole copy (TRL prepare_deepspeed turns ZeRO off for the reference).
    CHECK(persistent(estimate(m, test::job({{"mode", "dpo"}, {"gpus", 8}, {"zero", 2}, {"batch", 1}})), "reference") ==
          doctest::Approx(P * 4));
    // DeepSpeed's bf16 engine: the reference in bf16.
    CHECK(persistent(estimate(m, test::job({{"mode", "dpo"}, {"framework", "deepspeed"}, {"gpus", 8}, {"zero", 3}, {"batch", 1}})),
                     "reference") == doctest::Approx(P * 2 / 8));
    // Precomputed log-probs (TRL PR #5542) or a LoRA policy: no reference at all.
    CHECK(persistent(estimate(m, test::job({{"mode", "dpo"}, {"gpus", 8}, {"zero", 3}, {"batch", 1}, {"precompute_ref_log_probs", true}})),
                     "reference") == 0);
    CHECK(persistent(estimate(m, test::job({{"mode", "dpo"}, {"policy", "lora"}, {"batch", 1}})), "reference") == 0);
    // ORPO keeps none either, and has no scoring phase.
    const Estimate orpo = estimate(m, test::job({{"mode", "orpo"}, {"batch", 1}}));
    CHECK(persistent(orpo, "reference") == 0);
    CHECK(orpo.post.phases.front().key == std::string("forward"));
}

TEST_CASE("PPO: a critic trained in full and a reward model beside the policy") {
    const Model m = test::model("qwen2.5-0.5b");
    const Estimate e = estimate(m, test::job({{"mode", "ppo"}, {"gpus", 1}, {"batch", 4}, {"max_completion_length", 256}}));
    const double P = m.params.total, h = 896;
    // TRL's defaults: float32 policy (autocast) and frozen models, the value and reward heads one output each.
    // Qwen2.5-0.5B ties its head to the embedding: the score heads add h parameters.
    CHECK(persistent(e, "reward_model") == doctest::Approx((P + h) * 4));
    CHECK(persistent(e, "reference") == doctest::Approx(P * 4));  // kl_coef 0.05 > 0
    CHECK(persistent(e, "critic_weights") == doctest::Approx((P + h) * 4).epsilon(1e-6));
    CHECK(persistent(e, "critic_optimizer") == doctest::Approx((P + h) * 8).epsilon(1e-6));
    CHECK(e.post.phases.back().key == std::string("critic_update"));
}

TEST_CASE("PPO with a LoRA policy: the critic trains whole in TRL and verl, with the policy's adapters in OpenRLHF (critic_lora)") {
    const Model m = test::model("qwen2.5-0.5b");
    const json job = {{"mode", "ppo"}, {"policy", "lora"}, {"lora_rank", 8}, {"dtype", "bf16"}, {"gpu", "h100"}, {"gpus", 1}, {"batch", 4},
                      {"max_completion_length", 256}};
    const double P = m.params.total, h = 896;
    // TRL experimental/ppo/ppo_trainer.py wraps only the policy in its PEFT adapter: AdamW's m and v in fp32 for every
    // parameter of the value model (its backbone and a one-output score head).
    const Estimate trl = estimate(m, test::job(job));
    CHECK(persistent(trl, "critic_optimizer") == doctest::Approx((P + h) * 8).epsilon(1e-6));
    // OpenRLHF ppo_critic.py passes the actor's lora_rank: the critic's trainable parameters are rank-8 adapters on
    // every linear of the 24 layers, r × (in + out) each: q 896 → 896, k and v 896 → 128, o 896 → 896, gate and up
    // 896 → 4,864, down 4,864 → 896 = 8 × 22,912 per layer; the score head's 896 beside them.
    json openrlhf = job;
    openrlhf["framework"] = "openrlhf";
    const Estimate o = estimate(m, test::job(openrlhf));
    const double adapters = 24.0 * 8 * 22912;
    CHECK(test::job(openrlhf).post.critic_lora);
    CHECK(persistent(o, "critic_optimizer") == doctest::Approx((adapters + h) * 8).epsilon(0.01));
    // The critic's frozen base weights stay, in bf16: the policy's storage.
    CHECK(persistent(o, "critic_weights") >= P * 2);
    CHECK(persistent(o, "critic_weights") < P * 2 * 1.05);
    // critic_lora false in OpenRLHF trains the critic whole, as DeepSpeed's bf16 optimizer does: an fp32 master copy
    // beside Adam's m and v, 12 bytes per parameter; a full policy keeps a full critic either way.
    openrlhf["critic_lora"] = false;
    CHECK(persistent(estimate(m, test::job(openrlhf)), "critic_optimizer") == doctest::Approx((P + h) * 12).epsilon(1e-6));
    json full = job;
    full["policy"] = "full";
    full["critic_lora"] = true;
    CHECK(persistent(estimate(m, test::job(full)), "critic_optimizer") > P * 8);
}

TEST_CASE("PPO under ZeRO-3 without vLLM: generate gathers the policy and the critic (TRL's policy-and-value wrapper)") {
    const Model m = test::model("qwen2.5-0.5b");
    const double P = m.params.total, h = 896;
    const json job = {{"mode", "ppo"}, {"dtype", "bf16"}, {"gpus", 8}, {"zero", 3}, {"batch", 1}, {"max_completion_length", 256}};
    // trl experimental/ppo/ppo_trainer.py: unwrap_model_for_generation(self.model, ...) with self.model the
    // PolicyAndValueWrapper; trl models/utils.py gathers model.parameters(): P in bf16 for the policy (its head tied to
    // the embedding) and P + h for the value model (a one-output score head), whole on each GPU.
    CHECK(part(phase(estimate(m, test::job(job)), "generation"), "gathered_weights") == doctest::Approx((2 * P + h) * 2).epsilon(1e-6));
    // GRPO unwraps the policy alone.
    json grpo = job;
    grpo["mode"] = "grpo";
    grpo["num_generations"] = 8;
    grpo["batch"] = 8;
    CHECK(part(phase(estimate(m, test::job(grpo)), "generation"), "gathered_weights") == doctest::Approx(P * 2).epsilon(1e-6));
}

TEST_CASE("the rollout engine: transformers generate by default, a vLLM server on GPUs of its own") {
    const Model m = test::model("qwen2.5-7b");
    // TRL without vLLM generates with the policy: the KV of 8 completions × 1536 tokens, 28 layers × 2 × 4 kv heads × 128 × 2 B.
    json job = kGrpo;
    job.erase("use_vllm");
    job.erase("vllm_gpu_memory_utilization");
    const Estimate hf = estimate(m, test::job(job));
    CHECK(part(phase(hf, "generation"), "generate_kv") == doctest::Approx(8.0 * 1536 * 28 * 2 * 4 * 128 * 2));
    CHECK(part(phase(hf, "loss_backward"), "generate_kv") == 0);
    // Server mode: nothing of the rollout on the trainer's GPU; the server's GPUs answer for themselves.
    job = kGrpo;
    job.erase("vllm_gpu_memory_utilization");  // TRL's 0.3 is the colocated share; a server takes trl vllm-serve's 0.9
    job["vllm_mode"] = "server";
    job["vllm_gpus"] = 1;
    const Estimate server = estimate(m, test::job(job));
    CHECK(phase(server, "generation").total() == doctest::Approx(sum_parts(server.post.persistent)));
    CHECK(server.post.rollout.server);
    CHECK(server.post.rollout.server_breakdown.total() > 0.85 * gpu_bytes(*test::job(kGrpo).gpu));  // trl vllm-serve 0.9
}

TEST_CASE("post-training errors name the field, as the frameworks refuse them") {
    json j = kGrpo;
    j["num_generations"] = 3;  // 8 completions per step: groups of 3 are not whole (TRL GRPOConfig)
    CHECK(error_field(j) == "job.num_generations");
    j["num_generations"] = 1;
    CHECK(error_field(j) == "job.num_generations");
    j = kGrpo;
    j["vllm_gpu_memory_utilization"] = 1.2;
    CHECK(error_field(j) == "job.vllm_gpu_memory_utilization");
    CHECK(error_field({{"mode", "dpo"}, {"num_generations", 4}}) == "job.num_generations");
    CHECK(error_field({{"mode", "lora"}, {"policy", "lora"}}) == "job.policy");
    CHECK(error_field({{"mode", "grpo"}, {"framework", "verl"}, {"use_vllm", true}, {"vllm_tensor_parallel_size", 3}, {"gpus", 4}}) ==
          "job.vllm_tensor_parallel_size");
    CHECK(error_field({{"mode", "kto"}, {"framework", "verl"}}) == "job.framework");
    CHECK(error_field({{"mode", "grpe"}}) == "job.mode");
    // A colocated vLLM sizes itself from the GPU: without one there is nothing to size.
    json no_gpu = kGrpo;
    no_gpu.erase("gpu");
    CHECK(error_field(no_gpu) == "job.gpu");
    // verl multiplies its prompts by n: no divisibility rule; Unsloth sets the micro-batch to num_generations.
    CHECK(error_field({{"mode", "grpo"}, {"framework", "verl"}, {"gpu", "h100"}, {"gpus", 8}}) == "");
    CHECK(test::job({{"mode", "grpo"}, {"framework", "unsloth"}, {"batch", 3}, {"gpu", "h100"}}).batch == 8);
}

TEST_CASE("vLLM that would not start: one request of the model's context does not fit its pool") {
    // Llama 3.1 8B: a colocated vLLM at 0.2 of an H100 (17 GB) holds its 16 GB of weights and little KV;
    // its max_model_len defaults to the model's 131,072 tokens (16 GiB of KV): vLLM refuses to start.
    json j = {{"mode", "grpo"}, {"policy", "lora"}, {"gpu", "h100"}, {"use_vllm", true}, {"vllm_gpu_memory_utilization", 0.25}};
    const Model m = test::model("llama-3.1-8b");
    const Estimate e = estimate(m, test::job(j));
    CHECK_FALSE(e.post.rollout.starts);
    CHECK_FALSE(fits_device(m, test::job(j)));
    j["vllm_max_model_length"] = 1024;
    CHECK(estimate(m, test::job(j)).post.rollout.starts);
}

TEST_CASE("the page's pieces: the post-training intent, the completion-length sweep, machine_jobs as text") {
    // The entry point the page will offer: a job the core accepts on the user's GPU, every value cited.
    REQUIRE(posttrain_intents().size() == 1);
    json job = json::object();
    for (const PresetField& f : posttrain_intents()[0].job) {
        job[f.key] = json::parse(f.value);
        CHECK(std::string(f.source).size() > 10);
    }
    job["gpu"] = "h100";
    const Estimate e = estimate(test::model("qwen2.5-7b"), test::job(job));
    CHECK(e.post.active);
    CHECK(json::parse(intents_json())["post_train"][0]["view"] == "posttrain");
    // A sweep over the completion length: the total grows with it.
    use_config(find_model(test::models(), "qwen2.5-7b").config.dump());
    const json s = json::parse(sweep_json(job.dump(), "max_completion_length", "[256, 1024, 4096]"));
    REQUIRE(s["ok"] == true);
    CHECK(s["points"][2]["total_bytes"].get<double>() > s["points"][0]["total_bytes"].get<double>());
    // machine_jobs and an inline draft config as text (the CLI's flags, the page's link).
    const json fields = job_from_text({{"machine-jobs", R"([{"model":"bge-m3","engine":"hf"}])"}}, TextSource::Url);
    CHECK(fields["machine_jobs"][0]["model"] == "bge-m3");
}
