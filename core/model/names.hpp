#pragma once
// Hugging Face module names of each architecture's linear layers, as
// transformers (or the checkpoint's remote code) names them; PEFT's
// target_modules match them by suffix. Internal to the core.
#include "model/config.hpp"

namespace vramcalc {

extern const ModuleNames kLlamaNames;  // q_proj, k_proj, v_proj, o_proj, gate_proj, up_proj, down_proj

// The table of an issue-24 architecture (kLlamaNames for Arch::None).
const ModuleNames* names_of(Arch arch);

// The config's table, kLlamaNames when it names none.
inline const ModuleNames& names(const ModelConfig& c) { return c.names ? *c.names : kLlamaNames; }

}  // namespace vramcalc
