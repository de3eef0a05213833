// The 2025-26 architectures (issue 35), each read from its own config keys after the family's
// shared reading (config.cpp, config_arch.cpp). Tensor facts from transformers' modeling code
// (models/<type>/modeling_<type>.py) and the releases' own inference code, cited per type.
#include <nlohmann/json.hpp>

#include "model/config_arch.hpp"
#include "model/config_read.hpp"

namespace vramcalc {
namespace {

using nlohmann::json;
using namespace cfg;

bool starts_with(const std::string& s, const char* prefix) { return s.rfind(prefix, 0) == 0; }

// DeepSeek Sparse Attention's lightning indexer (DeepSeek-V3.2 inference/model.py class Indexer;
// transformers models/deepseek_v32, glm_moe_dsa): per layer wq_b (q_lora_rank -> index_n_heads ·
// index_head_dim), wk (hidden -> index_head_dim), k_norm (LayerNorm: weight + bias) and
// weights_proj (hidden -> index_n_heads). Its key cache: core/memory/kv.cpp.
void read_indexer(const json& c, ModelConfig& m) {
    m.indexer_heads = read_count(c, {"index_n_heads"}, kMaxHeads, true);
    m.indexer_head_dim = read_count(c, {"index_head_dim"}, kMaxHidden, true);
}

}  // namespace

void apply_recent_architecture(const json& c, ModelConfig& m) {
    const std::string& t = m.model_type;
    // Seed-OSS (transformers models/seed_oss/modeling_seed_oss.py SeedOssAttention): q, k, v carry
    // attention_bias, o_proj attention_out_bias, the MLP mlp_bias.
    if (t == "seed_oss") {
        m.attn_output_bias = read_bool(c, "attention_out_bias", false);
        m.mlp_bias = read_bool(c, "mlp_bias", false);
    }
    // OLMo 3 (models/olmo3/modeling_olmo3.py): OLMo 2's block (q_norm over heads · head_dim, k_norm
    // over kv heads · head_dim, post-norms only) with 3 sliding-window layers to 1 full.
    if (t == "olmo3") m.qk_norm_full = true;
    // MiniMax-M2 (models/minimax_m2/modular_minimax_m2.py): FlexOlmo attention, whose q_norm / k_norm
    // span the whole projection; Mixtral experts of intermediate_size; a sigmoid router with an
    // e_score_correction_bias per expert.
    if (t == "minimax_m2") {
        m.qk_norm = read_bool(c, "use_qk_norm", true);
        m.qk_norm_full = m.qk_norm;
        m.router_bias = true;
    }
    // GLM-4.7-Flash (glm4_moe_lite), DeepSeek-V3.2 and GLM-5: DeepSeek-V3's MLA + MoE block with the
    // e_score_correction_bias; V3.2 and GLM-5 add the DSA indexer.
    if (t == "glm4_moe_lite" || t == "deepseek_v32" || t == "glm_moe_dsa") m.router_bias = true;
    if (t == "deepseek_v32") m.fp32_router = true;  // DeepSeek-V3's router code
    if (t == "deepseek_v32" || t == "glm_moe_dsa") read_indexer(c, m);
    // Qwen3.5 (models/qwen3_5/modular_qwen3_5.py): Qwen3-Next's hybrid stack; the full-attention
    // layers' q_proj also emits the sigmoid output gate unless attn_output_gate is false.
    if (starts_with(t, "qwen3_5")) m.attn_output_gate = read_bool(c, "attn_output_gate", true);
    if (t == "qwen3_5_moe_text") m.shared_expert_gate = true;
}

}  // namespace vramcalc
