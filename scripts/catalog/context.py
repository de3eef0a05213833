"""max_position_embeddings per catalog id (see CONTEXT)."""
# max_position_embeddings as each checkpoint's config.json states it, for the
# "longer than the model's context" hint. Only the ones checked against the
# published config.json; the rest have no hint rather than a guessed one.
CONTEXT = {
  "pythia-1.4b": 2048, "tinyllama-1.1b": 2048,
  "llama-2-7b": 4096, "llama-2-13b": 4096, "llama-2-70b": 4096, "phi-3-mini": 4096,
  "llama-3-8b": 8192, "llama-3-70b": 8192, "gemma-2-2b": 8192, "gemma-2-9b": 8192, "gemma-2-27b": 8192,
  "codellama-34b": 16384, "phi-4": 16384,
  "mistral-7b": 32768, "mistral-7b-v0.3": 32768, "mixtral-8x7b": 32768, "mixtral-8x22b": 65536,
  "qwen2.5-0.5b": 32768, "qwen2.5-1.5b": 32768, "qwen2.5-3b": 32768, "qwen2.5-7b": 32768, "qwen2.5-14b": 32768,
  "qwen2.5-32b": 32768, "qwen2.5-72b": 32768,
  "qwen3-0.6b": 40960, "qwen3-4b": 40960, "qwen3-8b": 40960, "qwen3-14b": 40960, "qwen3-32b": 40960,
  "qwen3-30b-a3b": 40960, "qwen3-235b-a22b": 40960,
  "llama-3.1-8b": 131072, "llama-3.1-70b": 131072, "llama-3.1-405b": 131072, "llama-3.2-1b": 131072,
  "llama-3.2-3b": 131072, "llama-3.3-70b": 131072, "phi-3.5-mini": 131072,
  "deepseek-v3": 163840, "deepseek-r1": 163840, "deepseek-v3.1": 163840, "deepseek-r1-0528": 163840,
  # issue 35: from each checkpoint's config.json as vendored (ai-dynamo/aiconfigurator, ztxz16/fastllm) or,
  # for the 2507 refreshes, the 262,144 tokens their model cards state as the config's native context.
  "qwen3-1.7b": 40960, "deepseek-v3-0324": 163840,
  "qwen3-4b-instruct-2507": 262144, "qwen3-4b-thinking-2507": 262144, "qwen3-30b-a3b-instruct-2507": 262144,
  "qwen3-30b-a3b-thinking-2507": 262144, "qwen3-235b-a22b-instruct-2507": 262144,
  "qwen3-235b-a22b-thinking-2507": 262144, "qwen3-coder-30b-a3b": 262144,
}
# The checkpoint's own quantization_config, as its Hub config.json ships it, for every catalog
# model whose config has one (issue 23): one fixture each in tests/fixtures/quantization_config/
# (its "_source" names the config), so "Auto" weights follow the published checkpoint (DeepSeek-V3:
# FP8 blocks, gpt-oss: MXFP4). The other catalog models ship 16- or 32-bit weights and no
# quantization_config (docs/models.md, "Quantized checkpoints in the catalog").
