#pragma once
// The speed model's parameters, each named with its source (speed_params.cpp): the fraction of peak
// bandwidth each pool is read at, the cost of a hand-over between GPU and CPU, the prefill matmul rate
// by GPU vendor, and the ranges the answer states (from the leave-one-source-out errors of
// tests/validation/local.json, docs/machine.md#the-speed-model).
#include "hardware/gpus.hpp"

namespace vramcalc {

struct SpeedParams {
    double gpu_read_efficiency;  // decode reads GPU (and unified) memory at this fraction of its peak
    double ram_read_efficiency;  // the CPU reads the experts / layers in RAM at this fraction of its peak (fitted)
    double kernel_floor_s;       // each small GPU kernel of a decode step takes at least this
    double hop_s;                // one hand-over of the hidden state between GPU and CPU (copy, synchronise, wake; fitted)
    double pcie_efficiency;      // host-to-GPU copies reach this fraction of the link's line rate
    double decode_range;         // the decode figure's stated range, ± this fraction
    double prefill_range;        // the prefill figure's, ± this fraction
};
const SpeedParams& speed_params();

// The prefill matmul rate a GPU reaches over its listed dense BF16 (FP32-accumulate) rate, by vendor,
// from one cited measurement each; 0 where none is published (prefill then not estimated).
double prefill_factor(const Gpu& gpu);

}  // namespace vramcalc
