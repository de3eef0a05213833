// Multi-LoRA serving (issue 36): the adapter slots an engine reserves at start.
// - vLLM (vllm/lora/layers/base_linear.py create_lora_weights): for every linear it wraps, per slice,
//   lora_a_stacked (max_loras, 1, max_lora_rank, in) and lora_b_stacked (max_loras, 1, out, max_lora_rank)
//   in lora_dtype (the model's); column-parallel layers (q, k, v, gate, up) split B's output over TP,
//   row-parallel ones (o, down) A's input. Routed experts get theirs per expert (lora/layers/fused_moe.py).
//   Adapters wait in a host-RAM cache of max_cpu_loras (default max_loras). (The punica kernels' shrink
//   output, slices × tokens × rank in fp32, is a temporary of a few MB: 3 × 8192 × 16 × 4 B = 1.5 MiB.)
// - SGLang (srt/lora/mem_pool.py LoRAMemoryPool): the same A and B buffers for max_loras_per_batch
//   adapters, allocated before the KV pool is sized.
// - llama.cpp (--lora): each adapter's A and B tensors, loaded whole (f16).
// - transformers + PEFT: the loaded adapters, likewise.
#include <algorithm>

#include "serving/extras.hpp"
#include "serving/working_set.hpp"
#include "text/units.hpp"

namespace vramcalc {
namespace {

bool row_parallel(const Tensor& t) { return (t.role & (kRoleO | kRoleDown)) != 0; }

}  // namespace

LoraSlots lora_slots(const Plan& p, const Layout& l, bool explain) {
    const Job& job = p.job;
    const LoraServing& ls = job.lora_serving;
    LoraSlots x;
    if (!ls.enable_lora) return x;
    const double r = static_cast<double>(ls.max_lora_rank), tp = static_cast<double>(l.tp), pp = static_cast<double>(l.pp);
    const bool llama = llama_cpp_like(job);
    const double B = llama ? 2 : p.compute.bits / 8;  // llama.cpp LoRA GGUFs are f16; vLLM / SGLang lora_dtype auto = the model's
    double per_adapter = 0, whole = 0;
    for (const Tensor& t : p.m.tensors) {
        if (!t.is_linear() || t.kind == TensorKind::Recurrent) continue;
        const double in = static_cast<double>(t.in), out = static_cast<double>(t.out), copies = static_cast<double>(t.copies);
        whole += r * (in + out) * copies;
        // This GPU's share: the split side over TP, the layers over PP.
        per_adapter += r * (row_parallel(t) ? in / tp + out : in + out / tp) * copies / pp;
    }
    const double slots = static_cast<double>(ls.max_loras);
    x.gpu = slots * per_adapter * B;
    const int64_t cached = ls.max_cpu_loras > 0 ? ls.max_cpu_loras : ls.max_loras;
    x.cpu = llama || job.engine == Engine::HfGenerate ? 0 : static_cast<double>(cached) * whole * B;
    if (explain) {
        const char* what = job.engine == Engine::Vllm    ? "vLLM LoRA slots"
                           : job.engine == Engine::Sglang ? "SGLang LoRA memory pool"
                           : llama                        ? "llama.cpp --lora adapters"
                                                          : "loaded LoRA adapters";
        x.why = std::string(what) + ": " + count_text(ls.max_loras) + (llama || job.engine == Engine::HfGenerate ? " adapters" : " slots") +
                " × rank " + count_text(ls.max_lora_rank) + " × (in + out) of every linear layer" + (tp > 1 ? " (split over TP)" : "") +
                " × " + plain_number(B) + " B = " + gb_text(x.gpu) +
                (x.cpu > 0 ? "; " + count_text(cached) + " adapters cached in host RAM (max_cpu_loras): " + gb_text(x.cpu) : "");
    }
    return x;
}

}  // namespace vramcalc
