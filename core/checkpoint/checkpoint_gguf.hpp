#pragma once
// GGUF header reader (internal to checkpoint.cpp / checkpoint_gguf.cpp).
#include <cstdint>
#include <string>

#include "checkpoint/checkpoint.hpp"

namespace vramcalc {

constexpr int64_t kMaxCheckpointBytes = int64_t(1) << 52;  // 4 PB: past any checkpoint, exact in a double

// Appends a tensor and updates the totals; throws on an absurd total.
void checkpoint_add_tensor(CheckpointInfo& info, CheckpointTensor t);

// Parses a GGUF v2/v3 header (magic, version, counts, KV metadata, tensor infos).
CheckpointInfo read_gguf(const std::string& bytes);

// A sentence when a GGUF's general.architecture is not the one llama.cpp's converter writes for the
// config's model_type (issue 37 I3): its blocks cover the config, so its bytes are still taken, and
// the answer says so. "" when they agree, or when either is not given.
std::string gguf_architecture_mismatch(const std::string& model_type, const std::string& architecture);

}  // namespace vramcalc
