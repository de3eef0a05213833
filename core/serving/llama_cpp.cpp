// llama.cpp and Ollama: GGUF weights tensor by tensor (serving/gguf.cpp), the
// -ngl offload, and the split of the offloaded layers over the job's GPUs.
#include <algorithm>
#include <cmath>

#include "serving/engines.hpp"
#include "serving/gguf.hpp"
#include "serving/serving.hpp"
#include "serving/working_set.hpp"
#include "text/errors.hpp"
#include "text/units.hpp"

namespace vramcalc {
namespace {

// ggml-backend.cpp ggml_backend_sched_new: n_copies = parallel ? GGML_SCHED_MAX_COPIES (4) : 1.
constexpr double kSchedCopies = 4;

// The GPUs of the split and each one's share: -ts as given, else each GPU's free memory
// (llama-model.cpp load_tensors: splits[i] = free memory of device i when tensor_split is all
// zero). Every GPU of a job is the same model, so their free memory is equal.
// The shares are the job's own GPUs' (parse_job checks there is one per GPU); another count (the
// GPU table, the fewest-GPUs answer) splits evenly.
std::vector<double> split_shares(const Job& job, int64_t devices) {
    if (job.tensor_split.empty() || static_cast<int64_t>(job.tensor_split.size()) != devices)
        return std::vector<double>(static_cast<size_t>(devices), 1.0 / static_cast<double>(devices));
    double sum = 0;
    for (double x : job.tensor_split) sum += x;
    std::vector<double> shares;
    for (double x : job.tensor_split) shares.push_back(x / sum);
    return shares;
}

// llama-model.cpp load_tensors, layer by layer: with act = min(ngl, n_layer + 1) and
// i_gpu_start = n_layer − (repeating layers offloaded), layer il goes to the first device
// whose cumulative share exceeds (il − i_gpu_start) / act; the output layer (offloaded when
// ngl > n_layer) sits at (act − 1) / act, the last device. Returns each device's index per layer.
// In float, as llama.cpp computes both (a layer exactly at a split point goes to the next GPU).
int64_t device_at(const std::vector<float>& cumulative, float position) {
    const auto it = std::upper_bound(cumulative.begin(), cumulative.end(), position);
    return std::min<int64_t>(static_cast<int64_t>(it - cumulative.begin()), static_cast<int64_t>(cumulative.size()) - 1);
}

// The ggml compute buffer of one device (ggml-alloc reserve of the worst-case ubatch graph, f32):
// the larger of one layer (3 hidden-size streams + either the attention scores
// n_head·n_ubatch·n_ctx, softmax in place (ggml-alloc.c ggml_op_can_inplace: SOFT_MAX), without
// flash attention, or the MLP's gate, up and product) and, on the output's device, the logits
// n_ubatch × vocab with the normed input. With pipeline parallelism (two or more GPUs, every
// layer offloaded, -sm layer: llama-context.cpp) each device keeps n_copies of its graph inputs:
// the hidden state and the KQ mask (f32, f16 with flash attention).
struct ComputeBuffer {
    double layer = 0, output = 0, inputs = 0;
};
ComputeBuffer compute_buffer(const Plan& p, bool pipeline) {
    const Job& job = p.job;
    const ModelConfig& c = p.m.config;
    const double ub = static_cast<double>(std::min<int64_t>(job.n_ubatch, job.seq * job.batch));
    const double h = static_cast<double>(c.hidden), n_ctx = static_cast<double>((job.seq * job.batch + 255) / 256 * 256);
    double I = static_cast<double>(c.intermediate);
    if (c.is_moe()) I = static_cast<double>(c.experts_per_token * c.moe_intermediate);
    const double scores = job.attention == Attention::Eager ? static_cast<double>(c.heads) * ub * n_ctx * 4 : 0;
    ComputeBuffer cb;
    cb.layer = 3 * ub * h * 4 + std::max(scores, 3 * ub * I * 4);
    cb.output = ub * static_cast<double>(c.vocab) * 4 + ub * h * 4;
    const double mask = job.attention == Attention::Eager ? 4 : 2;
    if (pipeline) cb.inputs = kSchedCopies * (ub * h * 4 + ub * n_ctx * mask);
    return cb;
}

// Where the offloaded layers, their KV and compute buffers land over `devices` GPUs.
struct Placement {
    std::vector<DeviceShare> d;
    double cpu = 0, kv_cpu = 0;
    size_t full = 0;  // the fullest GPU
};
Placement place(const Plan& p, const Layout& l, const GgufWeights& g, int64_t devices, int64_t ngl, const ComputeBuffer& cb_single,
                const ComputeBuffer& cb_pipeline) {
    const Job& job = p.job;
    const int64_t L = p.m.config.layers, gpu_layers = std::min<int64_t>(ngl, L);
    const bool output_on_gpu = ngl > L, row = job.split_mode == SplitMode::Row && devices > 1;
    const std::vector<double> shares = split_shares(job, devices);
    // llama-model.cpp: the shares summed into split points and normalised, in float.
    std::vector<float> cumulative(shares.size());
    float acc = 0, sum = 0;
    for (double x : job.tensor_split.size() == shares.size() ? job.tensor_split : shares) sum += static_cast<float>(x);
    size_t i = 0;
    for (double x : job.tensor_split.size() == shares.size() ? job.tensor_split : shares) cumulative[i++] = acc += static_cast<float>(x);
    for (float& x : cumulative) x /= sum;
    Placement r;
    r.d.resize(static_cast<size_t>(devices));
    for (size_t i = 0; i < r.d.size(); ++i) r.d[i].share = shares[i];
    const int64_t i_gpu_start = L - gpu_layers;
    const float act = static_cast<float>(std::min<int64_t>(ngl, L + 1));
    r.cpu = g.token_embd;
    for (int64_t i = 0; i < L; ++i) {
        const size_t li = static_cast<size_t>(i);
        const double e = experts_in_ram(job, i) ? g.experts[li] : 0;
        const double layer = g.layer[li] - e;
        r.cpu += e;
        if (i < i_gpu_start) {
            r.cpu += layer;
            continue;
        }
        DeviceShare& at = r.d[static_cast<size_t>(device_at(cumulative, static_cast<float>(i - i_gpu_start) / act))];
        at.layers += 1;
        if (!row) {
            at.weights += layer;
            continue;
        }
        const double experts = g.experts[li] - e;  // MUL_MAT_ID tensors are not row-split
        for (size_t k = 0; k < r.d.size(); ++k) r.d[k].weights += (layer - experts) * shares[k];
        at.weights += experts;
    }
    if (output_on_gpu) {
        DeviceShare& out = r.d[static_cast<size_t>(device_at(cumulative, (act - 1) / act))];
        out.weights += g.output;
        out.output = true;
    } else {
        r.cpu += g.output;
    }
    // KV and compute buffers follow the layers (heads are not split: a layout with TP 1).
    Layout one = l;
    one.tp = 1;
    const bool pipeline = devices > 1 && output_on_gpu && job.split_mode == SplitMode::Layer;
    const ComputeBuffer& cb = pipeline ? cb_pipeline : cb_single;
    const double Ld = static_cast<double>(L);
    for (DeviceShare& x : r.d) {
        x.kv = kv_bytes(p, kv_cost(p, one, static_cast<double>(x.layers) / Ld), job.seq, job.batch);
        const double own = std::max(x.output ? cb.output : 0.0, x.layers > 0 ? cb.layer : 0.0);
        x.compute_buffer = own > 0 ? own + cb.inputs : 0;
        x.overhead = job.overhead_gb * kBytesPerGB;
    }
    r.kv_cpu = kv_bytes(p, kv_cost(p, one, static_cast<double>(L - gpu_layers) / Ld), job.seq, job.batch);
    for (size_t i = 1; i < r.d.size(); ++i)
        if (r.d[i].total() > r.d[r.full].total()) r.full = i;
    return r;
}

// With op offload (mainline llama.cpp, batches of 32 or more), a matrix whose weights stay in host memory
// is copied into the GPU's compute buffer before its op runs (ggml-backend.cpp ggml_backend_sched splits
// the graph; ggml-cuda.cu offload_op): the buffer holds the largest such copy beside the MoE op's own
// activations (MUL_MAT_ID gathers each token's k rows of the input and of the output, f32). Routed experts
// are three stacked tensors (gate, up, down: the largest taken as a third of the layer's experts); a
// dense layer left on the CPU sends its largest matrix, the MLP's h × I. The measured Qwen3-235B Q8_0
// run with 81 layers' experts in RAM logs 1024 MiB here (LOC-A03), 312.75 without the copy (ik_llama.cpp).
double offload_copy_bytes(const Plan& p, const GgufWeights& g, int64_t gpu_start) {
    const Job& job = p.job;
    const ModelConfig& c = p.m.config;
    if (!job.op_offload || job.n_ubatch < 32) return 0;
    double largest = 0;
    const double per_param = g.total() / std::max(1.0, p.m.params.total);
    for (int64_t i = 0; i < c.layers; ++i) {
        const size_t li = static_cast<size_t>(i);
        if (i < gpu_start)
            largest = std::max(largest, static_cast<double>(c.hidden) * static_cast<double>(c.is_moe() ? c.moe_intermediate : c.intermediate) *
                                            per_param);
        if (experts_in_ram(job, i) || i < gpu_start) largest = std::max(largest, g.experts[li] / 3);
    }
    if (largest <= 0) return 0;
    const double ub = static_cast<double>(std::min<int64_t>(job.n_ubatch, job.seq * job.batch));
    const double k = static_cast<double>(std::max<int64_t>(1, c.experts_per_token));
    const double acts = c.is_moe() ? ub * (static_cast<double>(c.hidden) * k + 3 * k * static_cast<double>(c.moe_intermediate)) * 4 : 0;
    return largest + acts;
}

}  // namespace

bool experts_in_ram(const Job& job, int64_t layer) { return job.experts_on_cpu || layer < job.n_cpu_moe; }

// llama.cpp: weights by GGUF per-tensor types; -ngl puts the last n layers on the GPUs
// (i_gpu_start = n_layer − n_gpu_layers; the output too when n_gpu_layers > n_layer);
// token_embd stays in host memory ("very little benefit to offloading the input layer");
// each layer's KV lives with it (llama-kv-cache.cpp: the buffer type of dev_layer(il)).
// Several GPUs: -sm layer gives each whole layers by share; -sm row splits each offloaded
// layer's matrices by share (CUDAx_Split buffers, ggml-cuda.cu split buffer type) while its KV,
// norms and routed experts stay on the layer's device (PR #10026); -sm none keeps all on -mg.
// Ollama: the same runner, placed by its scheduler: one GPU when one holds the model
// (server/sched.go, unless OLLAMA_SCHED_SPREAD), else every GPU with layers dealt evenly
// (llm/memory.go EstimateGPULayers: round robin over the GPUs with space).
void llama_cpp_terms(const Plan& p, const Layout& l, Breakdown& b, ServingInfo& s, bool explain) {
    const Job& job = p.job;
    const ModelConfig& c = p.m.config;
    const GgufWeights& g = gguf_weights(p);
    const int64_t L = c.layers;
    // No GPU (issue 32): every layer in RAM, as -ngl 0.
    const int64_t ngl = job.machine.cpu_only ? 0 : job.n_gpu_layers < 0 ? L + 1 : std::min<int64_t>(job.n_gpu_layers, L + 1);
    s.layers = L;
    s.gpu_layers = std::min<int64_t>(ngl, L);
    const bool output_on_gpu = ngl > L;
    int64_t devices = job.split_mode == SplitMode::Layer ? l.pp : job.split_mode == SplitMode::Row ? l.tp : 1;
    if (job.main_gpu >= job.gpus) throw InputError("job.main_gpu", "must be below gpus (" + count_text(job.gpus) + ")");
    if (job.n_cpu_moe > 0 && !c.is_moe())
        throw InputError("job.n_cpu_moe", "moves the routed experts of mixture-of-experts layers to RAM; this model is dense "
                                          "(use n_gpu_layers to keep layers in RAM)");
    if (job.n_cpu_moe > L)
        throw InputError("job.n_cpu_moe", "must be at most the model's " + count_text(L) + " layers, got " + count_text(job.n_cpu_moe));
    ComputeBuffer single = compute_buffer(p, false), pipeline = compute_buffer(p, true);
    const double copy = job.machine.cpu_only ? 0 : offload_copy_bytes(p, g, L - std::min<int64_t>(ngl, L));
    single.layer = std::max(single.layer, copy);
    pipeline.layer = std::max(pipeline.layer, copy);
    s.offload_copy = copy;
    Placement r = place(p, l, g, devices, ngl, single, pipeline);
    bool one_holds_it = false;
    if (job.engine == Engine::Ollama && !job.ollama_spread && devices > 1 && job.tensor_split.empty()) {
        Placement alone = place(p, l, g, 1, ngl, single, pipeline);
        if (s.device <= 0 || alone.d[0].total() <= s.device) r = std::move(alone), devices = 1, one_holds_it = true;
    }
    const std::vector<DeviceShare>& d = r.d;
    const size_t full = r.full;
    const DeviceShare& f = d[full];
    const ComputeBuffer& cb = devices > 1 && output_on_gpu && job.split_mode == SplitMode::Layer ? pipeline : single;
    const double cpu = r.cpu, kv_cpu = r.kv_cpu;
    Layout one = l;
    one.tp = 1;
    const double Ld = static_cast<double>(L);
    s.compute_buffer = f.compute_buffer;
    s.cpu_bytes = cpu + kv_cpu + (output_on_gpu ? 0 : cb.output);
    s.cpu_weights = cpu;
    s.weights_mix = g.mix;
    s.kv_needed = kv_cpu;
    for (const DeviceShare& x : d) s.kv_needed += x.kv;
    if (d.size() > 1 || job.gpus > 1) s.devices = d;
    b.bytes[kWeights] = f.weights;
    b.bytes[kKvCache] = f.kv;
    b.bytes[kBuffers] = f.compute_buffer;
    b.bytes[kActivations] = 0;
    b.bytes[kOverhead] = f.overhead;
    if (job.machine.cpu_only) {
        // The answer is the RAM: weights, KV and the CPU's compute buffer, no CUDA context.
        b.bytes[kWeights] = cpu;
        b.bytes[kKvCache] = kv_cpu;
        b.bytes[kBuffers] = std::max(cb.output, cb.layer);
        b.bytes[kOverhead] = 0;
        s.cpu_bytes = b.total();
        s.compute_buffer = b.bytes[kBuffers];
    }
    std::string layers;
    for (const DeviceShare& x : d) layers += (layers.empty() ? "" : " + ") + count_text(x.layers) + (x.output ? "+out" : "");
    s.split = devices == 1 && job.gpus > 1
                  ? (one_holds_it ? "Ollama's scheduler: one GPU holds the model, the other " + count_text(job.gpus - 1) +
                                        " stay free (OLLAMA_SCHED_SPREAD spreads it)"
                                  : "-sm none: every offloaded layer on GPU " + count_text(job.main_gpu))
              : devices > 1 ? std::string("-sm ") + split_mode_name(job.split_mode) + " over " + count_text(devices) +
                                  " GPUs: " + layers + " layers (GPU " + count_text(static_cast<int64_t>(full)) + " is the fullest)"
                            : "";
    if (explain) {
        const std::string where = d.size() > 1 ? " on GPU " + count_text(static_cast<int64_t>(full)) + " (the fullest of " +
                                                     count_text(static_cast<int64_t>(d.size())) + ")"
                                               : " on the GPU";
        b.why[kWeights] = (p.exact ? "as stored in the " + p.m.exact.source : std::string(p.weights.label)) + " per tensor (" +
                          g.mix + ", " + printf_text("%.2f", g.total() * 8 / p.m.params.total) + " bits/weight, " +
                          gib_text(g.total()) + "): " + count_text(s.gpu_layers) + "/" + count_text(L) + " layers" +
                          (output_on_gpu ? " + output" : "") + " offloaded" + (s.split.empty() ? "" : " (" + s.split + ")") +
                          "; token_embd " + mib_text(g.token_embd) + " in host memory" +
                          (job.experts_on_cpu ? "; routed experts in host memory (--cpu-moe, -ot exps=CPU)"
                           : job.n_cpu_moe > 0 ? "; routed experts of the first " + count_text(job.n_cpu_moe) + " layers in host memory (--n-cpu-moe " +
                                                     count_text(job.n_cpu_moe) + ")"
                                               : "") +
                          "; " + count_text(f.layers) + (f.output ? " layers + output" : " layers") + where + " = " + mib_text(f.weights);
        b.why[kKvCache] = kv_why(p, kv_cost(p, one, static_cast<double>(f.layers) / Ld), f.kv) + where +
                          (kv_cpu > 0 ? "; " + gib_text(kv_cpu) + " with the CPU layers" : "");
        b.why[kBuffers] = "ggml compute buffer for n_ubatch " + count_text(job.n_ubatch) + where + ": max(" +
                          (f.output ? "output logits " + mib_text(cb.output) + ", " : "") + "one layer " + mib_text(cb.layer) +
                          (job.attention == Attention::Eager ? " incl. attention scores" : " (flash attention)") + ")" +
                          (cb.inputs > 0 ? " + 4 copies of its inputs for pipeline parallelism " + mib_text(cb.inputs) : "") +
                          (copy > 0 && copy >= cb.layer ? "; the layer's figure is the copy of the largest weight matrix kept in RAM, which "
                                                          "runs on the GPU at batches of 32+ (op offload), with the MoE op's activations"
                                                        : "");
        b.why[kActivations] = "none beyond the compute buffer";
        b.why[kOverhead] = "CUDA context " + gb_text(f.overhead);
        if (job.machine.cpu_only) {
            b.why[kWeights] = std::string(p.weights.label) + " per tensor (" + g.mix + "), every layer in system RAM (no GPU) = " +
                              gib_text(cpu);
            b.why[kKvCache] = kv_why(p, kv_cost(p, one, 1.0), kv_cpu) + " in system RAM";
            b.why[kBuffers] = "the CPU's ggml compute buffer for n_ubatch " + count_text(job.n_ubatch) + ": " + mib_text(b.bytes[kBuffers]);
            b.why[kOverhead] = "none: no GPU";
        }
    }
}

}  // namespace vramcalc
