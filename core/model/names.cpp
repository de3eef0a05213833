#include "model/names.hpp"

namespace vramcalc {
namespace {

// q, k, v, qkv, o, gate, up, gate_up, down, embed, head [, cross q, k, v, o]; each from
// transformers models/<family>/modeling_<family>.py (or the checkpoint's remote code).
const ModuleNames kBert = {"query", "key", "value", "qkv", "attention.output.dense", "gate", "intermediate.dense",
                           "gate_up", "output.dense", "word_embeddings", "classifier"};
const ModuleNames kDeberta = {"query_proj", "key_proj", "value_proj", "qkv", "attention.output.dense", "gate",
                              "intermediate.dense", "gate_up", "output.dense", "word_embeddings", "classifier"};
const ModuleNames kDistilBert = {"q_lin", "k_lin", "v_lin", "qkv", "out_lin", "gate", "lin1", "gate_up", "lin2",
                                 "word_embeddings", "classifier"};
const ModuleNames kModernBert = {"q", "k", "v", "Wqkv", "attn.Wo", "gate", "up", "mlp.Wi", "mlp.Wo", "tok_embeddings",
                                 "classifier"};
const ModuleNames kT5 = {"q", "k", "v", "qkv", "o", "wi_0", "wi", "gate_up", "wo", "shared", "lm_head",
                         "EncDecAttention.q", "EncDecAttention.k", "EncDecAttention.v", "EncDecAttention.o"};
const ModuleNames kBart = {"q_proj", "k_proj", "v_proj", "qkv", "out_proj", "gate", "fc1", "gate_up", "fc2", "shared",
                           "lm_head", "encoder_attn.q_proj", "encoder_attn.k_proj", "encoder_attn.v_proj",
                           "encoder_attn.out_proj"};
const ModuleNames kBloom = {"q", "k", "v", "query_key_value", "dense", "gate", "dense_h_to_4h", "gate_up",
                            "dense_4h_to_h", "word_embeddings", "lm_head"};
const ModuleNames kOpt = {"q_proj", "k_proj", "v_proj", "qkv", "out_proj", "gate", "fc1", "gate_up", "fc2",
                          "embed_tokens", "lm_head"};
const ModuleNames kGptj = {"q_proj", "k_proj", "v_proj", "qkv", "out_proj", "gate", "fc_in", "gate_up", "fc_out", "wte",
                           "lm_head"};
const ModuleNames kMpt = {"q", "k", "v", "Wqkv", "out_proj", "gate", "up_proj", "gate_up", "down_proj", "wte", "lm_head"};
const ModuleNames kBaichuan = {"q_proj", "k_proj", "v_proj", "W_pack", "o_proj", "gate_proj", "up_proj", "gate_up",
                               "down_proj", "embed_tokens", "lm_head"};
const ModuleNames kInternLm2 = {"q", "k", "v", "wqkv", "wo", "feed_forward.w1", "feed_forward.w3", "gate_up",
                                "feed_forward.w2", "tok_embeddings", "output"};
const ModuleNames kChatGlm = {"q", "k", "v", "query_key_value", "dense", "gate", "up", "dense_h_to_4h", "dense_4h_to_h",
                              "word_embeddings", "output_layer"};
// Qwen v1 QWenMLP: w2 feeds the SiLU (the gate), w1 the product (up), c_proj back down.
const ModuleNames kQwen = {"q", "k", "v", "c_attn", "c_proj", "mlp.w2", "mlp.w1", "gate_up", "c_proj", "wte", "lm_head"};
const ModuleNames kExaone = {"q_proj", "k_proj", "v_proj", "qkv", "out_proj", "c_fc_0", "c_fc_1", "gate_up", "c_proj",
                             "wte", "lm_head"};
const ModuleNames kStarcoder2 = {"q_proj", "k_proj", "v_proj", "qkv", "o_proj", "gate", "c_fc", "gate_up", "c_proj",
                                 "embed_tokens", "lm_head"};

}  // namespace

const ModuleNames kLlamaNames = {"q_proj", "k_proj", "v_proj", "qkv_proj", "o_proj", "gate_proj", "up_proj",
                                 "gate_up_proj", "down_proj", "embed_tokens", "lm_head"};

const ModuleNames* names_of(Arch arch) {
    switch (arch) {
        case Arch::Bert: case Arch::Roberta: case Arch::Electra: return &kBert;
        case Arch::DebertaV2: return &kDeberta;
        case Arch::DistilBert: return &kDistilBert;
        case Arch::ModernBert: return &kModernBert;
        case Arch::T5: case Arch::Umt5: return &kT5;
        case Arch::Bart: case Arch::Whisper: return &kBart;
        case Arch::Bloom: return &kBloom;
        case Arch::Opt: return &kOpt;
        case Arch::Gptj: return &kGptj;
        case Arch::Mpt: return &kMpt;
        case Arch::Baichuan: return &kBaichuan;
        case Arch::InternLm2: return &kInternLm2;
        case Arch::ChatGlm: return &kChatGlm;
        case Arch::Qwen: return &kQwen;
        case Arch::Exaone: return &kExaone;
        case Arch::Starcoder2: return &kStarcoder2;
        case Arch::StableLm: case Arch::None: break;
    }
    return &kLlamaNames;
}

}  // namespace vramcalc
