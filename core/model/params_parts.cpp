#include "model/params_parts.hpp"

#include <cstring>

namespace vramcalc {
namespace {

// Mamba-1 mixer, transformers models/mamba/modeling_mamba.py MambaMixer
// (Gu & Dao 2023, arXiv:2312.00752 §3): in_proj h -> 2·d_inner (x and gate z),
// depthwise conv1d (d_inner × d_conv + bias), x_proj d_inner -> dt_rank + 2·N
// (Δ, B, C), dt_proj dt_rank -> d_inner (+ bias), A_log d_inner × N, D d_inner,
// out_proj d_inner -> h. Jamba adds RMSNorms on Δ, B and C (dt/b/c_layernorm).
void mamba1(const ModelConfig& c, int64_t L, TensorList& t) {
    const RecurrentDims& r = c.recurrent;
    const int64_t di = r.d_inner, N = r.d_state;
    t.add("in_proj", TensorKind::Recurrent, c.hidden, 2 * di, L);
    t.vector("conv1d.weight", di * r.d_conv, L);
    t.vector("conv1d.bias", di, L);
    t.add("x_proj", TensorKind::Recurrent, di, r.dt_rank + 2 * N, L);
    t.add("dt_proj", TensorKind::Recurrent, r.dt_rank, di, L);
    t.vector("dt_proj.bias", di, L);
    t.vector("A_log", di * N, L);
    t.vector("D", di, L);
    t.add("out_proj", TensorKind::Recurrent, di, c.hidden, L);
    if (c.model_type == "jamba") {
        t.vector("dt_layernorm", r.dt_rank, L);
        t.vector("b_layernorm", N, L);
        t.vector("c_layernorm", N, L);
    }
}

// Mamba-2 (SSD) mixer, transformers models/mamba2/modeling_mamba2.py
// Mamba2Mixer (Dao & Gu 2024, arXiv:2405.21060 §7): in_proj h -> 2·d_inner +
// 2·G·N + H (z, x, B, C, dt), conv1d over x, B, C (conv_dim × d_conv + bias),
// dt_bias, A_log and D per head, a gated RMSNorm over d_inner, out_proj.
void mamba2(const ModelConfig& c, int64_t L, TensorList& t) {
    const RecurrentDims& r = c.recurrent;
    const int64_t di = r.d_inner, GN = r.groups * r.d_state, conv_dim = di + 2 * GN;
    t.add("in_proj", TensorKind::Recurrent, c.hidden, 2 * di + 2 * GN + r.heads, L);
    t.vector("conv1d.weight", conv_dim * r.d_conv, L);
    t.vector("conv1d.bias", conv_dim, L);
    t.vector("dt_bias", r.heads, L);
    t.vector("A_log", r.heads, L);
    t.vector("D", r.heads, L);
    if (c.mamba_norm) t.vector("mixer.norm", di, L);
    t.add("out_proj", TensorKind::Recurrent, di, c.hidden, L);
}

// Gated DeltaNet, transformers models/qwen3_next/modeling_qwen3_next.py
// Qwen3NextGatedDeltaNet (Yang et al. 2024, arXiv:2412.06464):
// in_proj_qkvz h -> 2·key_dim + 2·value_dim, in_proj_ba h -> 2·v_heads,
// conv1d over q, k, v ((2·key_dim + value_dim) × kernel, no bias), dt_bias and
// A_log per value head, gated RMSNorm over one value head, out_proj.
void gated_deltanet(const ModelConfig& c, int64_t L, TensorList& t) {
    const RecurrentDims& r = c.recurrent;
    const int64_t kd = r.key_dim, vd = r.d_inner;
    if (c.model_type.rfind("qwen3_5", 0) == 0) {
        // Qwen3.5 (transformers models/qwen3_5 Qwen3_5GatedDeltaNet) splits the same projections:
        // in_proj_qkv, in_proj_z, in_proj_b, in_proj_a.
        t.add("in_proj_qkv", TensorKind::Recurrent, c.hidden, 2 * kd + vd, L);
        t.add("in_proj_z", TensorKind::Recurrent, c.hidden, vd, L);
        t.add("in_proj_b", TensorKind::Recurrent, c.hidden, r.heads, L);
        t.add("in_proj_a", TensorKind::Recurrent, c.hidden, r.heads, L);
    } else {
        t.add("in_proj_qkvz", TensorKind::Recurrent, c.hidden, 2 * kd + 2 * vd, L);
        t.add("in_proj_ba", TensorKind::Recurrent, c.hidden, 2 * r.heads, L);
    }
    t.vector("conv1d.weight", (2 * kd + vd) * r.d_conv, L);
    t.vector("dt_bias", r.heads, L);
    t.vector("A_log", r.heads, L);
    t.vector("linear_attn.norm", r.head_dim, L);
    t.add("out_proj", TensorKind::Recurrent, vd, c.hidden, L);
}

// Lightning attention, transformers models/minimax/modeling_minimax.py
// MiniMaxLightningAttention (MiniMax-01 report, arXiv:2501.08313 §2.2):
// fused qkv_proj h -> 3·H·d, output_gate h -> H·d, RMSNorm over H·d, out_proj.
void lightning(const ModelConfig& c, int64_t L, TensorList& t) {
    const int64_t w = c.recurrent.heads * c.recurrent.head_dim;
    t.add("qkv_proj", TensorKind::Recurrent, c.hidden, 3 * w, L);
    t.add("output_gate", TensorKind::Recurrent, c.hidden, w, L);
    t.vector("linear_attn.norm", w, L);
    t.add("out_proj", TensorKind::Recurrent, w, c.hidden, L);
}

// One ViT encoder block set: q, k, v, o and fc1/fc2 (or SwiGLU), with biases,
// and two norms per layer (LayerNorm weight + bias, or RMSNorm weight).
void vit_layers(const VisionTower& v, int64_t L, TensorList& t) {
    const int64_t h = v.hidden, norm = v.rms_norm ? h : 2 * h;
    t.add("vision.qkv", TensorKind::Vision, h, 3 * h, L);
    if (v.attn_bias) t.vector("vision.qkv.bias", 3 * h, L);
    t.add("vision.attn_out", TensorKind::Vision, h, h, L);
    if (v.attn_bias) t.vector("vision.attn_out.bias", h, L);
    const int64_t up = v.gated_mlp ? 2 : 1;  // gate + up, each with a bias
    t.add("vision.fc1", TensorKind::Vision, h, up * v.intermediate, L);
    if (v.mlp_bias) t.vector("vision.fc1.bias", up * v.intermediate, L);
    t.add("vision.fc2", TensorKind::Vision, v.intermediate, h, L);
    if (v.mlp_bias) t.vector("vision.fc2.bias", h, L);
    t.vector("vision.layer_norms", 2 * norm, L);
}

void vector_vision(const char* name, int64_t length, TensorList& t) {
    t.add(name, TensorKind::Vision, 1, length, 1);
}

}  // namespace

void recurrent_mixer(const ModelConfig& c, int64_t layers, TensorList& t) {
    if (layers <= 0) return;
    if (c.recurrent_mixer == Mixer::Mamba) {
        if (c.mamba2)
            mamba2(c, layers, t);
        else
            mamba1(c, layers, t);
    } else if (c.linear_attention_kind == 1) {
        gated_deltanet(c, layers, t);
    } else {
        lightning(c, layers, t);
    }
}

// Vision encoders, each after its transformers implementation:
// - siglip (Gemma 3; models/siglip/modeling_siglip.py): conv patch embedding
//   with bias, learned positions (image/patch)², LayerNorm blocks, post_layernorm;
//   Gemma 3 projector (models/gemma3/modeling_gemma3.py Gemma3MultiModalProjector):
//   mm_input_projection_weight vision_hidden × text_hidden + mm_soft_emb_norm.
// - clip (LLaVA; models/clip/modeling_clip.py): conv patch embedding without
//   bias, class embedding, positions (patches + 1), pre- and post-LayerNorm;
//   LLaVA projector linear(vision, text) + GELU + linear(text, text), biases.
// - qwen2_5_vl (models/qwen2_5_vl/modeling_qwen2_5_vl.py): conv3d patch
//   embedding (temporal patch 2, no bias), rotary positions, RMSNorm blocks with
//   SwiGLU MLP, merger: RMSNorm + linear(4h, 4h) + GELU + linear(4h, out).
// - llama4 (models/llama4/modeling_llama4.py): linear patch embedding (no bias),
//   class embedding, positions (patches + 1), LayerNorm pre/post, pixel-shuffle
//   adapter MLP (projector_in/ratio² -> projector_out -> projector_out, no
//   bias) and multi_modal_projector (projector_out -> text hidden, no bias).
// - qwen3_vl and pixtral: core/model/config_vision.cpp names their layouts.
void vision_tower(const ModelConfig& c, TensorList& t) {
    const VisionTower& v = c.vision;
    if (!v.has()) return;
    const int64_t h = v.hidden, patch_in = v.channels * v.temporal_patch * v.patch * v.patch;
    vit_layers(v, v.layers, t);
    if (v.kind == "mllama") {
        vit_layers(v, v.global_layers, t);
        vector_vision("vision.global_gates", 2 * v.global_layers, t);  // gate_attn, gate_ffn
        t.add("vision.patch_embedding", TensorKind::Vision, patch_in, h, 1);
        vector_vision("vision.class_embedding", h, t);
        t.add("vision.gated_positional_embedding", TensorKind::Vision, v.positions, h, 1);
        t.add("vision.tile_embedding", TensorKind::Vision, v.aspect_ratios + 1, v.tiles * v.positions * h, 1);
        t.add("vision.tile_positional_embeddings", TensorKind::Vision, v.aspect_ratios + 1, 2 * v.tiles * h, 1);  // pre + post
        vector_vision("vision.positional_gates", 3, t);
        vector_vision("vision.layernorm_pre_post", 4 * h, t);
        t.add("multi_modal_projector", TensorKind::Vision, v.projector_in, c.hidden, 1);
        vector_vision("multi_modal_projector.bias", c.hidden, t);
    } else if (v.kind == "siglip") {
        t.add("vision.patch_embedding", TensorKind::Vision, patch_in, h, 1);
        vector_vision("vision.patch_embedding.bias", h, t);
        t.add("vision.position_embedding", TensorKind::Vision, v.positions, h, 1);
        vector_vision("vision.post_layernorm", 2 * h, t);
        t.add("mm_input_projection", TensorKind::Vision, h, c.hidden, 1);
        vector_vision("mm_soft_emb_norm", h, t);
    } else if (v.kind == "clip" || v.kind == "llama4") {
        t.add("vision.patch_embedding", TensorKind::Vision, patch_in, h, 1);
        vector_vision("vision.class_embedding", h, t);
        t.add("vision.position_embedding", TensorKind::Vision, v.positions, h, 1);
        vector_vision("vision.pre_post_layernorm", 4 * h, t);
        if (v.kind == "clip") {
            t.add("multi_modal_projector.linear_1", TensorKind::Vision, h, c.hidden, 1);
            vector_vision("multi_modal_projector.linear_1.bias", c.hidden, t);
            t.add("multi_modal_projector.linear_2", TensorKind::Vision, c.hidden, c.hidden, 1);
            vector_vision("multi_modal_projector.linear_2.bias", c.hidden, t);
        } else {
            t.add("vision_adapter.fc1", TensorKind::Vision, v.projector_in, v.projector_hidden, 1);
            t.add("vision_adapter.fc2", TensorKind::Vision, v.projector_hidden, v.projector_out, 1);
            t.add("multi_modal_projector", TensorKind::Vision, v.projector_out, c.hidden, 1);
        }
    } else if (v.kind == "qwen3_vl") {
        t.add("visual.patch_embed", TensorKind::Vision, patch_in, h, 1);
        vector_vision("visual.patch_embed.bias", h, t);
        t.add("visual.pos_embed", TensorKind::Vision, v.positions, h, 1);
        // The merger and each DeepStack merger: LayerNorm (over h, DeepStack's over merge² · h),
        // linear_fc1 merge² · h -> merge² · h and linear_fc2 -> out_hidden_size, with biases.
        const int64_t wide = h * v.merge * v.merge;
        const int64_t mergers = 1 + v.deepstack;
        vector_vision("visual.merger.norm", 2 * h, t);
        t.add("visual.deepstack_merger_list.norm", TensorKind::Vision, v.deepstack, 2 * wide, 1);
        t.add("visual.merger.linear_fc1", TensorKind::Vision, wide, wide, mergers);
        t.add("visual.merger.linear_fc1.bias", TensorKind::Vision, 1, wide, mergers);
        t.add("visual.merger.linear_fc2", TensorKind::Vision, wide, v.projector_out, mergers);
        t.add("visual.merger.linear_fc2.bias", TensorKind::Vision, 1, v.projector_out, mergers);
    } else if (v.kind == "pixtral") {
        t.add("vision_tower.patch_conv", TensorKind::Vision, patch_in, h, 1);
        vector_vision("vision_tower.ln_pre", h, t);
        vector_vision("multi_modal_projector.norm", h, t);
        t.add("multi_modal_projector.patch_merger", TensorKind::Vision, h * v.merge * v.merge, h, 1);
        t.add("multi_modal_projector.linear_1", TensorKind::Vision, h, c.hidden, 1);
        t.add("multi_modal_projector.linear_2", TensorKind::Vision, c.hidden, c.hidden, 1);
        if (v.projector_bias) vector_vision("multi_modal_projector.biases", 2 * c.hidden, t);
    } else if (v.kind == "qwen2_5_vl") {
        t.add("visual.patch_embed", TensorKind::Vision, patch_in, h, 1);
        vector_vision("visual.merger.ln_q", h, t);
        t.add("visual.merger.mlp.0", TensorKind::Vision, 4 * h, 4 * h, 1);
        vector_vision("visual.merger.mlp.0.bias", 4 * h, t);
        t.add("visual.merger.mlp.2", TensorKind::Vision, 4 * h, v.projector_out, 1);
        vector_vision("visual.merger.mlp.2.bias", v.projector_out, t);
    }
}

uint32_t role_of(const char* module, TensorKind kind) {
    struct Named {
        const char* module;
        uint32_t role;
    };
    // Module names of every architecture (core/model/names.cpp): exact names, since some
    // are shared (BERT's three "dense": attention.output.dense, intermediate.dense, output.dense).
    static const Named kNames[] = {
        {"q_proj", kRoleQ}, {"k_proj", kRoleK}, {"v_proj", kRoleV}, {"c_attn", kRoleQkv},
        {"query_key_value", kRoleQkv}, {"o_proj", kRoleO}, {"dense", kRoleO}, {"gate_proj", kRoleGate},
        {"up_proj", kRoleUp}, {"c_fc", kRoleUp}, {"dense_h_to_4h", kRoleUp}, {"down_proj", kRoleDown},
        {"dense_4h_to_h", kRoleDown}, {"q_a_proj", kRoleQLatent}, {"q_b_proj", kRoleQUp},
        {"kv_a_proj_with_mqa", kRoleKvLatent}, {"kv_b_proj", kRoleKvUp},
        {"W_pack", kRoleQkv}, {"wqkv", kRoleQkv}, {"Wqkv", kRoleQkv}, {"wo", kRoleO}, {"attn.Wo", kRoleO},
        {"query", kRoleQ}, {"key", kRoleK}, {"value", kRoleV}, {"attention.output.dense", kRoleO},
        {"intermediate.dense", kRoleUp}, {"output.dense", kRoleDown}, {"query_proj", kRoleQ}, {"key_proj", kRoleK},
        {"value_proj", kRoleV}, {"q_lin", kRoleQ}, {"k_lin", kRoleK}, {"v_lin", kRoleV}, {"out_lin", kRoleO},
        {"lin1", kRoleUp}, {"lin2", kRoleDown}, {"q", kRoleQ}, {"k", kRoleK}, {"v", kRoleV}, {"o", kRoleO},
        {"EncDecAttention.q", kRoleQ}, {"EncDecAttention.k", kRoleK}, {"EncDecAttention.v", kRoleV},
        {"EncDecAttention.o", kRoleO}, {"encoder_attn.q_proj", kRoleQ}, {"encoder_attn.k_proj", kRoleK},
        {"encoder_attn.v_proj", kRoleV}, {"encoder_attn.out_proj", kRoleO}, {"wi", kRoleUp}, {"wi_0", kRoleGate},
        {"wi_1", kRoleUp}, {"fc1", kRoleUp}, {"fc2", kRoleDown}, {"fc_in", kRoleUp}, {"fc_out", kRoleDown},
        {"mlp.Wi", kRoleGate | kRoleUp}, {"mlp.Wo", kRoleDown}, {"feed_forward.w1", kRoleGate},
        {"feed_forward.w3", kRoleUp}, {"feed_forward.w2", kRoleDown}, {"mlp.w1", kRoleUp}, {"mlp.w2", kRoleGate},
        {"c_fc_0", kRoleGate}, {"c_fc_1", kRoleUp},
    };
    if (kind == TensorKind::Vector)
        return std::strcmp(module, "norm") == 0 || std::strcmp(module, "ln_f") == 0 ||
                       std::strcmp(module, "final_layer_norm") == 0
                   ? uint32_t{kRoleFinalNorm}
                   : 0;
    // GPT-2 and Qwen name both output projections c_proj, InternLM2 and T5 both "wo" (attention.wo,
    // DenseReluDense.wo), and Mamba mixers have an out_proj: the tensor kind tells them apart.
    if (std::strcmp(module, "c_proj") == 0 || std::strcmp(module, "wo") == 0)
        return kind == TensorKind::Attention ? kRoleO : kRoleDown;
    if (std::strcmp(module, "out_proj") == 0) return kind == TensorKind::Attention ? uint32_t{kRoleO} : 0;
    for (const auto& n : kNames)
        if (std::strcmp(module, n.module) == 0) return n.role | (kind == TensorKind::RoutedExpert ? uint32_t{kRoleExpert} : uint32_t{0});
    return 0;
}

}  // namespace vramcalc
