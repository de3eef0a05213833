// The vision encoder's part of vLLM's profile run: dummy images of the largest
// size the model takes, as many as the version feeds it, through the tower;
// their embeddings stay while the language model runs.
#include <algorithm>

#include "serving/vllm_parts.hpp"
#include "serving/working_set.hpp"
#include "text/errors.hpp"
#include "text/units.hpp"

namespace vramcalc {
namespace {

// The towers the config reader knows (model/config_vision.cpp parse_vision), told apart by their
// kind or numbers: Mllama tiles its images, Qwen3-VL and Pixtral by kind, Qwen2.5-VL has a temporal
// patch, Gemma 3's SigLIP has no class position, LLaVA's CLIP has one.
struct Tower {
    bool mllama = false;
    int64_t patches = 0;  // encoder positions per image
    int64_t tokens = 0;   // what the language model receives per image
    const char* name = "";
};

Tower tower_of(const VisionTower& t, int64_t text_hidden) {
    (void)text_hidden;
    Tower r;
    const int64_t grid = t.patch > 0 ? t.image / t.patch : 0;
    if (t.tiles > 1) {
        // Mllama: max_num_tiles tiles of grid² + 1 positions, each padded to a multiple of 8
        // (vllm mllama.py MllamaVisionModel: num_padding_patches); the language model
        // cross-attends to tiles × (grid² + 1) states.
        r.mllama = true;
        r.patches = t.tiles * ((grid * grid + 1 + 7) / 8 * 8);
        r.tokens = t.tiles * (grid * grid + 1);
        r.name = "Llama 3.2 Vision";
    } else if (t.kind == "qwen3_vl") {
        // Qwen3-VL / Qwen3.5: the processor's longest_edge 16777216 pixels (= 16384 · 32 · 32) in
        // 16-pixel patches, merged spatial_merge_size² into language-model tokens.
        r.patches = 16777216 / std::max<int64_t>(1, t.patch * t.patch);
        r.tokens = r.patches / std::max<int64_t>(1, t.merge * t.merge);
        r.name = "Qwen3-VL";
    } else if (t.kind == "pixtral") {
        // Mistral 3 (vllm mistral3.py / pixtral.py get_num_image_tokens): an image_size square in
        // patch_size patches, no class position; merged 2 × 2, each row of tokens ends with
        // [IMG_BREAK] (the last with [IMG_END]): rows · (columns + 1).
        const int64_t side = grid / std::max<int64_t>(1, t.merge);
        r.patches = grid * grid;
        r.tokens = side * (side + 1);
        r.name = "Mistral 3 (Pixtral)";
    } else if (t.temporal_patch > 1) {
        // Qwen2.5-VL: the processor's max_pixels 12845056 (= 16384 · 28 · 28, preprocessor_config)
        // in 14-pixel patches, merged 2 × 2 into language-model tokens (get_max_image_tokens).
        r.patches = 12845056 / (t.patch * t.patch);
        r.tokens = r.patches / 4;
        r.name = "Qwen2.5-VL";
    } else if (t.positions == grid * grid) {
        // Gemma 3: SigLIP at image_size, its grid average-pooled 4 × 4 to mm_tokens_per_image = 256.
        r.patches = grid * grid;
        r.tokens = (grid / 4) * (grid / 4);
        r.name = "Gemma 3";
    } else {
        // LLaVA: CLIP with a class position; the default feature strategy drops it (grid² tokens).
        r.patches = grid * grid + 1;
        r.tokens = grid * grid;
        r.name = "LLaVA";
    }
    return r;
}

}  // namespace

// How many dummy images the profile feeds the tower:
// - V0 decoder-only (worker/model_runner.py profile_run): max_num_seqs = min(max_num_seqs,
//   max_num_batched_tokens // max image tokens), each sequence with limit_mm_per_prompt (1) images.
// - V0 encoder-decoder (worker/enc_dec_model_runner.py profile_run, Mllama): every one of
//   max_num_seqs sequences carries its image.
// - V1 (v1/worker/gpu_model_runner.py profile_run, utils compute_encoder_budget): an encoder
//   budget of max(max_num_batched_tokens, one image's tokens), filled with cdiv(budget, tokens per
//   image) images, at most max_num_seqs × limit_mm_per_prompt, all in one batch; their outputs
//   stay in encoder_cache through the dummy forward.
// The tower's peak: one layer's temporaries over every position (3 hidden streams + the larger of
// q, k, v and the attention output or the MLP, ÷ TP as vLLM shards the tower), eager attention's
// scores per image, and Mllama's kept hidden states (intermediate_layers_indices: 5 layers,
// stacked and concatenated with the last into vision_output_dim = 6 × hidden).
EncoderProfile encoder_profile(const Plan& p, const Layout& l, const VllmSetup& v, bool explain) {
    const Job& job = p.job;
    const ModelConfig& c = p.m.config;
    const VisionTower& t = c.vision;
    EncoderProfile r;
    if (!t.has() || job.skip_mm_profiling || job.limit_mm_per_prompt == 0) return r;
    const Tower tw = tower_of(t, c.hidden);
    if (tw.mllama && job.vllm_engine == VllmEngine::V1)
        throw InputError("job.vllm_engine", "vLLM runs Llama 3.2 Vision on its V0 encoder-decoder runner only (up to 0.10; "
                                            "removed in #24907): set vllm_engine v0 with vllm_version 0.10 or earlier");
    const int64_t per_item = std::max<int64_t>(1, tw.tokens), limit = job.limit_mm_per_prompt;
    if (job.vllm_engine == VllmEngine::V0)
        r.images = tw.mllama ? v.seqs * limit : std::max<int64_t>(1, std::min(v.seqs, v.tokens / per_item)) * limit;
    else
        r.images = std::min((std::max(v.tokens, per_item) + per_item - 1) / per_item, v.seqs * limit);
    r.patches = r.images * tw.patches;
    r.tokens = r.images * tw.tokens;
    const double N = static_cast<double>(r.patches), dtype = p.compute.bits / 8, tp = static_cast<double>(l.tp);
    const double hv = static_cast<double>(t.hidden), Iv = static_cast<double>(t.intermediate);
    const double mlp = (t.gated_mlp ? 3 : 2) * Iv / tp, attn = 4 * hv / tp;
    double layer = N * (3 * hv + std::max(attn, mlp)) * dtype;
    if (job.attention == Attention::Eager) {
        const double heads = static_cast<double>(t.heads) / tp, P = static_cast<double>(tw.patches);
        layer += static_cast<double>(r.images) * (heads * P * P * 8 + 24 * P * hv / tp);
    }
    const double H = static_cast<double>(c.hidden), embeddings = static_cast<double>(r.tokens) * H * dtype;
    if (tw.mllama) {
        // Five kept hidden states during the layers; at the end the list, its stack and the last
        // state, then the concatenation beside them (12 × hidden), then the projector's output.
        // The tower attends across an image's tiles with an additive mask of [images, 1, tiles·P,
        // tiles·P] in the model dtype (vllm mllama.py _prepare_aspect_ratio_attention_mask), held
        // through every layer.
        const double kept = 5 * N * hv * dtype;
        const double side = static_cast<double>(tw.patches);
        const double mask = static_cast<double>(r.images) * side * side * dtype;
        r.peak = std::max({layer + kept + mask, 12 * N * hv * dtype, 6 * N * hv * dtype + embeddings});
        // cross_attention_states stay for every cross-attention layer, each projecting its keys
        // and values from them (vllm mllama.py MllamaCrossAttention, no KV cache in the profile).
        const double kv_heads = static_cast<double>(c.kv_heads > 0 ? c.kv_heads : c.heads);
        const double hd = static_cast<double>(c.head_dim > 0 ? c.head_dim : c.hidden / c.heads);
        r.kept = embeddings + static_cast<double>(r.tokens) * 2 * kv_heads / tp * hd * dtype;
    } else {
        r.peak = layer + embeddings;
        r.kept = job.vllm_engine == VllmEngine::V1 ? embeddings : 0;  // V1's encoder_cache; V0 merges them into the inputs
    }
    if (explain)
        r.why = std::string(tw.name) + " vision encoder over " + count_text(r.images) + " dummy image" + (r.images == 1 ? "" : "s") +
                " (" + count_text(r.patches) + " positions, " + count_text(r.tokens) + " language-model tokens): " +
                gib_text(r.peak) + (r.kept > 0 ? ", of which " + gib_text(r.kept) + " stays while the language model runs" : "");
    return r;
}

}  // namespace vramcalc
