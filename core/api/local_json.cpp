#include "api/local_json.hpp"

#include "machine/machine.hpp"
#include "text/units.hpp"

namespace vramcalc {
namespace {

void write_pool(JsonWriter& w, const PoolUse& u) {
    w.begin_object().field("key", u.key).field("label", u.label).field("known", u.known);
    w.field("need_bytes", u.need_bytes).field("need_text", gb_text(u.need_bytes));
    w.field("have_bytes", u.have_bytes).field("have_text", u.known ? gb_text(u.have_bytes) : std::string());
    w.field("short_bytes", u.short_bytes).field("short_text", u.short_bytes > 0 ? gb_text(u.short_bytes) : std::string());
    w.field("fits", u.fits).field("text", u.text).field("detail", u.detail).end_object();
}

}  // namespace

void write_machine_job_fields(JsonWriter& w, const Job& job) {
    const Machine& m = job.machine;
    w.field("ram_gb", m.ram_bytes / 1e9).field("ram_used_gb", m.ram_used_bytes / 1e9).field("swap_gb", m.swap_bytes / 1e9);
    w.field("ram_kind", ram_kind_name(m.ram_kind)).field("ram_channels", m.ram_channels).field("ram_mts", m.ram_mts);
    w.field("ram_bandwidth_gbs", m.ram_bandwidth_gbs).field("cpu_only", m.cpu_only).field("wired_limit_mb", m.wired_limit_mb);
    w.field("carveout_gb", m.carveout_gb).field("gtt_gb", m.gtt_gb).field("uma_backend", uma_backend_name(m.uma_backend));
    w.field("n_cpu_moe", job.n_cpu_moe).field("mmap", job.mmap).field("mlock", job.mlock);
    w.field("fit", job.fit).field("fit_target_mib", job.fit_target_mib).field("fit_min_ctx", job.fit_min_ctx);
    w.field("ctx_auto", job.ctx_auto).field("op_offload", job.op_offload).field("ollama_ctx_by_vram", job.ollama_ctx_by_vram);
    // The versions as text (so "0.15" given as a flag or URL stays a version, not a number).
    w.field("llamacpp_version", job.engine == Engine::LlamaCpp ? job.runtime_version : std::string());
    w.field("ollama_version", job.engine == Engine::Ollama ? job.runtime_version : std::string());
    w.field("mlx_version", job.engine == Engine::Mlx ? job.runtime_version : std::string());
    w.field("cpu_moe", job.experts_on_cpu).field("runtime_version", job.runtime_version);
    w.field("kv_bits", job.kv_bits).field("mlx_group_size", job.mlx_group_size);
    w.field("prefill_step_size", job.prefill_step_size).field("prompt_cache_size", job.prompt_cache_size);
    w.field("model_file", job.model_file).field("model_id", job.model_id);
}

void write_machine_options(JsonWriter& w) {
    w.key("ram_kinds").begin_array();
    for (const char* name : ram_kind_names())
        w.begin_object().field("id", name).field("label", ram_kind_choice_text(ram_kind_named(name, "ram_kind"))).end_object();
    w.end_array().key("uma_backends").begin_array().value("vulkan").value("rocm").end_array();
}

void write_command(JsonWriter& w, const LaunchCommand& c) {
    w.begin_object().field("kind", c.kind).field("text", c.text).key("env").begin_array();
    for (const std::string& e : c.env) w.value(e);
    w.end_array().field("modelfile", c.modelfile).field("note", c.note).end_object();
}

void write_local(JsonWriter& w, const Estimate& e) {
    const LocalAnswer& a = e.local;
    w.begin_object().field("applies", a.applies);
    if (!a.applies) {
        w.end_object();
        return;
    }
    const MachinePools& m = a.machine;
    w.field("runtime", a.runtime).field("status", a.status).field("symbol", a.symbol).field("verdict", a.verdict);
    w.field("shortfall", a.shortfall).field("runtime_error", a.runtime_error).field("layout_text", a.layout_text);
    w.key("machine").begin_object().field("unified", m.unified).field("cpu_only", m.cpu_only).field("ram_given", m.ram_given);
    w.field("gpus", m.gpus).field("gpu_bytes", m.gpu_bytes).field("ram_bytes", m.ram_bytes).field("ram_free_bytes", m.ram_free_bytes);
    w.field("gpu_bandwidth_gbs", m.gpu_bandwidth / 1e9).field("ram_bandwidth_gbs", m.ram_bandwidth / 1e9);
    w.field("pcie_bandwidth_gbs", m.pcie_bandwidth / 1e9).field("gpu_text", m.gpu_text).field("ram_text", m.ram_text);
    w.field("share_source", m.share_source).field("bandwidth_source", m.bandwidth_source).end_object();
    write_pool(w.key("gpu"), a.gpu);
    write_pool(w.key("ram"), a.ram);
    w.field("context", e.context).field("n_cpu_moe", e.n_cpu_moe).field("gpu_layers", e.gpu_layers);
    const FitReport& f = a.fit;
    w.key("fit").begin_object().field("ran", f.ran).field("fits", f.fits).field("ctx_from", f.ctx_from).field("ctx_to", f.ctx_to);
    w.field("n_cpu_moe", f.n_cpu_moe).field("gpu_layers", f.gpu_layers).field("text", f.text).end_object();
    const LocalSpeed& s = a.speed;
    w.key("speed").begin_object().field("known", s.known);
    w.field("decode_tps", s.decode_tps).field("decode_low", s.decode_low).field("decode_high", s.decode_high);
    w.field("prefill_tps", s.prefill_tps).field("prefill_low", s.prefill_low).field("prefill_high", s.prefill_high);
    w.field("gpu_read_bytes", s.gpu_read_bytes).field("ram_read_bytes", s.ram_read_bytes);
    w.field("gpu_s", s.gpu_s).field("ram_s", s.ram_s).field("hop_s", s.hop_s).field("floor_s", s.floor_s).field("hops", s.hops);
    w.field("prefill_copy_s", s.prefill_copy_s).field("prefill_compute_s", s.prefill_compute_s);
    w.field("bound", s.bound).field("text", s.text).field("decode_text", s.decode_text).field("prefill_text", s.prefill_text);
    w.field("why", s.why).end_object();
    w.key("warnings").begin_array();
    for (const std::string& x : a.warnings) w.value(x);
    w.end_array().end_object();
}

}  // namespace vramcalc
