#include "answers/report.hpp"

#include "text/units.hpp"

#include <cstdarg>
#include <cstdio>

namespace vramcalc {
namespace {

std::string printf_string(const char* format, ...) __attribute__((format(printf, 1, 2)));
std::string printf_string(const char* format, ...) {
    // Sized to the text: an explanation can run past any fixed buffer (and was cut with its newline).
    va_list args, again;
    va_start(args, format);
    va_copy(again, args);
    const int n = std::vsnprintf(nullptr, 0, format, args);
    va_end(args);
    std::string out(n > 0 ? static_cast<size_t>(n) : 0, '\0');
    if (n > 0) std::vsnprintf(&out[0], out.size() + 1, format, again);
    va_end(again);
    return out;
}

const char* mode_words(Mode m) {
    switch (m) {
        case Mode::Inference: return "inference";
        case Mode::Train: return "full training";
        case Mode::LoRA: return "LoRA fine-tuning";
        case Mode::QLoRA: return "QLoRA fine-tuning";
    }
    return "";
}

}  // namespace

std::string format_report(const std::string& model_name, const Job& job, const Estimate& e) {
    const UnitScope units(job.units);
    const double B = unit_bytes(job.units);
    const std::string U = unit_symbol(job.units);
    // The answer first: the verdict for the user's GPUs, or the headline when none is given.
    std::string out = e.verdict.text.empty() ? "" : e.verdict.text + "\n";
    // Several jobs on the GPU: their one verdict leads, then each job's share (core/answers/colocation.cpp).
    if (e.colocation.active) {
        out = e.colocation.verdict + "\n";
        for (const ColocationEntry& m : e.colocation.jobs)
            out += printf_string("  %-24s %-8s %s\n", m.label.c_str(), m.engine.c_str(), m.text.c_str());
    }
    out += "vramcalc: " + model_name + "\n";
    out += "Parameters: " + params_text(e.params.total) + " total, " + params_text(e.params.active) + " active per token";
    out += e.trainable_params > 0 ? ", " + params_text(e.trainable_params) + " trainable\n" : "\n";
    // A post-training job (core/posttrain/): its mode and the policy's micro-batch as the trainer runs it.
    if (e.post.active)
        out += printf_string("Job: %s of a %s policy (%s), %s weights, micro-batch %lld x seq %lld", post_mode_name(job.post.mode),
                             policy_name(job.mode), framework_name(job.framework), e.weight_format_label.c_str(),
                             static_cast<long long>(e.post.rows), static_cast<long long>(e.post.tokens));
    else
        out += printf_string("Job: %s, %s weights, batch %lld x seq %lld", mode_words(job.mode), e.weight_format_label.c_str(),
                             static_cast<long long>(job.batch), static_cast<long long>(job.seq));
    if (job.mode != Mode::Inference)
        out += std::string(", ") + optimizer_name(job.optimizer) + ", checkpointing " + checkpointing_name(job.checkpointing);
    out += std::string(", ") + attention_name(job.attention) + " attention";
    out += printf_string(", %lld GPU(s) (DP %lld x TP %lld x PP %lld, ZeRO %d)\n\n", static_cast<long long>(e.layout.gpus),
                         static_cast<long long>(e.layout.dp), static_cast<long long>(e.layout.tp),
                         static_cast<long long>(e.layout.pp), e.layout.zero);
    out += printf_string(e.layout.gpus > 1 ? "Per GPU              %3s   how\n" : "On one GPU           %3s   how\n", U.c_str());
    for (int t = 0; t < kTermCount; ++t)
        out += printf_string("  %-16s %9.2f   %s\n", term_label(t), e.breakdown.bytes[t] / B, e.breakdown.why[t].c_str());
    out += printf_string("  %-16s %9.2f\n", "Total", e.breakdown.total() / B);
    if (e.layout.gpus > 1)
        out += printf_string("  %-16s %9.2f   over %lld GPUs\n", "All GPUs", e.breakdown.total() * e.layout.gpus / B,
                             static_cast<long long>(e.layout.gpus));
    for (const TrainingView& v : e.training_views) {
        if (std::string(v.key) != "classic") continue;
        out += "\n" + std::string(v.label) + ", " + U + "\n";
        for (const ViewRow& r : v.rows) out += printf_string("  %-44s %9.2f\n", r.label, r.bytes / B);
        out += printf_string("  %-44s %9.2f\n", "Sum", v.total / B);
    }
    if (e.timeline.count > 0) {
        out += std::string(e.post.active ? "\nPost-training step" : "\nTraining step") + " (live tensors per GPU, " + U + ")\n";
        for (int i = 0; i < e.timeline.count; ++i) {
            const Phase& ph = e.timeline.phases[i];
            out += printf_string("  %-34s %9.2f%s\n", ph.label, ph.total() / B, i == e.timeline.peak ? "   <- peak" : "");
        }
    }
    for (const PostLimit& l : e.post_limits) out += "  " + l.text + "\n";
    for (const std::string& n : e.post.notes) out += "- " + n + "\n";
    out += printf_string("\nRaw weights %.2f ", e.weights_reference_bytes / B) + U +
           printf_string("; this job needs %.1f x that.\n", e.ratio_to_weights);
    for (const auto& n : e.notes) out += "- " + n + "\n";
    // Serving: the engine's verdict on the chosen GPU, its pool and what stays in system RAM.
    if (job.mode == Mode::Inference && !e.serving.verdict.empty())
        out += std::string("\n") + engine_name(job.engine) + ": " + e.serving.verdict + "\n";
    if (job.mode == Mode::Inference && e.serving_view.pooled) out += "KV: " + e.serving_view.text + "\n";
    if (job.mode == Mode::Inference && !e.serving.engine_version.empty()) out += e.serving.engine_version + "\n";
    if (job.mode == Mode::Inference && !e.serving.devices.empty()) {
        // Each GPU's share of a llama.cpp / Ollama split (the breakdown above is the fullest's).
        out += e.serving.split + "\n";
        out += "  GPU   layers   weights " + U + "   KV " + U + "   compute " + U + "   total " + U + "\n";
        for (size_t i = 0; i < e.serving.devices.size(); ++i) {
            const DeviceShare& d = e.serving.devices[i];
            out += printf_string("  %-5zu %4lld%-4s %10.2f %7.2f %12.2f %10.2f\n", i, static_cast<long long>(d.layers),
                                 d.output ? "+out" : "", d.weights / B, d.kv / B, d.compute_buffer / B, d.total() / B);
        }
    }
    if (job.mode == Mode::Inference && e.serving.cpu_bytes > 0)
        out += printf_string("System RAM: %.2f ", e.serving.cpu_bytes / B) + U + " (" + std::to_string(e.serving.gpu_layers) + "/" +
               std::to_string(e.serving.layers) + " layers on the GPU)\n";
    // A local runtime (issue 32): both pools, what the runtime chose, the speed, the command.
    if (job.mode == Mode::Inference && e.local.applies) {
        const LocalAnswer& a = e.local;
        out += "\nYour machine (" + a.runtime + ")\n";
        out += "  " + a.gpu.label + ": " + a.gpu.text + (a.gpu.detail.empty() ? "" : " (" + a.gpu.detail + ")") + "\n";
        out += "  " + a.ram.label + ": " + a.ram.text + (a.ram.detail.empty() ? "" : " (" + a.ram.detail + ")") + "\n";
        if (!a.fit.text.empty()) out += "  " + a.fit.text + "\n";
        if (a.speed.known) out += "  Speed: " + a.speed.text + "\n    " + a.speed.why + "\n";
        if (!a.runtime_error.empty()) out += std::string("  ") + engine_name(job.engine) + " would say: " + a.runtime_error + "\n";
        for (const std::string& w : a.warnings) out += "  - " + w + "\n";
    }
    if (job.mode == Mode::Inference && !e.command.text.empty()) {
        out += "\nRun it:\n  " + e.command.text + "\n";
        if (!e.command.modelfile.empty()) {
            out += "  Modelfile:\n";
            std::string mf = e.command.modelfile;
            size_t at = 0;
            while (at <= mf.size()) {
                const size_t nl = std::min(mf.find('\n', at), mf.size());
                out += "    " + mf.substr(at, nl - at) + "\n";
                at = nl + 1;
            }
        }
        if (!e.command.note.empty()) out += "  (" + e.command.note + ")\n";
    }
    out += "\nGPU                        memory                 this setup  GPUs needed (";
    // fit_gpus (core/fit.cpp) keeps a chosen ZeRO stage and takes ZeRO-3 / FSDP when none is chosen.
    out += job.mode == Mode::Inference ? (llama_cpp_like(job) ? std::string("llama.cpp -sm ") + split_mode_name(job.split_mode) + " split"
                                                                : std::string("tensor + pipeline parallel"))
                                       : job.zero > 0 ? "ZeRO-" + std::to_string(job.zero) : "ZeRO-3 / FSDP";
    out += ")\n";
    for (const auto& f : e.fits) {
        out += printf_string("  %-26s", f.name) + printf_string(" %-22s", capacity_text(f.capacity_bytes).c_str()) +
               printf_string(" %-10s  ", f.fits_as_configured ? "fits" : "no");
        out += f.gpus_needed > 0 ? printf_string("%lld\n", static_cast<long long>(f.gpus_needed))
               : job.mode == Mode::Inference
                   ? std::string("does not fit at any count (what one GPU keeps does not shrink enough: lower batch/seq, or a smaller format)\n")
                   : std::string("does not fit at any count (per-GPU activations too large: lower batch/seq or use checkpointing)\n");
    }
    return out;
}

}  // namespace vramcalc
