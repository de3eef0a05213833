#include "api/posttrain_json.hpp"

#include "job/job.hpp"
#include "job/post_training.hpp"
#include "text/units.hpp"

namespace vramcalc {
namespace {

// `share`: the part's bytes as a fraction of the peak phase's total (`scale`), the length the page draws it at.
void write_parts(JsonWriter& w, const std::vector<PostPart>& parts, double scale) {
    w.begin_array();
    for (const PostPart& p : parts)
        w.begin_object().field("key", p.key).field("label", p.label).field("term", term_key(p.term)).field("bytes", p.bytes)
            .field("text", gb_text(p.bytes)).field("share", scale > 0 ? p.bytes / scale : 0.0).field("engine", p.engine)
            .field("why", p.why).end_object();
    w.end_array();
}

}  // namespace

void write_posttrain_job_fields(JsonWriter& w, const Job& job) {
    const PostTraining& p = job.post;
    w.field("policy", post_training(p) ? policy_name(job.mode) : "full");
    w.field("num_generations", p.num_generations).field("max_prompt_length", p.max_prompt_length);
    w.field("max_completion_length", p.max_completion_length).field("generation_batch_size", p.generation_batch_size);
    w.field("use_vllm", p.use_vllm).field("vllm_mode", vllm_mode_name(p.vllm_mode));
    w.field("vllm_gpu_memory_utilization", p.vllm_gpu_memory_utilization).field("sleep_mode", p.sleep_mode);
    w.field("vllm_tensor_parallel_size", p.vllm_tensor_parallel_size).field("vllm_gpus", p.vllm_gpus);
    w.field("vllm_max_model_length", p.vllm_max_model_length).field("vllm_max_num_batched_tokens", p.vllm_max_num_batched_tokens);
    w.field("vllm_enforce_eager", p.vllm_enforce_eager).field("vllm_shares_weights", p.vllm_shares_weights);
    w.field("beta", p.beta).field("precompute_ref_log_probs", p.precompute_ref_log_probs);
    w.field("ref_param_offload", p.ref_param_offload).field("reward_model", p.reward_model);
    w.field("critic_lora", p.critic_lora);
    w.field("deepspeed_enable_sleep", p.deepspeed_enable_sleep).field("ref_dtype", p.ref_dtype ? p.ref_dtype->name : "auto");
    w.field("loss_tokens", job.loss_tokens).field("transformers_version", std::to_string(job.transformers_major));
    // Serving extras (job/serving_extras.hpp): speculative decoding and multi-LoRA slots.
    const Speculative& s = job.spec;
    w.field("speculative_method", spec_method_name(s.method)).field("speculative_model", s.model);
    w.field("num_speculative_tokens", s.num_speculative_tokens).field("draft_vocab_size", s.draft_vocab_size);
    w.field("n_gpu_layers_draft", s.n_gpu_layers_draft).field("ctx_size_draft", s.ctx_size_draft);
    const LoraServing& l = job.lora_serving;
    w.field("enable_lora", l.enable_lora).field("max_loras", l.max_loras).field("max_lora_rank", l.max_lora_rank);
    w.field("max_cpu_loras", l.max_cpu_loras);
}

void write_posttrain(JsonWriter& w, const Job& job, const Estimate& e) {
    const PostTrainInfo& info = e.post;
    const PostTraining& p = job.post;
    w.begin_object().field("mode", post_mode_name(p.mode)).field("policy", policy_name(job.mode));
    w.field("framework", framework_name(job.framework));
    w.field("rows", info.rows).field("tokens", info.tokens).field("logit_tokens", info.logit_tokens);
    const PostPhase* peak = info.phases.empty() ? nullptr : &info.phases[static_cast<size_t>(info.peak)];
    const double scale = peak ? peak->total() : 0;  // the phases are drawn to the peak's scale
    const double persistent = sum_parts(info.persistent);
    w.key("persistent").begin_object().field("bytes", persistent).field("text", gb_text(persistent));
    w.field("share", scale > 0 ? persistent / scale : 0.0).key("parts");
    write_parts(w, info.persistent, scale);
    w.end_object();
    w.key("phases").begin_array();
    for (size_t i = 0; i < info.phases.size(); ++i) {
        const PostPhase& ph = info.phases[i];
        w.begin_object().field("key", ph.key).field("label", ph.label).field("bytes", ph.total()).field("text", gb_text(ph.total()));
        w.field("share", scale > 0 ? ph.total() / scale : 0.0).field("peak", static_cast<int>(i) == info.peak).key("parts");
        write_parts(w, ph.parts, scale);
        w.end_object();
    }
    w.end_array();
    w.field("peak_phase", peak ? peak->key : "").field("peak_label", peak ? peak->label : "");
    const Rollout& r = info.rollout;
    const double awake = sum_parts(r.awake), asleep = sum_parts(r.asleep);
    w.key("rollout").begin_object().field("engine", r.engine);
    w.field("vllm_mode", r.engine == std::string("vllm") ? vllm_mode_name(p.vllm_mode) : "");
    w.field("sleep_mode", p.sleep_mode).field("share", p.use_vllm ? p.vllm_gpu_memory_utilization : 0);
    w.field("budget_bytes", r.serving.budget).field("budget_text", gb_text(r.serving.budget));
    w.field("awake_bytes", awake).field("awake_text", gb_text(awake)).field("asleep_bytes", asleep).field("asleep_text", gb_text(asleep));
    w.key("awake_parts");
    write_parts(w, r.awake, scale);
    w.key("asleep_parts");
    write_parts(w, r.asleep, scale);
    w.field("sequences", r.sequences).field("engines", r.engines).field("max_model_len", r.max_model_len);
    w.field("kv_pool_bytes", std::max(0.0, r.serving.kv_pool)).field("pool_tokens", r.serving.pool_tokens);
    w.field("max_concurrency", r.serving.max_concurrency).field("starts", r.starts);
    w.field("engine_version", r.serving.engine_version).field("cpu_bytes", r.cpu).field("why", r.why);
    if (r.server) {
        w.key("server").begin_object().field("gpus", r.server_gpus).field("device_bytes", r.server_device);
        w.field("total_bytes", r.server_breakdown.total()).field("total_text", gb_text(r.server_breakdown.total()));
        w.field("fits", r.server_fits).key("terms").begin_object();
        for (int t = 0; t < kTermCount; ++t) w.field(term_key(t), r.server_breakdown.bytes[t]);
        w.end_object().end_object();
    }
    w.end_object();
    w.field("cpu_bytes", info.cpu_bytes).field("cpu_text", gb_text(info.cpu_bytes));
    w.key("limits").begin_array();
    for (const PostLimit& l : e.post_limits) {
        w.begin_object().field("question", l.question).field("found", l.found);
        if (l.found) w.field("value", l.value);
        else w.key("value").raw("null");
        w.field("total_at_bytes", l.total_at).field("total_at_text", l.found ? gb_text(l.total_at) : "");
        w.field("answer_label", l.answer_label).field("text", l.text).end_object();
    }
    w.end_array().key("notes").begin_array();
    for (const std::string& n : info.notes) w.value(n);
    w.end_array().end_object();
}

void write_field_modes(JsonWriter& w) {
    w.begin_object();
    for (const ModeBoundField& f : mode_bound_fields()) {
        w.key(f.field.c_str()).begin_array();
        for (const std::string& m : f.modes) w.value(m);
        w.end_array();
    }
    w.end_object();
}

}  // namespace vramcalc
