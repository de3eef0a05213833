// Tensors of the encoders and encoder-decoders of issue 24, each after its
// transformers modeling file (the module names are those of core/model/names.cpp).
#include "model/names.hpp"
#include "model/params_parts.hpp"

namespace vramcalc {
namespace {

// q, k, v, o (with biases where the family has them) of `L` attention layers of width h.
void attention(const ModelConfig& c, const char* q, const char* k, const char* v, const char* o, int64_t L,
               TensorList& t, bool k_bias = true) {
    const int64_t h = c.hidden, inner = c.heads * c.head_dim;
    t.add(q, TensorKind::Attention, h, inner, L);
    t.add(k, TensorKind::Attention, h, inner, L);
    t.add(v, TensorKind::Attention, h, inner, L);
    t.add(o, TensorKind::Attention, inner, h, L);
    if (c.qkv_bias) t.vector("attention.qkv.bias", (k_bias ? 3 : 2) * inner, L);
    if (c.attn_output_bias) t.vector("attention.output.bias", h, L);
}

// One MLP of width I per layer: plain up/down, or gated (T5 v1.1 wi_0/wi_1, ModernBERT Wi).
void mlp(const ModelConfig& c, int64_t I, int64_t L, TensorList& t) {
    const ModuleNames& n = names(c);
    const int64_t h = c.hidden;
    if (c.gated_mlp && c.fused_gate_up) {
        t.add(n.gate_up, TensorKind::Mlp, h, 2 * I, L);
    } else if (c.gated_mlp) {
        t.add(n.gate, TensorKind::Mlp, h, I, L);
        t.add(c.arch == Arch::T5 || c.arch == Arch::Umt5 ? "wi_1" : n.up, TensorKind::Mlp, h, I, L);
    } else {
        t.add(n.up, TensorKind::Mlp, h, I, L);
    }
    t.add(n.down, TensorKind::Mlp, I, h, L);
    if (c.mlp_bias) t.vector("mlp.biases", (c.gated_mlp ? 2 : 1) * I + h, L);
}

int64_t norm_length(const ModelConfig& c) { return c.norm_bias ? 2 * c.hidden : c.hidden; }

// BERT (models/bert BertEmbeddings, BertLayer), RoBERTa / XLM-R (positions = max + 2
// rows already in max_position_embeddings 514), ELECTRA (embedding_size with
// embeddings_project), DeBERTa-v2 (rel_embeddings, optional ConvLayer), DistilBERT:
// word, position and token-type tables with a LayerNorm, then post-LN layers.
void bert_encoder(const ModelConfig& c, TensorList& t) {
    const ModuleNames& n = names(c);
    const int64_t h = c.hidden, L = c.layers, E = c.embedding_size > 0 ? c.embedding_size : h;
    t.add(n.embed, TensorKind::Embedding, c.vocab, E, 1);
    if (c.position_rows > 0) t.add("position_embeddings", TensorKind::Embedding, c.position_rows, E, 1);
    if (c.type_vocab > 0) t.add("token_type_embeddings", TensorKind::Embedding, c.type_vocab, E, 1);
    t.vector("embeddings.LayerNorm", 2 * E, 1);
    if (E != h) {  // ElectraModel.embeddings_project (bias); DebertaV2Embeddings.embed_proj (no bias)
        t.add("embeddings_project", TensorKind::Mlp, E, h, 1);
        if (c.arch == Arch::Electra) t.vector("embeddings_project.bias", h, 1);
    }
    attention(c, n.q, n.k, n.v, n.o, L, t);
    t.vector("attention.output.LayerNorm + output.LayerNorm", 2 * norm_length(c), L);
    mlp(c, c.intermediate, L, t);
    if (c.relative_embeddings > 0) {  // DebertaV2Encoder.rel_embeddings (+ LayerNorm)
        t.add("rel_embeddings", TensorKind::Embedding, c.relative_embeddings, h, 1);
        if (c.relative_norm) t.vector("encoder.LayerNorm", 2 * h, 1);
    }
    if (c.position_projections > 0) {  // DisentangledSelfAttention pos_key_proj / pos_query_proj
        t.add("pos_proj", TensorKind::Attention, h, c.heads * c.head_dim, L * c.position_projections);
        t.vector("pos_proj.bias", c.heads * c.head_dim, L * c.position_projections);
    }
    if (c.conv_kernel > 0) {  // DeBERTa-v2 ConvLayer: Conv1d(h, h, k) + bias, LayerNorm
        t.vector("encoder.conv.conv", h * h * c.conv_kernel + h, 1);
        t.vector("encoder.conv.LayerNorm", 2 * h, 1);
    }
}

// ModernBERT (models/modernbert): tok_embeddings + norm, layers of attn_norm (none in
// the first), Wqkv, Wo, mlp_norm, Wi (2·I), Wo; final_norm.
void modernbert_encoder(const ModelConfig& c, TensorList& t) {
    const ModuleNames& n = names(c);
    const int64_t h = c.hidden, L = c.layers, norm = norm_length(c);
    t.add(n.embed, TensorKind::Embedding, c.vocab, h, 1);
    t.vector("embeddings.norm", norm, 1);
    t.add(n.qkv, TensorKind::Attention, h, 3 * c.heads * c.head_dim, L);
    if (c.qkv_bias) t.vector("Wqkv.bias", 3 * c.heads * c.head_dim, L);
    t.add(n.o, TensorKind::Attention, c.heads * c.head_dim, h, L);
    if (c.attn_output_bias) t.vector("Wo.bias", h, L);
    mlp(c, c.intermediate, L, t);
    t.vector("attn_norm", norm, L - 1);
    t.vector("mlp_norm", norm, L);
    t.vector("final_norm", norm, 1);
}

// T5 / mT5 / UMT5 (models/t5 T5Stack, T5Block): `self` attention (+ `cross` in the
// decoder), one T5LayerNorm per sublayer, the relative position bias table
// (buckets × heads) in the first layer's self-attention (UMT5: every layer's), final norm.
void t5_stack(const ModelConfig& c, int64_t L, int64_t I, bool decoder, TensorList& t) {
    const ModuleNames& n = names(c);
    attention(c, n.q, n.k, n.v, n.o, L, t);
    if (decoder) attention(c, n.cross_q, n.cross_k, n.cross_v, n.cross_o, L, t);
    mlp(c, I, L, t);
    t.vector("layer_norm", c.hidden, L * (decoder ? 3 : 2));
    t.vector("relative_attention_bias", c.relative_buckets * c.heads, c.relative_bias_every_layer ? L : 1);
    t.vector("final_layer_norm", c.hidden, 1);
}

// BART / mBART / Marian (models/bart BartEncoder, BartDecoder) and Whisper (models/whisper):
// self attention (+ encoder_attn), a LayerNorm per sublayer, fc1/fc2, positions per stack.
void bart_stack(const ModelConfig& c, int64_t L, int64_t I, int64_t positions, bool decoder, TensorList& t) {
    const ModuleNames& n = names(c);
    const bool whisper = c.arch == Arch::Whisper;  // WhisperAttention: k_proj has no bias
    attention(c, n.q, n.k, n.v, n.o, L, t, !whisper);
    if (decoder) attention(c, n.cross_q, n.cross_k, n.cross_v, n.cross_o, L, t, !whisper);
    mlp(c, I, L, t);
    t.vector("layer_norms", 2 * c.hidden, L * (decoder ? 3 : 2));
    t.add("embed_positions", TensorKind::Embedding, positions, c.hidden, 1);
    if (c.embedding_norm) t.vector("layernorm_embedding", 2 * c.hidden, 1);
    if (c.final_norm || whisper) t.vector("layer_norm", 2 * c.hidden, 1);
}

}  // namespace

void encoder_model(const ModelConfig& c, TensorList& t) {
    if (c.arch == Arch::ModernBert) modernbert_encoder(c, t);
    else bert_encoder(c, t);
}

void encoder_decoder_model(const ModelConfig& c, TensorList& t) {
    const bool dec = c.has_decoder();
    const int64_t Ie = c.encoder_intermediate > 0 ? c.encoder_intermediate : c.intermediate;
    if (c.arch == Arch::Whisper) {
        // WhisperEncoder: conv1 Conv1d(num_mel_bins, d, 3), conv2 Conv1d(d, d, 3, stride 2), frozen
        // embed_positions of max_source_positions rows; the decoder's embed_tokens only with a decoder.
        t.vector("encoder.conv1", c.mel_bins * 3 * c.hidden + c.hidden, 1);
        t.vector("encoder.conv2", c.hidden * 3 * c.hidden + c.hidden, 1);
        bart_stack(c, c.encoder_layers, Ie, c.encoder_positions, false, t);
        if (dec) t.add("embed_tokens", TensorKind::Embedding, c.vocab, c.hidden, 1);
        if (dec) bart_stack(c, c.layers, c.intermediate, c.position_rows, true, t);
        return;
    }
    t.add("shared", TensorKind::Embedding, c.vocab, c.hidden, 1);
    if (c.arch == Arch::Bart) {
        bart_stack(c, c.encoder_layers, Ie, c.position_rows, false, t);
        if (dec) bart_stack(c, c.layers, c.intermediate, c.position_rows, true, t);
        return;
    }
    t5_stack(c, c.encoder_layers, Ie, false, t);
    if (dec) t5_stack(c, c.layers, c.intermediate, true, t);
}

// The output layers: per head, after each family's transformers classes.
void head_tensors(const ModelConfig& c, TensorList& t) {
    const int64_t h = c.hidden, V = c.vocab, n = c.num_labels;
    const Arch a = c.arch;
    auto linear = [&](const char* name, TensorKind kind, int64_t in, int64_t out, bool bias) {
        t.add(name, kind, in, out, 1);
        if (bias) t.vector(name, out, 1);
    };
    auto pooler = [&]() { linear("pooler.dense", TensorKind::Mlp, h, h, true); };
    // The MLM prediction head: transform (dense + LayerNorm), a decoder tied to the word
    // embeddings (untied: its own matrix) and a vocabulary bias.
    auto mlm = [&]() {
        const int64_t E = a == Arch::Electra && c.embedding_size > 0 ? c.embedding_size : h;  // ELECTRA generator: h -> E
        const bool bias = a != Arch::ModernBert || c.mlp_bias;  // ModernBertPredictionHead: classifier_bias (false)
        linear("predictions.transform.dense", TensorKind::Mlp, h, E, bias);
        t.vector("predictions.transform.LayerNorm", a == Arch::ModernBert && !c.norm_bias ? E : 2 * E, 1);
        if (!c.tied_embeddings) t.add("predictions.decoder", TensorKind::Head, E, V, 1);
        t.vector("predictions.bias", V, 1);
    };
    const bool encoder = c.family == Family::Encoder;
    switch (c.head) {
        case Head::CausalLM: break;  // the decoders' lm_head: params.cpp
        case Head::Seq2SeqLM:
            if (!c.tied_embeddings) t.add("lm_head", TensorKind::Head, h, V, 1);
            break;
        case Head::MaskedLM: mlm(); break;
        case Head::Pretraining:
            if (a == Arch::Electra) {  // ElectraDiscriminatorPredictions: dense + dense_prediction (1 logit)
                linear("discriminator_predictions.dense", TensorKind::Mlp, h, h, true);
                linear("discriminator_predictions.dense_prediction", TensorKind::Head, h, 1, true);
            } else {  // BertForPreTraining: pooler + MLM head + seq_relationship (next sentence, 2 logits)
                pooler();
                mlm();
                linear("seq_relationship", TensorKind::Head, h, 2, true);
            }
            break;
        case Head::SequenceClassification:
            if (a == Arch::Bert) pooler();
            if (a == Arch::Whisper) {  // WhisperForAudioClassification: projector (classifier_proj_size 256) + classifier
                linear("projector", TensorKind::Mlp, h, 256, true);
                linear("classifier", TensorKind::Head, 256, n, true);
                break;
            }
            if (a == Arch::ModernBert) {  // ModernBertPredictionHead (dense, no bias; norm) + classifier
                linear("head.dense", TensorKind::Mlp, h, h, c.mlp_bias);
                t.vector("head.norm", norm_length(c), 1);
            } else if (encoder || c.family == Family::EncoderDecoder) {
                // RobertaClassificationHead / ElectraClassificationHead / Bart and T5 classification heads
                // (dense + out_proj), DebertaV2 ContextPooler, DistilBERT pre_classifier: one h × h with bias.
                if (a != Arch::Bert) linear("classifier.dense", TensorKind::Mlp, h, h, true);
            }
            // Decoders (LlamaForSequenceClassification, GPT2ForSequenceClassification): score, no bias.
            linear(encoder || c.family == Family::EncoderDecoder ? "classifier" : "score", TensorKind::Head, h, n,
                   encoder || c.family == Family::EncoderDecoder);
            break;
        case Head::TokenClassification:
            if (a == Arch::ModernBert) {
                linear("head.dense", TensorKind::Mlp, h, h, c.mlp_bias);
                t.vector("head.norm", norm_length(c), 1);
            }
            linear(encoder || c.family == Family::EncoderDecoder ? "classifier" : "score", TensorKind::Head, h, n, true);
            break;
        case Head::QuestionAnswering: linear("qa_outputs", TensorKind::Head, h, 2, true); break;
        case Head::Ctc: linear("lm_head", TensorKind::Head, h, V, true); break;  // Wav2Vec2ForCTC-style vocabulary projection
        case Head::Base:
            if (c.pooler > 0) pooler();  // BertModel / RobertaModel (add_pooling_layer=True)
            break;
        case Head::Encoder: break;
    }
    // sentence-transformers Dense modules (sentence_transformers/models/Dense.py): Linear(in, out, bias).
    for (size_t i = 0; i + 2 < c.dense_modules.size(); i += 3)
        linear("Dense.linear", TensorKind::Mlp, c.dense_modules[i], c.dense_modules[i + 1], c.dense_modules[i + 2] != 0);
}

}  // namespace vramcalc
