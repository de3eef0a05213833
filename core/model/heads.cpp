#include "model/heads.hpp"

#include <nlohmann/json.hpp>

#include "text/errors.hpp"
#include "text/json_text.hpp"

namespace vramcalc {
namespace {

struct HeadName {
    const char* name;
    Head head;
};
const HeadName kHeads[] = {
    {"causal_lm", Head::CausalLM}, {"seq2seq_lm", Head::Seq2SeqLM}, {"masked_lm", Head::MaskedLM},
    {"pretraining", Head::Pretraining}, {"sequence_classification", Head::SequenceClassification},
    {"token_classification", Head::TokenClassification}, {"question_answering", Head::QuestionAnswering},
    {"ctc", Head::Ctc}, {"base", Head::Base}, {"encoder", Head::Encoder},
};

bool ends_with(const std::string& s, const char* suffix) {
    const std::string t(suffix);
    return s.size() >= t.size() && s.compare(s.size() - t.size(), t.size(), t) == 0;
}

// Which heads a family has, after the model classes transformers defines for it.
bool applies(const ModelConfig& m, Head h) {
    const Arch a = m.arch;
    switch (m.family) {
        case Family::Encoder:
            if (h == Head::Pretraining) return a == Arch::Bert || a == Arch::Electra;
            return h == Head::MaskedLM || h == Head::SequenceClassification || h == Head::TokenClassification ||
                   h == Head::QuestionAnswering || h == Head::Base;
        case Family::EncoderDecoder:
            if (h == Head::Ctc) return a == Arch::Whisper;  // its encoder + a vocabulary projection (Wav2Vec2ForCTC style)
            if (h == Head::TokenClassification) return a == Arch::T5 || a == Arch::Umt5;  // T5ForTokenClassification
            if (h == Head::QuestionAnswering) return a != Arch::Whisper;
            return h == Head::Seq2SeqLM || h == Head::Base || h == Head::Encoder || h == Head::SequenceClassification;
        case Family::Mamba:
            return h == Head::CausalLM || h == Head::Base;
        case Family::Explicit:
            return h == Head::CausalLM;
        default:
            return h == Head::CausalLM || h == Head::SequenceClassification || h == Head::TokenClassification ||
                   h == Head::QuestionAnswering || h == Head::Base;
    }
}

Head family_default(const ModelConfig& m) {
    if (m.family == Family::Encoder) return Head::Base;
    if (m.family == Family::EncoderDecoder) return Head::Seq2SeqLM;
    return Head::CausalLM;
}

}  // namespace

bool ModelConfig::has_decoder() const {
    if (family != Family::EncoderDecoder) return false;
    if (head == Head::Encoder || head == Head::Ctc || head == Head::TokenClassification) return false;
    return !(arch == Arch::Whisper && head == Head::SequenceClassification);  // WhisperForAudioClassification: encoder only
}

Head head_from_architectures(const nlohmann::json& c, const ModelConfig& m) {
    auto it = c.find("architectures");
    if (it == c.end() || !it->is_array() || it->empty() || !(*it)[0].is_string()) return family_default(m);
    const std::string name = (*it)[0].get<std::string>();
    if (m.arch == Arch::ChatGlm) return Head::CausalLM;  // ChatGLMModel holds output_layer (remote modeling_chatglm.py)
    const bool seq2seq = m.family == Family::EncoderDecoder;
    Head h = family_default(m);
    if (ends_with(name, "ForCausalLM") || ends_with(name, "LMHeadModel")) h = seq2seq ? Head::Seq2SeqLM : Head::CausalLM;
    else if (ends_with(name, "ForConditionalGeneration") || ends_with(name, "MTModel")) h = seq2seq ? Head::Seq2SeqLM : Head::CausalLM;
    else if (ends_with(name, "ForMaskedLM")) h = Head::MaskedLM;
    else if (ends_with(name, "ForPreTraining")) h = Head::Pretraining;
    else if (ends_with(name, "ForSequenceClassification") || ends_with(name, "ForAudioClassification")) h = Head::SequenceClassification;
    else if (ends_with(name, "ForTokenClassification")) h = Head::TokenClassification;
    else if (ends_with(name, "ForQuestionAnswering")) h = Head::QuestionAnswering;
    else if (ends_with(name, "ForCTC")) h = Head::Ctc;
    else if (ends_with(name, "EncoderModel")) h = Head::Encoder;
    else if (ends_with(name, "Model")) h = Head::Base;
    if (m.family == Family::Encoder && h == Head::CausalLM) h = Head::MaskedLM;  // BertLMHeadModel: the MLM head, causal
    return applies(m, h) ? h : family_default(m);
}

int64_t labels_of(const nlohmann::json& c) {
    auto it = c.find("id2label");
    if (it != c.end() && it->is_object() && !it->empty()) return static_cast<int64_t>(it->size());
    auto n = c.find("num_labels");
    if (n != c.end() && !n->is_null()) return whole_field(*n, "config.num_labels", 1, 1'000'000);
    return 2;
}

void apply_head(ModelConfig& m, Head head, const char* field) {
    if (!applies(m, head)) {
        std::string ok;
        for (const auto& h : kHeads)
            if (applies(m, h.head)) ok += (ok.empty() ? "" : ", ") + std::string(h.name);
        throw InputError(field, std::string("'") + head_name(head) + "' is not a head of " +
                                    (m.model_type.empty() ? std::string("this model") : "'" + short_text(m.model_type) + "'") +
                                    "; choose one of " + ok);
    }
    m.head = head;
    if (m.family == Family::Encoder || m.family == Family::EncoderDecoder)
        m.kv_kinds.assign(static_cast<size_t>(m.layers), m.has_decoder() ? ModelConfig::KvKind::Full : ModelConfig::KvKind::None);
    m.count_layer_kinds();
}

const char* head_name(Head head) {
    for (const auto& h : kHeads)
        if (h.head == head) return h.name;
    return "?";
}

std::vector<const char*> head_names() {
    std::vector<const char*> names{"auto"};
    for (const auto& h : kHeads) names.push_back(h.name);
    return names;
}

bool head_named(const std::string& name, Head& head) {
    for (const auto& h : kHeads)
        if (name == h.name) return head = h.head, true;
    return false;
}

}  // namespace vramcalc
