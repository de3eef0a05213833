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

}  // namespace vramcalc
