"""Added for issue 35 (catalog freshness): the text models people ran most in 2025-26. Each config is
the checkpoint's own (a fixture, or its fields below, each as the cited source gives it); where the
Hub's safetensors total is known, the count equals it exactly, or equals it less what the comment
names (an MTP layer, FP8 scale tensors)."""
from .common import deepseek_v3, fixture, llama


def qwen3_moe(h, L, heads, kv, I, experts, k, moe_I):
    return llama(h, L, heads, kv, I, 151936, head_dim=128, model_type="qwen3_moe", num_experts=experts,
                 num_experts_per_tok=k, moe_intermediate_size=moe_I, decoder_sparse_step=1, mlp_only_layers=[])


QWEN3_4B = llama(2560, 36, 32, 8, 9728, 151936, tied=True, head_dim=128, model_type="qwen3")
QWEN3_30B = qwen3_moe(2048, 48, 32, 4, 6144, 128, 8, 768)
QWEN3_235B = qwen3_moe(4096, 94, 64, 4, 12288, 128, 8, 1536)
# GLM-4.5's own config (zai-org/GLM-4.5), which GLM-4.6 and GLM-4.7 keep but for their 202,752-token
# context: the Hub totals of GLM-4.5 and GLM-4.7 are equal (358,337,791,296), GLM-4.6's is smaller by
# exactly the MTP layer's embedding and head copies (2 · 151552 · 5120).
GLM_4_5 = dict(hidden_size=5120, intermediate_size=12288, moe_intermediate_size=1536, num_hidden_layers=92,
               n_routed_experts=160, first_k_dense_replace=3, use_qk_norm=True)
MISTRAL_SMALL = llama(5120, 40, 32, 8, 32768, 131072, head_dim=128, model_type="mistral")

MODELS = [
  # ---- Qwen3 and its 2507 refresh ----
  ("qwen3-1.7b", "Qwen3 1.7B", "Qwen/Qwen3-1.7B",
   llama(2048, 28, 16, 8, 6144, 151936, tied=True, head_dim=128, model_type="qwen3"),
   1720574976, "Hugging Face Hub safetensors metadata for Qwen/Qwen3-1.7B-Base: 1,720,574,976 params (model card: "
   "1.7B; the instruct checkpoint also stores a copy of the tied head, 2.03B in all)"),
  ("qwen3-4b-instruct-2507", "Qwen3 4B Instruct 2507", "Qwen/Qwen3-4B-Instruct-2507", QWEN3_4B,
   4.02e9, "Hugging Face Hub safetensors metadata for Qwen/Qwen3-4B-Instruct-2507: 4,022,468,096 params"),
  ("qwen3-4b-thinking-2507", "Qwen3 4B Thinking 2507", "Qwen/Qwen3-4B-Thinking-2507", QWEN3_4B,
   4.02e9, "Hugging Face Hub safetensors metadata for Qwen/Qwen3-4B-Thinking-2507: 4,022,468,096 params"),
  ("qwen3-30b-a3b-instruct-2507", "Qwen3 30B-A3B Instruct 2507 (MoE)", "Qwen/Qwen3-30B-A3B-Instruct-2507", QWEN3_30B,
   30.5e9, "Qwen3-30B-A3B-Instruct-2507 model card: 30.5B total, 3.3B activated"),
  ("qwen3-30b-a3b-thinking-2507", "Qwen3 30B-A3B Thinking 2507 (MoE)", "Qwen/Qwen3-30B-A3B-Thinking-2507", QWEN3_30B,
   30532122624, "Hugging Face Hub safetensors metadata for Qwen/Qwen3-30B-A3B-Thinking-2507: 30,532,122,624 params"),
  ("qwen3-235b-a22b-instruct-2507", "Qwen3 235B-A22B Instruct 2507 (MoE)", "Qwen/Qwen3-235B-A22B-Instruct-2507",
   QWEN3_235B, 235e9, "Qwen3-235B-A22B-Instruct-2507 model card: 235B total, 22B activated"),
  ("qwen3-235b-a22b-thinking-2507", "Qwen3 235B-A22B Thinking 2507 (MoE)", "Qwen/Qwen3-235B-A22B-Thinking-2507",
   QWEN3_235B, 235e9, "Qwen3-235B-A22B-Thinking-2507 model card: 235B total, 22B activated"),
  ("qwen3-coder-30b-a3b", "Qwen3-Coder 30B-A3B Instruct (MoE)", "Qwen/Qwen3-Coder-30B-A3B-Instruct",
   qwen3_moe(2048, 48, 32, 4, 5472, 128, 8, 768),
   30532122624, "Qwen3-Coder-30B-A3B-Instruct model.safetensors.index.json: total_size 61,064,245,248 bytes of BF16 = "
   "30,532,122,624 params (model card: 30.5B total, 3.3B activated)"),
  ("qwen3-next-80b-a3b-thinking", "Qwen3-Next 80B-A3B Thinking (hybrid DeltaNet MoE)", "Qwen/Qwen3-Next-80B-A3B-Thinking",
   fixture("qwen3-next-80b-a3b"), 80e9, "Qwen3-Next-80B-A3B-Thinking model card: 80B total, 3B activated"),
  ("qwen3-coder-next", "Qwen3-Coder-Next (80B-A3B hybrid DeltaNet MoE)", "Qwen/Qwen3-Coder-Next",
   fixture("qwen3-next-80b-a3b"),
   79674391296, "Hugging Face Hub safetensors metadata for Qwen/Qwen3-Coder-Next: 79,674,391,296 params (Qwen3-Next's "
   "architecture, no MTP layer in the checkpoint)"),
  # ---- DeepSeek ----
  ("deepseek-v3-0324", "DeepSeek-V3-0324 (671B MoE)", "deepseek-ai/DeepSeek-V3-0324", deepseek_v3,
   671e9, "DeepSeek-V3 technical report (arXiv:2412.19437): 671B total, 37B activated; the 0324 checkpoint keeps "
   "V3's layout (Hub safetensors total 684,531,386,000, the same as V3's)"),
  ("deepseek-v3.2-exp", "DeepSeek-V3.2-Exp (671B MoE, sparse attention)", "deepseek-ai/DeepSeek-V3.2-Exp",
   fixture("deepseek-v3.2"),
   671e9, "DeepSeek-V3 technical report: 671B total (main model, MTP excluded); V3.2 adds the DSA lightning indexer "
   "(0.85B over 61 layers); the Hub's 685,396,921,376 also hold the MTP layer and the FP8 scales"),
  ("deepseek-v3.2", "DeepSeek-V3.2 (671B MoE, sparse attention)", "deepseek-ai/DeepSeek-V3.2", fixture("deepseek-v3.2"),
   671e9, "DeepSeek-V3 technical report: 671B total (main model, MTP excluded); V3.2 adds the DSA lightning indexer "
   "(0.85B over 61 layers); the Hub's 685,396,921,376 also hold the MTP layer and the FP8 scales"),
  ("deepseek-r1-distill-qwen-1.5b", "DeepSeek-R1-Distill-Qwen 1.5B", "deepseek-ai/DeepSeek-R1-Distill-Qwen-1.5B",
   llama(1536, 28, 12, 2, 8960, 151936, model_type="qwen2"),
   1777088000, "Hugging Face Hub safetensors metadata for deepseek-ai/DeepSeek-R1-Distill-Qwen-1.5B: 1,777,088,000 params"),
  ("deepseek-r1-distill-qwen-7b", "DeepSeek-R1-Distill-Qwen 7B", "deepseek-ai/DeepSeek-R1-Distill-Qwen-7B",
   llama(3584, 28, 28, 4, 18944, 152064, model_type="qwen2"),
   7615616512, "Hugging Face Hub safetensors metadata for deepseek-ai/DeepSeek-R1-Distill-Qwen-7B: 7,615,616,512 params"),
  ("deepseek-r1-distill-qwen-14b", "DeepSeek-R1-Distill-Qwen 14B", "deepseek-ai/DeepSeek-R1-Distill-Qwen-14B",
   llama(5120, 48, 40, 8, 13824, 152064, model_type="qwen2"),
   14770033664, "Hugging Face Hub safetensors metadata for deepseek-ai/DeepSeek-R1-Distill-Qwen-14B: 14,770,033,664 params"),
  ("deepseek-r1-distill-qwen-32b", "DeepSeek-R1-Distill-Qwen 32B", "deepseek-ai/DeepSeek-R1-Distill-Qwen-32B",
   llama(5120, 64, 40, 8, 27648, 152064, model_type="qwen2"),
   32763876352, "Hugging Face Hub safetensors metadata for deepseek-ai/DeepSeek-R1-Distill-Qwen-32B: 32,763,876,352 params"),
  ("deepseek-r1-distill-llama-8b", "DeepSeek-R1-Distill-Llama 8B", "deepseek-ai/DeepSeek-R1-Distill-Llama-8B",
   llama(4096, 32, 32, 8, 14336, 128256),
   8030261248, "Hugging Face Hub safetensors metadata for deepseek-ai/DeepSeek-R1-Distill-Llama-8B: 8,030,261,248 params"),
  ("deepseek-r1-0528-qwen3-8b", "DeepSeek-R1-0528-Qwen3 8B", "deepseek-ai/DeepSeek-R1-0528-Qwen3-8B",
   llama(4096, 36, 32, 8, 12288, 151936, head_dim=128, model_type="qwen3"),
   8190735360, "Hugging Face Hub safetensors metadata for deepseek-ai/DeepSeek-R1-0528-Qwen3-8B: 8,190,735,360 params"),
  # ---- GLM, Kimi, MiniMax ----
  ("glm-4.6", "GLM-4.6 (355B MoE)", "zai-org/GLM-4.6", fixture("glm-4.5-air", max_position_embeddings=202752, **GLM_4_5),
   355e9, "GLM-4.6 model card (zai-org/GLM-4.6): 355B total, 32B active parameters"),
  ("glm-4.7", "GLM-4.7 (355B MoE)", "zai-org/GLM-4.7", fixture("glm-4.5-air", max_position_embeddings=202752, **GLM_4_5),
   355e9, "GLM-4.5 technical report (arXiv:2508.06471): 355B total, 32B active; GLM-4.7 keeps the layout (Hub "
   "safetensors total 358,337,791,296, equal to GLM-4.5's, MTP layer included)"),
  ("glm-4.7-flash", "GLM-4.7-Flash (30B-A3B MoE)", "zai-org/GLM-4.7-Flash", fixture("glm-4.7-flash"),
   30e9, "GLM-4.7-Flash model card: a 30B-A3B MoE model (the Hub's 31,221,488,576 include the 1.28B MTP layer)"),
  ("glm-5", "GLM-5 (744B MoE, sparse attention)", "zai-org/GLM-5", fixture("glm-5"),
   744e9, "GLM-5 model card (zai-org/GLM-5): 744B total, 40B active parameters"),
  ("kimi-k2-0905", "Kimi K2 Instruct 0905 (1T MoE)", "moonshotai/Kimi-K2-Instruct-0905",
   fixture("kimi-k2", max_position_embeddings=262144),
   1.03e12, "Hugging Face Hub safetensors metadata for moonshotai/Kimi-K2-Instruct-0905: 1.03T params (model card: "
   "1T total, 32B activated; context 256K)"),
  ("minimax-m2", "MiniMax-M2 (230B MoE, FP8)", "MiniMaxAI/MiniMax-M2", fixture("minimax-m2.5"),
   230e9, "MiniMax-M2 model card: 230B total, 10B active parameters"),
  ("minimax-m2.1", "MiniMax-M2.1 (230B MoE, FP8)", "MiniMaxAI/MiniMax-M2.1", fixture("minimax-m2.5"),
   230e9, "MiniMax-M2.1 model card: 230B total, 10B active parameters"),
  ("minimax-m2.5", "MiniMax-M2.5 (230B MoE, FP8)", "MiniMaxAI/MiniMax-M2.5", fixture("minimax-m2.5"),
   230e9, "MiniMax-M2.5 model card: 230B total, 10B active parameters (Hub: 228,703,644,928 with the FP8 block scales)"),
  # ---- Mistral, Microsoft, Hugging Face, AI2, ByteDance, Baidu ----
  ("magistral-small-2506", "Magistral Small 2506 (24B)", "mistralai/Magistral-Small-2506", MISTRAL_SMALL,
   23.6e9, "Magistral-Small-2506 model card: Mistral Small 3.1's 24B text model with added reasoning; Hub safetensors "
   "metadata of that text model (mistralai/Mistral-Small-24B-Base-2501): 23.6B params"),
  ("magistral-small-2507", "Magistral Small 2507 (24B)", "mistralai/Magistral-Small-2507", MISTRAL_SMALL,
   23.6e9, "Magistral-Small-2507 model card: Mistral Small 3.1's 24B text model with added reasoning; Hub safetensors "
   "metadata of that text model: 23.6B params"),
  ("devstral-small-2507", "Devstral Small 1.1 (24B)", "mistralai/Devstral-Small-2507", MISTRAL_SMALL,
   23.6e9, "Devstral-Small-2507 model card: fine-tuned from Mistral-Small-3.1, 24B; Hub safetensors metadata of "
   "Devstral-Small-2505: 23.6B params"),
  ("phi-4-reasoning", "Phi-4-reasoning 14B", "microsoft/Phi-4-reasoning",
   llama(5120, 40, 40, 10, 17920, 100352, model_type="phi3"),
   14.7e9, "Phi-4-reasoning model card: a 14B fine-tune of Phi-4, whose Hub safetensors metadata gives 14.7B params"),
  ("phi-4-reasoning-plus", "Phi-4-reasoning-plus 14B", "microsoft/Phi-4-reasoning-plus",
   llama(5120, 40, 40, 10, 17920, 100352, model_type="phi3"),
   14.7e9, "Phi-4-reasoning-plus model card: a 14B fine-tune of Phi-4, whose Hub safetensors metadata gives 14.7B params"),
  ("smollm3-3b", "SmolLM3 3B", "HuggingFaceTB/SmolLM3-3B", fixture("smollm3-3b"),
   3075098624, "Hugging Face Hub safetensors metadata for HuggingFaceTB/SmolLM3-3B: 3,075,098,624 params"),
  ("olmo-2-1b", "OLMo 2 1B", "allenai/OLMo-2-0425-1B",
   fixture("olmo-2-7b", hidden_size=2048, intermediate_size=8192, num_hidden_layers=16, num_attention_heads=16,
           num_key_value_heads=16),
   1484916736, "Hugging Face Hub safetensors metadata for allenai/OLMo-2-0425-1B: 1,484,916,736 params"),
  ("olmo-3-7b", "OLMo 3 7B", "allenai/Olmo-3-1025-7B", fixture("olmo-3-7b"),
   7298011136, "Hugging Face Hub safetensors metadata for allenai/Olmo-3-1025-7B: 7,298,011,136 params"),
  ("olmo-3-32b", "OLMo 3 32B", "allenai/Olmo-3-1125-32B",
   fixture("olmo-3-7b", hidden_size=5120, num_hidden_layers=64, num_attention_heads=40, num_key_value_heads=8,
           intermediate_size=27648, layer_types=(["sliding_attention"] * 3 + ["full_attention"]) * 16),
   32233522176, "Hugging Face Hub safetensors metadata for allenai/Olmo-3-1125-32B: 32,233,522,176 params"),
  ("seed-oss-36b", "Seed-OSS 36B", "ByteDance-Seed/Seed-OSS-36B-Instruct", fixture("seed-oss-36b"),
   36e9, "Seed-OSS-36B-Instruct model card: 36B parameters"),
  ("ernie-4.5-21b-a3b", "ERNIE 4.5 21B-A3B (MoE)", "baidu/ERNIE-4.5-21B-A3B-PT", fixture("ernie-4.5-21b-a3b"),
   21825437888, "Hugging Face Hub safetensors metadata for baidu/ERNIE-4.5-21B-A3B-Thinking: 21,825,437,888 params "
   "(model card: 21B total, 3B activated)"),
]
