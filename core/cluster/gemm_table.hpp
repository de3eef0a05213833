#pragma once
// GEMM efficiency by shape: the fraction of a GPU's best matmul rate a GEMM of M × K by K × N reaches,
// from a measured table of cuBLAS GEMMs by (M, N, K) (gemm_table.cpp), never one constant.
namespace vramcalc {

// `blackwell`: the sm_100 (B200) table, else the sm_90 (H100) one (other GPUs take the H100's shape).
// Dimensions past the table's edge take the edge (the rate saturates); N or K below 256 run the same tiles
// as at 256, so the rate falls in proportion; M below 256 (decode's 1 … 256 rows) takes the 256-row rate at
// most, the weights' read bounding it from below.
double gemm_efficiency(double M, double N, double K, bool blackwell);
const char* gemm_table_source();

}  // namespace vramcalc
