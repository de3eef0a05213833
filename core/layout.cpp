#include "layout.hpp"

#include <algorithm>

#include "errors.hpp"
#include "units.hpp"

namespace vramcalc {
namespace {
std::string count(int64_t n) { return std::to_string(n); }
}  // namespace

Layout resolve_layout(const ModelConfig& c, const Job& job) {
    Layout l;
    l.gpus = job.gpus;
    l.pp = job.pp;
    l.cp = trains(job) ? job.cp : 1;
    l.tp = job.tp > 0 ? job.tp : (trains(job) ? 1 : std::max<int64_t>(1, job.gpus / job.pp));
    if (job.gpus % (l.tp * l.pp * l.cp) != 0)
        throw InputError("job.gpus", "must be a multiple of tp × pp" + std::string(l.cp > 1 ? " × cp" : "") + " (" +
                                         count(l.tp) + " × " + count(l.pp) + (l.cp > 1 ? " × " + count(l.cp) : "") +
                                         "), got " + count(job.gpus));
    l.dp = job.gpus / (l.tp * l.pp * l.cp);
    l.zero = trains(job) ? job.zero : 0;
    // Tensor parallelism splits attention heads evenly (Megatron, vLLM).
    if (c.heads > 0 && c.heads % l.tp != 0)
        throw InputError(job.tp > 0 ? "job.tp" : "job.gpus",
                         "tensor parallel degree " + count(l.tp) + " must divide num_attention_heads (" +
                             count(c.heads) + ")" + (job.tp > 0 ? "" : "; set tp and pp to split differently"));
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
