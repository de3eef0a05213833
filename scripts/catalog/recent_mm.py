"""Added for issue 35: the 2025-26 vision-language models. Their configs are the trimmed fixtures
(tests/fixtures/qwen3-vl-*, qwen3.5-*, mistral-small-3.1), with the sizes of their siblings changed
as each sibling's own config.json gives them (ai-dynamo/aiconfigurator model_configs vendors them)."""
from .common import fixture

# Qwen3-VL 2B and 4B share a smaller tower: 24 blocks of 1024 (MLP 4096), DeepStack after blocks 5, 11, 17.
SMALL_TOWER = {"depth": 24, "hidden_size": 1024, "intermediate_size": 4096, "deepstack_visual_indexes": [5, 11, 17]}


def qwen35_moe(h, L, heads, experts, k, width, v_heads, out):
    layer_types = (["linear_attention"] * 3 + ["full_attention"]) * (L // 4)
    return fixture("qwen3.5-35b-a3b", vision={"out_hidden_size": out}, hidden_size=h, num_hidden_layers=L,
                   num_attention_heads=heads, num_experts=experts, num_experts_per_tok=k, moe_intermediate_size=width,
                   shared_expert_intermediate_size=width, linear_num_value_heads=v_heads, layer_types=layer_types)


MODELS = [
  ("qwen3-vl-2b", "Qwen3-VL 2B Instruct (multimodal)", "Qwen/Qwen3-VL-2B-Instruct",
   fixture("qwen3-vl-8b", vision=dict(SMALL_TOWER, out_hidden_size=2048), top={"tie_word_embeddings": True},
           hidden_size=2048, num_hidden_layers=28, num_attention_heads=16, intermediate_size=6144, tie_word_embeddings=True),
   2127532032, "Hugging Face Hub safetensors metadata for Qwen/Qwen3-VL-2B-Instruct: 2,127,532,032 params"),
  ("qwen3-vl-4b", "Qwen3-VL 4B Instruct (multimodal)", "Qwen/Qwen3-VL-4B-Instruct",
   fixture("qwen3-vl-8b", vision=dict(SMALL_TOWER, out_hidden_size=2560), top={"tie_word_embeddings": True},
           hidden_size=2560, num_hidden_layers=36, num_attention_heads=32, intermediate_size=9728, tie_word_embeddings=True),
   4437815808, "Hugging Face Hub safetensors metadata for Qwen/Qwen3-VL-4B-Instruct: 4,437,815,808 params"),
  ("qwen3-vl-8b", "Qwen3-VL 8B Instruct (multimodal)", "Qwen/Qwen3-VL-8B-Instruct", fixture("qwen3-vl-8b"),
   8767123696, "Hugging Face Hub safetensors metadata for Qwen/Qwen3-VL-8B-Instruct: 8,767,123,696 params"),
  ("qwen3-vl-32b", "Qwen3-VL 32B Instruct (multimodal)", "Qwen/Qwen3-VL-32B-Instruct",
   fixture("qwen3-vl-8b", vision={"out_hidden_size": 5120}, hidden_size=5120, num_hidden_layers=64,
           num_attention_heads=64, intermediate_size=25600),
   33357390064, "Hugging Face Hub safetensors metadata for Qwen/Qwen3-VL-32B-Instruct: 33,357,390,064 params"),
  ("qwen3-vl-30b-a3b", "Qwen3-VL 30B-A3B Instruct (MoE, multimodal)", "Qwen/Qwen3-VL-30B-A3B-Instruct",
   fixture("qwen3-vl-30b-a3b"),
   31070754032, "Hugging Face Hub safetensors metadata for Qwen/Qwen3-VL-30B-A3B-Thinking (the Instruct's twin): "
   "31,070,754,032 params"),
  ("qwen3-vl-235b-a22b", "Qwen3-VL 235B-A22B Instruct (MoE, multimodal)", "Qwen/Qwen3-VL-235B-A22B-Instruct",
   fixture("qwen3-vl-30b-a3b", vision={"out_hidden_size": 4096}, hidden_size=4096, num_hidden_layers=94,
           num_attention_heads=64, intermediate_size=12288, moe_intermediate_size=1536),
   235670022896, "Hugging Face Hub safetensors metadata for Qwen/Qwen3-VL-235B-A22B-Instruct: 235,670,022,896 params"),
  # Qwen3.5 / 3.6: the Hub totals hold one multi-token-prediction layer each, which the catalog leaves out
  # like every MTP module (tests/test_models_recent.cpp derives them tensor by tensor).
  ("qwen3.5-27b", "Qwen3.5 27B (hybrid DeltaNet, multimodal)", "Qwen/Qwen3.5-27B", fixture("qwen3.5-27b"),
   27356728560, "Hugging Face Hub safetensors metadata for Qwen/Qwen3.5-27B: 27,781,427,952 params, less its MTP "
   "layer's 424,699,392"),
  ("qwen3.6-27b", "Qwen3.6 27B (hybrid DeltaNet, multimodal)", "Qwen/Qwen3.6-27B", fixture("qwen3.5-27b"),
   27356728560, "Hugging Face Hub safetensors metadata for Qwen/Qwen3.6-27B: 27,781,427,952 params (Qwen3.5-27B's "
   "layout), less its MTP layer's 424,699,392"),
  ("qwen3.5-35b-a3b", "Qwen3.5 35B-A3B (hybrid MoE, multimodal)", "Qwen/Qwen3.5-35B-A3B", fixture("qwen3.5-35b-a3b"),
   35107181936, "Hugging Face Hub safetensors metadata for Qwen/Qwen3.5-35B-A3B: 35,951,822,704 params, less its MTP "
   "layer's 844,640,768"),
  ("qwen3.6-35b-a3b", "Qwen3.6 35B-A3B (hybrid MoE, multimodal)", "Qwen/Qwen3.6-35B-A3B", fixture("qwen3.5-35b-a3b"),
   35107181936, "Hugging Face Hub safetensors metadata for Qwen/Qwen3.6-35B-A3B: 35,951,822,704 params, less its MTP "
   "layer's 844,640,768"),
  ("qwen3.5-122b-a10b", "Qwen3.5 122B-A10B (hybrid MoE, multimodal)", "Qwen/Qwen3.5-122B-A10B",
   qwen35_moe(3072, 48, 32, 256, 8, 1024, 64, 3072),
   122562817776, "Hugging Face Hub safetensors metadata for Qwen/Qwen3.5-122B-A10B: 125,086,497,008 params, less its "
   "MTP layer's 2,523,679,232"),
  ("qwen3.5-397b-a17b", "Qwen3.5 397B-A17B (hybrid MoE, multimodal)", "Qwen/Qwen3.5-397B-A17B",
   qwen35_moe(4096, 60, 32, 512, 10, 1024, 64, 4096),
   396802360816, "Hugging Face Hub safetensors metadata for Qwen/Qwen3.5-397B-A17B: 403,397,928,944 params, less its "
   "MTP layer's 6,595,568,128"),
  ("mistral-small-3.1", "Mistral Small 3.1 24B (multimodal)", "mistralai/Mistral-Small-3.1-24B-Instruct-2503",
   fixture("mistral-small-3.1"), 24e9, "Mistral-Small-3.1-24B-Instruct-2503 model card: 24B parameters"),
  ("mistral-small-3.2", "Mistral Small 3.2 24B (multimodal)", "mistralai/Mistral-Small-3.2-24B-Instruct-2506",
   fixture("mistral-small-3.1"), 24e9, "Mistral-Small-3.2-24B-Instruct-2506 model card: a minor update of Mistral Small "
   "3.1 (24B parameters)"),
]
