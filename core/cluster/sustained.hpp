#pragma once
// The planner's rates under a whole step's power draw: what a GPU's tensor cores hold once every
// GPU of the board runs at its power limit (not the short-burst MAMF), how the rate moves with the
// power limit, how far the slowest GPU of a synchronous group falls below one running alone, and
// how much compute slows while NCCL's kernels share the GPU. One row per GPU id (sustained.cpp),
// each figure with its measurement.
#include <cstdint>
#include <string>

#include "hardware/gpus.hpp"

namespace vramcalc {

struct Sustained {
    double bf16_tflops = 0;   // maximum sustainable matmul rate (MSMF), BF16, one GPU, siblings idle
    double fp8_tflops = 0;    // the same with FP8 (e4m3) inputs; 0 = take the BF16 ratio
    double burst_over = 1;    // the short-burst rate (MAMF) over the sustained one: the ceiling a lower clock can reach
    double concurrent = 1;    // every GPU of the board busy: the mean sustained rate over one alone
    double spread = 0;        // range of the sustained rate across the GPUs of a busy board, as a fraction of the mean
    double power_w = 0;       // the board power the figures were measured at
    bool measured = false;    // false: the measured parts' ratios taken for this GPU
    std::string source;
};

// The row for this GPU (catalog id), with the figures scaled to the request's peak where it overrides the
// catalog's (`peak16_tflops` against the GPU's own BF16 peak).
Sustained sustained_for(const Gpu& gpu);

// The tensor rate at `power_w` over the rate at the power the row was measured at: a sustained clock is the
// highest the power limit allows, and dynamic power grows as f·V² with the voltage rising with the clock, so
// the rate goes as the cube root of the power (capped at the short-burst ceiling).
double power_factor(const Sustained& s, double power_w);

// The slowest of n GPUs that wait for each other every step, over one GPU alone: the board-busy mean, less the
// expected minimum of n draws spread evenly over the measured range (n = 1: 1).
double slowest_of(const Sustained& s, int64_t n);

// Compute overlapped with NCCL communication runs slower: the measured mean slowdown of compute kernels while
// collectives run beside them (fraction of the overlapped time added).
double overlap_slowdown();
const char* overlap_slowdown_source();

}  // namespace vramcalc
