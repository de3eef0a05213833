// The job fields of your machine (its RAM, unified-memory settings, no GPU at all) and of the local
// runtimes (llama.cpp's MoE offload and --fit, Ollama's context tiers, MLX's caches), read once when the
// job is parsed (issue 32). core/machine/ holds what they mean; core/local/ uses them.
#include <nlohmann/json.hpp>

#include "job/job.hpp"
#include "text/errors.hpp"
#include "text/json_text.hpp"
#include "text/units.hpp"

namespace vramcalc {
namespace {

// RAM sizes: more than 0 and at most 100 TB (100,000 GB; 93,132 GiB).
constexpr double kMaxRamGb = 100'000;
constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

double ram_size_field(const nlohmann::json& v, const std::string& field, double max) {
    const double x = number_field(v, field, -1e300, 1e300);
    if (!(x > 0) || x > max)
        throw InputError(field, "must be more than 0 and at most " + grouped_text(max) +
                                    (field.size() > 3 && field.compare(field.size() - 3, 3, "gib") == 0 ? " GiB" : " GB") +
                                    " (100 TB), got " + describe_value(v));
    return x;
}

}  // namespace

bool read_machine_field(Job& job, const std::string& key, const nlohmann::json& v, const std::string& field) {
    Machine& m = job.machine;
    // ram: the widget's attribute for it (<vram-calc ram="64">), GB as ram_gb
    if (key == "ram_gb" || key == "ram") m.ram_bytes = ram_size_field(v, field, 100'000) * 1e9;
    else if (key == "ram_gib") m.ram_bytes = ram_size_field(v, field, 100'000 * 1e9 / kGiB) * kGiB;
    else if (key == "ram_used_gb") m.ram_used_bytes = number_field(v, field, 0, kMaxRamGb) * 1e9;
    else if (key == "ram_used_gib") m.ram_used_bytes = number_field(v, field, 0, kMaxRamGb) * kGiB;
    else if (key == "swap_gb") m.swap_bytes = number_field(v, field, 0, kMaxRamGb) * 1e9;
    else if (key == "ram_kind") m.ram_kind = ram_kind_named(text_field(v, field), field);
    else if (key == "ram_channels") m.ram_channels = whole_field(v, field, 1, 64);
    else if (key == "ram_mts") m.ram_mts = number_field(v, field, 100, 100'000);
    else if (key == "ram_bandwidth_gbs") m.ram_bandwidth_gbs = number_field(v, field, 0.1, 100'000);
    else if (key == "cpu_only") m.cpu_only = bool_field(v, field);
    else if (key == "wired_limit_mb") m.wired_limit_mb = number_field(v, field, 0, 1e9);
    else if (key == "carveout_gb") m.carveout_gb = number_field(v, field, 0, kMaxRamGb);
    else if (key == "gtt_gb") m.gtt_gb = number_field(v, field, 0, kMaxRamGb);
    else if (key == "uma_backend") m.uma_backend = uma_backend_named(text_field(v, field), field);
    // llama.cpp's MoE offload and load modes
    else if (key == "n_cpu_moe") job.n_cpu_moe = whole_field(v, field, 0, 100'000);
    else if (key == "cpu_moe") job.experts_on_cpu = bool_field(v, field);
    else if (key == "mmap") job.mmap = bool_field(v, field);
    else if (key == "mlock") job.mlock = bool_field(v, field);
    else if (key == "fit") job.fit = bool_field(v, field);
    else if (key == "fit_target_mib") job.fit_target_mib = number_field(v, field, 0, 1e7);
    else if (key == "fit_min_ctx") job.fit_min_ctx = whole_field(v, field, 1, 100'000'000);
    else if (key == "ctx_auto") job.ctx_auto = bool_field(v, field);
    else if (key == "op_offload") job.op_offload = bool_field(v, field);
    // Ollama's names for the context, the GPU layers and the parallel requests
    else if (key == "num_ctx") job.seq = whole_field(v, field, 1, 100'000'000);
    else if (key == "num_gpu") job.n_gpu_layers = whole_field(v, field, -1, 100'000);
    else if (key == "num_parallel") job.batch = whole_field(v, field, 1, 1'000'000);
    else if (key == "ollama_ctx_by_vram") job.ollama_ctx_by_vram = bool_field(v, field);
    // the versions are resolved by parse_job before the user's fields (job/runtime_versions.cpp)
    else if (key == "llamacpp_version" || key == "ollama_version" || key == "mlx_version") text_field(v, field);
    // MLX
    else if (key == "kv_bits") {
        job.kv_bits = whole_field(v, field, 0, 8);
        if (job.kv_bits == 1 || job.kv_bits == 7)
            throw InputError(field, "must be 0 (the model's dtype) or 2, 3, 4, 5, 6 or 8 bits (mlx.core.quantize), got " +
                                        describe_value(v));
    }
    else if (key == "mlx_group_size") {
        job.mlx_group_size = whole_field(v, field, 32, 128);
        if (job.mlx_group_size != 32 && job.mlx_group_size != 64 && job.mlx_group_size != 128)
            throw InputError(field, "must be 32, 64 or 128 (mlx.core.quantize group sizes), got " + describe_value(v));
    }
    else if (key == "prefill_step_size") job.prefill_step_size = whole_field(v, field, 1, 1'000'000);
    else if (key == "prompt_cache_size") job.prompt_cache_size = whole_field(v, field, 0, 10'000);
    else if (key == "model_id") {
        job.model_id = text_field(v, field);
        if (job.model_id.size() > 1024) throw InputError(field, "is longer than 1,024 characters");
    }
    else if (key == "model_file") {
        job.model_file = text_field(v, field);
        if (job.model_file.size() > 1024) throw InputError(field, "is longer than 1,024 characters");
    }
    else return false;
    return true;
}

void check_machine_fields(const nlohmann::json& given, Job& job) {
    const Machine& m = job.machine;
    const char* used = given.contains("ram_used_gib") ? "job.ram_used_gib" : "job.ram_used_gb";
    if (m.ram_bytes > 0 && m.ram_used_bytes >= m.ram_bytes)
        throw InputError(used, "must be less than the machine's RAM (" + capacity_text(m.ram_bytes) + ")");
    if (given.contains("ram_gb") && given.contains("ram_gib"))
        throw InputError("job.ram_gib", "gives the RAM a second time (ram_gb gives it too); give one");
    for (const char* other : {"ram_gb", "ram_gib"})
        if (given.contains("ram") && given.contains(other))
            throw InputError("job.ram", std::string("gives the RAM a second time (") + other + " gives it too); give one");
    if (m.ram_used_bytes > 0 && m.ram_bytes <= 0 && !unified_machine(job.gpu))
        throw InputError("job.ram_used_gb", "needs ram_gb, the machine's RAM");
    if (m.cpu_only && job.gpu && given.contains("gpu") && given.at("gpu") != "cpu")
        throw InputError("job.cpu_only", std::string("says the machine has no GPU, but gpu names ") + job.gpu->id);
    if (m.cpu_only && !runs_locally(job))
        throw InputError("job.cpu_only", "a machine without a GPU runs llama.cpp, Ollama or MLX; choose engine llamacpp or ollama");
    if (given.contains("n_cpu_moe") && job.engine != Engine::LlamaCpp)
        throw InputError("job.n_cpu_moe", "is llama.cpp's --n-cpu-moe; choose engine llamacpp");
    if (given.contains("cpu_moe") && job.engine != Engine::LlamaCpp)
        throw InputError("job.cpu_moe", "is llama.cpp's --cpu-moe; choose engine llamacpp");
    if (job.engine == Engine::Mlx) {
        const UnifiedMachine* u = unified_machine(job.gpu);
        if ((job.gpu && (!u || u->kind != UnifiedKind::Apple)) || m.cpu_only)
            throw InputError("job.engine", std::string("MLX runs on Apple silicon; ") +
                                               (m.cpu_only ? "this machine has no GPU" : std::string(job.gpu->id) + " is not a Mac"));
        if (job.gpus > 1) throw InputError("job.gpus", "MLX runs on one Mac (mlx-lm's server serves one device)");
    }
}

const char* machine_field_names() {
    return "ram_gb, ram_gib, ram, ram_used_gb, ram_used_gib, swap_gb, ram_kind, ram_channels, ram_mts, ram_bandwidth_gbs, cpu_only, wired_limit_mb, "
           "carveout_gb, gtt_gb, uma_backend, n_cpu_moe, cpu_moe, mmap, mlock, fit, fit_target_mib, fit_min_ctx, ctx_auto, "
           "op_offload, num_ctx, num_gpu, num_parallel, ollama_ctx_by_vram, llamacpp_version, ollama_version, mlx_version, "
           "kv_bits, mlx_group_size, prefill_step_size, prompt_cache_size, model_file, model_id";
}

}  // namespace vramcalc
