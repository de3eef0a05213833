#pragma once
// Architecture-specific parts of parse_config: per-family tensor flags, MoE
// layout, per-layer mixer kinds (attention / sliding / chunked / linear /
// SSM), vision towers and quantization_config. Internal to the core.
#include <nlohmann/json.hpp>

#include "model/config.hpp"

namespace vramcalc {

// Biases, norms, parallel blocks, MoE widths and recurrent dims per family.
void apply_architecture(const nlohmann::json& c, ModelConfig& m);
// The 2025-26 architectures' own keys (core/model/config_recent.cpp), after apply_architecture.
void apply_recent_architecture(const nlohmann::json& c, ModelConfig& m);
// Experts, top-k, widths, shared experts; marks which layers are MoE.
void parse_moe(const nlohmann::json& c, ModelConfig& m);
// Fills m.layer_kinds (one per layer) from layer_types or the family's pattern keys.
void parse_layer_kinds(const nlohmann::json& c, ModelConfig& m);
// vision_config of a multimodal checkpoint (root config, not text_config); core/model/config_vision.cpp.
void parse_vision(const nlohmann::json& root, ModelConfig& m);
// quantization_config (root or text_config) -> m.quant.
void parse_quantization(const nlohmann::json& root, ModelConfig& m);

}  // namespace vramcalc
