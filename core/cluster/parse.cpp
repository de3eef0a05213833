// Reading the "cluster" request object into typed values, once.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <cstring>

#include <nlohmann/json.hpp>

#include "cluster/calibration.hpp"
#include "cluster/cluster.hpp"
#include "cluster/fields.hpp"
#include "cluster/sustained.hpp"
#include "job/job.hpp"
#include "text/errors.hpp"
#include "model/formats.hpp"
#include "text/json_text.hpp"
#include "text/values.hpp"

namespace vramcalc {
namespace {

using nlohmann::json;

// The peak a matmul dtype runs at on this GPU; 0 when the vendor publishes none.
double peak_for(const Gpu& g, const std::string& dtype) {
    if (dtype == "fp32") return g.tflops_fp32;
    if (dtype == "tf32") return g.tflops_tf32;
    if (dtype == "bf16" || dtype == "fp16") return g.tflops_bf16;
    if (dtype == "fp8") return g.tflops_fp8;
    if (dtype == "fp4") return g.tflops_fp4;
    return 0;
}

// Matmuls run in the compute dtype: fp32 jobs at the FP32 peak, 16-bit ones at the
// BF16/FP16 tensor peak; fp8 weights at the FP8 peak where the GPU has one;
// integer and GGUF formats dequantize to 16-bit for the matmul.
std::string auto_dtype(const Job& job, const Gpu& g) {
    const std::string dtype = job.dtype->name;
    if (dtype == "fp32") return "fp32";
    if (dtype == "fp8" && g.tflops_fp8 > 0) return "fp8";
    return "bf16";
}

// How each framework runs a step, as the planner needs it: data, one row per framework, read once
// here (the terms never ask which framework runs). Frameworks without a row take the first.
struct StepPreset {
    Framework framework;
    AttnKernel attention;  // the attention kernel the framework calls
    const char* fp8;       // its recipe for matmul_dtype fp8
    bool fused;            // fused norm + residual, SwiGLU and loss kernels without torch.compile
    bool overlap_pp;       // interleaved-schedule sends overlapped with compute
    TpOverlap tp;          // which TP collectives hide, with and without the TP overlap switch
};
const StepPreset kStepPresets[] = {
    // torch (torchtitan, torchtune, HF): SDPA's flash backend is FlashAttention-2; torchao's
    // Float8LinearConfig defaults to tensorwise scaling; torch.distributed.pipelining waits on its sends.
    // TP: DTensor's collectives wait in line; async TP (torch/_inductor/fx_passes/micro_pipeline_tp.py)
    // fuses all-gather → matmul and matmul → reduce-scatter, which match in the forward graph and the
    // backward's all-gathers, but the backward's reduce-scatters take a sum of several matmuls and are not
    // fused ("there were only valid scaled_mm-reduce-scatter patterns in the forward graph, but not in the
    // backward graph": pytorch/pytorch#149946).
    {Framework::Custom, AttnKernel::Fa2, "tensorwise", false, false, {false, false}},
    // Megatron-LM / NeMo: Transformer Engine's fused attention (cuDNN), fp8 "hybrid" DelayedScaling,
    // TE's fused LayerNormLinear / SwiGLU / cross-entropy; overlap_p2p_comm is on with a virtual pipeline
    // (megatron/training/arguments.py --no-overlap-p2p-communication turns it off). TP: with sequence
    // parallelism "the reduce scatter of the input gradients is done asynchronously with the calculation of
    // the weight gradients" (Megatron-Core tensor_parallel LinearWithGradAccumulationAndAsyncCommunication),
    // and tp_comm_overlap (TE userbuffers) overlaps every TP all-gather and reduce-scatter, backward included.
    {Framework::Megatron, AttnKernel::Cudnn, "te_delayed", true, true, {true, true}},
};
const StepPreset& step_preset(Framework f) {
    for (const auto& p : kStepPresets)
        if (p.framework == f) return p;
    return kStepPresets[0];
}

// The cluster's fields and their kinds, for values given as text (CLI flags: core/api/job_text.cpp).
struct ClusterField {
    const char* name;
    ValueKind kind;
};
constexpr ValueKind N = ValueKind::Number, B = ValueKind::Boolean, T = ValueKind::Text;
const ClusterField kClusterFields[] = {
    {"gpu", T}, {"gpus", N}, {"fabric", T}, {"tflops", N}, {"memory_gib", N}, {"memory_tbps", N}, {"link_gbps", N},
    {"domain", N}, {"pcie_gbps", N}, {"gpus_per_node", N}, {"fabric_gbps", N}, {"layout", T}, {"global_batch", N},
    {"matmul_dtype", T}, {"compute_efficiency", N}, {"memory_efficiency", N}, {"link_efficiency", N}, {"overlap", N},
    {"latency_us", N}, {"grad_reduce_bytes", N}, {"overlap_tp", B}, {"overlap_ep", B}, {"tokens", N},
    {"price_per_gpu_hour", N}, {"concurrency", N}, {"prompt_tokens", N}, {"output_tokens", N}, {"fp8", T},
    {"fp8_all_gather", B}, {"attention", T}, {"fused", B}, {"schedule", T}, {"node_limit", N}, {"dispatch_bytes", N},
    {"power_w", N}, {"interference", N}, {"gap_fraction", N}, {"step_cpu_ms", N}, {"cuda_graphs", B},
};

std::string known_fields() {
    std::string names;
    for (const auto& f : kClusterFields) names += (names.empty() ? "" : ", ") + std::string(f.name);
    return names;
}

// A token count as people write one: a number (1e12), or text with a scale: "1T", "15e12", "1,000", "1.5
// trillion", "300B", "2.5 billion tokens", "800M" (thousands may be grouped with commas; a trailing "tokens" is
// allowed). The count must be a whole number of at least one token: 0.5, 0, "1e-400T" (which underflows to 0)
// are refused, as is anything else, naming the field.
double tokens_field(const json& v, const std::string& field) {
    constexpr double kMax = 1e18;
    const auto whole = [&](double tokens, const std::string& given) {
        if (!(tokens >= 1) || tokens > kMax)
            throw InputError(field, "must be between 1 token and 1e18 tokens (leave it out for no budget), got '" + short_text(given) + "'");
        if (tokens != std::floor(tokens))
            throw InputError(field, "must be a whole number of tokens, got '" + short_text(given) + "'");
        return tokens;
    };
    if (!v.is_string()) return whole(number_field(v, field, 0, kMax), describe_value(v));
    const std::string text = v.get<std::string>();
    const auto refuse = [&] {
        return InputError(field, "must be a number of tokens like 1T, 15e12, 1.5 trillion or 300B, got '" + short_text(text) + "'");
    };
    std::string t;
    for (char c : text) t += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    size_t i = 0;
    const auto digit = [&](size_t k) { return k < t.size() && t[k] >= '0' && t[k] <= '9'; };
    while (i < t.size() && t[i] == ' ') ++i;
    const size_t start = i;
    size_t digits = 0;
    while (digit(i) || (i < t.size() && t[i] == ',' && digit(i + 1))) digits += t[i] != ',', ++i;
    if (i < t.size() && t[i] == '.') {
        ++i;
        while (digit(i)) ++i, ++digits;
    }
    if (digits == 0) throw refuse();
    if (i + 1 < t.size() && t[i] == 'e' && (digit(i + 1) || ((t[i + 1] == '+' || t[i + 1] == '-') && digit(i + 2)))) {
        i += 2;
        while (digit(i)) ++i;
    }
    std::string number = t.substr(start, i - start);
    number.erase(std::remove(number.begin(), number.end(), ','), number.end());
    const double x = std::strtod(number.c_str(), nullptr);
    std::string rest = t.substr(i);
    rest.erase(0, rest.find_first_not_of(' '));
    for (const char* tail : {" tokens", "tokens", " token", "token"})
        if (rest.size() >= std::strlen(tail) && rest.compare(rest.size() - std::strlen(tail), std::string::npos, tail) == 0) {
            rest.resize(rest.size() - std::strlen(tail));
            break;
        }
    while (!rest.empty() && rest.back() == ' ') rest.pop_back();
    static const std::pair<const char*, double> kScales[] = {
        {"", 1},           {"k", 1e3},         {"thousand", 1e3}, {"m", 1e6},  {"mn", 1e6}, {"million", 1e6},
        {"b", 1e9},        {"bn", 1e9},        {"billion", 1e9},  {"t", 1e12}, {"tn", 1e12}, {"trillion", 1e12}};
    for (const auto& [name, scale] : kScales)
        if (rest == name) {
            // A scaled figure is rounded to whole tokens ("1.5e-3 T" is 1.5 billion), then checked.
            const double tokens = x * scale;
            return whole(scale > 1 && tokens >= 1 ? std::round(tokens) : tokens, text);
        }
    throw refuse();
}

// Efficiencies and the overlap window are shares of something that exists: (0, 1].
double fraction_field(const json& v, const std::string& field) {
    const double x = number_field(v, field, 0, 1);
    if (!(x > 0)) throw InputError(field, "must be above 0 and at most 1, got " + describe_value(v));
    return x;
}

// A board power limit in watts, (0, 5000].
double power_field(const json& v, const std::string& field) {
    const double w = number_field(v, field, 0, 5000);
    if (!(w > 0)) throw InputError(field, "must be a power limit above 0 W, got " + describe_value(v));
    return w;
}

Schedule find_schedule(const std::string& v) {
    if (v == "gpipe") return Schedule::GPipe;
    if (v == "1f1b") return Schedule::OneF1B;
    if (v == "interleaved") return Schedule::Interleaved;
    if (v == "zb" || v == "zero_bubble") return Schedule::ZeroBubble;
    if (v == "zbv") return Schedule::ZeroBubbleV;
    if (v == "dualpipe") return Schedule::DualPipe;
    throw InputError("cluster.schedule", "must be one of gpipe, 1f1b, interleaved, zb, zbv, dualpipe, got '" + short_text(v) + "'");
}

void read_layout(const json& v, ClusterRequest& r) {
    if (v.is_string() && v.get<std::string>() == "auto") {
        r.auto_layout = true;
        return;
    }
    if (!v.is_object()) throw InputError("cluster.layout", "must be \"auto\" or an object {tp, pp, cp, ep, zero, microbatches, virtual_stages}");
    r.auto_layout = false;
    Parallel& p = r.layout;
    p.microbatches = 0;  // 0 = from the global batch
    for (auto it = v.begin(); it != v.end(); ++it) {
        const std::string& key = it.key();
        const std::string field = "cluster.layout." + key;
        if (key == "tp") p.tp = whole_field(*it, field, 1, 1024);
        else if (key == "pp") p.pp = whole_field(*it, field, 1, 1024);
        else if (key == "cp") p.cp = whole_field(*it, field, 1, 1024);
        else if (key == "ep") p.ep = whole_field(*it, field, 1, 4096);
        else if (key == "zero") p.zero = static_cast<int>(whole_field(*it, field, 0, 3));
        else if (key == "microbatches") p.microbatches = whole_field(*it, field, 1, 1'000'000);
        else if (key == "virtual_stages") p.virtual_stages = whole_field(*it, field, 1, 64);
        else throw InputError(field, "unknown field; known: tp, pp, cp, ep, zero, microbatches, virtual_stages");
    }
}

}  // namespace

std::vector<const char*> cluster_field_names() {
    std::vector<const char*> names;
    for (const auto& f : kClusterFields) names.push_back(f.name);
    return names;
}

bool cluster_field_kind(const std::string& key, ValueKind& kind) {
    for (const auto& f : kClusterFields)
        if (key == f.name) {
            kind = f.kind;
            return true;
        }
    return false;
}

ClusterRequest parse_cluster(const json& j, const Job& job) {
    if (!j.is_object()) throw InputError("cluster", "must be a JSON object, got " + describe_value(j));
    ClusterRequest r;
    std::string fabric_id = "ib-ndr", dtype = "auto";
    if (j.contains("fabric")) fabric_id = text_field(j["fabric"], "cluster.fabric");
    // The cluster's GPU: the one given, else the job's own (job.gpu), else an H100.
    if (j.contains("gpu")) r.gpu = find_gpu(text_field(j["gpu"], "cluster.gpu"), "cluster.gpu");
    else r.gpu = job.gpu ? *job.gpu : find_gpu("h100", "cluster.gpu");
    r.fabric = find_fabric(fabric_id, "cluster.fabric");
    // The job's own parallel fields, when given, are the layout to time; the
    // cluster has as many GPUs as the job unless it says otherwise.
    r.gpus = job.gpus;
    r.layout.zero = job.zero;
    if (job.tp > 0 || job.pp > 0 || job.cp > 1 || job.zero > 0) {
        r.auto_layout = false;
        r.layout.tp = job.tp > 0 ? job.tp : 1;
        r.layout.pp = job.pp > 0 ? job.pp : 1;
        r.layout.cp = job.cp;
        r.layout.microbatches = 0;
    }
    double tflops = 0;
    // The job's fp8 recipe (its memory: memory/parallel.cpp) is the planner's default: torchao's
    // float8 linears run tensorwise (Float8LinearConfig's default), Transformer Engine's with the
    // framework's scaling (the step preset's, else delayed, TE's DelayedScaling default).
    std::string recipe = job.fp8 == Fp8::Torchao ? "tensorwise" : job.fp8 == Fp8::TransformerEngine ? "te" : "auto";
    std::string attention = "auto";
    r.fp8_all_gather = job.fp8_all_gather;
    int fused = -1;
    double gap = -1;
    r.assume.interference = overlap_slowdown();  // measured (cluster/sustained.cpp) unless the request sets one
    // Serving: the job's lengths and batch (issue 22): job.seq is prompt + generated, job.new_tokens the
    // generated part when set; concurrency the job's batch.
    if (!trains(job)) {
        if (job.new_tokens > 0 && job.new_tokens < job.seq) r.output_tokens = job.new_tokens;
        r.prompt_tokens = job.new_tokens > 0 && job.new_tokens < job.seq ? job.seq - job.new_tokens : job.seq;
        r.concurrency = job.batch;
    }
    for (auto it = j.begin(); it != j.end(); ++it) {
        const std::string& key = it.key();
        const json& v = *it;
        const std::string field = "cluster." + key;
        if (key == "gpu" || key == "fabric") continue;
        else if (key == "gpus") r.gpus = whole_field(v, field, 1, 1'000'000);
        else if (key == "tflops") tflops = number_field(v, field, 0.001, 1e6);
        else if (key == "memory_gib") r.gpu.memory_gib = number_field(v, field, 0.001, 1e6);
        else if (key == "memory_tbps") r.gpu.memory_tbps = number_field(v, field, 0.001, 1e4);
        else if (key == "link_gbps") r.gpu.link_gbps = number_field(v, field, 0.001, 1e6);
        else if (key == "domain") r.gpu.domain = static_cast<int>(whole_field(v, field, 1, 1'000'000));
        else if (key == "pcie_gbps") r.gpu.pcie_gbps = number_field(v, field, 0.001, 1e6);
        else if (key == "gpus_per_node") r.gpu.per_node = static_cast<int>(whole_field(v, field, 1, 1'000'000));
        else if (key == "fabric_gbps") r.fabric.gbit_per_gpu = number_field(v, field, 0.001, 1e6);
        else if (key == "layout") read_layout(v, r);
        else if (key == "global_batch") r.global_batch = whole_field(v, field, 1, 1'000'000'000);
        else if (key == "matmul_dtype") dtype = text_field(v, field);
        else if (key == "compute_efficiency") r.assume.compute_efficiency = fraction_field(v, field);
        else if (key == "memory_efficiency") r.assume.memory_efficiency = fraction_field(v, field);
        else if (key == "link_efficiency") r.assume.link_efficiency = fraction_field(v, field);
        else if (key == "overlap") r.assume.overlap = fraction_field(v, field);
        else if (key == "latency_us") r.assume.latency_us = number_field(v, field, 0, 1e6);
        else if (key == "power_w") r.assume.power_w = power_field(v, field);
        else if (key == "interference") r.assume.interference = number_field(v, field, 0, 1);
        else if (key == "gap_fraction") gap = number_field(v, field, 0, 10);
        else if (key == "step_cpu_ms") r.step_cpu_ms = number_field(v, field, 0, 1e4);
        else if (key == "cuda_graphs") r.cuda_graphs = bool_field(v, field) ? 1 : 0;
        else if (key == "overlap_tp") r.assume.overlap_tp = bool_field(v, field);
        else if (key == "overlap_ep") r.assume.overlap_ep = bool_field(v, field);
        else if (key == "grad_reduce_bytes") r.assume.grad_reduce_bytes = number_field(v, field, 1, 8);
        else if (key == "tokens") r.token_budget = tokens_field(v, field);
        else if (key == "price_per_gpu_hour") r.price_per_gpu_hour = number_field(v, field, 0, 1e6);
        else if (key == "concurrency") r.concurrency = whole_field(v, field, 1, 1'000'000), r.load_given = true;
        else if (key == "prompt_tokens") r.prompt_tokens = whole_field(v, field, 1, 100'000'000), r.load_given = true;
        else if (key == "output_tokens") r.output_tokens = whole_field(v, field, 1, 100'000'000), r.load_given = true;
        else if (key == "fp8") recipe = text_field(v, field);
        else if (key == "fp8_all_gather") r.fp8_all_gather = bool_field(v, field);
        else if (key == "attention") attention = text_field(v, field);
        else if (key == "fused") fused = bool_field(v, field) ? 1 : 0;
        else if (key == "schedule") r.schedule = find_schedule(text_field(v, field));
        else if (key == "node_limit") r.node_limit = whole_field(v, field, 1, 1'000'000);
        else if (key == "dispatch_bytes") r.dispatch_bytes = number_field(v, field, 0.5, 4);
        else throw InputError(field, "unknown field; known: " + known_fields());
    }
    // Serving with only the job's stages given: TP takes the rest of the GPUs, as the estimate
    // lays the job out (core/layout.cpp resolve_layout; pp 1 means TP over every GPU).
    if (!trains(job) && job.tp == 0 && job.pp > 0 && !j.contains("layout"))
        r.layout.tp = std::max<int64_t>(1, r.gpus / r.layout.pp);
    if (r.gpu.domain > 1 && !(r.gpu.link_gbps > 0))
        throw InputError("cluster.link_gbps", "this GPU has no scale-up link; set link_gbps with domain > 1");
    if (r.gpu.per_node > 1 && !(r.gpu.pcie_gbps > 0) && r.gpu.per_node > r.gpu.domain)
        throw InputError("cluster.pcie_gbps", "GPUs of a node outside the scale-up domain need pcie_gbps");
    if (dtype == "auto") dtype = auto_dtype(job, r.gpu);
    if (dtype != "fp32" && dtype != "tf32" && dtype != "bf16" && dtype != "fp16" && dtype != "fp8" && dtype != "fp4")
        throw InputError("cluster.matmul_dtype", "must be one of auto, fp32, tf32, bf16, fp16, fp8, fp4, got '" + short_text(dtype) + "'");
    // The linears' recipe: the one named, else the framework's for the dtype (its step preset above;
    // FP4: NVFP4 on NVIDIA, MXFP4 elsewhere).
    const StepPreset& preset = step_preset(job.framework);
    if (recipe == "te") recipe = std::string(preset.fp8).rfind("te_", 0) == 0 ? preset.fp8 : "te_delayed";
    if (recipe == "auto") {
        recipe = dtype == "fp8" ? preset.fp8
                 : dtype == "fp4" ? (std::string(r.gpu.vendor) == "NVIDIA" ? "nvfp4" : "mxfp4") : "none";
    }
    r.recipe = find_recipe(recipe, "cluster.fp8");
    if (r.recipe) dtype = r.recipe->fp4 ? "fp4" : "fp8";
    r.matmul_dtype = dtype;
    r.peak_tflops = tflops > 0 ? tflops : peak_for(r.gpu, dtype);
    if (!(r.peak_tflops > 0))
        throw InputError(j.contains("matmul_dtype") || j.contains("fp8") ? (j.contains("fp8") ? "cluster.fp8" : "cluster.matmul_dtype")
                                                                          : "cluster.tflops",
                         std::string(r.gpu.name) + " has no published " + dtype +
                             " peak; choose another matmul_dtype or give cluster.tflops");
    // `tflops` is the peak of the linears' dtype; the other peaks keep the catalog's ratios to it.
    const double catalog = peak_for(r.gpu, dtype);
    const double scale = tflops > 0 && catalog > 0 ? tflops / catalog : 1;
    r.peak16_tflops = r.recipe ? r.gpu.tflops_bf16 * scale : r.peak_tflops;
    const double low = r.recipe ? r.peak_tflops : 0;
    const AttnKernel attn = attention == "auto" ? preset.attention
                                                : find_attn_kernel(attention, "cluster.attention");
    r.attention = attn;
    r.fused = fused >= 0 ? fused == 1 : job.compile || preset.fused;
    r.overlap_pp = preset.overlap_pp;
    r.framework = job.framework;
    r.tp_overlap = preset.tp;
    if (r.assume.power_w > 0 && !(r.gpu.power_w > 0))
        throw InputError("cluster.power_w", std::string(r.gpu.name) + " lists no board power to scale its rates from");
    r.rates = rates_for(r.gpu, r.peak16_tflops, low, attn, r.assume.compute_efficiency, r.assume.power_w);
    // The fitted kernel-gap share of the job's framework (cluster/calibration.hpp), unless the request sets one.
    r.assume.gap_fraction = gap >= 0 ? gap : trains(job) ? fitted_gap_fraction(job.framework, r.fused) : 0;
    return r;
}

}  // namespace vramcalc
