// The serving extras of a job (job/serving_extras.hpp): speculative decoding, the adapter slots
// of multi-LoRA serving and the other jobs of the machine, read once into typed values.
#include <nlohmann/json.hpp>

#include "job/choices.hpp"
#include "job/job.hpp"
#include "model/model.hpp"
#include "text/units.hpp"

namespace vramcalc {

// The share of the whole GPU an engine takes at start: vLLM's gpu_memory_utilization (a per-instance
// share of the whole device since v0.9.1, #19312; docs "--gpu-memory-utilization ... per-instance limit"),
// SGLang's mem_fraction_static (0: 0.88 on one GPU, server_args.py); 0 for engines that take what they need.
double gpu_share(const Job& job, const char*& name) {
    if (job.engine == Engine::Vllm) return name = "gpu_memory_utilization", job.gpu_memory_utilization;
    if (job.engine == Engine::Sglang) return name = "mem_fraction_static", job.mem_fraction_static > 0 ? job.mem_fraction_static : 0.88;
    return name = "", 0.0;
}

namespace {

using nlohmann::json;

const Choice<SpecMethod> kSpecMethods[] = {{"none", SpecMethod::None},   {"draft", SpecMethod::Draft},
                                           {"draft_model", SpecMethod::Draft}, {"eagle", SpecMethod::Eagle},
                                           {"eagle3", SpecMethod::Eagle3}, {"mtp", SpecMethod::Mtp},
                                           {"ngram", SpecMethod::Ngram}};

// The resolver the API installs with the catalog; without one a field names a model by its config only.
ModelResolver& installed() {
    static thread_local ModelResolver resolver;
    return resolver;
}

constexpr size_t kMaxMachineJobs = 16;

// The jobs of a machine run on its GPU: each inherits the job's GPU (a job naming another is refused),
// and the engines' shares of the whole GPU may not add up past it.
void finish_machine_jobs(Job& job) {
    const char* name = "";
    double sum = gpu_share(job, name);
    std::string parts = sum > 0 ? "the job's " + plain_number(sum) : "";
    for (size_t i = 0; i < job.machine_jobs.size(); ++i) {
        MachineJob& m = job.machine_jobs[i];
        const std::string at = "job.machine_jobs[" + std::to_string(i) + "]";
        if ((m.job->gpu && job.gpu && m.job->gpu != job.gpu) || (m.job->device_gib > 0 && m.job->device_gib != job.device_gib))
            throw InputError(at + ".gpu", "a job of the machine runs on the job's own GPU; leave gpu and device_gib to the job");
        Job own = *m.job;
        own.gpu = job.gpu, own.device_gib = job.device_gib, own.gpu_is_a100 = job.gpu_is_a100, own.gpu_is_hopper = job.gpu_is_hopper;
        own.units = job.units;
        if (own.gpus != 1 || job.gpus != 1)
            throw InputError(at + ".gpus", "jobs share one GPU here: give each gpus 1");
        m.job = std::make_shared<const Job>(std::move(own));
        const double share = gpu_share(*m.job, name);
        if (share <= 0) continue;
        sum += share;
        parts += (parts.empty() ? "" : " + ") + std::string("machine_jobs[") + std::to_string(i) + "]'s " + plain_number(share);
        if (sum > 1 + 1e-9)
            throw InputError(at + "." + name, "the engines' shares of this GPU add up to " + plain_number(sum) + " (" + parts +
                                                  "): each is a share of the WHOLE GPU, not of what the others leave (vLLM "
                                                  "#13633, #27479); lower them so they add up to 1 or less");
    }
}

}  // namespace

void set_model_resolver(ModelResolver resolver) { installed() = std::move(resolver); }

std::shared_ptr<const Model> resolve_model_ref(const json& ref, const std::string& field) {
    if (ref.is_object()) {
        // A config.json given in place: its errors name where it sits (job.speculative_model.hidden_size).
        try {
            return std::make_shared<const Model>(prepare_model(parse_config(ref)));
        } catch (const InputError& e) {
            const std::string inner = e.field(), what = e.what();
            const std::string message = what.rfind(inner + ": ", 0) == 0 ? what.substr(inner.size() + 2) : what;
            throw InputError(field + (inner.rfind("config", 0) == 0 ? inner.substr(6) : "." + inner), message);
        }
    }
    if (!ref.is_string()) throw InputError(field, "must name a model (a catalog id or Hub id) or be a config.json object, got " +
                                                      describe_value(ref));
    if (!installed()) throw InputError(field, "names a model by id, which needs the model catalog; give its config.json object");
    return installed()(ref, field);
}

const char* spec_method_name(SpecMethod v) { return name_of(kSpecMethods, v); }
std::vector<const char*> spec_method_names() {
    std::vector<const char*> names;
    for (const auto& c : kSpecMethods)
        if (std::string(c.name) != "draft_model") names.push_back(c.name);
    return names;
}

bool read_serving_extra_field(Job& job, const std::string& key, const json& v, const std::string& field) {
    Speculative& s = job.spec;
    LoraServing& l = job.lora_serving;
    if (key == "speculative_method") s.method = read_choice(v, field, kSpecMethods);
    else if (key == "speculative_model") {
        s.model = v.is_string() ? short_text(v.get<std::string>()) : "inline config";
        s.draft = resolve_model_ref(v, field);
    }
    else if (key == "num_speculative_tokens" || key == "draft_max") s.num_speculative_tokens = whole_field(v, field, 1, 64);
    else if (key == "draft_vocab_size") s.draft_vocab_size = whole_field(v, field, 1, 10'000'000);
    else if (key == "n_gpu_layers_draft") s.n_gpu_layers_draft = whole_field(v, field, -1, 100'000);
    else if (key == "ctx_size_draft") s.ctx_size_draft = whole_field(v, field, 0, 100'000'000);
    else if (key == "enable_lora") l.enable_lora = bool_field(v, field);
    else if (key == "max_loras" || key == "max_loras_per_batch") l.max_loras = whole_field(v, field, 1, 4096), l.max_loras_given = true;
    else if (key == "max_lora_rank") l.max_lora_rank = whole_field(v, field, 1, 65'536);
    else if (key == "max_cpu_loras") l.max_cpu_loras = whole_field(v, field, 0, 1'000'000);
    else if (key == "machine_jobs") {
        if (!v.is_array()) throw InputError(field, "must be a list of jobs sharing this GPU, got " + describe_value(v));
        if (v.size() > kMaxMachineJobs)
            throw InputError(field, "lists " + std::to_string(v.size()) + " jobs; at most " + std::to_string(kMaxMachineJobs));
        job.machine_jobs.clear();
        for (size_t i = 0; i < v.size(); ++i) {
            const std::string at = field + "[" + std::to_string(i) + "]";
            const json& entry = v[i];
            if (!entry.is_object()) throw InputError(at, "must be a job object with its model, got " + describe_value(entry));
            const auto model = entry.find("model");
            if (model == entry.end()) throw InputError(at + ".model", "missing: the model this job runs (a catalog id or a config.json object)");
            MachineJob m;
            m.label = model->is_string() ? short_text(model->get<std::string>()) : "inline config";
            m.model = resolve_model_ref(*model, at + ".model");
            json fields = entry;
            fields.erase("model");
            if (fields.contains("machine_jobs")) throw InputError(at + ".machine_jobs", "a job of the machine lists no machine jobs of its own");
            try {
                m.job = std::make_shared<const Job>(parse_job(fields));
            } catch (const InputError& e) {
                // The field as it sits in the request: job.machine_jobs[1].gpu_memory_utilization.
                const std::string inner = e.field(), what = e.what();
                const std::string message = what.rfind(inner + ": ", 0) == 0 ? what.substr(inner.size() + 2) : what;
                throw InputError(inner.rfind("job.", 0) == 0 ? at + "." + inner.substr(4) : at, message);
            }
            job.machine_jobs.push_back(std::move(m));
        }
    }
    else return false;
    return true;
}

const char* serving_extra_field_names() {
    return "speculative_method, speculative_model, num_speculative_tokens, draft_max, draft_vocab_size, n_gpu_layers_draft, "
           "ctx_size_draft, enable_lora, max_loras, max_loras_per_batch, max_lora_rank, max_cpu_loras, machine_jobs";
}

void finish_serving_extras(Job& job) {
    Speculative& s = job.spec;
    if (s.draft && s.method == SpecMethod::None) s.method = SpecMethod::Draft;  // vLLM detects the method from the model
    if (s.method != SpecMethod::None && trains(job))
        throw InputError("job.speculative_method", "speculative decoding is a serving setting; mode must be inference");
    if (s.method == SpecMethod::Draft && !s.draft)
        throw InputError("job.speculative_model", "the draft model is missing: name it (speculative_model) for speculative_method draft");
    if (s.method != SpecMethod::None && s.num_speculative_tokens == 0)
        s.num_speculative_tokens = llama_cpp_like(job) ? 16 : s.method == SpecMethod::Mtp ? 1 : 5;
    if (s.method != SpecMethod::None && job.engine == Engine::Custom)
        throw InputError("job.speculative_method", "choose the engine that runs it: vllm, sglang or llamacpp");
    // The draft's vocabulary is compared with the target's in core/serving/speculative.cpp, which knows the target.
    LoraServing& l = job.lora_serving;
    // SGLang server_args.py max_loras_per_batch = 8; vLLM LoRAConfig max_loras = 1.
    if (l.enable_lora && !l.max_loras_given && job.engine == Engine::Sglang) l.max_loras = 8;
    if (l.max_cpu_loras > 0 && l.max_cpu_loras < l.max_loras)
        throw InputError("job.max_cpu_loras", "must be at least max_loras (" + std::to_string(l.max_loras) +
                                                  "; vLLM LoRAConfig), got " + std::to_string(l.max_cpu_loras));
    if (l.enable_lora && trains(job))
        throw InputError("job.enable_lora", "multi-LoRA serving is a serving setting; mode must be inference (training uses lora_rank)");
    if (!job.machine_jobs.empty() && post_training(job.post))
        throw InputError("job.machine_jobs", "a post-training job's GPUs are its trainer's and its rollout's; list machine jobs beside a serving or training job");
    finish_machine_jobs(job);
}

}  // namespace vramcalc
