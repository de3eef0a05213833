#include "api/api.hpp"

#include "checkpoint/checkpoint.hpp"

#include <optional>

#include "cluster/cluster.hpp"
#include "cluster/fields.hpp"

#include "text/errors.hpp"
#include "hardware/gpus.hpp"
#include "machine/machine.hpp"
#include "model/heads.hpp"
#include "answers/inverse.hpp"
#include "answers/notes.hpp"
#include "api/question.hpp"
#include "api/local_json.hpp"
#include "api/colocation_json.hpp"
#include "api/posttrain_json.hpp"
#include "api/serving_json.hpp"
#include "api/verdict_json.hpp"
#include "text/json_text.hpp"
#include "text/guarded.hpp"
#include "text/json_writer.hpp"
#include "text/units.hpp"

namespace vramcalc {
namespace {

using nlohmann::json;

// The model's counts: `params` are the config's own head's (counts_answer) or the job's (estimate_json).
void write_counts(JsonWriter& w, const ModelConfig& c, const ParamCounts& params, Head head) {
    w.begin_object();
    w.field("model_type", c.family == Family::Explicit ? "explicit" : c.model_type);
    w.field("head", head_name(head));
    w.field("params_total", params.total).field("params_active", params.active);
    w.field("params_total_text", params_text(params.total)).field("params_active_text", params_text(params.active));
    w.field("params_embeddings", params.embeddings);
    w.field("is_moe", c.is_moe()).field("experts", c.experts).field("experts_per_token", c.experts_per_token);
    w.field("layers", c.layers).field("hidden_size", c.hidden).field("heads", c.heads).field("kv_heads", c.kv_heads);
    w.field("vocab_size", c.vocab).field("mla", c.is_mla());
    w.end_object();
}

void write_job(JsonWriter& w, const Job& job) {
    w.begin_object();
    w.field("mode", job_mode_name(job)).field("framework", framework_name(job.framework)).field("dtype", job.dtype_auto ? "auto" : job.dtype->name);
    w.field("precision", precision_name(job.precision)).field("optimizer", optimizer_name(job.optimizer));
    w.field("optimizer_dtype", job.optimizer_dtype->name).field("optimizer_impl", optimizer_impl_name(job.optimizer_impl));
    w.field("paged_optimizer", job.paged_optimizer).field("optimizer_in_backward", job.optimizer_in_backward);
    w.field("fp32_gradients", job.fp32_gradients).field("grad_accum", job.grad_accum);
    w.field("batch", job.batch).field("seq", job.seq).field("encoder_seq", job.encoder_seq);
    w.field("head", job.head_auto ? "auto" : head_name(job.head)).field("num_labels", job.num_labels);
    w.field("checkpointing", checkpointing_name(job.checkpointing));
    w.field("activation_offload", job.activation_offload).field("attention", attention_name(job.attention));
    w.field("flash_attention", job.attention != Attention::Eager && job.attention != Attention::Unfused);
    w.field("loss", loss_name(job.loss)).field("loss_chunks", job.loss_chunks).field("compile", job.compile);
    w.field("kv_dtype", job.kv_dtype ? job.kv_dtype->name : "auto");
    w.field("lora_rank", job.lora_rank).field("lora_targets", job.lora_targets).field("lora_dropout", job.lora_dropout);
    w.field("adapter_dtype", job.adapter_dtype->name);
    w.field("offload_optimizer", job.offload_optimizer).field("offload_params", job.offload_params);
    w.field("sync_module_states", job.sync_module_states).field("model_init", model_init_name(job.model_init));
    w.field("qlora_matmul", qlora_matmul_name(job.qlora_matmul));
    w.field("gpus", job.gpus).field("tp", job.tp).field("pp", job.pp).field("cp", job.cp).field("zero", job.zero);
    w.field("report", memory_kind_name(job.report));
    w.field("overhead_gb", job.overhead_gb).field("fragmentation", job.fragmentation);
    write_serving_job_fields(w, job);  // core/api/serving_json.cpp
    write_machine_job_fields(w, job);  // core/api/local_json.cpp
    write_posttrain_job_fields(w, job);  // core/api/posttrain_json.cpp (issue 36)
    w.field("units", unit_name(job.units)).field("recommend_from", gpu_pool_name(job.recommend_from));
    w.end_object();
}

// The training step (timeline by phase and term, its peak), one block's saved
// tensors, the memory kinds and the preset assumptions in force.
void write_step(JsonWriter& w, const Job& job, const Estimate& e) {
    w.key("memory").begin_object().field("report", memory_kind_name(job.report));
    w.field("allocated_bytes", e.allocated_bytes).field("allocated_text", gb_text(e.allocated_bytes));
    w.field("reserved_bytes", e.reserved_bytes).field("reserved_text", gb_text(e.reserved_bytes));
    w.field("device_bytes", e.device_bytes).field("device_text", gb_text(e.device_bytes));
    w.field("cpu_bytes", e.cpu_bytes).field("cpu_text", gb_text(e.cpu_bytes));
    w.field("model_states_bytes", e.model_states_bytes).field("activations_saved_bytes", e.activations_saved_bytes);
    w.end_object();
    if (e.timeline.count > 0) {
        const Phase& peak = e.timeline.phases[e.timeline.peak];
        w.key("timeline").begin_object().field("peak_phase", peak.key).field("peak_label", peak.label);
        w.key("phases").begin_array();
        for (int i = 0; i < e.timeline.count; ++i) {
            const Phase& ph = e.timeline.phases[i];
            w.begin_object().field("key", ph.key).field("label", ph.label).field("bytes", ph.total());
            w.field("text", gb_text(ph.total())).field("peak", i == e.timeline.peak).key("terms").begin_object();
            for (int t = 0; t < kTermCount; ++t)
                if (ph.bytes[t] > 0) w.field(term_key(t), ph.bytes[t]);
            w.end_object().end_object();
        }
        w.end_array().end_object();
    }
    if (e.layer.count > 0) {
        w.key("layer_activations").begin_object().field("bytes", e.layer.total).field("text", gb_text(e.layer.total));
        w.key("parts").begin_array();
        for (int i = 0; i < e.layer.count; ++i)
            w.begin_object().field("name", e.layer.parts[i].name).field("bytes", e.layer.parts[i].bytes).end_object();
        w.end_array().end_object();
    }
    // The presets' values in force, each field once in words (answers/notes.cpp), with their sources.
    w.key("assumptions").begin_array();
    for (const AssumptionLine& a : assumption_lines(job, e))
        w.begin_object().field("key", a.key).field("label", a.label).field("value", a.value).field("by", a.by)
            .field("source", a.source).field("text", a.text).end_object();
    w.end_array();
}



// GPU capacity texts never change: written once per unit, not on every estimate.
const std::string& capacity_text_of(const char* gpu_id) {
    static const auto texts = [] {
        std::vector<std::vector<std::pair<const char*, std::string>>> t;
        for (TextUnit u : {TextUnit::GB, TextUnit::GiB, TextUnit::MiB}) {
            const UnitScope in(u);
            t.emplace_back();
            for (const auto& g : gpu_catalog()) t.back().emplace_back(g.id, capacity_text(gpu_bytes(g)));
        }
        return t;
    }();
    for (const auto& [id, text] : texts[static_cast<size_t>(text_unit())])
        if (id == gpu_id) return text;
    throw std::runtime_error(std::string("no GPU ") + gpu_id);
}

}  // namespace

// Callers of estimate_request usually repeat a config across several jobs
// (the CLI tests, the string path in wasm): parse a config text once.
const Model& model_for(const std::string& config_json) {
    thread_local std::string last_text;
    thread_local Model last_model;
    thread_local bool valid = false;  // false until a first config parsed
    if (!valid || config_json != last_text) {
        // A throw leaves the previous text and model together, still valid.
        last_model = prepare_model(parse_config_text(config_json));
        last_text = config_json;
        valid = true;
    }
    return last_model;
}

std::string counts_answer(const Model& model) {
    JsonWriter w;
    w.begin_object().field("ok", true);
    write_counts(w.key("model"), model.config, model.params, model.config.head);
    return w.end_object().str();
}

namespace {

void write_answer(JsonWriter& w, const Answer& a) {
    w.begin_object().field("ok", true).field("question", question_name(a.question)).field("found", a.found);
    // No answer (nothing fits) and no next (the end of the range) are null, never a made-up count.
    if (a.found) w.field("answer", a.value);
    else w.key("answer").raw("null");
    w.field("format", a.format).field("fits_at_answer", a.found);
    w.field("total_at_answer_bytes", a.total_at).field("total_at_answer_text", a.found ? gb_text(a.total_at) : "");
    w.field("next_exists", a.next_exists);
    if (a.next_exists) w.field("next", a.next);
    else w.key("next").raw("null");
    w.field("fits_at_next", a.fits_next).field("total_at_next_bytes", a.total_next);
    w.field("total_at_next_text", gb_text(a.total_next)).field("answer_label", a.answer_label).field("next_label", a.next_label);
    w.key("candidates").begin_array();
    for (const auto& c : a.candidates) w.value(c);
    w.end_array().field("text", a.text).end_object();
}

}  // namespace

std::string estimate_json(const Model& model, const Job& job, const Estimate& e) {
    JsonWriter w;
    w.begin_object().field("ok", true);
    write_estimate(w, model, job, e);
    return w.end_object().str();
}

void write_estimate(JsonWriter& w, const Model& model, const Job& job, const Estimate& e, bool with_colocation) {
    // Besides raw numbers, every value the page shows is given as text here,
    // so the page does no arithmetic of its own.
    const UnitScope units(job.units);
    const double total = e.breakdown.total();
    const double all_gpus = total * static_cast<double>(e.layout.gpus);
    write_counts(w.key("model"), model.config, e.params, job.head_auto ? model.config.head : job.head);
    write_job(w.key("job"), job);
    w.key("layout").begin_object().field("gpus", e.layout.gpus).field("dp", e.layout.dp).field("tp", e.layout.tp);
    w.field("pp", e.layout.pp).field("zero", e.layout.zero).field("cp", e.layout.cp).end_object();
    if (trains(job))  // the GPU the figures describe: its pipeline stage, its blocks, micro-batches in flight
        w.key("stage").begin_object().field("index", e.share.stage).field("stages", e.share.stages)
            .field("layers", e.share.layers).field("in_flight", e.share.in_flight)
            .field("microbatches", e.share.microbatches).field("first", e.share.first).field("last", e.share.last)
            .end_object();
    w.field("steady_bytes", e.steady_bytes).field("steady_text", gb_text(e.steady_bytes));
    w.field("trainable_params", e.trainable_params).field("trainable_text", params_text(e.trainable_params));
    w.field("weight_format", e.weight_format_label).field("weights_source", weights_source_name(e.weights_source));
    w.key("terms").begin_array();
    for (int t = 0; t < kTermCount; ++t) {
        const double bytes = e.breakdown.bytes[t];
        w.begin_object().field("key", term_key(t)).field("label", term_label(t)).field("bytes", bytes);
        w.field("text", gb_text(bytes)).field("share", bytes / total).field("why", e.breakdown.why[t]).end_object();
    }
    w.end_array();
    w.field("total_bytes", total).field("total_text", gb_text(total));
    // What the total is of, in words that are true: one GPU's whole job, or each of several GPUs.
    w.field("total_scope_text", e.layout.gpus > 1 ? "per GPU, on each of " + std::to_string(e.layout.gpus) + " GPUs" : "on one GPU");
    w.field("total_all_gpus_bytes", all_gpus).field("total_all_gpus_text", gb_text(all_gpus));
    w.field("weights_reference_bytes", e.weights_reference_bytes);
    w.field("weights_reference_text", gb_text(e.weights_reference_bytes));
    // A sequence longer than the model was trained for: a hint beside the field, not an error.
    const int64_t context = model.config.context_length;
    w.field("context_length", context);
    w.field("context_warning", context > 0 && job.seq > context
                                   ? "Longer than the model's context of " + std::to_string(context) + " tokens (max_position_embeddings)."
                                   : std::string());
    w.field("ratio_to_weights", e.ratio_to_weights).field("ratio_text", printf_text("%.1f×", e.ratio_to_weights));
    // The raw weights beside the Weights row, each named for what it is, so the two figures never read as one.
    const double row = e.breakdown.bytes[kWeights], raw = e.weights_reference_bytes;
    std::string sentence = "Raw weights: " + gb_text(raw) + " (every parameter in " + e.weight_format_label + ")";
    if (e.layout.gpus > 1) sentence += "; each GPU keeps " + gb_text(row) + " of them (the Weights row)";
    else if (gb_text(row) != gb_text(raw)) sentence += "; the Weights row, " + gb_text(row) + ", is what this job keeps (its formula says how)";
    sentence += ". This job needs " + printf_text("%.1f", e.ratio_to_weights) + " × the raw weights" +
                (e.layout.gpus > 1 ? " over its " + std::to_string(e.layout.gpus) + " GPUs." : ".");
    w.field("ratio_sentence", sentence);
    write_step(w, job, e);
    w.key("notes").begin_array();
    for (const auto& note : e.notes) w.value(note);
    w.end_array();
    if (!trains(job)) write_serving(w.key("serving"), job, e.serving);
    if (e.post.active) write_posttrain(w.key("posttrain"), job, e);  // core/api/posttrain_json.cpp
    // Several jobs on one GPU (core/api/colocation_json.cpp); the one answer writes it inside its own machine part.
    if (e.colocation.active && with_colocation) write_colocation(w.key("colocation"), e.colocation);
    // In the user's words (issue 23): the verdict for their GPUs, the training views, the serving view.
    w.field("units", unit_name(job.units));
    write_verdict(w.key("verdict"), e.verdict);
    write_training_views(w.key("views"), e.training_views);
    if (!trains(job)) write_serving_view(w.key("serving_view"), e.serving_view);
    if (!trains(job)) {
        write_local(w.key("local"), e);
        write_command(w.key("command"), e.command);
    }
    w.key("fits").begin_array();
    for (const auto& f : e.fits) {
        w.begin_object().field("id", f.id).field("name", f.name).field("capacity_bytes", f.capacity_bytes);
        w.field("capacity_text", f.custom ? capacity_text(f.capacity_bytes) : capacity_text_of(f.id));
        const Gpu& g = gpu_catalog()[f.custom ? 0 : static_cast<size_t>(&f - e.fits.data())];  // rows in catalog order
        w.field("capacity_source", f.custom ? "as given" : usable_source(g));
        w.field("kind", f.custom ? "custom" : gpu_kind_name(gpu_kind(g)));
        w.field("fits_as_configured", f.fits_as_configured);
        w.field("gpus_needed", f.gpus_needed).field("ep", f.ep);
        // The table's last cell in words: the count (with the EP an MoE's training takes there), or why none holds it.
        // A Mac or a Strix Halo counts once (answers/fit.cpp one_per_machine): one that does not hold it says so.
        const UnifiedMachine* u = f.custom ? nullptr : unified_machine(&g);
        w.field("needed_text", f.gpus_needed > 0 ? std::to_string(f.gpus_needed) + (f.ep > 1 ? " (EP " + std::to_string(f.ep) + ")" : "")
                               : u && u->kind != UnifiedKind::Gb10 ? "never (one machine: no count of them shards a model)"
                               : trains(job) ? "never (what each GPU keeps does not shrink below it)"
                                             : "never (one GPU's share does not shrink below it)");
        w.end_object();
    }
    w.end_array();
}

std::string estimate_request(const std::string& config_json, const std::string& job_json) {
    return guarded([&] {
        const Model& model = model_for(config_json);
        const Job job = parse_job(parse_json_text(job_json, "job"));
        return estimate_json(model, job, estimate(model, job));
    });
}

std::string solve_for(const Model& model, const std::string& job_json, const std::string& question) {
    return guarded([&] {
        const Question q = parse_question(question);
        const Job job = parse_job(parse_json_text(job_json, "job"));
        const UnitScope units(job.units);
        const Answer a = solve(model, job, q);
        JsonWriter w;
        write_answer(w, a);
        return w.str();
    });
}

std::string solve_request(const std::string& config_json, const std::string& job_json, const std::string& question) {
    // solve_for answers its own errors; the outer guard answers a rejected config.
    return guarded([&] { return solve_for(model_for(config_json), job_json, question); });
}

std::string inspect_config(const std::string& config_json) {
    return guarded([&] { return counts_answer(model_for(config_json)); });
}

std::string gpus_json() { return gpus_in("gb"); }

std::string gpus_in(const std::string& units) {
    TextUnit u = TextUnit::GB;
    if (!unit_named(units, u)) return error_json("job.units", "job.units: must be one of gb, gib, mib, got '" + short_text(units) + "'");
    const UnitScope in(u);
    JsonWriter w;
    w.begin_array();
    for (const auto& g : gpu_catalog())
        w.begin_object().field("id", g.id).field("name", g.name).field("capacity_bytes", gpu_bytes(g))
            .field("capacity_text", capacity_text_of(g.id)).field("capacity_source", usable_source(g))
            .field("measured", usable_measured(g)).field("kind", gpu_kind_name(gpu_kind(g)))
            .field("unified", unified_machine(&g) != nullptr).end_object();  // one memory: the RAM is the GPU's (issue 32)
    return w.end_array().str();
}

std::string options_json() {
    JsonWriter w;
    w.begin_object();
    write_job(w.key("defaults"), Job{});
    auto list = [&](const char* name, const std::vector<const char*>& values) {
        w.key(name).begin_array();
        for (const char* v : values) w.value(v);
        w.end_array();
    };
    list("modes", mode_names());
    w.key("dtypes").begin_array();
    // "auto": the checkpoint's own format (quantization_config or attached header), else BF16.
    w.begin_object().field("id", "auto").field("label", "Auto: as the checkpoint ships (else BF16)").field("bits", 0)
        .field("trainable", true).field("auto", true).end_object();
    for (const NumberFormat& f : all_formats())
        w.begin_object().field("id", f.name).field("label", f.label).field("bits", f.bits)
            .field("trainable", f.trainable).end_object();
    w.end_array();
    list("kv_dtypes", kv_format_names());
    list("optimizers", optimizer_names());
    list("checkpointing", checkpointing_names());
    list("heads", head_names());
    list("model_init", model_init_names());
    list("qlora_matmul", qlora_matmul_names());
    list("attention", attention_names());
    list("loss", loss_names());
    list("precision", precision_names());
    list("report", memory_kind_names());
    list("frameworks", framework_names());
    list("sharding_impl", sharding_impl_names());
    list("reshard_after_forward", reshard_names());
    list("pp_schedule", pp_schedule_names());
    list("pp_stage", pp_stage_names());
    list("fp8", fp8_names());
    w.key("fp8_recipes").raw(fp8_recipes_json());  // FP8 training as one choice (api/question.hpp)
    list("engines", engine_names());
    list("split_modes", split_mode_names());
    list("cache_implementations", cache_impl_names());
    list("questions", question_names());
    list("units", unit_names());
    list("recommend_from", gpu_pool_names());
    // Issue 36: post-training modes and policies, vLLM rollout modes, speculative methods.
    list("post_modes", post_mode_names());
    list("policies", policy_names());
    list("vllm_modes", vllm_mode_names());
    list("speculative_methods", spec_method_names());
    list("posttrain_questions", posttrain_question_names());
    write_field_modes(w.key("field_modes"));  // core/api/posttrain_json.cpp
    list("cluster_fields", cluster_field_names());  // the planner's fields: the widget's cluster-* attributes
    write_machine_options(w);  // issue 32: ram_kinds, uma_backends (core/api/local_json.cpp)
    return w.end_object().str();
}

std::string cluster_for(const Model& model, const std::string& job_json, const std::string& cluster_json) {
    return guarded([&] {
        const Job job = parse_job(parse_json_text(job_json, "job"));
        const UnitScope units(job.units);
        const ClusterRequest request = parse_cluster(parse_json_text(cluster_json, "cluster"), job);
        return cluster_answer(model, job, request);
    });
}

std::string cluster_request(const std::string& config_json, const std::string& job_json, const std::string& cluster_json) {
    return guarded([&] { return cluster_for(model_for(config_json), job_json, cluster_json); });
}


std::string hardware_json() {
    JsonWriter w;
    w.begin_object().key("gpus").begin_array();
    for (const Gpu& g : gpu_catalog()) {
        w.begin_object().field("id", g.id).field("name", g.name).field("vendor", g.vendor);
        w.field("marketed_gb", g.marketed_gb).field("usable_bytes", gpu_bytes(g)).field("usable_text", capacity_text(gpu_bytes(g)));
        w.field("tflops_fp32", g.tflops_fp32).field("tflops_tf32", g.tflops_tf32).field("tflops_bf16", g.tflops_bf16);
        w.field("tflops_fp8", g.tflops_fp8).field("tflops_fp4", g.tflops_fp4).field("memory_tbps", g.memory_tbps);
        w.field("link", g.link).field("link_gbps", g.link_gbps).field("domain", static_cast<int64_t>(g.domain));
        w.field("pcie_gbps", g.pcie_gbps).field("per_node", static_cast<int64_t>(g.per_node)).field("power_w", g.power_w);
        w.field("source", g.source);
        w.end_object();
    }
    w.end_array().key("fabrics").begin_array();
    for (const Fabric& f : fabric_catalog())
        w.begin_object().field("id", f.id).field("name", f.name).field("gbit_per_gpu", f.gbit_per_gpu)
            .field("efficiency", f.efficiency).field("source", f.source).end_object();
    return w.end_array().end_object().str();
}

}  // namespace vramcalc
