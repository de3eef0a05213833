#include "cluster/dims.hpp"

#include "model/formats.hpp"

namespace vramcalc {

double compute_bytes(const Job& job) {
    return job.dtype->trainable ? job.dtype->bits / 8 : 2.0;
}

Dims dims_of(const Model& m, const Job& job) {
    const ModelConfig& c = m.config;
    const char* use = "the cluster planner (FLOPs and traffic per layer)";
    Dims d;
    d.layers = static_cast<double>(require_dimension(c.layers, "num_hidden_layers", use));
    d.hidden = static_cast<double>(require_dimension(c.hidden, "hidden_size", use));
    d.heads = static_cast<double>(require_dimension(c.heads, "num_attention_heads", use));
    if (c.is_mla()) {
        // DeepSeek-V2 paper §2.1: per head q·k over qk_nope + qk_rope dims, v of v_head_dim;
        // the cache holds one latent of kv_lora_rank + qk_rope_head_dim per token.
        d.qk_dim = static_cast<double>(c.qk_nope_head_dim + c.qk_rope_head_dim);
        d.v_dim = static_cast<double>(c.v_head_dim);
        d.kv_width = static_cast<double>(c.kv_lora_rank + c.qk_rope_head_dim);
        d.kv_heads = 1;
    } else {
        const double head_dim = c.head_dim > 0 ? static_cast<double>(c.head_dim) : d.hidden / d.heads;
        d.qk_dim = d.v_dim = head_dim;
        d.kv_heads = c.kv_heads > 0 ? static_cast<double>(c.kv_heads) : d.heads;
        d.kv_width = 2 * d.kv_heads * head_dim;
    }
    d.moe_layers = static_cast<double>(c.moe_layers());
    d.experts = static_cast<double>(c.experts);
    d.experts_per_token = static_cast<double>(c.experts_per_token);
    d.total_params = m.params.total;
    // The input embedding is a lookup, not a matmul (PaLM paper appendix B and torchtitan's
    // get_num_flop_per_token exclude it); an untied head is a real matmul. ParamCounts.embeddings
    // holds the table plus an untied head, so half of it is the table when the head is untied.
    const double input_table = c.tied_embeddings ? 0 : m.params.embeddings / 2;
    d.matmul_params = m.params.active - input_table;
    d.routed_params = sum_params(m.tensors, [](const Tensor& t) { return t.kind == TensorKind::RoutedExpert; });
    d.act_bytes = compute_bytes(job);
    return d;
}

}  // namespace vramcalc
