#include "job/layout.hpp"

#include <algorithm>

#include "text/errors.hpp"
#include "text/units.hpp"

namespace vramcalc {
namespace {
std::string count(int64_t n) { return std::to_string(n); }
}  // namespace

// vLLM and SGLang split attention heads across tensor-parallel ranks (vLLM
// config.py verify_with_parallel_config: num_attention_heads must be divisible
// by tensor_parallel_size) and keep TP inside one 8-GPU node, with pipeline
// stages across nodes (vLLM docs, "Distributed inference and serving").
int64_t inference_tp(const ModelConfig& c, int64_t n) {
    for (int64_t t = std::min<int64_t>(n, 8); t > 1; --t)
        if (n % t == 0 && (c.heads <= 0 || c.heads % t == 0)) return t;
    return 1;
}

// llama.cpp and Ollama split over `gpus` their own way (serving/llama_cpp.cpp): whole layers per
// GPU (-sm layer, llama.cpp's "pipeline parallelism": a stage per GPU), each layer's matrix rows
// over every GPU (-sm row, tensor-parallel-like; no head divisibility), or one GPU (-sm none).
bool llama_cpp_layout(const ModelConfig& c, const Job& job, int64_t n, int64_t& tp, int64_t& pp) {
    tp = pp = 1;
    // llama_max_devices() is 16 (the size of tensor_split): no split of more GPUs exists. Checked first, so
    // a planner asking about a million GPUs never lays a job over them (issue 37's bounded cost).
    if (n > kLlamaCppMaxDevices) return false;
    if (job.split_mode == SplitMode::None) return n == 1;
    if (job.split_mode == SplitMode::Row) return tp = n, true;
    pp = n;
    return c.layers <= 0 || n <= c.layers;
}

bool inference_layout_for(const ModelConfig& c, const Job& job, int64_t n, int64_t& tp, int64_t& pp) {
    if (llama_cpp_like(job)) return llama_cpp_layout(c, job, n, tp, pp);
    if (job.tp > 0 && job.pp > 0) tp = job.tp, pp = job.pp;
    else if (job.tp > 0) tp = job.tp, pp = n / job.tp;
    else if (job.pp > 0) pp = job.pp, tp = n / job.pp;
    else tp = inference_tp(c, n), pp = n / tp;
    return tp > 0 && pp > 0 && n % (tp * pp) == 0 && (c.heads <= 0 || c.heads % tp == 0) && (c.layers <= 0 || pp <= c.layers);
}

bool training_layout_for(const Job& job, int64_t n, int& zero) {
    const int64_t tp = job.tp > 0 ? job.tp : 1, pp = job.pp > 0 ? job.pp : 1;
    if (n % (tp * pp * job.cp) != 0) return false;
    zero = job.zero > 0 || n / (tp * pp) == 1 ? job.zero : 3;
    return true;
}

Layout resolve_layout(const ModelConfig& c, const Job& job) {
    Layout l;
    l.gpus = job.gpus;
    if (!trains(job) && llama_cpp_like(job)) {
        const bool ok = !llama_cpp_layout(c, job, job.gpus, l.tp, l.pp) ||
                        ((job.tp <= 1 || job.tp == l.tp) && (job.pp <= 1 || job.pp == l.pp));
        if (!ok)
            throw InputError(job.tp > 1 ? "job.tp" : "job.pp", "llama.cpp and Ollama split over gpus by split_mode (layer: "
                                                                "pp = gpus, row: tp = gpus), not by other tp and pp");
        if (!llama_cpp_layout(c, job, job.gpus, l.tp, l.pp))
            throw InputError("job.gpus", job.split_mode == SplitMode::None
                                             ? "split_mode none keeps the model on one GPU (main_gpu); set split_mode layer or row for " + count(job.gpus)
                                             : "more GPUs (" + count(job.gpus) + ") than layers (" + count(c.layers) + ") for split_mode layer");
        return l;
    }
    l.pp = job.pp > 0 ? job.pp : 1;
    l.cp = trains(job) ? job.cp : 1;
    if (job.tp > 0) l.tp = job.tp;
    else if (trains(job)) l.tp = 1;
    else if (job.pp > 0) l.tp = std::max<int64_t>(1, job.gpus / job.pp);  // pp 1 given: TP over every GPU
    else {
        // Inference with neither degree set: the layout the GPU table and the
        // fewest-GPUs answer use (TP ≤ 8 dividing the heads, stages across), so
        // every count they name is one this field accepts.
        l.tp = inference_tp(c, job.gpus);
        l.pp = job.gpus / l.tp;
        if (c.layers > 0 && l.pp > c.layers)
            throw InputError("job.gpus", "no layout for " + count(job.gpus) + " GPUs: tensor parallel " + count(l.tp) +
                                             " × " + count(l.pp) + " pipeline stages, more stages than the " +
                                             count(c.layers) + " layers; set tp and pp");
    }
    if (job.gpus % (l.tp * l.pp * l.cp) != 0)
        throw InputError("job.gpus", "must be a multiple of tp × pp" + std::string(l.cp > 1 ? " × cp" : "") + " (" +
                                         count(l.tp) + " × " + count(l.pp) + (l.cp > 1 ? " × " + count(l.cp) : "") +
                                         "), got " + count(job.gpus));
    l.dp = job.gpus / (l.tp * l.pp * l.cp);
    l.zero = trains(job) ? job.zero : 0;
    if (trains(job) && job.ep > 1) {
        // Megatron-Core parallel_state: the expert groups (EP × ETP) tile each pipeline stage's GPUs.
        const int64_t etp = job.etp > 0 ? job.etp : l.tp;
        if (c.experts <= 0) throw InputError("job.ep", "expert parallelism needs a mixture-of-experts model");
        if (c.experts % job.ep != 0)
            throw InputError("job.ep", "must divide the " + count(c.experts) + " routed experts, got " + count(job.ep));
        if ((job.gpus / l.pp) % (job.ep * etp) != 0)
            throw InputError("job.ep", "EP " + count(job.ep) + " × expert TP " + count(etp) + " must divide the " +
                                           count(job.gpus / l.pp) + " GPUs of a pipeline stage");
    }
    if (trains(job) && job.shard_degree > 0 && (l.dp * l.cp) % job.shard_degree != 0)
        throw InputError("job.shard_degree", "must divide the " + count(l.dp * l.cp) + " data- and context-parallel ranks (" +
                                                 count(l.dp) + " × CP " + count(l.cp) + "), got " + count(job.shard_degree));
    // Tensor parallelism splits attention heads evenly (Megatron, vLLM).
    if (c.heads > 0 && c.heads % l.tp != 0)
        throw InputError(job.tp > 0 ? "job.tp" : job.pp > 0 ? "job.pp" : "job.gpus",
                         "tensor parallel degree " + count(l.tp) + " must divide num_attention_heads (" +
                             count(c.heads) + ")" +
                             (job.tp > 0   ? ""
                              : job.pp > 0 ? " (the GPUs left per stage: " + count(job.gpus) + " / pp " + count(job.pp) +
                                                 "); choose another pp, or set tp"
                                           : "; set tp and pp to split differently"));
    if (c.layers > 0 && l.pp > c.layers)
        throw InputError("job.pp", "cannot exceed the number of layers (" + count(c.layers) + "), got " + count(l.pp));
    if (l.cp > job.seq) throw InputError("job.cp", "cannot exceed the sequence length (" + count(job.seq) + ")");
    return l;
}

std::string shard_text(const Layout& l, int zero_stage_needed, double per_gpu) {
    std::string parts;
    if (l.tp > 1) parts += "TP " + count(l.tp);
    if (l.pp > 1) parts += std::string(parts.empty() ? "" : " × ") + "PP " + count(l.pp);
    if (l.zero >= zero_stage_needed && l.dp * l.cp > 1)
        parts += std::string(parts.empty() ? "" : " × ") + "ZeRO-" + count(l.zero) + " over " + count(l.dp * l.cp);
    if (parts.empty()) return "";
    return ", ÷ " + plain_number(shard(l, zero_stage_needed)) + " (" + parts + ") = " + gb_text(per_gpu) + " per GPU";
}

}  // namespace vramcalc
