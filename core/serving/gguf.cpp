#include "serving/gguf.hpp"

#include <algorithm>
#include <string>
#include <vector>

#include "text/errors.hpp"

namespace vramcalc {
namespace {

// ggml types: bytes per block / values per block (ggml/src/ggml-common.h block_* structs).
enum class G { F32, F16, Q8_0, Q4_0, Q5_0, Q5_1, IQ4_NL, Q2_K, Q3_K, Q4_K, Q5_K, Q6_K, MXFP4 };
struct GInfo {
    const char* name;
    double bytes;
    int block;
};
const GInfo& info(G t) {
    static const GInfo kInfo[] = {
        {"f32", 4, 1},      {"f16", 2, 1},        {"q8_0", 34, 32},   {"q4_0", 18, 32},
        {"q5_0", 22, 32},   {"q5_1", 24, 32},     {"iq4_nl", 18, 32}, {"q2_K", 84, 256},
        {"q3_K", 110, 256}, {"q4_K", 144, 256},   {"q5_K", 176, 256}, {"q6_K", 210, 256},
        {"mxfp4", 17, 32},  // block_mxfp4: one E8M0 scale + 16 bytes of E2M1 pairs per 32 (GGML_TYPE_MXFP4 = 39)
    };
    return kInfo[static_cast<int>(t)];
}

enum class Ftype { F32, F16, Q8_0, Q6_K, Q5_K_M, Q4_K_M, Q4_0, Q3_K_M, Q2_K, Mxfp4Moe };
struct FtypeName {
    FormatId format;
    Ftype ftype;
    G base;  // llama_model_quantize_impl: default_type of the file type
};
const FtypeName kFtypes[] = {
    {FormatId::Fp32, Ftype::F32, G::F32},       {FormatId::Fp16, Ftype::F16, G::F16},
    {FormatId::Bf16, Ftype::F16, G::F16},       {FormatId::Q8_0, Ftype::Q8_0, G::Q8_0},
    {FormatId::Q6_K, Ftype::Q6_K, G::Q6_K},     {FormatId::Q5_K_M, Ftype::Q5_K_M, G::Q5_K},
    {FormatId::Q4_K_M, Ftype::Q4_K_M, G::Q4_K}, {FormatId::Q4_0, Ftype::Q4_0, G::Q4_0},
    {FormatId::Q3_K_M, Ftype::Q3_K_M, G::Q3_K}, {FormatId::Q2_K, Ftype::Q2_K, G::Q2_K},
    // LLAMA_FTYPE_MOSTLY_MXFP4_MOE (llama-quant.cpp): the expert tensors MXFP4, every other tensor Q8_0,
    // the file type of ggml-org's gpt-oss GGUFs (gpt-oss-20b-mxfp4.gguf).
    {FormatId::Mxfp4, Ftype::Mxfp4Moe, G::Q8_0},
};
const FtypeName* ftype_of(const NumberFormat& f) {
    for (const auto& x : kFtypes)
        if (f.id == x.format) return &x;
    return nullptr;
}

// llama-quant.cpp use_more_bits: the first and last eighth, and every third layer between.
bool use_more_bits(int64_t i, int64_t n) { return i < n / 8 || i >= 7 * n / 8 || (i - n / 8) % 3 == 2; }

// Which GGUF tensor a Hugging Face module becomes (convert_hf_to_gguf.py tensor map).
enum class GRole { Embd, Output, AttnQ, AttnK, AttnV, AttnOut, AttnQkv, FfnGate, FfnUp, FfnDown, Router, Other, Vector };
GRole grole(const Tensor& t) {
    if (t.kind == TensorKind::Vector) return GRole::Vector;
    if (t.kind == TensorKind::Embedding) return GRole::Embd;
    if (t.kind == TensorKind::Head) return GRole::Output;
    if (t.kind == TensorKind::Router) return GRole::Router;
    // The role was resolved from the module name when the tensor was listed (model/params.hpp).
    const uint32_t r = t.role & ~uint32_t{kRoleExpert};
    if (r == kRoleQ) return GRole::AttnQ;
    if (r == kRoleK) return GRole::AttnK;
    if (r == kRoleV) return GRole::AttnV;
    if (r == kRoleO) return GRole::AttnOut;
    if (r == kRoleQkv) return GRole::AttnQkv;
    if (r == kRoleGate) return GRole::FfnGate;
    if (r == kRoleUp) return GRole::FfnUp;
    if (r == kRoleDown) return GRole::FfnDown;
    return GRole::Other;
}

struct Rules {
    Ftype ftype;
    G base;
    GgufRules era;
    int64_t n_expert, n_gqa, n_layer;
    bool mxfp4_experts = false;  // the checkpoint's experts are MXFP4 (config quantization_config)
};

// llama_tensor_get_type for the file types above (src/llama-quant.cpp), tensor
// by tensor; `i` and `n` are the tensor's index among its kind and their count.
G tensor_type(const Rules& r, GRole role, int64_t i, int64_t n, int64_t row, bool expert) {
    G t = r.base;
    const bool moe8 = r.n_expert == 8;
    // Checkpoints that ship MXFP4 experts (gpt-oss's quantization_config) keep them MXFP4 in every GGUF
    // file type (convert_hf_to_gguf.py GptOssModel repacks them; llama-quant.cpp keeps MXFP4 tensors).
    if (expert && (r.ftype == Ftype::Mxfp4Moe || r.mxfp4_experts)) return G::MXFP4;
    if (r.ftype == Ftype::F32 || r.ftype == Ftype::F16) return t;
    switch (role) {
        case GRole::Output:
            // Q8_0 files keep q8_0; others use q6_K (q8_0 when the row does not split into 256-blocks).
            if (row % info(t).block != 0 || row % 256 != 0) return G::Q8_0;
            return t == G::Q8_0 ? G::Q8_0 : G::Q6_K;
        case GRole::AttnV:
            if (r.ftype == Ftype::Q2_K) t = r.n_gqa >= 4 ? G::Q4_K : G::Q3_K;
            else if (r.ftype == Ftype::Q3_K_M) t = i < 2 ? G::Q5_K : G::Q4_K;
            else if ((r.ftype == Ftype::Q4_K_M || r.ftype == Ftype::Q5_K_M) && use_more_bits(i, n)) t = G::Q6_K;
            if (r.n_layer == 80 && (t == G::Q3_K || t == G::Q4_K)) t = G::Q5_K;  // LLM_TYPE_70B bump
            if (moe8) t = G::Q8_0;  // "for the 8-expert model, bumping this to Q8_0 trades just ~128MB"
            return t;
        case GRole::AttnK:
            return moe8 ? G::Q8_0 : t;
        case GRole::FfnDown:
            if (expert && r.era == GgufRules::Dec2023) return t;  // per-expert "ffn_down.E.weight" missed the rule
            if (r.ftype == Ftype::Q2_K) return G::Q3_K;
            if (r.ftype == Ftype::Q3_K_M) return i < n / 16 ? G::Q5_K : G::Q4_K;
            if ((r.ftype == Ftype::Q4_K_M || r.ftype == Ftype::Q5_K_M) && use_more_bits(i, n)) return G::Q6_K;
            return t;
        case GRole::AttnOut:
            if (r.n_expert == 8) {
                if (r.era == GgufRules::Current &&
                    (r.ftype == Ftype::Q2_K || r.ftype == Ftype::Q3_K_M || r.ftype == Ftype::Q4_K_M))
                    return G::Q5_K;
                return t;
            }
            if (r.ftype == Ftype::Q2_K) return G::Q3_K;
            if (r.ftype == Ftype::Q3_K_M) return G::Q4_K;
            return t;
        case GRole::AttnQkv:
            if (r.ftype == Ftype::Q3_K_M) return G::Q4_K;
            if (r.ftype == Ftype::Q4_K_M) return G::Q5_K;
            if (r.ftype == Ftype::Q5_K_M) return G::Q6_K;
            return t;
        default:
            return t;
    }
}

// A row that does not split into the type's blocks falls back (llama-quant.cpp convert_incompatible_tensor).
G fallback(G t, int64_t row) {
    if (row % info(t).block == 0) return t;
    G f = t == G::Q4_K ? G::Q5_0 : t == G::Q5_K ? G::Q5_1 : t == G::Q6_K ? G::Q8_0
          : (t == G::Q2_K || t == G::Q3_K) ? G::IQ4_NL : G::F16;
    return row % info(f).block == 0 ? f : G::F16;
}

}  // namespace

bool is_gguf_format(const NumberFormat& f) { return ftype_of(f) != nullptr && !f.trainable; }

namespace {

GgufWeights compute_gguf_weights(const Plan& p, const FtypeName* ft) {
    const ModelConfig& c = p.m.config;
    const int64_t L = c.layers;
    const bool mxfp4 = c.quant.format && c.quant.format->id == FormatId::Mxfp4 && c.quant.experts_only;
    const Rules r{ft->ftype, ft->base, p.job.gguf_rules, c.experts, c.kv_heads > 0 ? c.heads / c.kv_heads : 1, L, mxfp4};
    GgufWeights w;
    w.layer.assign(static_cast<size_t>(L), 0.0);
    w.experts.assign(static_cast<size_t>(L), 0.0);
    int64_t counts[static_cast<int>(G::MXFP4) + 1] = {};  // tensors per type, for the mix text
    // n_ffn_down counts every ffn_down-like tensor (dense, experts, shared), as llama-quant.cpp does.
    int64_t n_ffn_down = 0;
    for (const Tensor& t : p.m.tensors)
        if (grole(t) == GRole::FfnDown) n_ffn_down += t.kind == TensorKind::RoutedExpert ? t.copies / std::max<int64_t>(1, c.experts) : t.copies;
    int64_t i_ffn_down = 0;
    for (const Tensor& t : p.m.tensors) {
        const GRole ro = grole(t);
        const bool expert = t.kind == TensorKind::RoutedExpert;
        const int64_t per_layer = expert ? std::max<int64_t>(1, c.experts) : 1;
        const int64_t n = t.copies / per_layer;  // layers holding this tensor (dense layers come first)
        const double values = static_cast<double>(t.in) * static_cast<double>(t.out) * static_cast<double>(per_layer);
        if (ro == GRole::Vector || ro == GRole::Router) {
            // 1-D tensors stay f32; the router is never quantized (f16 in Dec 2023 converts, f32 now).
            const G g = ro == GRole::Vector ? G::F32 : (r.era == GgufRules::Dec2023 ? G::F16 : G::F32);
            const double bytes = static_cast<double>(t.in) * static_cast<double>(t.out) * info(g).bytes;  // one copy
            counts[static_cast<int>(g)] += t.copies;
            if (t.role & kRoleFinalNorm) {
                w.output += bytes * static_cast<double>(t.copies);
            } else if (t.copies >= L) {  // per-layer vectors (norms: L × norms_per_layer copies)
                for (int64_t i = 0; i < L; ++i) w.layer[i] += bytes * static_cast<double>(t.copies) / static_cast<double>(L);
            } else {
                for (int64_t i = L - t.copies; i < L; ++i) w.layer[i] += bytes;
            }
            continue;
        }
        if (ro == GRole::Embd || ro == GRole::Output) {
            const GRole as = ro == GRole::Embd && !c.tied_embeddings ? GRole::Embd : GRole::Output;
            const G g = fallback(tensor_type(r, as, 0, 1, t.in, false), t.in);
            const double bytes = values * info(g).bytes / info(g).block;
            counts[static_cast<int>(g)] += 1;
            if (ro == GRole::Embd) w.token_embd = bytes;
            else w.output += bytes;
            // Tied: llama.cpp duplicates token_embd as the output on the output's device.
            if (ro == GRole::Embd && c.tied_embeddings) w.output += bytes;
            continue;
        }
        if (t.kind == TensorKind::Vision) {
            // The vision tower and its projector are llama.cpp's mmproj file (llama-server --mmproj), which mtmd
            // loads on the GPU unless --no-mmproj-offload: counted with the output, never in a text block. (Their
            // copies are the tower's layers, not the text model's: indexing the text blocks by them overran them.)
            for (int64_t i = 0; i < n; ++i) {
                const G g = fallback(tensor_type(r, ro, i, n, t.in, false), t.in);
                counts[static_cast<int>(g)] += 1;
                w.output += values * info(g).bytes / info(g).block;
            }
            continue;
        }
        for (int64_t i = 0; i < n; ++i) {
            // An encoder with more blocks than the decoder (Whisper large-v3-turbo: 32 and 4) spreads over them.
            const int64_t layer = n <= L ? L - n + i : i * L / n;
            int64_t idx = i, count = n;
            if (ro == GRole::FfnDown) {
                // llama-quant.cpp layer_info: MoE models take the layer from the tensor name, others the counter.
                idx = c.experts > 1 ? layer : i_ffn_down;
                count = n_ffn_down;
                ++i_ffn_down;
            }
            const G g = fallback(tensor_type(r, ro, idx, count, t.in, expert), t.in);
            const double bytes = values * info(g).bytes / info(g).block;
            counts[static_cast<int>(g)] += expert && r.era == GgufRules::Dec2023 ? per_layer : 1;
            w.layer[layer] += bytes;
            if (expert) w.experts[layer] += bytes;
        }
    }
    // In the order of the type names (as a std::map of names listed them): "193 q4_K + 33 q6_K + 65 f32".
    std::vector<G> used;
    for (int g = 0; g <= static_cast<int>(G::MXFP4); ++g)
        if (counts[g] > 0) used.push_back(static_cast<G>(g));
    std::sort(used.begin(), used.end(), [](G a, G b) { return std::string(info(a).name) < info(b).name; });
    for (G g : used) w.mix += (w.mix.empty() ? "" : " + ") + std::to_string(counts[static_cast<int>(g)]) + " " + info(g).name;
    return w;
}

}  // namespace

const GgufWeights& gguf_weights(const Plan& p) {
    const ModelConfig& c = p.m.config;
    if (p.exact && !p.m.exact.placed.layer.empty()) return p.m.exact.placed;  // a GGUF header: its own bytes, block by block
    if (c.family == Family::Explicit || c.layers <= 0)
        throw InputError("config", "llama.cpp's per-tensor GGUF types need the architecture (model_type and dimensions), "
                                   "not only num_parameters");
    const FtypeName* ft = ftype_of(p.weights);
    if (!ft) throw InputError("job.dtype", std::string("llama.cpp loads GGUF files: use fp16, bf16, fp32, q8_0, q6_k, "
                                                       "q5_k_m, q4_k_m, q4_0, q3_k_m, q2_k or mxfp4, got '") + p.weights.name + "'");
    // Everything else the sizes depend on is the model's own (its config and tensors).
    const uint32_t key = static_cast<uint32_t>(p.weights.id) << 8 | static_cast<uint32_t>(p.job.gguf_rules);
    if (const GgufWeights* kept = p.m.gguf.find(key)) return *kept;
    return p.m.gguf.keep(key, compute_gguf_weights(p, ft));
}

}  // namespace vramcalc
