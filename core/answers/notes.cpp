#include "answers/notes.hpp"

#include "memory/states.hpp"
#include "text/units.hpp"

namespace vramcalc {
namespace {
std::string count(int64_t n) { return std::to_string(n); }
}  // namespace

std::vector<std::string> notes_for(const Plan& plan, const Estimate& e) {
    const Model& m = plan.m;
    const Job& job = plan.job;
    std::vector<std::string> notes;
    const double P = m.params.total;
    if (plan.exact && !m.exact.note.empty()) notes.push_back(m.exact.note);
    if (m.config.context_length > 0 && job.seq > m.config.context_length)
        notes.push_back("Sequence length " + count(job.seq) + " exceeds the model's context of " +
                        count(m.config.context_length) + " tokens (max_position_embeddings).");
    if (m.config.is_moe())
        notes.push_back("Mixture of experts: all " + count(m.config.experts) + " experts per MoE layer stay in memory (" +
                        params_text(P) + " params), but a token uses only " + count(m.config.experts_per_token) +
                        " of them (" + params_text(m.params.active) + " active): memory follows the total, compute the active.");
    if (trains(job) && e.timeline.count > 0) {
        const Phase& peak = e.timeline.phases[e.timeline.peak];
        notes.push_back(std::string("Peak during: ") + peak.label + " (" + gb_text(peak.total()) +
                        " of live tensors); the breakdown shows that moment.");
    }
    if (job.mode == Mode::Train) {
        const Layout one;
        const Share all = share_of(plan, one, 0);
        const double states = (weights_term(plan, one, all, nullptr) + gradients_term(plan, one, all, nullptr) +
                               optimizer_term(plan, one, all, nullptr)) / P;
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
    if (!trains(job) && e.layout.gpus > 1 && llama_cpp_like(job))
        notes.push_back(e.serving.split.empty() ? "llama.cpp over " + count(e.layout.gpus) + " GPUs."
                                                : e.serving.split + "; the breakdown is the fullest GPU's, which decides the fit.");
    else if (!trains(job) && e.layout.gpus > 1)
        notes.push_back("Inference over " + count(e.layout.gpus) + " GPUs: tensor parallel " + count(e.layout.tp) +
                        " × pipeline " + count(e.layout.pp) + (e.layout.dp > 1 ? " × " + count(e.layout.dp) + " replicas" : "") + ".");
    if (!trains(job) && job.zero > 0) notes.push_back("ZeRO applies to training only; ignored for inference.");
    if (trains(job) && e.layout.pp > 1) {
        const Share& s = e.share;
        notes.push_back(std::string("Pipeline parallel (") + pp_schedule_name(job.pp_schedule) + ", " +
                        plain_number(s.microbatches) + " micro-batches): the figures are stage " + count(s.stage + 1) + " of " +
                        count(s.stages) + (s.first ? ", the first (it holds the embedding and the most micro-batches in flight)"
                                                   : ", the last (it holds the head and the loss)") +
                        ": " + plain_number(s.layers) + " layers, " + plain_number(s.in_flight) +
                        " micro-batches of their activations in flight" +
                        (job.pp_stage == PpStage::Peak ? "; the stage that needs the most (pp_stage picks another)." : "."));
    }
    if (trains(job) && e.layout.dp > 1)
        notes.push_back("batch is the micro-batch per GPU; the global batch is " + count(job.batch * e.layout.dp * job.grad_accum) + ".");
    if (e.cpu_bytes > 0) notes.push_back("CPU memory needed for offloaded tensors: " + gb_text(e.cpu_bytes) + ".");
    notes.push_back(std::string("Totals count ") +
                    (job.report == MemoryKind::Allocated ? "allocated memory (live tensors, torch max_memory_allocated)"
                     : job.report == MemoryKind::Reserved ? "reserved memory (live tensors + caching-allocator slack, torch max_memory_reserved)"
                                                          : "device memory (reserved + CUDA context, what nvidia-smi shows)") +
                    ": allocated " + gb_text(e.allocated_bytes) + ", reserved " + gb_text(e.reserved_bytes) + ", device " +
                    gb_text(e.device_bytes) + ".");
    if (m.config.family == Family::Explicit) notes.push_back("Parameter count given explicitly (num_parameters).");
    for (const auto& a : job.assumptions) notes.push_back("Preset " + a + ".");
    return notes;
}

}  // namespace vramcalc
