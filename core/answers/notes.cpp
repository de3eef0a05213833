#include "answers/notes.hpp"

#include <algorithm>

#include "memory/states.hpp"
#include "text/field_labels.hpp"
#include "text/units.hpp"

namespace vramcalc {
namespace {
std::string count(int64_t n) { return std::to_string(n); }
}  // namespace

std::vector<std::string> notes_for(const Plan& plan, const Estimate& e) {
    const Model& m = plan.m;
    const Job& job = plan.job;
    // In the order they matter; the first kMaxNotes are kept.
    std::vector<std::string> notes;
    const double P = m.params.total;
    if (plan.exact && !m.exact.note.empty()) notes.push_back(m.exact.note);
    if (m.config.context_length > 0 && job.seq > m.config.context_length)
        notes.push_back("Sequence length " + count(job.seq) + " exceeds the model's context of " +
                        count(m.config.context_length) + " tokens (max_position_embeddings).");
    if (trains(job) && e.timeline.count > 0) {
        const Phase& peak = e.timeline.phases[e.timeline.peak];
        notes.push_back(std::string("Peak during: ") + peak.label + " (" + gb_text(peak.total()) +
                        " of live tensors); the breakdown shows that moment.");
    }
    if (job.mode == Mode::Train) {
        // Bytes of model state per parameter, as one GPU holding the whole model keeps them (no sharding,
        // no expert parallelism): a property of the recipe, not of the layout.
        Job whole = job;
        whole.ep = 1;
        whole.etp = 0;
        const Plan one_plan = make_plan(m, whole);
        const Layout one;
        const Share all = share_of(one_plan, one, 0);
        const double states = (weights_term(one_plan, one, all, nullptr) + gradients_term(one_plan, one, all, nullptr) +
                               optimizer_term(one_plan, one, all, nullptr)) / P;
        const double w = e.weights_reference_bytes / P;
        notes.push_back("The \"6–10 × the weights\" rule: full training keeps " + plain_number(states) +
                        " bytes of model state per parameter (weights + gradients + optimizer) against " + plain_number(w) +
                        " for the weights alone, " + printf_text("%.1f", states / w) +
                        " ×; activations, logits and overhead bring this job to " + printf_text("%.1f", e.ratio_to_weights) +
                        " × the raw weights (" + gb_text(e.weights_reference_bytes) + ").");
    }
    if (uses_adapters(job))
        notes.push_back("LoRA rank " + count(job.lora_rank) + " on " + job.lora_targets + ": " + params_text(e.trainable_params) +
                        " trainable params (" + printf_text("%.2f%%", 100 * e.trainable_params / P) +
                        " of the model); the frozen base needs no gradients or optimizer state.");
    if (trains(job) && e.layout.pp > 1) {
        const Share& s = e.share;
        notes.push_back(std::string("Pipeline parallel (") + pp_schedule_name(job.pp_schedule) + ", " +
                        plain_number(s.microbatches) + " micro-batches): the figures are stage " + count(s.stage + 1) + " of " +
                        count(s.stages) + (s.first ? ", the first (it holds the embedding and the most micro-batches in flight)"
                                                   : ", the last (it holds the head and the loss)") +
                        ": " + plain_number(s.layers) + " layers, " + plain_number(s.in_flight) +
                        " micro-batches of their activations in flight" +
                        (job.pp_stage == PpStage::Peak ? "; the stage that needs the most (choose another under Pipeline stage shown)." : "."));
    }
    if (!trains(job) && e.layout.gpus > 1 && llama_cpp_like(job))
        notes.push_back(e.serving.split.empty() ? "llama.cpp over " + count(e.layout.gpus) + " GPUs."
                                                : e.serving.split + "; the breakdown is the fullest GPU's, which decides the fit.");
    else if (!trains(job) && e.layout.gpus > 1)
        notes.push_back("Inference over " + count(e.layout.gpus) + " GPUs: tensor parallel " + count(e.layout.tp) +
                        " × pipeline " + count(e.layout.pp) + (e.layout.dp > 1 ? " × " + count(e.layout.dp) + " replicas" : "") + ".");
    if (e.cpu_bytes > 0) notes.push_back("CPU memory needed for offloaded tensors: " + gb_text(e.cpu_bytes) + ".");
    if (m.config.is_moe())
        notes.push_back("Mixture of experts: all " + count(m.config.experts) + " experts per MoE layer stay in memory (" +
                        params_text(P) + " params), but a token uses only " + count(m.config.experts_per_token) +
                        " of them (" + params_text(m.params.active) + " active): memory follows the total, compute the active.");
    if (trains(job) && e.layout.dp > 1)
        notes.push_back("Batch is the micro-batch per GPU; the global batch is " + count(job.batch * e.layout.dp * job.grad_accum) + ".");
    if (!trains(job) && job.zero > 0) notes.push_back("ZeRO applies to training only; ignored for inference.");
    if (m.config.family == Family::Explicit) notes.push_back("Parameter count given explicitly (num_parameters).");
    if (notes.size() > kMaxNotes) notes.resize(kMaxNotes);
    return notes;
}

std::string value_in_words(const std::string& json_value) {
    if (json_value == "true") return "yes";
    if (json_value == "false") return "no";
    if (json_value.size() >= 2 && json_value.front() == '"' && json_value.back() == '"')
        return json_value.substr(1, json_value.size() - 2);
    return json_value;
}

std::vector<AssumptionLine> assumption_lines(const Job& job, const Estimate& e) {
    std::vector<AssumptionLine> lines;
    auto add = [&](const std::string& key, const std::string& value, const std::string& by, const std::string& source) {
        AssumptionLine l{key, field_label("job." + key), value, by, source, ""};
        l.text = l.label + ": " + l.value + " (" + by + ")";
        for (AssumptionLine& x : lines)
            if (x.key == key) {
                x = l;  // each field once: the later value wins
                return;
            }
        lines.push_back(std::move(l));
    };
    for (const Assumed& a : job.assumptions) add(a.key, value_in_words(a.value), a.by, a.source);
    // What the totals count, with the three figures (allocated, reserved, device).
    const char* kind = job.report == MemoryKind::Allocated ? "allocated memory (live tensors, torch max_memory_allocated)"
                       : job.report == MemoryKind::Reserved
                           ? "reserved memory (live tensors + caching-allocator slack, torch max_memory_reserved)"
                           : "device memory (reserved + CUDA context, what nvidia-smi shows)";
    const auto preset = std::find_if(lines.begin(), lines.end(), [](const AssumptionLine& l) { return l.key == "report"; });
    const bool no_preset = preset == lines.end();
    const std::string by = no_preset ? "vramcalc's default, or as set" : preset->by;
    const std::string source = no_preset ? "the job's report field" : preset->source;
    add("report", kind, by, source);
    AssumptionLine& line = lines.back().key == "report" ? lines.back() : *std::find_if(lines.begin(), lines.end(), [](const AssumptionLine& l) {
        return l.key == "report";
    });
    line.text = line.label + " (" + by + "): " + kind + ": allocated " + gb_text(e.allocated_bytes) + ", reserved " +
                gb_text(e.reserved_bytes) + ", device " + gb_text(e.device_bytes) + ".";
    return lines;
}

}  // namespace vramcalc
