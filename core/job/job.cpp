#include "job/job.hpp"

#include <algorithm>
#include <set>

#include <nlohmann/json.hpp>

#include "text/errors.hpp"
#include "text/json_text.hpp"
#include "job/choices.hpp"
#include "job/engine_presets.hpp"
#include "job/job_serving.hpp"
#include "job/runtime_versions.hpp"
#include "job/vllm_versions.hpp"
#include "hardware/gpus.hpp"
#include "job/presets.hpp"
#include "job/posttrain_presets.hpp"
#include "model/heads.hpp"

namespace vramcalc {
namespace {

using nlohmann::json;

// A preset's value in force (job/assumed.hpp).
void assume(Job& job, const std::string& by, const PresetField& f) { vramcalc::assume(job, by, f.key, f.value, f.source); }

const Choice<Mode> kModes[] = {{"inference", Mode::Inference}, {"train", Mode::Train},
                               {"lora", Mode::LoRA}, {"qlora", Mode::QLoRA}};
const Choice<Optimizer> kOptimizers[] = {{"adamw", Optimizer::AdamW},        {"adam", Optimizer::AdamW},
                                         {"sgd", Optimizer::SGD},            {"sgd_momentum", Optimizer::SGDMomentum},
                                         {"adam_8bit", Optimizer::Adam8bit}, {"adafactor", Optimizer::Adafactor}};
const Choice<Checkpointing> kCheckpointing[] = {{"none", Checkpointing::None},
                                                {"selective", Checkpointing::Selective},
                                                {"full", Checkpointing::Full},
                                                {"selective_op", Checkpointing::SelectiveOp}};
const Choice<QloraMatmul> kQloraMatmul[] = {{"bitsandbytes", QloraMatmul::Bitsandbytes}, {"torchao", QloraMatmul::Torchao}};
const Choice<ModelInit> kModelInit[] = {{"none", ModelInit::None}, {"torchao_0.1_nf4", ModelInit::TorchaoNf4V01}};
const Choice<Attention> kAttention[] = {{"flash", Attention::Flash},
                                        {"sdpa", Attention::Sdpa},
                                        {"eager", Attention::Eager},
                                        {"unfused", Attention::Unfused}};
const Choice<Loss> kLoss[] = {{"full", Loss::Full},       {"full_fp32", Loss::FullFp32},
                              {"chunked", Loss::Chunked}, {"fused", Loss::Fused},
                              {"vocab_parallel", Loss::VocabParallel}, {"shifted", Loss::Shifted},
                              {"logprobs", Loss::LogProbs}};
const Choice<Precision> kPrecision[] = {{"master", Precision::Master}, {"pure", Precision::Pure},
                                        {"autocast", Precision::Autocast}};
const Choice<OptimizerImpl> kOptimizerImpl[] = {{"fused", OptimizerImpl::Fused}, {"foreach", OptimizerImpl::Foreach}};
const Choice<MemoryKind> kMemoryKind[] = {{"device", MemoryKind::Device}, {"reserved", MemoryKind::Reserved},
                                          {"allocated", MemoryKind::Allocated}};
const Choice<Framework> kFrameworks[] = {{"custom", Framework::Custom},       {"hf", Framework::HfTrainer},
                                         {"accelerate_fsdp", Framework::AccelerateFsdp},
                                         {"torchtune", Framework::Torchtune}, {"deepspeed", Framework::DeepSpeed},
                                         {"megatron", Framework::Megatron},   {"unsloth", Framework::Unsloth},
                                         {"torchtitan", Framework::Torchtitan}, {"nemo", Framework::Nemo},
                                         {"trl", Framework::Trl}, {"verl", Framework::Verl}, {"openrlhf", Framework::OpenRlhf}};

const NumberFormat* float_format(const json& v, const std::string& field) {
    const NumberFormat& f = find_format(text_field(v, field), field);
    if (!f.trainable) throw InputError(field, "must be fp32, fp16 or bf16, got '" + std::string(f.name) + "'");
    return &f;
}

// lora_targets: a scope keyword, or module names separated by commas (each once;
// the plan checks them against the model's modules).
void read_lora_targets(const std::string& spec, Job& job) {
    job.lora_targets = spec;
    job.lora_modules.clear();
    if (spec == "all-linear" || spec == "attention" || spec == "mlp") {
        job.lora_scope = spec == "all-linear" ? LoraScope::AllLinear : spec == "attention" ? LoraScope::Attention : LoraScope::Mlp;
        return;
    }
    job.lora_scope = LoraScope::Named;
    std::set<std::string> seen;
    size_t start = 0;
    while (start <= spec.size()) {
        size_t end = spec.find(',', start);
        if (end == std::string::npos) end = spec.size();
        std::string name = spec.substr(start, end - start);
        name.erase(0, name.find_first_not_of(' '));
        name.erase(name.find_last_not_of(' ') + 1);
        start = end + 1;
        if (!seen.insert(name).second)
            throw InputError("job.lora_targets", "names '" + short_text(name) + "' twice; list each module once");
        job.lora_modules.push_back(std::move(name));
    }
}

// One job field read into `job`. Returns false for an unknown key.
bool read_field(Job& job, const std::string& key, const json& v) {
    const std::string field = "job." + key;
    if (read_serving_field(job, key, v, field) || read_parallel_field(job, key, v, field)) return true;
    if (read_view_field(job, key, v, field) || read_machine_field(job, key, v, field)) return true;
    if (read_posttrain_field(job, key, v, field) || read_serving_extra_field(job, key, v, field)) return true;
    if (key == "mode") {
        // The four modes, or a post-training mode (job/post_training.hpp): that trains a policy,
        // full unless `policy` says lora or qlora.
        PostMode post = PostMode::None;
        if (v.is_string()) post_mode_named(v.get<std::string>(), post);
        if (post == PostMode::None) {
            std::string names;
            for (const char* n : mode_names()) names += std::string(names.empty() ? "" : ", ") + n;
            for (const char* n : post_mode_names()) names += std::string(", ") + n;
            bool plain = false;
            for (const auto& c : kModes) plain = plain || (v.is_string() && v.get<std::string>() == c.name);
            if (!plain) throw InputError(field, "must be one of " + names + ", got " + describe_value(v));
            job.mode = read_choice(v, field, kModes);
        } else {
            job.post.mode = post;
            if (job.mode == Mode::Inference) job.mode = Mode::Train;
        }
    }
    else if (key == "framework") job.framework = read_choice(v, field, kFrameworks);
    else if (key == "dtype") {
        const std::string name = text_field(v, field);
        job.dtype_auto = name == "auto";
        if (!job.dtype_auto && !has_format(name))
            throw InputError(field, "unknown format '" + short_text(name) + "'; choose auto or one of " + format_names());
        job.dtype = &find_format(job.dtype_auto ? "bf16" : name, field);
    }
    else if (key == "precision") job.precision = read_choice(v, field, kPrecision);
    else if (key == "master_weights") job.precision = bool_field(v, field) ? Precision::Master : Precision::Pure;
    else if (key == "optimizer") job.optimizer = read_choice(v, field, kOptimizers);
    else if (key == "optimizer_dtype") job.optimizer_dtype = float_format(v, field);
    else if (key == "optimizer_impl") job.optimizer_impl = read_choice(v, field, kOptimizerImpl);
    else if (key == "paged_optimizer") job.paged_optimizer = bool_field(v, field);
    else if (key == "optimizer_in_backward") job.optimizer_in_backward = bool_field(v, field);
    else if (key == "fp32_gradients") job.fp32_gradients = bool_field(v, field);
    else if (key == "grad_accum") job.grad_accum = whole_field(v, field, 1, 1'000'000);
    else if (key == "batch") job.batch = whole_field(v, field, 1, 1'000'000);
    else if (key == "seq") job.seq = whole_field(v, field, 1, 100'000'000);
    else if (key == "encoder_seq") job.encoder_seq = whole_field(v, field, 0, 100'000'000);
    else if (key == "num_labels") job.num_labels = whole_field(v, field, 0, 1'000'000);
    else if (key == "head") {
        const std::string name = text_field(v, field);
        job.head_auto = name == "auto";
        if (!job.head_auto && !head_named(name, job.head)) {
            std::string names;
            for (const char* n : head_names()) names += (names.empty() ? "" : ", ") + std::string(n);
            throw InputError(field, "must be one of " + names + ", got '" + short_text(name) + "'");
        }
    }
    else if (key == "checkpointing") job.checkpointing = read_choice(v, field, kCheckpointing);
    else if (key == "activation_offload") job.activation_offload = bool_field(v, field);
    else if (key == "model_init") job.model_init = read_choice(v, field, kModelInit);
    else if (key == "qlora_matmul") job.qlora_matmul = read_choice(v, field, kQloraMatmul);
    else if (key == "attention") job.attention = read_choice(v, field, kAttention);
    else if (key == "flash_attention") job.attention = bool_field(v, field) ? Attention::Flash : Attention::Eager;
    else if (key == "loss") job.loss = read_choice(v, field, kLoss);
    else if (key == "loss_chunks") job.loss_chunks = whole_field(v, field, 1, 1024);
    else if (key == "compile") job.compile = bool_field(v, field);
    else if (key == "compile_loss") job.compile_loss = bool_field(v, field);
    else if (key == "loss_parallel") job.loss_parallel = bool_field(v, field);
    else if (key == "logits_fp32") job.logits_fp32 = bool_field(v, field);
    else if (key == "mtp_layers") job.mtp_layers = whole_field(v, field, 0, 16);
    else if (key == "sync_module_states") job.sync_module_states = bool_field(v, field);
    else if (key == "kv_dtype") job.kv_dtype = kv_format(v, field);
    else if (key == "lora_rank") job.lora_rank = whole_field(v, field, 1, 65'536);
    else if (key == "lora_targets") read_lora_targets(text_field(v, field), job);
    else if (key == "lora_dropout") job.lora_dropout = number_field(v, field, 0, 0.99);
    else if (key == "adapter_dtype") job.adapter_dtype = float_format(v, field);
    else if (key == "offload_optimizer") job.offload_optimizer = bool_field(v, field);
    else if (key == "offload_params") job.offload_params = bool_field(v, field);
    else if (key == "gpus") job.gpus = whole_field(v, field, 1, 100'000);
    else if (key == "tp") job.tp = whole_field(v, field, 0, 1024);
    else if (key == "pp") job.pp = whole_field(v, field, 0, 1024);
    else if (key == "cp") job.cp = whole_field(v, field, 1, 1024);
    else if (key == "zero") job.zero = static_cast<int>(whole_field(v, field, 0, 3));
    else if (key == "report") job.report = read_choice(v, field, kMemoryKind);
    else if (key == "overhead_gb") job.overhead_gb = number_field(v, field, 0, 1000);
    else if (key == "fragmentation") job.fragmentation = number_field(v, field, 0, 1);
    else return false;
    return true;
}

const char* kKnownFields =
    "mode, framework, dtype, precision, master_weights, optimizer, optimizer_dtype, optimizer_impl, paged_optimizer, "
    "optimizer_in_backward, fp32_gradients, grad_accum, batch, seq, encoder_seq, head, num_labels, checkpointing, activation_offload, attention, "
    "flash_attention, loss, loss_chunks, compile, compile_loss, loss_parallel, logits_fp32, mtp_layers, model_init, qlora_matmul, sync_module_states, kv_dtype, lora_rank, lora_targets, lora_dropout, adapter_dtype, "
    "offload_optimizer, offload_params, gpus, tp, pp, cp, zero, report, overhead_gb, fragmentation, sharding_impl, reshard_after_forward, reduce_dtype, sequence_parallel, pp_schedule, "
    "pp_virtual, pp_stage, fp8, fp8_all_gather, etp, async_tp, shard_degree, capacity_factor";

// The entry of vllm_version (core/job/vllm_versions.cpp) for the engine it runs: its fields
// where the user gives none, each named in the assumptions.
void apply_vllm_version(const json& j, Job& job) {
    const auto given = j.find("vllm_version");
    if (given != j.end() && given->is_number())
        throw InputError("job.vllm_version", "must be text such as \"0.19.0\" (as a number 0.10 would read 0.1), got " +
                                                 describe_value(*given));
    const std::string asked = given != j.end() ? text_field(*given, "job.vllm_version") : "newest";
    std::string resolved;
    const VllmVersionPreset& v = vllm_preset_for(asked, "job.vllm_version", resolved);
    VllmEngine engine = v.engine;
    if (auto it = j.find("vllm_engine"); it != j.end()) {
        read_field(job, "vllm_engine", *it);
        engine = job.vllm_engine;
    }
    if (engine == VllmEngine::V0 && !v.has_v0)
        throw InputError("job.vllm_engine", std::string("V0 was removed before ") + v.label + " (#24907); choose v1");
    if (engine == VllmEngine::V1 && !v.has_v1)
        throw InputError("job.vllm_engine", std::string("V1 arrived in vLLM 0.7 (VLLM_USE_V1=1); ") + v.label + " runs v0");
    job.vllm_version = resolved;
    job.vllm_accounting = v.label;
    job.assumptions.push_back({"vLLM " + resolved, "vllm_version", json(resolved).dump(),
                               std::string("the accounting of ") + v.label + ", " + vllm_engine_name(engine) + " engine" +
                                   (given == j.end() ? " (the newest; set the vLLM version for another)" : "")});
    for (const auto* fields : {&v.fields, engine == VllmEngine::V1 ? &v.v1 : &v.v0})
        for (const PresetField& f : *fields) {
            if (j.contains(f.key)) continue;
            read_field(job, f.key, json::parse(f.value));
            assume(job, v.label, f);
        }
}

// llama.cpp, Ollama and MLX by version (core/job/runtime_versions.cpp): the entry's fields where the user
// gives none, each named in the assumptions; another engine may not name these versions.
void apply_runtime_version(const json& j, Job& job) {
    const char* own = runtime_version_field(job.engine);
    for (const char* key : {"llamacpp_version", "ollama_version", "mlx_version"})
        if (j.contains(key) && std::string(key) != own)
            throw InputError(std::string("job.") + key, std::string("applies to engine ") +
                                                            (std::string(key) == "llamacpp_version" ? "llamacpp"
                                                             : std::string(key) == "ollama_version" ? "ollama"
                                                                                                    : "mlx"));
    if (*own == 0) return;
    const auto given = j.find(own);
    if (given != j.end() && given->is_number())
        throw InputError(std::string("job.") + own, "must be text such as \"0.15.5\" or \"2025-08\", got " + describe_value(*given));
    const std::string asked = given != j.end() ? text_field(*given, std::string("job.") + own) : "newest";
    std::string resolved;
    const RuntimeVersion& v = runtime_version_for(job.engine, asked, std::string("job.") + own, resolved);
    job.runtime_version = resolved;
    job.runtime_label = v.label;
    assume(job, v.label, own, json(resolved).dump(), given == j.end() ? "the newest; set the version for another" : "as given");
    for (const PresetField& f : v.fields) {
        if (j.contains(f.key) || (std::string(f.key) == "seq" && j.contains("num_ctx")) ||
            (std::string(f.key) == "num_parallel" && j.contains("batch")))
            continue;
        read_field(job, f.key, json::parse(f.value));
        assume(job, v.label, f);
    }
}

// Ollama 0.15.5+ (server/routes.go): the default context by the total memory of the GPUs, each less
// OLLAMA_GPU_OVERHEAD (0), at 47 / 23 GiB ("slightly lower thresholds than 48/24 GiB").
int64_t ollama_vram_tier(const Job& job) {
    if (job.machine.cpu_only || (!job.gpu && job.device_gib <= 0)) return 4096;
    const double each = job.device_gib > 0 ? job.device_gib : job.gpu->memory_gib;
    const double total = each * static_cast<double>(job.gpus);
    return total >= 47 ? 262144 : total >= 23 ? 32768 : 4096;
}

}  // namespace

void assume(Job& job, const std::string& by, const std::string& key, const std::string& value, const std::string& source) {
    for (Assumed& a : job.assumptions)
        if (a.key == key) {
            a = {by, key, value, source};
            return;
        }
    job.assumptions.push_back({by, key, value, source});
}

const char* mode_name(Mode v) { return name_of(kModes, v); }
const char* mode_title(Mode v) {
    return v == Mode::Train ? "Full training" : v == Mode::LoRA ? "LoRA fine-tuning" : v == Mode::QLoRA ? "QLoRA fine-tuning" : "Inference";
}
const char* optimizer_name(Optimizer v) { return name_of(kOptimizers, v); }
const char* checkpointing_name(Checkpointing v) { return name_of(kCheckpointing, v); }
const char* attention_name(Attention v) { return name_of(kAttention, v); }
const char* loss_name(Loss v) { return name_of(kLoss, v); }
const char* precision_name(Precision v) { return name_of(kPrecision, v); }
const char* optimizer_impl_name(OptimizerImpl v) { return name_of(kOptimizerImpl, v); }
const char* memory_kind_name(MemoryKind v) { return name_of(kMemoryKind, v); }
const char* framework_name(Framework v) { return name_of(kFrameworks, v); }
bool llama_cpp_like(const Job& job) { return job.engine == Engine::LlamaCpp || job.engine == Engine::Ollama; }
bool runs_locally(const Job& job) { return llama_cpp_like(job) || job.engine == Engine::Mlx; }
std::vector<const char*> mode_names() { return names_of(kModes); }
std::vector<const char*> optimizer_names() { return names_of(kOptimizers); }
std::vector<const char*> checkpointing_names() { return names_of(kCheckpointing); }
const char* model_init_name(ModelInit v) { return name_of(kModelInit, v); }
std::vector<const char*> model_init_names() { return names_of(kModelInit); }
const char* qlora_matmul_name(QloraMatmul v) { return name_of(kQloraMatmul, v); }
std::vector<const char*> qlora_matmul_names() { return names_of(kQloraMatmul); }
std::vector<const char*> attention_names() { return names_of(kAttention); }
std::vector<const char*> loss_names() { return names_of(kLoss); }
std::vector<const char*> precision_names() { return names_of(kPrecision); }
std::vector<const char*> memory_kind_names() { return names_of(kMemoryKind); }
std::vector<const char*> framework_names() { return names_of(kFrameworks); }

int64_t encoder_tokens(const Job& job, const ModelConfig& c) {
    if (job.encoder_seq > 0) return job.encoder_seq;
    // WhisperEncoder takes 30 s of audio: 3000 mel frames, 1500 after conv2's stride
    // (transformers models/whisper/modeling_whisper.py checks the input length).
    if (c.encoder_positions > 0) return c.encoder_positions;
    return job.seq;
}

Job parse_job(const json& j) {
    if (!j.is_object()) throw InputError("job", "must be a JSON object, got " + describe_value(j));
    Job job;
    // The preset first, so every field the user gives overrides it.
    const Preset* framework = nullptr;
    // A post-training mode without a framework runs TRL's trainers (TRL's preset).
    PostMode post = PostMode::None;
    if (auto m = j.find("mode"); m != j.end() && m->is_string()) post_mode_named(m->get<std::string>(), post);
    const auto named = j.find("framework");
    if (named != j.end() || post != PostMode::None) {
        job.framework = named != j.end() ? read_choice(*named, "job.framework", kFrameworks) : Framework::Trl;
        framework = &preset_of(job.framework);
        for (const PresetField& f : framework->fields) {
            if (j.contains(f.key)) continue;
            read_field(job, f.key, json::parse(f.value));
            assume(job, framework->label, f);
        }
    }
    // The mode (and a post-training mode's policy) next, then the post-training mode's defaults
    // for this framework (job/posttrain_presets.cpp): over the framework's, under the user's.
    if (auto it = j.find("mode"); it != j.end()) read_field(job, "mode", *it);
    if (auto it = j.find("policy"); it != j.end()) read_field(job, "policy", *it);
    const std::vector<PresetField>& post_fields = posttrain_defaults(job.framework, job.post.mode);
    for (const PresetField& f : post_fields) {
        if (j.contains(f.key)) continue;
        read_field(job, f.key, json::parse(f.value));
        assume(job, posttrain_preset_label(job.framework, job.post.mode), f);
    }
    // Whether the user or a preset gives a field.
    const auto given = [&](const char* key) {
        const auto in = [key](const std::vector<PresetField>& fields) {
            return std::any_of(fields.begin(), fields.end(), [key](const PresetField& f) { return std::string(f.key) == key; });
        };
        return j.contains(key) || (framework && in(framework->fields)) || in(post_fields);
    };
    // Then the mode's own defaults, where neither a preset nor the user sets the field.
    for (const PresetField& f : mode_defaults(job.mode)) {
        if (given(f.key)) continue;
        read_field(job, f.key, json::parse(f.value));
        assume(job, mode_title(job.mode), f);
    }
    // The engine's preset likewise (it may override a framework value, the user overrides both).
    if (auto it = j.find("engine"); it != j.end()) {
        job.engine = engine_field(*it, "job.engine");
        const EnginePreset& preset = engine_preset(job.engine);
        for (const PresetField& f : preset.fields) {
            if (j.contains(f.key)) continue;
            read_field(job, f.key, json::parse(f.value));
            assume(job, preset.label, f);
        }
    }
    // vLLM's version (the newest unless given) selects its accounting: that entry's fields next.
    if (job.engine == Engine::Vllm) apply_vllm_version(j, job);
    else
        for (const char* key : {"vllm_version", "vllm_engine"})
            if (j.contains(key) && !(post_training(job.post) && std::string(key) == "vllm_version"))
                throw InputError(std::string("job.") + key, "applies to engine vllm (or a post-training job's rollout with use_vllm)");
    apply_runtime_version(j, job);
    for (auto it = j.begin(); it != j.end(); ++it)
        if (!read_field(job, it.key(), it.value()))
            throw InputError("job." + it.key(), "unknown field; known: " + std::string(kKnownFields) + ", " +
                                                    serving_field_names() + ", " + view_field_names() + ", " +
                                                    machine_field_names() + ", " + posttrain_field_names() + ", " + serving_extra_field_names());
    check_machine_fields(j, job);
    if (job.ollama_ctx_by_vram && !j.contains("seq") && !j.contains("num_ctx")) {
        job.seq = ollama_vram_tier(job);
        assume(job, "Ollama", "seq", std::to_string(job.seq), "server/routes.go: num_ctx by the GPUs' total memory (tiers at 47 and 23 GiB)");
    }
    if (j.contains("seq") || j.contains("num_ctx")) job.ctx_auto = false;
    // The loss is compiled with the model unless the job or its preset says otherwise.
    if (!given("compile_loss")) job.compile_loss = job.compile;
    job.chunked_prefill_given = j.contains("chunked_prefill") || j.contains("enable_chunked_prefill");
    if (!job.tensor_split.empty() && static_cast<int64_t>(job.tensor_split.size()) != job.gpus)
        throw InputError("job.tensor_split", "gives " + std::to_string(job.tensor_split.size()) + " shares for " +
                                                 std::to_string(job.gpus) + " GPUs (gpus); give one per GPU");
    if (job.mode == Mode::Train && !job.dtype->trainable)
        throw InputError("job.dtype", "full training needs fp32, fp16 or bf16 weights, got '" + std::string(job.dtype->name) +
                                          "' (fine-tune a quantized base with mode qlora)");
    if (job.model_init == ModelInit::TorchaoNf4V01 && job.mode != Mode::QLoRA)
        throw InputError("job.model_init", std::string("torchao_0.1_nf4 quantizes a QLoRA base; mode must be qlora, got '") +
                                               mode_name(job.mode) + "'");
    if (llama_cpp_like(job) && job.gpus > kLlamaCppMaxDevices)
        throw InputError("job.gpus", "llama.cpp and Ollama use at most " + std::to_string(kLlamaCppMaxDevices) +
                                         " GPUs (llama_max_devices() in llama.cpp), got " + std::to_string(job.gpus));
    if (job.mtp_layers > 0 && !trains(job))
        throw InputError("job.mtp_layers", std::string("multi-token prediction layers are trained beside the model; mode must be "
                                                       "train, lora or qlora, got '") + mode_name(job.mode) + "'");
    if (job.engine != Engine::Custom && trains(job))
        throw InputError("job.engine", std::string("is an inference engine; mode must be inference, got '") +
                                           job_mode_name(job) + "'");
    finish_posttrain(j, job);      // job/posttrain_fields.cpp
    finish_serving_extras(job);    // job/serving_extras_fields.cpp
    return job;
}

}  // namespace vramcalc
