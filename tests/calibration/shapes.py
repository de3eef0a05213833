"""Small HF-style configs (real key names) used by the breakdown and by run.py: several shapes per family."""


def gpt2(h, a, s_max=256, inner=None):
    return dict(model_type="gpt2", architectures=["GPT2LMHeadModel"], n_embd=h, n_head=a, n_inner=inner,
                n_layer=2, n_positions=s_max, vocab_size=128, attn_pdrop=0.1, resid_pdrop=0.1, embd_pdrop=0.1,
                layer_norm_epsilon=1e-5, activation_function="gelu_new")


def llama(h, inter, a, kv, head_dim=None):
    c = dict(model_type="llama", architectures=["LlamaForCausalLM"], hidden_size=h, intermediate_size=inter,
             num_attention_heads=a, num_key_value_heads=kv, num_hidden_layers=2, vocab_size=128,
             max_position_embeddings=256, rms_norm_eps=1e-5, rope_theta=10000.0, hidden_act="silu",
             attention_dropout=0.0, tie_word_embeddings=False)
    if head_dim:
        c["head_dim"] = head_dim
    return c


def mixtral(h, inter, a, kv, E, K):
    c = llama(h, inter, a, kv)
    c.update(model_type="mixtral", architectures=["MixtralForCausalLM"], num_local_experts=E,
             num_experts_per_tok=K)
    return c


def deepseek_v3(h, a, rq, rkv, nope, rope, vd, E, K, ie, shared=1, n_group=4, topk_group=2, inter=None):
    return dict(model_type="deepseek_v3", architectures=["DeepseekV3ForCausalLM"], hidden_size=h,
                intermediate_size=inter or 3 * h, moe_intermediate_size=ie, num_attention_heads=a,
                num_key_value_heads=a, q_lora_rank=rq, kv_lora_rank=rkv, qk_nope_head_dim=nope,
                qk_rope_head_dim=rope, v_head_dim=vd, n_routed_experts=E, n_shared_experts=shared,
                num_experts_per_tok=K, n_group=n_group, topk_group=topk_group, norm_topk_prob=True,
                routed_scaling_factor=2.5, first_k_dense_replace=1, num_hidden_layers=2, vocab_size=128,
                max_position_embeddings=256, rms_norm_eps=1e-6, rope_theta=10000.0, rope_interleave=True,
                topk_method="noaux_tc", moe_layer_freq=1, tie_word_embeddings=False)


def bert(h, a, inter):
    return dict(model_type="bert", architectures=["BertForMaskedLM"], hidden_size=h, num_attention_heads=a,
                intermediate_size=inter, num_hidden_layers=2, vocab_size=128, max_position_embeddings=256,
                type_vocab_size=2, hidden_act="gelu", hidden_dropout_prob=0.1, attention_probs_dropout_prob=0.1,
                layer_norm_eps=1e-12)


def t5(h, a, d_kv, ff, arch="T5ForConditionalGeneration", gated=False, encoder_seq=None):
    c = dict(model_type="t5", architectures=[arch], d_model=h, num_heads=a, d_kv=d_kv, d_ff=ff, num_layers=2,
             num_decoder_layers=2, vocab_size=128, dropout_rate=0.1, layer_norm_epsilon=1e-6,
             relative_attention_num_buckets=32, feed_forward_proj="gated-gelu" if gated else "relu",
             tie_word_embeddings=not gated)
    if encoder_seq:
        c["_encoder_seq"] = encoder_seq  # the harness's: the encoder output's length for a decoder block
    return c


# (family, label, config, b, s)
CASES = [
    ("bert", "h64 a4 I160 s16 b2", bert(64, 4, 160), 2, 16),
    ("bert", "h96 a6 I384 s40 b1", bert(96, 6, 384), 1, 40),
    ("t5", "encoder h64 a4 d16 ff128 s16 b2", t5(64, 4, 16, 128, "T5EncoderModel"), 2, 16),
    ("t5", "encoder gated h96 a4 d32 ff160 s24 b1", t5(96, 4, 32, 160, "T5EncoderModel", gated=True), 1, 24),
    ("t5", "decoder h64 a4 d16 ff128 s12 enc20 b2", t5(64, 4, 16, 128, encoder_seq=20), 2, 12),
    ("t5", "decoder gated h96 a6 d16 ff200 s20 enc12 b1", t5(96, 6, 16, 200, gated=True, encoder_seq=12), 1, 20),
    ("gpt2", "h64 a4 s16 b2", gpt2(64, 4), 2, 16),
    ("gpt2", "h96 a6 I200 s40 b1", gpt2(96, 6, inner=200), 1, 40),
    ("gpt2", "h128 a2 s24 b3", gpt2(128, 2), 3, 24),
    ("llama", "h64 I160 a8 kv2 s16 b2", llama(64, 160, 8, 2), 2, 16),
    ("llama", "h96 I256 a6 kv6 s32 b1", llama(96, 256, 6, 6), 1, 32),
    ("llama", "h128 I344 a8 kv1 s24 b3", llama(128, 344, 8, 1), 3, 24),
    ("llama", "h64 I128 a4 kv2 d32 s48 b1", llama(64, 128, 4, 2, head_dim=32), 1, 48),
    ("mixtral", "h64 I96 a8 kv2 E4 K2 s16 b2", mixtral(64, 96, 8, 2, 4, 2), 2, 16),
    ("mixtral", "h96 I128 a6 kv3 E8 K2 s24 b1", mixtral(96, 128, 6, 3, 8, 2), 1, 24),
    ("mixtral", "h64 I80 a4 kv4 E6 K3 s20 b2", mixtral(64, 80, 4, 4, 6, 3), 2, 20),
    ("deepseek_v3", "h64 a4 rq48 rkv32 16/8/16 E8 K2 Ie32 s16 b2",
     deepseek_v3(64, 4, 48, 32, 16, 8, 16, 8, 2, 32), 2, 16),
    ("deepseek_v3", "h96 a6 rq64 rkv48 24/8/16 E16 K4 Ie24 sh2 s24 b1",
     deepseek_v3(96, 6, 64, 48, 24, 8, 16, 16, 4, 24, shared=2, n_group=4, topk_group=2), 1, 24),
    ("deepseek_v3", "h64 a4 rq32 rkv32 16/16/32 E8 K2 Ie32 s16 b2 (vd = qk, no pad)",
     deepseek_v3(64, 4, 32, 32, 16, 16, 32, 8, 2, 32), 2, 16),
]
