"""Each catalog entry's family, licence, modality and release month (issue 35: the "What can I run?"
list filters by them). Data, with their sources:
- licence: the Hugging Face model card's license tag ("other: <name>" where the tag is "other" and the
  card names its licence); None where it is not stated here rather than guessed;
- released: the month the publisher released the checkpoint (its model card, announcement or paper);
  licence and month were recalled when this file was written, not each re-read from a stored copy (SOURCE);
- modality: "encoder" (bidirectional encoders: embeddings, classification), "audio" (speech in),
  "vision" (text and images in: a vision tower in the checkpoint), else "text"; read from the config;
- family: the model line the publisher names."""

SOURCE = ("licence: the model card's Hugging Face license tag; released: the publisher's model card, "
          "announcement or paper (month); both as recalled when the catalog was written (issue 35), not each "
          "re-read from a stored copy; modality: the config (vision_config, encoder or audio architecture)")

# (family, licence, {id: release month}) per model line.
GROUPS = [
  ("GPT-2", "mit", {"gpt2": "2019-02", "gpt2-xl": "2019-11"}),
  ("Pythia", "apache-2.0", {"pythia-1.4b": "2023-02"}),
  ("Llama 2", "llama2", {"llama-2-7b": "2023-07", "llama-2-13b": "2023-07", "llama-2-70b": "2023-07",
                         "codellama-34b": "2023-08", "llava-1.5-7b": "2023-10"}),
  ("Llama 3", "llama3", {"llama-3-8b": "2024-04", "llama-3-70b": "2024-04"}),
  ("Llama 3", "llama3.1", {"llama-3.1-8b": "2024-07", "llama-3.1-70b": "2024-07", "llama-3.1-405b": "2024-07"}),
  ("Llama 3", "llama3.2", {"llama-3.2-1b": "2024-09", "llama-3.2-3b": "2024-09", "llama-3.2-11b-vision": "2024-09"}),
  ("Llama 3", "llama3.3", {"llama-3.3-70b": "2024-12"}),
  ("Llama 4", "llama4", {"llama-4-scout": "2025-04", "llama-4-maverick": "2025-04"}),
  ("TinyLlama", "apache-2.0", {"tinyllama-1.1b": "2024-01"}),
  ("Mistral", "apache-2.0", {"mistral-7b": "2023-09", "mistral-7b-v0.3": "2024-05", "mistral-nemo-12b": "2024-07",
                             "mixtral-8x7b": "2023-12", "mixtral-8x22b": "2024-04", "mistral-small-24b": "2025-01",
                             "mistral-small-3.1": "2025-03", "mistral-small-3.2": "2025-06",
                             "mamba-codestral-7b": "2024-07"}),
  ("Mistral", "other: mrl", {"ministral-8b": "2024-10", "mistral-large-2": "2024-07"}),
  ("Mistral", "other: mnpl", {"codestral-22b": "2024-05"}),
  ("Devstral", "apache-2.0", {"devstral-small": "2025-05", "devstral-small-2507": "2025-07"}),
  ("Magistral", "apache-2.0", {"magistral-small-2506": "2025-06", "magistral-small-2507": "2025-07"}),
  ("Qwen2.5", "apache-2.0", {"qwen2.5-0.5b": "2024-09", "qwen2.5-1.5b": "2024-09", "qwen2.5-7b": "2024-09",
                             "qwen2.5-14b": "2024-09", "qwen2.5-32b": "2024-09", "qwen2.5-coder-7b": "2024-09",
                             "qwen2.5-coder-32b": "2024-11", "qwq-32b": "2025-03", "qwen2.5-vl-7b": "2025-01"}),
  ("Qwen2.5", "other: qwen-research", {"qwen2.5-3b": "2024-09"}),
  ("Qwen2.5", "other: qwen", {"qwen2.5-72b": "2024-09"}),
  ("Qwen", "other: tongyi-qianwen", {"qwen-7b": "2023-08", "qwen1.5-moe-a2.7b": "2024-03"}),
  ("Qwen3", "apache-2.0", {"qwen3-0.6b": "2025-04", "qwen3-1.7b": "2025-04", "qwen3-4b": "2025-04", "qwen3-8b": "2025-04",
                           "qwen3-14b": "2025-04", "qwen3-32b": "2025-04", "qwen3-30b-a3b": "2025-04",
                           "qwen3-235b-a22b": "2025-04", "qwen3-235b-a22b-instruct-2507": "2025-07",
                           "qwen3-235b-a22b-thinking-2507": "2025-07", "qwen3-30b-a3b-instruct-2507": "2025-07",
                           "qwen3-30b-a3b-thinking-2507": "2025-07", "qwen3-4b-instruct-2507": "2025-08",
                           "qwen3-4b-thinking-2507": "2025-08", "qwen3-coder-480b-a35b": "2025-07",
                           "qwen3-coder-30b-a3b": "2025-07", "qwen3-next-80b-a3b": "2025-09",
                           "qwen3-next-80b-a3b-thinking": "2025-09", "qwen3-coder-next": "2026-01"}),
  ("Qwen3-VL", "apache-2.0", {"qwen3-vl-235b-a22b": "2025-09", "qwen3-vl-30b-a3b": "2025-10", "qwen3-vl-8b": "2025-10",
                              "qwen3-vl-4b": "2025-10", "qwen3-vl-2b": "2025-10", "qwen3-vl-32b": "2025-10"}),
  ("Qwen3.5", "apache-2.0", {"qwen3.5-397b-a17b": "2026-02", "qwen3.5-122b-a10b": "2026-02", "qwen3.5-35b-a3b": "2026-02",
                             "qwen3.5-27b": "2026-02", "qwen3.6-35b-a3b": "2026-04", "qwen3.6-27b": "2026-04"}),
  ("Gemma", "gemma", {"gemma-2-2b": "2024-07", "gemma-2-9b": "2024-06", "gemma-2-27b": "2024-06", "gemma-3-270m": "2025-08",
                      "gemma-3-1b": "2025-03", "gemma-3-4b": "2025-03", "gemma-3-12b": "2025-03", "gemma-3-27b": "2025-03"}),
  ("Phi", "mit", {"phi-3-mini": "2024-04", "phi-3-medium": "2024-05", "phi-3.5-mini": "2024-08", "phi-3.5-moe": "2024-08",
                  "phi-4": "2024-12", "phi-4-mini": "2025-02", "phi-4-reasoning": "2025-04",
                  "phi-4-reasoning-plus": "2025-04"}),
  ("DeepSeek", "other: deepseek", {"deepseek-v2-lite": "2024-05", "deepseek-v2": "2024-05",
                                   "deepseek-coder-v2-lite": "2024-06", "deepseek-v3": "2024-12"}),
  ("DeepSeek", "mit", {"deepseek-v3-0324": "2025-03", "deepseek-r1": "2025-01", "deepseek-r1-0528": "2025-05",
                       "deepseek-v3.1": "2025-08", "deepseek-v3.2-exp": "2025-09", "deepseek-v3.2": "2025-12",
                       "deepseek-r1-distill-qwen-1.5b": "2025-01", "deepseek-r1-distill-qwen-7b": "2025-01",
                       "deepseek-r1-distill-qwen-14b": "2025-01", "deepseek-r1-distill-qwen-32b": "2025-01",
                       "deepseek-r1-distill-llama-8b": "2025-01", "deepseek-r1-distill-llama-70b": "2025-01",
                       "deepseek-r1-0528-qwen3-8b": "2025-05"}),
  ("Kimi", "other: modified-mit", {"kimi-k2": "2025-07", "kimi-k2-0905": "2025-09"}),
  ("GLM", "mit", {"glm-4.5": "2025-07", "glm-4.5-air": "2025-07", "glm-4.6": "2025-09", "glm-4.7": "2025-12",
                  "glm-4.7-flash": "2026-01", "glm-5": "2026-02"}),
  ("GLM", "other: glm-4", {"glm-4-9b": "2024-06"}),
  ("GLM", "other", {"chatglm3-6b": "2023-10"}),
  ("gpt-oss", "apache-2.0", {"gpt-oss-20b": "2025-08", "gpt-oss-120b": "2025-08"}),
  ("OLMo", "apache-2.0", {"olmo-2-7b": "2024-11", "olmo-2-13b": "2024-11", "olmo-2-32b": "2025-03", "olmo-2-1b": "2025-04",
                     "olmo-3-7b": "2025-11", "olmo-3-32b": "2025-11"}),
  ("Command", "cc-by-nc-4.0", {"command-r": "2024-03", "command-r-plus": "2024-04", "command-a": "2025-03"}),
  ("Granite", "apache-2.0", {"granite-3.1-8b": "2024-12", "granite-3.1-3b-a800m": "2024-12", "granite-4.0-h-tiny": "2025-10"}),
  ("Mamba", "apache-2.0", {"mamba-2.8b": "2023-12"}),
  ("Jamba", "apache-2.0", {"jamba-v0.1": "2024-03"}),
  ("Jamba", "other: jamba-open-model-license", {"jamba-1.5-large": "2024-08"}),
  ("MiniMax", None, {"minimax-text-01": "2025-01"}),
  ("MiniMax", "apache-2.0", {"minimax-m1": "2025-06"}),
  ("MiniMax", None, {"minimax-m2": "2025-10", "minimax-m2.1": "2025-12", "minimax-m2.5": "2026-02"}),
  ("Hunyuan", "other: tencent-hunyuan-a13b", {"hunyuan-a13b": "2025-06"}),
  ("StarCoder", "bigcode-openrail-m", {"octocoder": "2023-08", "starcoder": "2023-05", "starcoder2-3b": "2024-02",
                                       "starcoder2-7b": "2024-02", "starcoder2-15b": "2024-02"}),
  ("SmolLM", "apache-2.0", {"smollm2-135m": "2024-11", "smollm2-360m": "2024-11", "smollm2-1.7b": "2024-11",
                            "smollm3-3b": "2025-07"}),
  ("Yi", "apache-2.0", {"yi-1.5-34b": "2024-05"}),
  ("Seed-OSS", "apache-2.0", {"seed-oss-36b": "2025-08"}),
  ("ERNIE", "apache-2.0", {"ernie-4.5-21b-a3b": "2025-06"}),
  ("BERT", "apache-2.0", {"bert-base-uncased": "2018-10", "bert-large-uncased": "2018-10",
                          "distilbert-base-uncased": "2019-10", "electra-base-discriminator": "2020-03",
                          "electra-large-discriminator": "2020-03", "modernbert-base": "2024-12",
                          "modernbert-large": "2024-12", "all-minilm-l6-v2": "2021-08"}),
  ("BERT", "mit", {"roberta-base": "2019-07", "roberta-large": "2019-07", "xlm-roberta-base": "2019-11",
                   "xlm-roberta-large": "2019-11", "bge-m3": "2024-01", "deberta-v3-base": "2021-11",
                   "deberta-v3-large": "2021-11", "mmbert-small": "2025-09", "mmbert-base": "2025-09"}),
  ("T5", "apache-2.0", {"t5-small": "2019-10", "t5-base": "2019-10", "t5-large": "2019-10", "flan-t5-base": "2022-10",
                        "flan-t5-large": "2022-10", "flan-t5-xl": "2022-10", "mt5-base": "2020-10", "umt5-small": "2023-04"}),
  ("BART", "apache-2.0", {"bart-base": "2019-10", "bart-large": "2019-10"}),
  ("BART", "mit", {"mbart-large-50": "2020-08"}),
  ("Marian", "cc-by-4.0", {"opus-mt-en-de": None}),
  ("Whisper", "apache-2.0", {"whisper-small": "2022-09", "whisper-medium": "2022-09", "whisper-large-v3": "2023-11",
                             "whisper-large-v3-turbo": "2024-10"}),
  ("BLOOM", "bigscience-bloom-rail-1.0", {"bloom-560m": "2022-07", "bloom-7b1": "2022-07", "bloom-176b": "2022-07"}),
  ("OPT", "other", {"opt-1.3b": "2022-05", "opt-6.7b": "2022-05", "opt-30b": "2022-05"}),
  ("GPT-J", "apache-2.0", {"gpt-j-6b": "2021-06"}),
  ("GPT-NeoX", "apache-2.0", {"gpt-neox-20b": "2022-02"}),
  ("MPT", "apache-2.0", {"mpt-7b": "2023-05", "mpt-30b": "2023-06"}),
  ("StableLM", "other", {"stablelm-2-1.6b": "2024-01"}),
  ("Baichuan", "other", {"baichuan2-7b": "2023-09", "baichuan2-13b": "2023-09"}),
  ("InternLM", "other", {"internlm2.5-7b": "2024-07"}),
  ("EXAONE", "other: exaone", {"exaone-3.5-2.4b": "2024-12", "exaone-3.5-7.8b": "2024-12", "exaone-3.5-32b": "2024-12"}),
]

META = {}
for family, licence, releases in GROUPS:
    for i, released in releases.items():
        if i in META:
            raise SystemExit(f"meta: {i} is listed twice")
        META[i] = (family, licence, released)

ENCODERS = {"bert", "roberta", "xlm-roberta", "camembert", "electra", "deberta-v2", "distilbert", "modernbert"}


def modality_of(c):
    root = c.get("config.json", c)  # sentence-transformers: the Transformer module's config
    t = root.get("model_type", "")
    if t == "whisper":
        return "audio"
    if t in ENCODERS:
        return "encoder"
    return "vision" if "vision_config" in root else "text"


def meta_of(i, c):
    if i not in META:
        raise SystemExit(f"meta: no family, licence and release for {i} (scripts/catalog/meta.py)")
    family, licence, released = META[i]
    return {"family": family, "license": licence, "modality": modality_of(c), "released": released,
            "meta_source": SOURCE}
