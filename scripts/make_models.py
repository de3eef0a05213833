#!/usr/bin/env python3
"""Writes models.json: Hugging Face config.json fields (the ones vramcalc reads)
for popular models, with the parameter count their publisher states.
Run once by hand; models.json is committed."""
import json

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

M = [
  # id, name, hf_id, config, published params (total), source
  ("gpt2", "GPT-2 (124M)", "openai-community/gpt2",
   {"model_type": "gpt2", "n_embd": 768, "n_layer": 12, "n_head": 12, "vocab_size": 50257, "n_positions": 1024},
   124e6, "Hugging Face model card openai-community/gpt2: 124M parameters"),
  ("gpt2-xl", "GPT-2 XL (1.5B)", "openai-community/gpt2-xl",
   {"model_type": "gpt2", "n_embd": 1600, "n_layer": 48, "n_head": 25, "vocab_size": 50257, "n_positions": 1024},
   1558e6, "Hugging Face transformers pretrained-models list: gpt2-xl, 48-layer, 1600-hidden, 25-heads, 1558M parameters"),
  ("pythia-1.4b", "Pythia 1.4B", "EleutherAI/pythia-1.4b",
   {"model_type": "gpt_neox", "hidden_size": 2048, "num_hidden_layers": 24, "num_attention_heads": 16,
    "intermediate_size": 8192, "vocab_size": 50304, "tie_word_embeddings": False},
   1414647808, "Biderman et al. 2023 (Pythia), Table 1: 1,414,647,808 total parameters"),
  ("llama-2-7b", "Llama 2 7B", "meta-llama/Llama-2-7b-hf", llama(4096, 32, 32, 32, 11008, 32000),
   6.74e9, "Hugging Face Hub safetensors metadata for meta-llama/Llama-2-7b-hf: 6.74B params"),
  ("llama-2-13b", "Llama 2 13B", "meta-llama/Llama-2-13b-hf", llama(5120, 40, 40, 40, 13824, 32000),
   13.0e9, "Touvron et al. 2023 (Llama 2): 13B"),
  ("llama-2-70b", "Llama 2 70B", "meta-llama/Llama-2-70b-hf", llama(8192, 80, 64, 8, 28672, 32000),
   69.0e9, "Hugging Face Hub safetensors metadata for meta-llama/Llama-2-70b-hf: 69B params"),
  ("llama-3-8b", "Llama 3 8B", "meta-llama/Meta-Llama-3-8B", llama(4096, 32, 32, 8, 14336, 128256),
   8.03e9, "Hugging Face Hub safetensors metadata for meta-llama/Meta-Llama-3-8B: 8.03B params"),
  ("llama-3.1-8b", "Llama 3.1 8B", "meta-llama/Llama-3.1-8B", llama(4096, 32, 32, 8, 14336, 128256),
   8.03e9, "Hugging Face Hub safetensors metadata for meta-llama/Llama-3.1-8B: 8.03B params"),
  ("llama-3.1-70b", "Llama 3.1 70B", "meta-llama/Llama-3.1-70B", llama(8192, 80, 64, 8, 28672, 128256),
   70.6e9, "Hugging Face Hub safetensors metadata for meta-llama/Llama-3.1-70B: 70.6B params"),
  ("llama-3.1-405b", "Llama 3.1 405B", "meta-llama/Llama-3.1-405B", llama(16384, 126, 128, 8, 53248, 128256),
   406e9, "Hugging Face Hub safetensors metadata for meta-llama/Llama-3.1-405B: 406B params"),
  ("llama-3.2-1b", "Llama 3.2 1B", "meta-llama/Llama-3.2-1B", llama(2048, 16, 32, 8, 8192, 128256, tied=True, head_dim=64),
   1.24e9, "Hugging Face Hub safetensors metadata for meta-llama/Llama-3.2-1B: 1.24B params"),
  ("llama-3.2-3b", "Llama 3.2 3B", "meta-llama/Llama-3.2-3B", llama(3072, 28, 24, 8, 8192, 128256, tied=True, head_dim=128),
   3.21e9, "Hugging Face Hub safetensors metadata for meta-llama/Llama-3.2-3B: 3.21B params"),
  ("mistral-7b", "Mistral 7B v0.1", "mistralai/Mistral-7B-v0.1", llama(4096, 32, 32, 8, 14336, 32000, model_type="mistral"),
   7.24e9, "Hugging Face Hub safetensors metadata for mistralai/Mistral-7B-v0.1: 7.24B params"),
  ("mistral-nemo-12b", "Mistral NeMo 12B", "mistralai/Mistral-Nemo-Base-2407",
   llama(5120, 40, 32, 8, 14336, 131072, head_dim=128, model_type="mistral"),
   12.2e9, "Hugging Face Hub safetensors metadata for mistralai/Mistral-Nemo-Base-2407: 12.2B params"),
  ("mixtral-8x7b", "Mixtral 8x7B", "mistralai/Mixtral-8x7B-v0.1",
   llama(4096, 32, 32, 8, 14336, 32000, model_type="mixtral", num_local_experts=8, num_experts_per_tok=2),
   46.7e9, "Mistral AI, 'Mixtral of experts' (Jiang et al. 2024): 46.7B total, 12.9B active"),
  ("mixtral-8x22b", "Mixtral 8x22B", "mistralai/Mixtral-8x22B-v0.1",
   llama(6144, 56, 48, 8, 16384, 32768, model_type="mixtral", num_local_experts=8, num_experts_per_tok=2),
   141e9, "Mistral AI announcement 'Cheaper, Better, Faster, Stronger' (2024): 141B total, 39B active"),
  ("qwen2.5-0.5b", "Qwen2.5 0.5B", "Qwen/Qwen2.5-0.5B", llama(896, 24, 14, 2, 4864, 151936, tied=True, model_type="qwen2"),
   0.49e9, "Qwen2.5 model card: 0.49B parameters"),
  ("qwen2.5-7b", "Qwen2.5 7B", "Qwen/Qwen2.5-7B", llama(3584, 28, 28, 4, 18944, 152064, model_type="qwen2"),
   7.61e9, "Qwen2.5-7B model card: 7.61B parameters"),
  ("qwen2.5-14b", "Qwen2.5 14B", "Qwen/Qwen2.5-14B", llama(5120, 48, 40, 8, 13824, 152064, model_type="qwen2"),
   14.7e9, "Qwen2.5-14B model card: 14.7B parameters"),
  ("qwen2.5-32b", "Qwen2.5 32B", "Qwen/Qwen2.5-32B", llama(5120, 64, 40, 8, 27648, 152064, model_type="qwen2"),
   32.5e9, "Qwen2.5-32B model card: 32.5B parameters"),
  ("qwen2.5-72b", "Qwen2.5 72B", "Qwen/Qwen2.5-72B", llama(8192, 80, 64, 8, 29568, 152064, model_type="qwen2"),
   72.7e9, "Qwen2.5-72B model card: 72.7B parameters"),
  ("qwen3-8b", "Qwen3 8B", "Qwen/Qwen3-8B", llama(4096, 36, 32, 8, 12288, 151936, head_dim=128, model_type="qwen3"),
   8.2e9, "Qwen3-8B model card: 8.2B parameters"),
  ("qwen3-30b-a3b", "Qwen3 30B-A3B (MoE)", "Qwen/Qwen3-30B-A3B",
   llama(2048, 48, 32, 4, 6144, 151936, head_dim=128, model_type="qwen3_moe", num_experts=128, num_experts_per_tok=8,
         moe_intermediate_size=768, decoder_sparse_step=1, mlp_only_layers=[]),
   30.5e9, "Qwen3-30B-A3B model card: 30.5B total, 3.3B activated"),
  ("gemma-2-2b", "Gemma 2 2B", "google/gemma-2-2b", llama(2304, 26, 8, 4, 9216, 256000, tied=True, head_dim=256, model_type="gemma2"),
   2.61e9, "Hugging Face Hub safetensors metadata for google/gemma-2-2b: 2.61B params"),
  ("gemma-2-9b", "Gemma 2 9B", "google/gemma-2-9b", llama(3584, 42, 16, 8, 14336, 256000, tied=True, head_dim=256, model_type="gemma2"),
   9.24e9, "Hugging Face Hub safetensors metadata for google/gemma-2-9b: 9.24B params"),
  ("gemma-2-27b", "Gemma 2 27B", "google/gemma-2-27b", llama(4608, 46, 32, 16, 36864, 256000, tied=True, head_dim=128, model_type="gemma2"),
   27.2e9, "Hugging Face Hub safetensors metadata for google/gemma-2-27b: 27.2B params"),
  ("phi-3-mini", "Phi-3 mini 4k", "microsoft/Phi-3-mini-4k-instruct", llama(3072, 32, 32, 32, 8192, 32064, model_type="phi3"),
   3.82e9, "Hugging Face Hub safetensors metadata for microsoft/Phi-3-mini-4k-instruct: 3.82B params"),
  ("phi-3-medium", "Phi-3 medium 4k", "microsoft/Phi-3-medium-4k-instruct", llama(5120, 40, 40, 10, 17920, 32064, model_type="phi3"),
   14.0e9, "Hugging Face Hub safetensors metadata for microsoft/Phi-3-medium-4k-instruct: 14B params"),
  ("deepseek-v2-lite", "DeepSeek-V2-Lite (MoE)", "deepseek-ai/DeepSeek-V2-Lite",
   {"model_type": "deepseek_v2", "hidden_size": 2048, "num_hidden_layers": 27, "num_attention_heads": 16,
    "num_key_value_heads": 16, "q_lora_rank": None, "kv_lora_rank": 512, "qk_nope_head_dim": 128, "qk_rope_head_dim": 64,
    "v_head_dim": 128, "intermediate_size": 10944, "moe_intermediate_size": 1408, "n_routed_experts": 64,
    "n_shared_experts": 2, "num_experts_per_tok": 6, "first_k_dense_replace": 1, "moe_layer_freq": 1,
    "vocab_size": 102400, "tie_word_embeddings": False},
   15.7e9, "DeepSeek-V2 paper (arXiv:2405.04434), Appendix B: DeepSeek-V2-Lite 15.7B total, 2.4B activated"),
  ("deepseek-v3", "DeepSeek-V3 (671B MoE)", "deepseek-ai/DeepSeek-V3", deepseek_v3,
   671e9, "DeepSeek-V3 technical report (arXiv:2412.19437): 671B total, 37B activated (main model, MTP module excluded)"),
  ("deepseek-r1", "DeepSeek-R1 (671B MoE)", "deepseek-ai/DeepSeek-R1", deepseek_v3,
   671e9, "DeepSeek-R1 model card: 671B total, 37B activated"),
]

out = {"models": [{"id": i, "name": n, "hf_id": hf, "published_params": p, "source": s, "config": c}
                  for (i, n, hf, c, p, s) in M]}
with open("models.json", "w") as f:
    json.dump(out, f, indent=1)
    f.write("\n")
print(len(M), "models")
