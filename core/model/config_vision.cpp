// vision_config of a multimodal checkpoint: which tower it is (by the wrapper's model_type) and its
// shapes; the tensors are listed by core/model/params_parts.cpp vision_tower().
#include <nlohmann/json.hpp>

#include "model/config_arch.hpp"
#include "model/config_read.hpp"

namespace vramcalc {

using nlohmann::json;
using namespace cfg;

void parse_vision(const json& root, ModelConfig& m) {
    auto it = root.find("vision_config");
    if (it == root.end() || !it->is_object()) return;
    const json& v = *it;
    const std::string root_type = read_text(root, "model_type", "");
    VisionTower& t = m.vision;
    if (root_type == "gemma3") t.kind = "siglip";
    else if (root_type == "llava" || root_type == "llava_next") t.kind = "clip";
    else if (root_type == "llama4") t.kind = "llama4";
    else if (root_type == "qwen2_5_vl") t.kind = "qwen2_5_vl";
    else if (root_type == "mllama") t.kind = "mllama";
    else if (root_type == "qwen3_vl" || root_type == "qwen3_vl_moe" || root_type == "qwen3_5" || root_type == "qwen3_5_moe")
        t.kind = "qwen3_vl";
    else if (root_type == "mistral3") t.kind = "pixtral";
    else return;  // unknown tower layout: text weights only (the lead may surface this)
    t.hidden = read_count(v, {"hidden_size", "embed_dim"}, kMaxHidden, true);
    t.layers = read_count(v, {"num_hidden_layers", "depth"}, kMaxLayers, true);
    t.heads = read_count(v, {"num_attention_heads", "num_heads"}, kMaxHeads, false, 16);
    t.intermediate = read_count(v, {"intermediate_size"}, kMaxIntermediate, true);
    t.patch = read_count(v, {"patch_size"}, 1024, false, 14);
    t.image = read_count(v, {"image_size"}, 100'000, false, 336);
    t.channels = read_count(v, {"num_channels", "in_chans", "in_channels"}, 16, false, 3);
    const int64_t grid = t.image / t.patch;
    if (t.kind == "siglip") t.positions = grid * grid;
    if (t.kind == "clip" || t.kind == "llama4") t.positions = grid * grid + 1;
    if (t.kind == "qwen2_5_vl") {
        t.temporal_patch = read_count(v, {"temporal_patch_size"}, 16, false, 2);
        t.gated_mlp = true;
        t.rms_norm = true;
        t.projector_out = read_count(v, {"out_hidden_size"}, kMaxHidden, false, m.hidden);
    }
    if (t.kind == "qwen3_vl") {
        // transformers models/qwen3_vl/modeling_qwen3_vl.py Qwen3VLVisionModel: Conv3d patch embedding
        // with bias, a learned pos_embed of num_position_embeddings rows (interpolated to the grid),
        // LayerNorm blocks with a plain GELU MLP, the merger (LayerNorm over hidden, fc1 4h -> 4h, fc2
        // 4h -> out_hidden_size) and one DeepStack merger per deepstack_visual_indexes entry (LayerNorm
        // over 4h). Qwen3.5's tower (models/qwen3_5) is the same without DeepStack.
        t.temporal_patch = read_count(v, {"temporal_patch_size"}, 16, false, 2);
        t.positions = read_count(v, {"num_position_embeddings"}, 100'000'000, true);
        t.projector_out = read_count(v, {"out_hidden_size"}, kMaxHidden, false, m.hidden);
        t.merge = read_count(v, {"spatial_merge_size"}, 64, false, 2);
        auto ds = v.find("deepstack_visual_indexes");
        if (ds != v.end() && !ds->is_null()) {
            if (!ds->is_array()) throw InputError("config.vision_config.deepstack_visual_indexes", "must be a list of layer indices");
            t.deepstack = static_cast<int64_t>(ds->size());
        }
    }
    if (t.kind == "pixtral") {
        // transformers models/pixtral/modeling_pixtral.py: patch_conv without bias, ln_pre RMSNorm, 2-D
        // rotary positions (no table), RMSNorm blocks, q/k/v/o and a SwiGLU MLP without biases;
        // models/mistral3 Mistral3MultiModalProjector: RMSNorm, patch_merger (merge² · h -> h, no bias),
        // linear_1 (h -> text hidden) and linear_2 with multimodal_projector_bias.
        t.gated_mlp = true;
        t.rms_norm = true;
        t.attn_bias = false;
        t.mlp_bias = false;
        t.positions = 0;
        t.merge = read_count(root, {"spatial_merge_size"}, 64, false, 2);
        t.projector_bias = read_bool(root, "multimodal_projector_bias", true);
    }
    if (t.kind == "mllama") {
        // transformers MllamaVisionModel: no attention biases, 8 gated global layers, tiled
        // positional embeddings; the projector maps vision_output_dim (5 hidden states
        // concatenated) to the text hidden size, with bias.
        t.positions = grid * grid + 1;
        t.attn_bias = false;
        t.global_layers = read_count(v, {"num_global_layers"}, kMaxLayers, false, 8);
        t.tiles = read_count(v, {"max_num_tiles"}, 64, false, 4);
        auto ratios = v.find("supported_aspect_ratios");
        t.aspect_ratios = ratios != v.end() && ratios->is_array() ? static_cast<int64_t>(ratios->size()) : 8;
        t.projector_in = read_count(v, {"vision_output_dim"}, kMaxHidden, true);
    }
    if (t.kind == "llama4") {
        t.projector_in = t.intermediate;  // Llama4VisionMLP2.fc1: intermediate_size -> projector_input_dim
        t.projector_hidden = read_count(v, {"projector_input_dim"}, kMaxHidden, true);
        t.projector_out = read_count(v, {"projector_output_dim", "vision_output_dim"}, kMaxHidden, true);
    }
}

}  // namespace vramcalc
