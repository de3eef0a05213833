#include "serving/working_set.hpp"

#include <algorithm>

#include "hardware/gpus.hpp"
#include "text/errors.hpp"
#include "text/units.hpp"

namespace vramcalc {

std::string gib_text(double bytes) { return printf_text("%.2f GiB", bytes / kGiB); }
std::string mib_text(double bytes) { return printf_text("%.2f MiB", bytes / kMiB); }

int64_t need_dim(int64_t value, const char* field, const char* use) { return require_dimension(value, field, use); }

double layer_working_set(const Plan& p, double tokens, int64_t tp, double streams) {
    const ModelConfig& c = p.m.config;
    const double h = static_cast<double>(need_dim(c.hidden, "hidden_size", "the inference working set"));
    const double t = static_cast<double>(tp), bytes = p.compute.bits / 8;
    double mlp = 3 * static_cast<double>(c.intermediate > 0 ? c.intermediate : 4 * c.hidden) / t;
    if (c.is_moe()) {
        const double routed = static_cast<double>(c.experts_per_token) * (3 * static_cast<double>(c.moe_intermediate) / t + h);
        const double shared = 3 * static_cast<double>(c.moe_intermediate * c.shared_experts + c.shared_expert_intermediate) / t;
        mlp = std::max(routed + shared, c.dense_layers > 0 ? mlp : 0.0);
    }
    return tokens * (streams * h + mlp) * bytes;
}

double eager_scores(const Plan& p, double b, double s_q, double s_kv, int64_t tp, double bytes) {
    if (p.job.attention != Attention::Eager && p.job.attention != Attention::Unfused) return 0;
    const double a = static_cast<double>(need_dim(p.m.config.heads, "num_attention_heads", "attention scores"));
    return b * a / static_cast<double>(tp) * s_q * s_kv * bytes;
}

bool nvls_gpu(const Job& job) { return job.gpu == nullptr || (job.gpu->domain >= 4 && job.gpu->link_gbps >= 450); }

double graph_exec_bytes(const Plan& p, double layers, double captures) { return captures * layers * p.job.graph_layer_kib * 1024; }

double cublas_workspace_bytes(const Job& job) { return job.gpu_is_hopper ? 4096.0 * 8 * 1024 : 4096.0 * 1024 * 2 + 16.0 * 1024 * 8; }

double kv_for_batch(const Plan& p, const KvCost& k, int64_t seq, int64_t batch) {
    const int64_t share = p.job.dp_attention ? (batch + p.job.ep - 1) / p.job.ep : batch;
    return kv_bytes(p, k, seq, share);
}

std::string kv_why(const Plan& p, const KvCost& k, double bytes) {
    const Job& job = p.job;
    std::string why = "batch " + count_text(job.batch) + " × " + count_text(job.seq) + " tokens × " +
                      printf_text("%.1f", k.every_token() / 1024) + " KiB per token per GPU (" + p.kv->label + ")";
    if (k.state_seq > 0) why += " + " + gb_text(k.state_seq) + " of constant state per sequence (linear/SSM layers, or cross-attention keys and values of the image or the encoder's tokens)";
    const std::string w = window_policy_text(p);
    if (!w.empty()) why += "; " + w;
    if (job.dp_attention) why += "; data-parallel attention: each GPU holds 1/" + count_text(job.ep) + " of the sequences";
    return why + " = " + gb_text(bytes);
}

}  // namespace vramcalc
