"""Helpers shared by the catalog's family files: the trimmed config.json fixtures in
tests/fixtures/ (their "_source" names the checkpoint) and a Llama-style config builder."""
import json
import os

FIXTURES = os.path.join(os.path.dirname(__file__), "..", "..", "tests", "fixtures")

def fixture(name, vision=None, top=None, **changes):
    """The fixture's config with `changes` in its language model (text_config when it nests one),
    `vision` in its vision_config and `top` at its top level."""
    c = json.load(open(os.path.join(FIXTURES, name + ".config.json")))
    c.pop("_source", None)
    target = c["text_config"] if "text_config" in c and "hidden_size" not in c else c
    target.update(changes)
    if vision:
        c["vision_config"].update(vision)
    if top:
        c.update(top)
    return c

def llama(h, L, heads, kv, I, V, tied=False, head_dim=None, model_type="llama", **extra):
    c = {"model_type": model_type, "hidden_size": h, "num_hidden_layers": L, "num_attention_heads": heads,
         "num_key_value_heads": kv, "intermediate_size": I, "vocab_size": V, "tie_word_embeddings": tied}
    if head_dim: c["head_dim"] = head_dim
    c.update(extra)
    return c

deepseek_v3 = {"model_type": "deepseek_v3", "hidden_size": 7168, "num_hidden_layers": 61, "num_attention_heads": 128,
               "num_key_value_heads": 128, "q_lora_rank": 1536, "kv_lora_rank": 512, "qk_nope_head_dim": 128,
               "qk_rope_head_dim": 64, "v_head_dim": 128, "intermediate_size": 18432, "moe_intermediate_size": 2048,
               "n_routed_experts": 256, "n_shared_experts": 1, "num_experts_per_tok": 8, "first_k_dense_replace": 3,
               "moe_layer_freq": 1, "vocab_size": 129280, "tie_word_embeddings": False}

