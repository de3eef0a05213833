// Speculative decoding's memory (issue 36): what the proposer keeps on the GPU beside the target.
// - a draft model (vLLM speculative_model / method draft_model, SGLang --speculative-draft-model-path,
//   llama.cpp -md): its whole weights and the KV of its own layers;
// - an EAGLE head (vLLM eagle, SGLang EAGLE): one decoder layer and a 2h → h fusion, sharing the
//   target's embedding and lm_head (vllm/v1/worker/gpu/spec_decode/eagle/utils.py load_eagle_model);
// - an EAGLE-3 head: its layer reads 2h (embedding ‖ fused hidden states), a 3h → h fusion of three
//   target layers, and an lm_head of its own over a draft vocabulary (EAGLE-3 heads: 32,000 tokens);
// - MTP layers shipped with the model (DeepSeek-V3/R1, GLM-4.5, Qwen3-Next; vLLM deepseek_mtp,
//   SGLang NEXTN): one decoder layer of the model's last kind each, eh_proj (2h → h) and norms,
//   sharing the embedding and head;
// - n-gram prompt lookup: nothing on the GPU.
// vLLM and SGLang page the proposer's layers in the same KV pool as the target's (vLLM V1
// kv_cache_interface: every attention layer, drafter included, gets a spec), so a token costs more.
#include <algorithm>
#include <cmath>

#include "memory/kv.hpp"
#include "memory/states.hpp"
#include "serving/extras.hpp"
#include "serving/working_set.hpp"
#include "text/errors.hpp"
#include "text/units.hpp"

namespace vramcalc {
namespace {

// llama.cpp common/speculative.cpp common_speculative_are_compatible: SPEC_VOCAB_MAX_SIZE_DIFFERENCE 128
// (vocabularies padded to different sizes still verify, e.g. Qwen2.5-0.5B's 151,936 for Qwen2.5-7B's 152,064).
constexpr int64_t kVocabSlack = 128;
// EAGLE-3's released heads predict over a draft vocabulary of 32,000 tokens (their config draft_vocab_size).
constexpr int64_t kEagle3DraftVocab = 32000;

// One attention layer's KV per token on this GPU (the target's kind: MLA latent, or GQA heads split by TP).
double kv_per_layer_token(const Plan& p, const Layout& l) {
    const KvCost k = kv_cost(p, l, 1.0 / static_cast<double>(l.pp));
    const double layers = static_cast<double>(std::max<int64_t>(1, p.m.config.attention_layers())) / static_cast<double>(l.pp);
    return k.every_token() / layers;
}

// An EAGLE / EAGLE-3 decoder layer of the dimensions of `c`: attention (q, k, v from `in` features,
// o back to h), the gated MLP and two norms.
double eagle_layer_params(const ModelConfig& c, double in) {
    const double h = static_cast<double>(c.hidden), heads = static_cast<double>(c.heads);
    const double kv = static_cast<double>(c.kv_heads > 0 ? c.kv_heads : c.heads);
    const double hd = static_cast<double>(c.head_dim > 0 ? c.head_dim : c.hidden / std::max<int64_t>(1, c.heads));
    const double I = static_cast<double>(c.intermediate > 0 ? c.intermediate : c.moe_intermediate);
    return in * (heads + 2 * kv) * hd + heads * hd * h + 3 * h * I + 2 * h;
}

// One MTP layer of a model that ships them: a decoder layer of the last kind (the MoE layer in MoE
// models) as its tensors list it, eh_proj (2h → h) and enorm, hnorm and the shared head's norm.
double mtp_layer_params(const Plan& p) {
    const ModelConfig& c = p.m.config;
    const double L = static_cast<double>(std::max<int64_t>(1, c.layers)), h = static_cast<double>(c.hidden);
    const double moe_layers = static_cast<double>(c.moe_layers());
    double params = 2 * h * h + 3 * h;
    if (p.m.tensors.empty()) return params + p.layer_params;
    for (const Tensor& t : p.m.tensors) {
        if (t.kind == TensorKind::Embedding || t.kind == TensorKind::Head || t.kind == TensorKind::Vision) continue;
        const double one = static_cast<double>(t.in) * static_cast<double>(t.out), copies = static_cast<double>(t.copies);
        if (t.kind == TensorKind::RoutedExpert) params += one * copies / std::max(1.0, moe_layers);
        else if (c.layers > 0 && t.copies % c.layers == 0) params += one * copies / L;  // in every layer
        else if (moe_layers > 0 && copies == moe_layers) params += one;                // in the MoE layers only
    }
    return params;
}

// Families whose checkpoints carry MTP layers though a config may not say so (their config.json:
// num_nextn_predict_layers 1).
int64_t mtp_layers_of(const ModelConfig& c) {
    if (c.nextn_layers > 0) return c.nextn_layers;
    const std::string& t = c.model_type;
    return t == "deepseek_v3" || t == "glm4_moe" || t == "qwen3_next" ? 1 : 0;
}

}  // namespace

SpecCost speculative_cost(const Plan& p, const Layout& l, bool explain) {
    const Job& job = p.job;
    const Speculative& s = job.spec;
    const ModelConfig& c = p.m.config;
    SpecCost x;
    if (s.method == SpecMethod::None || s.method == SpecMethod::Ngram) {
        if (explain && s.method == SpecMethod::Ngram) x.why = "n-gram prompt lookup: proposals come from the prompt, nothing on the GPU";
        return x;
    }
    const bool pooled = job.engine == Engine::Vllm || job.engine == Engine::Sglang;
    // llama.cpp runs a model's own MTP layers too (llama-server --spec-type draft-mtp: a second context over the
    // nextn layers of the GGUF, with a KV cache of its own); EAGLE heads and transformers' MTP it does not.
    const bool mtp_here = s.method == SpecMethod::Mtp && job.engine == Engine::LlamaCpp;
    if (!pooled && s.method != SpecMethod::Draft && !mtp_here)
        throw InputError("job.speculative_method", std::string(engine_name(job.engine)) +
                                                       " speculates with a draft model (llama.cpp -md, transformers assistant_model), "
                                                       "n-gram lookup or, llama.cpp only, the model's own MTP layers (--spec-type "
                                                       "draft-mtp); EAGLE heads need vLLM or SGLang");
    const double tp = static_cast<double>(l.tp), B = p.compute.bits / 8;
    const double per_layer = kv_per_layer_token(p, l);
    const std::string k = count_text(s.num_speculative_tokens);
    switch (s.method) {
        case SpecMethod::Draft: {
            const ModelConfig& d = s.draft->config;
            if (c.vocab > 0 && d.vocab > 0 && std::llabs(c.vocab - d.vocab) > kVocabSlack)
                throw InputError("job.speculative_model",
                                 "the draft's vocabulary (" + count_text(d.vocab) + " tokens) is not the target's (" + count_text(c.vocab) +
                                     "): its proposals are checked by token id, so it needs the target's tokenizer (vLLM and llama.cpp "
                                     "refuse it; llama.cpp allows " + count_text(kVocabSlack) + " tokens of padding)");
            Job dj = job;
            dj.spec = Speculative{};
            dj.lora_serving = LoraServing{};
            dj.head_auto = true;
            const Plan dp = make_plan(*s.draft, dj);
            x.weights = base_weights_bytes(dp, nullptr) / tp;  // vLLM draft_tensor_parallel_size: the target's by default
            x.params = s.draft->params.total;
            const KvCost dk = kv_cost(dp, l, 1.0);
            x.kv_per_token = dk.every_token();
            x.layers = d.attention_layers();
            if (explain)
                x.why = "draft model " + s.model + " (" + params_text(s.draft->params.total) + " params): " + gb_text(x.weights) +
                        (tp > 1 ? " per GPU (÷ TP " + count_text(l.tp) + ")" : "") + " + its KV, " + count_text(x.layers) +
                        " layers × " + printf_text("%.0f", x.kv_per_token / std::max<int64_t>(1, x.layers)) + " B per token; " + k +
                        " tokens proposed per step";
            return x;
        }
        case SpecMethod::Eagle:
        case SpecMethod::Eagle3: {
            const bool three = s.method == SpecMethod::Eagle3;
            const ModelConfig& d = s.draft ? s.draft->config : c;
            const double h = static_cast<double>(d.hidden), layers = s.draft ? static_cast<double>(std::max<int64_t>(1, d.layers)) : 1;
            const int64_t vocab = s.draft_vocab_size > 0 ? s.draft_vocab_size : kEagle3DraftVocab;
            const double params = layers * eagle_layer_params(d, three ? 2 * h : h) + (three ? 3 : 2) * h * h +
                                  (three ? static_cast<double>(vocab) * h : 0) + h;
            x.weights = params * B / tp;
            x.params = params;
            x.kv_per_token = per_layer * layers;
            x.layers = static_cast<int64_t>(layers);
            if (explain)
                x.why = std::string(three ? "EAGLE-3" : "EAGLE") + " head " + (s.draft ? s.model : "of the target's dimensions") + ": " +
                        count_text(x.layers) + " decoder layer" + (x.layers == 1 ? "" : "s") + " + a " + (three ? "3h" : "2h") +
                        " → h fusion" + (three ? " + its own lm_head over " + count_text(vocab) + " draft tokens" : "") + ", " +
                        params_text(params) + " × " + plain_number(B) + " B = " + gb_text(x.weights) +
                        (tp > 1 ? " per GPU" : "") + (three ? "; embedding shared" : "; embedding and lm_head shared") +
                        " with the target; KV of its layer; " + k + " tokens proposed per step";
            return x;
        }
        case SpecMethod::Mtp: {
            const int64_t n = mtp_layers_of(c);
            if (n == 0)
                throw InputError("job.speculative_method",
                                 "this model ships no multi-token-prediction layers (num_nextn_predict_layers, "
                                 "mtp_num_hidden_layers); mtp serves DeepSeek-V3/R1, GLM-4.5, Qwen3-Next or Qwen3.5 / 3.6");
            const double layer = mtp_layer_params(p);
            // In the target's own format: the average bytes per parameter of its weights.
            const double bytes_per_param = base_weights_bytes(p, nullptr) / std::max(1.0, p.m.params.total);
            x.weights = static_cast<double>(n) * layer * bytes_per_param / tp;
            x.params = static_cast<double>(n) * layer;
            x.kv_per_token = per_layer * static_cast<double>(n);
            x.layers = n;
            if (explain)
                x.why = count_text(n) + " MTP layer" + (n == 1 ? "" : "s") + " (num_nextn_predict_layers): " + params_text(layer) +
                        " params each (a decoder layer of the last kind, eh_proj 2h → h, norms; embedding and head shared) × " +
                        printf_text("%.2f", bytes_per_param) + " B, as the model's weights = " + gb_text(x.weights) +
                        (tp > 1 ? " per GPU (÷ TP " + count_text(l.tp) + ")" : "") +
                        (mtp_here ? "; llama.cpp's MTP context keeps its own KV beside the model's (its compute buffer is not "
                                    "counted); reused for "
                                  : "; its KV in the pool; reused for ") + k + " proposed tokens";
            return x;
        }
        case SpecMethod::None:
        case SpecMethod::Ngram: break;
    }
    return x;
}

}  // namespace vramcalc
