// Encoders and encoder-decoders (issue 24): each fixture is a published
// checkpoint's config.json; counts are derived tensor by tensor in the comments
// (transformers models/<family>/modeling_<family>.py) and the published figure
// (model card, paper or Hub safetensors metadata, cited) must be within 1 %.
#include <doctest/doctest.h>

#include "helpers.hpp"
#include "model/config.hpp"
#include "model/heads.hpp"
#include "model/params.hpp"
#include "text/errors.hpp"

using namespace vramcalc;

namespace {

ModelConfig config_of(const std::string& name) { return parse_config_text(test::fixture(name + ".config.json")); }

double count(const std::string& name) { return count_params(config_of(name)).total; }

double count_with(const std::string& name, Head head, int64_t labels = 0) {
    ModelConfig c = config_of(name);
    apply_head(c, head, "test");
    if (labels > 0) c.num_labels = labels;
    return count_params(c).total;
}

std::string error_of(const std::string& config) {
    try {
        parse_config_text(config);
    } catch (const InputError& e) {
        return e.field();
    }
    return "";
}

// One BERT-style post-LN layer of width h and MLP width I: q, k, v, attention.output.dense
// (each h×h + h), two LayerNorms (2h each), intermediate (h×I + I), output (I×h + h).
double bert_layer(double h, double I) { return 4 * (h * h + h) + 4 * h + h * I + I + I * h + h; }

}  // namespace

TEST_CASE("bert-large-uncased: embeddings, 24 post-LN layers, and the head architectures names") {
    const ModelConfig c = config_of("bert-large-uncased");
    CHECK(c.family == Family::Encoder);
    CHECK(c.head == Head::MaskedLM);  // BertForMaskedLM
    CHECK(c.norm == NormKind::LayerNorm);
    CHECK(c.post_norm);
    CHECK_FALSE(c.softmax_fp32);  // BertSelfAttention: softmax in the model dtype
    CHECK(c.kv_kind_count(ModelConfig::KvKind::Full) == 0);  // an encoder caches nothing
    // word 30522·1024 + positions 512·1024 + token types 2·1024 + LayerNorm 2·1024, 24 layers,
    // pooler 1024² + 1024 (BertModel) = 335,141,888.
    const double body = 30522.0 * 1024 + 512 * 1024 + 2 * 1024 + 2 * 1024 + 24 * bert_layer(1024, 4096);
    CHECK(count_with("bert-large-uncased", Head::Base) == body + 1024.0 * 1024 + 1024);
    // BertForMaskedLM: transform dense + LayerNorm, decoder tied, vocabulary bias.
    CHECK(count("bert-large-uncased") == body + 1024.0 * 1024 + 1024 + 2 * 1024 + 30522);
    // AutoModelForSequenceClassification (num_labels 2): pooler + classifier 1024·2 + 2 = 335,143,938.
    CHECK(count_with("bert-large-uncased", Head::SequenceClassification) == body + 1024.0 * 1024 + 1024 + 1024 * 2 + 2);
    CHECK(count_with("bert-large-uncased", Head::TokenClassification, 9) == body + 1024.0 * 9 + 9);
    CHECK(count_with("bert-large-uncased", Head::QuestionAnswering) == body + 1024.0 * 2 + 2);
    // Model card google-bert/bert-large-uncased: "336M parameters".
    CHECK(count_with("bert-large-uncased", Head::Base) == doctest::Approx(336e6).epsilon(0.01));
}

TEST_CASE("RoBERTa, XLM-RoBERTa, ELECTRA, DistilBERT: the BERT layout with their own tables and heads") {
    // roberta-base: 50265·768 + 514·768 + 1·768 + LayerNorm, 12 layers, MLM head (dense, LayerNorm, bias).
    const double roberta = 50265.0 * 768 + 514 * 768 + 768 + 2 * 768 + 12 * bert_layer(768, 3072) + 768.0 * 768 + 768 +
                           2 * 768 + 50265;
    CHECK(count("roberta-base") == roberta);
    // fairseq RoBERTa README (pretrained models table): roberta.base 125M.
    CHECK(count("roberta-base") == doctest::Approx(125e6).epsilon(0.01));
    // Hub safetensors metadata for FacebookAI/xlm-roberta-large: 561M params.
    CHECK(count("xlm-roberta-large") == doctest::Approx(561e6).epsilon(0.01));
    // ElectraForPreTraining: no pooler; discriminator dense 768² + 768 and dense_prediction 768 + 1.
    const double electra = 30522.0 * 768 + 512 * 768 + 2 * 768 + 2 * 768 + 12 * bert_layer(768, 3072) + 768.0 * 768 + 768 + 769;
    CHECK(count("electra-base-discriminator") == electra);
    CHECK(config_of("electra-base-discriminator").head == Head::Pretraining);
    // ELECTRA paper (Clark et al. 2020, arXiv:2003.10555) Table 1: ELECTRA-Base 110M.
    CHECK(count("electra-base-discriminator") == doctest::Approx(110e6).epsilon(0.01));
    // DistilBertModel: 30522·768 + 512·768 + LayerNorm, 6 layers (q_lin ... lin2) = 66,362,880.
    CHECK(count_with("distilbert-base-uncased", Head::Base) == 30522.0 * 768 + 512 * 768 + 2 * 768 + 6 * bert_layer(768, 3072));
    // DistilBERT paper (Sanh et al. 2019, arXiv:1910.01108) Table 3: 66M parameters.
    CHECK(count_with("distilbert-base-uncased", Head::Base) == doctest::Approx(66e6).epsilon(0.01));
    // DistilBertForSequenceClassification: pre_classifier 768² + 768 and classifier 768·2 + 2.
    CHECK(count_with("distilbert-base-uncased", Head::SequenceClassification) ==
          count_with("distilbert-base-uncased", Head::Base) + 768.0 * 768 + 768 + 768 * 2 + 2);
}

TEST_CASE("DeBERTa-v3 base: no absolute positions, 512 relative embeddings with their LayerNorm") {
    const ModelConfig c = config_of("deberta-v3-base");
    CHECK(c.position_rows == 0);  // position_biased_input false
    CHECK(c.relative_embeddings == 512);
    CHECK(c.head == Head::Base);  // no architectures in its config.json
    // 128100·768 + LayerNorm, 12 layers, rel_embeddings 512·768, encoder LayerNorm = 183,831,552.
    const double embeddings = 128100.0 * 768;
    const double total = embeddings + 2 * 768 + 12 * bert_layer(768, 3072) + 512.0 * 768 + 2 * 768;
    CHECK(count("deberta-v3-base") == total);
    // Model card microsoft/deberta-v3-base: "86M backbone parameters with a vocabulary containing
    // 128K tokens which introduces 98M parameters in the Embedding layer".
    CHECK(total - embeddings == doctest::Approx(86e6).epsilon(0.01));
    CHECK(embeddings == doctest::Approx(98e6).epsilon(0.01));
}

TEST_CASE("ModernBERT base: fused Wqkv, GeGLU Wi, no biases, tied decoder with a bias") {
    const ModelConfig c = config_of("modernbert-base");
    CHECK(c.gated_mlp);
    CHECK(c.layer_kinds[0].mixer == Mixer::FullAttention);  // every third layer global
    CHECK(c.layer_kinds[1].mixer == Mixer::SlidingAttention);
    CHECK(c.layer_kinds[1].window == 128);
    // tok 50368·768 + norm 768; 22 × (Wqkv 768·2304 + Wo 768² + Wi 768·2304 + Wo 1152·768 + mlp_norm)
    // + 21 attn_norm + final_norm = 149,014,272; MLM head dense 768² + norm 768 + bias 50368.
    const double base = 50368.0 * 768 + 768 + 22 * (768.0 * 2304 + 768 * 768 + 768 * 2304 + 1152 * 768 + 768) + 21 * 768 + 768;
    CHECK(count_with("modernbert-base", Head::Base) == base);
    CHECK(count("modernbert-base") == base + 768.0 * 768 + 768 + 50368);
    // Model card answerdotai/ModernBERT-base: "22 layers, 149 million parameters".
    CHECK(base == doctest::Approx(149e6).epsilon(0.01));
}

TEST_CASE("sentence-transformers: modules.json beside the Transformer module's config.json") {
    const ModelConfig c = config_of("all-minilm-l6-v2.sentence-transformers");
    CHECK(c.model_type == "bert");
    CHECK(c.head == Head::Base);  // architectures BertModel: the bare model, pooler included
    // 30522·384 + 512·384 + 2·384 + LayerNorm, 6 layers, pooler 384² + 384 = 22,713,216.
    CHECK(count_params(c).total == 30522.0 * 384 + 512 * 384 + 2 * 384 + 2 * 384 + 6 * bert_layer(384, 1536) + 384.0 * 384 + 384);
    // Hub safetensors metadata for sentence-transformers/all-MiniLM-L6-v2: 22.7M params.
    CHECK(count_params(c).total == doctest::Approx(22.7e6).epsilon(0.01));
    // A Dense module (sentence_transformers.models.Dense) adds in·out + out.
    auto bundle = nlohmann::json::parse(test::fixture("all-minilm-l6-v2.sentence-transformers.config.json"));
    bundle["modules.json"].push_back({{"idx", 3}, {"name", "3"}, {"path", "3_Dense"}, {"type", "sentence_transformers.models.Dense"}});
    bundle["3_Dense/config.json"] = {{"in_features", 384}, {"out_features", 256}, {"bias", true}};
    CHECK(count_params(parse_config(bundle)).total == count_params(c).total + 384.0 * 256 + 256);
    // modules.json alone names no sizes: the error says which file to give.
    CHECK(error_of(bundle["modules.json"].dump()) == "config");
    bundle.erase("3_Dense/config.json");
    CHECK(error_of(bundle.dump()) == "config.3_Dense/config.json");
}

TEST_CASE("T5, Flan-T5, mT5, umT5: shared embedding, relative bias tables, tied or untied head") {
    const ModelConfig c = config_of("t5-base");
    CHECK(c.family == Family::EncoderDecoder);
    CHECK(c.head == Head::Seq2SeqLM);
    CHECK(c.has_decoder());
    CHECK(c.encoder_layers == 12);
    CHECK(c.tied_embeddings);  // T5Config ties (v1.0)
    CHECK(c.kv_kind_count(ModelConfig::KvKind::Full) == 12);  // the decoder's self-attention caches
    // shared 32128·768; encoder 12 × (q, k, v, o 4·768² + wi, wo 2·768·3072 + 2 norms) + bias 32·12 + final norm;
    // decoder 12 × (self 4·768² + cross 4·768² + wi, wo + 3 norms) + bias + final norm = 222,903,552.
    const double enc = 12 * (4 * 768.0 * 768 + 2 * 768.0 * 3072 + 2 * 768) + 32 * 12 + 768;
    const double dec = 12 * (8 * 768.0 * 768 + 2 * 768.0 * 3072 + 3 * 768) + 32 * 12 + 768;
    CHECK(count("t5-base") == 32128.0 * 768 + enc + dec);
    // Hub safetensors metadata for google-t5/t5-base: 223M params.
    CHECK(count("t5-base") == doctest::Approx(223e6).epsilon(0.01));
    // T5EncoderModel: the shared table and the encoder only.
    CHECK(count_with("t5-base", Head::Encoder) == 32128.0 * 768 + enc);
    // flan-t5-base: gated-gelu (wi_0, wi_1, wo of 2048), untied lm_head. Hub metadata: 248M params.
    CHECK(config_of("flan-t5-base").activation == Activation::GeluTanhComposite);
    CHECK(count("flan-t5-base") == doctest::Approx(248e6).epsilon(0.01));
    // mT5 paper (Xue et al. 2021, arXiv:2010.11934) Table: mT5-Base 580M.
    CHECK(count("mt5-base") == doctest::Approx(580e6).epsilon(0.01));
    // umT5: a relative bias table in every self-attention (16 of them, 32·6 each).
    CHECK(config_of("umt5-small").relative_bias_every_layer);
    // Hub safetensors metadata for stefan-it/umt5-small (the google/umt5-small checkpoint): 307M params.
    CHECK(count("umt5-small") == doctest::Approx(307e6).epsilon(0.01));
}

TEST_CASE("BART, mBART-50, Marian: offset position tables, layernorm_embedding, final norms") {
    const ModelConfig bart = config_of("bart-large");
    CHECK(bart.post_norm);
    CHECK(bart.position_rows == 1026);
    CHECK(bart.head == Head::Base);  // BartModel
    // shared 50265·1024; per stack positions 1026·1024 + layernorm_embedding; encoder layer 12,596,224,
    // decoder layer + cross-attention 4·(1024² + 1024) + LayerNorm = 406,291,456.
    const double enc_layer = bert_layer(1024, 4096), dec_layer = enc_layer + 4 * (1024.0 * 1024 + 1024) + 2 * 1024;
    CHECK(count("bart-large") == 50265.0 * 1024 + 2 * (1026.0 * 1024 + 2 * 1024) + 12 * enc_layer + 12 * dec_layer);
    // Hub safetensors metadata for facebook/bart-large: 406M params.
    CHECK(count("bart-large") == doctest::Approx(406e6).epsilon(0.01));
    CHECK_FALSE(config_of("mbart-large-50").post_norm);  // normalize_before
    // Hub safetensors metadata for facebook/mbart-large-50: 611M params.
    CHECK(count("mbart-large-50") == doctest::Approx(611e6).epsilon(0.01));
    const ModelConfig marian = config_of("opus-mt-en-de");
    CHECK(marian.head == Head::Seq2SeqLM);  // MarianMTModel
    CHECK_FALSE(marian.embedding_norm);
    CHECK(marian.activation == Activation::Silu);  // swish
    // 58101·512 + 2 sinusoidal tables 512·512, 6 + 6 layers = 74,410,496 (HF keeps the sinusoids as frozen parameters).
    const double m_enc = bert_layer(512, 2048), m_dec = m_enc + 4 * (512.0 * 512 + 512) + 2 * 512;
    CHECK(count("opus-mt-en-de") == 58101.0 * 512 + 2 * 512.0 * 512 + 6 * m_enc + 6 * m_dec);
}

TEST_CASE("Whisper large-v3: conv stem, 1500 encoder frames, k_proj without bias, tied proj_out") {
    const ModelConfig c = config_of("whisper-large-v3");
    CHECK(c.encoder_positions == 1500);
    CHECK(c.mel_bins == 128);
    CHECK(c.head == Head::Seq2SeqLM);
    // conv1 128·3·1280 + 1280, conv2 1280·3·1280 + 1280, positions 1500·1280, 32 encoder layers
    // (q, v, out with bias, k without: 4·1280² + 3·1280; fc1, fc2; 2 LayerNorms), layer_norm;
    // decoder embed_tokens 51866·1280, positions 448·1280, 32 layers with cross-attention, layer_norm.
    const double attn = 4 * 1280.0 * 1280 + 3 * 1280, mlp = 2 * 1280.0 * 5120 + 5120 + 1280;
    const double enc = 128.0 * 3 * 1280 + 1280 + 1280.0 * 3 * 1280 + 1280 + 1500.0 * 1280 + 32 * (attn + mlp + 4 * 1280) + 2 * 1280;
    const double dec = 51866.0 * 1280 + 448.0 * 1280 + 32 * (2 * attn + mlp + 6 * 1280) + 2 * 1280;
    CHECK(count("whisper-large-v3") == enc + dec);
    // Whisper paper (Radford et al. 2022, arXiv:2212.04356) Table 1: large, 1550M parameters.
    CHECK(count("whisper-large-v3") == doctest::Approx(1550e6).epsilon(0.01));
    // The encoder with a CTC vocabulary projection (1280·51866 + 51866); no decoder runs.
    ModelConfig ctc = c;
    apply_head(ctc, Head::Ctc, "test");
    CHECK_FALSE(ctc.has_decoder());
    CHECK(ctc.kv_kind_count(ModelConfig::KvKind::Full) == 0);
    CHECK(count_params(ctc).total == enc + 1280.0 * 51866 + 51866);
}

TEST_CASE("an incomplete config of these families names the missing key") {
    CHECK(error_of(R"({"model_type": "bert", "hidden_size": 768})") == "config.num_hidden_layers");
    CHECK(error_of(R"({"model_type": "t5", "num_layers": 6})") == "config.d_model");
    CHECK(error_of(R"({"model_type": "whisper", "d_model": 384, "decoder_layers": 4})") == "config.encoder_layers");
    CHECK(error_of(R"({"model_type": "chatglm", "hidden_size": 4096, "num_layers": 2, "num_attention_heads": 32,
                       "multi_query_attention": true})") == "config.multi_query_group_num");
    CHECK(error_of(R"({"model_type": "mpt", "d_model": 4096, "n_layers": 2, "n_heads": 31, "vocab_size": 10})") ==
          "config.n_heads");  // 31 heads do not divide 4096
}

TEST_CASE("heads: chosen by architectures, refused by name where the family has none") {
    CHECK(config_of("whisper-large-v3").head == Head::Seq2SeqLM);
    ModelConfig bert = config_of("bert-large-uncased");
    CHECK_THROWS_WITH_AS(apply_head(bert, Head::Seq2SeqLM, "job.head"), doctest::Contains("masked_lm"), InputError);
    ModelConfig llama = parse_config_text(test::fixture("llama-3-8b.config.json"));
    CHECK(llama.head == Head::CausalLM);
    CHECK_THROWS_AS(apply_head(llama, Head::MaskedLM, "job.head"), InputError);
    // LlamaForSequenceClassification: score 4096·labels (no bias) instead of lm_head 4096·128256.
    const double lm = count_params(llama).total;
    apply_head(llama, Head::SequenceClassification, "job.head");
    CHECK(count_params(llama).total == lm - 4096.0 * 128256 + 4096 * 2);
    auto seq_cls = nlohmann::json::parse(test::fixture("llama-3-8b.config.json"));
    seq_cls["architectures"] = {"LlamaForSequenceClassification"};
    seq_cls["id2label"] = {{"0", "LABEL_0"}};
    const ModelConfig reward = parse_config(seq_cls);
    CHECK(reward.head == Head::SequenceClassification);
    CHECK(reward.num_labels == 1);
}
