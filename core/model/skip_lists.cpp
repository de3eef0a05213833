#include "model/skip_lists.hpp"

#include <algorithm>
#include <memory>
#include <unordered_set>

#include "text/errors.hpp"
#include "text/pattern.hpp"
#include "text/units.hpp"

namespace vramcalc {
namespace {

bool ends_with(const std::string& s, const std::string& tail) {
    return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

// Only letters, digits, _ and -: besides '.', which a regular expression reads as any character.
bool plain(const std::string& key) {
    for (char ch : key)
        if (!((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') || ch == '_' || ch == '-' ||
              ch == '.'))
            return false;
    return true;
}

// re.match(key, name) for a plain key: each '.' any character but a newline, the rest literal.
bool dotted_prefix(const std::string& key, const std::string& name) {
    if (name.size() < key.size()) return false;
    for (size_t i = 0; i < key.size(); ++i)
        if (key[i] == '.' ? name[i] == '\n' : key[i] != name[i]) return false;
    return true;
}

// One skip list (or compressed-tensors' targets), read as its library reads it.
class Matcher {
public:
    // states: the automaton states the config's patterns compiled so far, of Pattern::kMaxTotalStates.
    Matcher(const std::vector<std::string>& entries, bool compressed_tensors, const std::string& field, size_t& states)
        : ct_(compressed_tensors) {
        auto compiled = [&](const std::string& regex, const std::string& at) {
            auto p = std::make_shared<Pattern>(regex, at, Pattern::kMaxTotalStates - states);
            states += p->states();
            return p;
        };
        for (size_t i = 0; i < entries.size(); ++i) {
            const std::string& e = entries[i];
            const std::string at = field + "[" + std::to_string(i) + "]";
            if (ct_ && e.rfind("re:", 0) == 0) {
                keys_.push_back({e, compiled(e.substr(3), at), false});
            } else if (ct_) {
                if (e == "Linear") linear_class_ = true;  // the class name: every nn.Linear
                else exact_.insert(e);
            } else {
                keys_.push_back({e, plain(e) ? nullptr : compiled(e, at), plain(e)});
            }
            // Experts of one layer differ only under an entry that names experts or is a pattern.
            const bool pattern = ct_ ? e.rfind("re:", 0) == 0 : !plain(e);
            if (pattern || e.find("experts") != std::string::npos) by_expert_ = true;
        }
    }
    // visits: the automaton states the patterns' matches visited (Pattern::match_prefix).
    bool matches(const std::string& name, uint64_t& visits) const {
        if (linear_class_ || exact_.count(name)) return true;
        for (const Key& k : keys_) {
            if (ct_) {
                if (k.regex->match_prefix(name, visits)) return true;
            } else if ((k.plain ? dotted_prefix(k.text, name) : k.regex->match_prefix(name, visits)) || ends_with(name, k.text)) {
                return true;
            }
        }
        return false;
    }
    double comparisons_per_name() const { return 1.0 + static_cast<double>(keys_.size()); }
    bool by_expert() const { return by_expert_; }  // whether two experts of one layer can differ
    bool empty() const { return !linear_class_ && exact_.empty() && keys_.empty(); }
    bool every_linear() const { return linear_class_; }

private:
    struct Key {
        std::string text;
        std::shared_ptr<Pattern> regex;
        bool plain;
    };
    bool ct_, linear_class_ = false, by_expert_ = false;
    std::unordered_set<std::string> exact_;
    std::vector<Key> keys_;
};

// The vision tower's module prefix in each family's transformers class.
std::string vision_prefix(const ModelConfig& c) {
    const std::string& k = c.vision.kind;
    if (k.rfind("qwen", 0) == 0) return "visual.";  // Qwen2-VL / Qwen2.5-VL: visual.blocks.N...
    if (k == "mllama" || k == "llama4") return "vision_model.";
    return "vision_tower.";  // LLaVA (CLIP), Gemma 3 (SigLIP)
}

// The Hugging Face name of `t` in `layer` (and `expert`), as in the header.
std::string module_path(const ModelConfig& c, const Tensor& t, int64_t layer, int64_t expert) {
    const std::string m = t.module;
    const std::string block = "model.layers." + std::to_string(layer) + ".";
    const bool nested = m.find('.') != std::string::npos;  // a table name with its parent (feed_forward.w1)
    switch (t.kind) {
        case TensorKind::Embedding: return "model." + m;
        case TensorKind::Head: return m;
        case TensorKind::Vision:
            if (m.rfind("vision.", 0) == 0) return vision_prefix(c) + m.substr(7);
            if (m == "mm_input_projection") return "multi_modal_projector." + m;
            return m;
        case TensorKind::Attention: return block + (nested ? m : "self_attn." + m);
        case TensorKind::RoutedExpert: return block + "mlp.experts." + std::to_string(expert) + "." + m;
        case TensorKind::Recurrent: return block + (nested ? m : "mixer." + m);
        default: return block + (nested ? m : "mlp." + m);  // dense and shared MLPs, routers
    }
}

bool quantizable(const Tensor& t) {
    return t.is_linear() || t.kind == TensorKind::Router || t.kind == TensorKind::Vision || t.kind == TensorKind::Head;
}

}  // namespace

QuantSplit quant_split(const ModelConfig& c, const std::vector<Tensor>& tensors, const ParamCounts& params) {
    const WeightQuant& q = c.quant;
    const std::string field = "config.quantization_config." + q.not_converted_key;
    size_t states = 0;  // compiled by both lists together
    const Matcher skip(q.not_converted, q.compressed_tensors_rules, field, states);
    const Matcher targets(q.targets, true, "config.quantization_config.config_groups.targets", states);
    const bool targeted = q.compressed_tensors_rules && !targets.every_linear();
    // Without a list, whole tensors: the method quantizes every linear layer but the head (norms,
    // biases and embeddings are never nn.Linear); MXFP4 on gpt-oss only the routed experts.
    const bool by_name = !skip.empty() || targeted || !q.head_kept;
    const bool by_expert = skip.by_expert() || (targeted && targets.by_expert());
    double names = 0;
    for (const Tensor& t : tensors)
        if (quantizable(t))
            names += static_cast<double>(t.kind == TensorKind::RoutedExpert && !by_expert ? t.copies / std::max<int64_t>(1, c.experts)
                                                                                          : t.copies);
    const double checks = by_name ? names * (skip.comparisons_per_name() + (targeted ? targets.comparisons_per_name() : 0)) : 0;
    if (checks > kMaxNameChecks)
        throw InputError(field, "matching its " + std::to_string(q.not_converted.size()) + " entries against the model's " +
                                    grouped_text(names) + " module names takes " + grouped_text(checks) +
                                    " comparisons; at most " + grouped_text(kMaxNameChecks) + " are made (DeepSeek-V3 "
                                    "with a list of 100 patterns: about 4,500,000)");
    QuantSplit s;
    const int64_t L = c.layers;
    uint64_t visits = 0;
    for (const Tensor& t : tensors) {
        if (!quantizable(t)) continue;
        const bool expert = t.kind == TensorKind::RoutedExpert;
        if (q.experts_only && !expert) continue;  // never quantized: nothing to keep
        if (!by_name) {
            if (t.kind != TensorKind::Head) s.quantized += t.params();
            continue;
        }
        const int64_t per_layer = expert ? std::max<int64_t>(1, c.experts) : 1;
        const int64_t experts_named = expert && by_expert ? per_layer : 1;
        const int64_t layers = t.copies / per_layer;
        const bool in_blocks = t.kind != TensorKind::Head && t.kind != TensorKind::Vision;
        const double each = static_cast<double>(t.in) * static_cast<double>(t.out) * static_cast<double>(per_layer / experts_named);
        for (int64_t i = 0; i < layers; ++i)
            for (int64_t e = 0; e < experts_named; ++e) {
                const std::string name = module_path(c, t, in_blocks ? L - layers + i : 0, e);
                const bool kept = skip.matches(name, visits) || (targeted && !targets.matches(name, visits));
                if (static_cast<double>(visits) > kMaxPatternVisits)
                    throw InputError(field, "matching its patterns against the model's " + grouped_text(names) +
                                                " module names visits more than " + grouped_text(kMaxPatternVisits) +
                                                " automaton states (patterns that stay open over whole names, such as "
                                                "(.?){4000}z; gpt-oss-120b's own list visits 3 to 4 million)");
                if (t.kind == TensorKind::Head) {
                    // 16-bit unless the method quantizes it: a bitsandbytes list without it, compressed-tensors.
                    if (q.head_kept || kept) continue;
                    s.quantized += each, s.head_quantized = true;
                } else if (kept) {
                    s.listed += each, s.listed_modules += per_layer / experts_named;
                } else {
                    s.quantized += each;
                }
            }
    }
    s.kept = params.total - s.quantized;
    return s;
}

}  // namespace vramcalc
