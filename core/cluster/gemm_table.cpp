#include "cluster/gemm_table.hpp"

#include <algorithm>
#include <cmath>

namespace vramcalc {
namespace {

// Measured cuBLAS GEMM throughput, TFLOPS, BF16 inputs and output, batch 1, by K, M, N in {256, 512, 1,024,
// 2,048, 4,096} (OpenXLA, xla/service/gpu/model/matmul_interpolator_data.h, the default performance table of
// XLA's matmul cost model, "sm_90" (H100) and "sm_100_B200" entries, "bf16xbf16->bf16"; as at ROCm/xla commit
// ea2c45f2). Small shapes pay a GEMM's fixed cost (about 4.8 µs at 256³) and leave SMs idle (wave
// quantization); deep K amortises each tile's prologue and epilogue: these are what the table measures.
constexpr double kDims[5] = {256, 512, 1024, 2048, 4096};  // K and N
// M also at 8,192 and 16,384: the table's batches of 2 and 4 GEMMs of M = 4,096 (the same tiles as one GEMM of
// 2 × or 4 × the rows).
constexpr double kMs[7] = {256, 512, 1024, 2048, 4096, 8192, 16384};
constexpr double kH100[5][7][5] = {
    {{6.7, 12.4, 23.7, 43.8, 82.6}, {12.3, 23.6, 45.7, 84.5, 141.3}, {23.6, 45.5, 80.9, 144.3, 219.7}, {45.3, 84.3, 145.6, 219.7, 303.3}, {84.5, 141.9, 223, 308.2, 398.6}, {143.1, 218.6, 308.2, 400.1, 467.5}, {210.7, 304, 396.5, 463.4, 505.2}},
    {{11.5, 23, 43.8, 83.1, 146.2}, {23, 43.6, 85.4, 147.5, 243.6}, {43.7, 84.3, 149.1, 244, 347.7}, {79, 150.1, 244.9, 348.6, 449.3}, {144.9, 240.1, 354.6, 449.6, 551.8}, {238.8, 348.6, 453.1, 548.7, 613.2}, {341.5, 451.2, 547.5, 612.7, 620.4}},
    {{18.9, 41.1, 75.1, 141.6, 237.6}, {41.5, 73.4, 146.5, 241.8, 381.3}, {69.8, 144, 252.8, 384, 494.4}, {142.8, 257.6, 386.8, 498, 596.5}, {229, 377.5, 497.6, 604.6, 685.2}, {378.1, 495.7, 598.5, 684.3, 691.8}, {489.4, 596.2, 677.7, 690.2, 722.3}},
    {{31.9, 63.9, 119.6, 222.6, 345.9}, {61.7, 116.3, 231, 342.8, 530}, {116.1, 235.5, 359.8, 529.5, 639.1}, {231.4, 354.1, 535.3, 641, 725.5}, {314.3, 531, 643.7, 727.5, 735.6}, {524.8, 636.5, 721.8, 730.6, 759.2}, {577, 710.1, 716.5, 758.2, 759.5}},
    {{90.9, 93.1, 177.1, 296.3, 418.4}, {92.8, 187.5, 300.9, 460.4, 661.6}, {187.2, 312.1, 472.6, 665.7, 751.9}, {333.9, 458.1, 663.6, 752.2, 752.3}, {398.9, 662, 751.7, 759.4, 780.2}, {597.5, 741, 746.6, 779, 804.2}, {611.3, 720.6, 773.5, 804.7, 788.7}},
};
constexpr double kB200[5][7][5] = {
    {{6.8, 13.4, 18.6, 46.1, 89.2}, {13.6, 23.5, 47.1, 90.9, 165.2}, {26.2, 42.5, 90.4, 166.9, 274.4}, {41, 90.7, 165.3, 276.1, 406.1}, {89.7, 161.7, 271.1, 403.6, 514.7}, {159.8, 266.2, 403.1, 535.1, 793.6}, {265.8, 402.5, 536.7, 790.6, 791.8}},
    {{12.6, 21, 39.1, 88.7, 163.3}, {17.9, 48.5, 89.5, 162.5, 291.7}, {47.9, 88.3, 164.1, 293.7, 467.6}, {86.5, 162.1, 231.8, 470.1, 647.5}, {160.9, 287.9, 465.2, 652.3, 805.3}, {284.4, 459.5, 643, 804.7, 916.8}, {455.6, 632.3, 801.2, 913.2, 1090.6}},
    {{20.2, 33.2, 81.2, 156.8, 292.3}, {44.1, 80.3, 157.2, 289.3, 492.4}, {77.3, 152.8, 288, 492.5, 723.4}, {150.1, 284.4, 496.1, 725.4, 911.4}, {283.7, 490.6, 715.6, 913.8, 1075.6}, {481.9, 718.7, 909.2, 1074.8, 1161.2}, {683, 903.8, 1060.5, 1163.1, 1350.5}},
    {{34.6, 69, 136.7, 266.8, 464.4}, {69.7, 135.3, 263.1, 471.6, 761.3}, {135.3, 263.6, 468.5, 760.3, 981.3}, {261.1, 466, 760.4, 985.8, 1172.8}, {458.8, 762.4, 990.3, 1170, 1277.8}, {725.3, 961.1, 1162.7, 1276.4, 1344.4}, {945.8, 1145.3, 1265.2, 1345.8, 1539.9}},
    {{53.1, 104.7, 205.9, 394.1, 651.4}, {103.4, 204.9, 396.4, 669.3, 990.5}, {204.3, 394.1, 675.3, 1014.9, 1214}, {397.1, 666.9, 1017.7, 1208.5, 1342.5}, {645.1, 991.5, 1204.9, 1343.5, 1416.9}, {985, 1203.4, 1335.5, 1418.4, 1466.6}, {1152.4, 1322.7, 1411.9, 1465.7, 1670.5}},
};

// Position of x on the table's log2 grid: index i and fraction f (clamped to the grid).
void locate(double x, int points, int& i, double& f) {
    const double t = std::clamp(std::log2(std::max(x, 1.0) / kDims[0]), 0.0, points - 1.0);
    i = std::min(points - 2, static_cast<int>(t));
    f = t - i;
}

}  // namespace

double gemm_efficiency(double M, double N, double K, bool blackwell) {
    const double (&t)[5][7][5] = blackwell ? kB200 : kH100;
    int ik, im, in;
    double fk, fm, fn;
    locate(K, 5, ik, fk), locate(M, 7, im, fm), locate(N, 5, in, fn);
    // Trilinear in log(rate) over the grid.
    double log_rate = 0;
    for (int a = 0; a < 2; ++a)
        for (int b = 0; b < 2; ++b)
            for (int c = 0; c < 2; ++c) {
                const double w = (a ? fk : 1 - fk) * (b ? fm : 1 - fm) * (c ? fn : 1 - fn);
                if (w > 0) log_rate += w * std::log(t[ik + a][im + b][in + c]);
            }
    double e = std::exp(log_rate) / t[4][6][4];
    // Below the grid in N or K a GEMM runs the same tiles as at the edge: the rate falls with the dimension.
    // Fewer than 256 rows (decode's M = 1 … 256) run skinny kernels (GEMV, split-K) at the 256-row rate at
    // most; their time is bounded below by reading the weights (gemm_s: max with bytes ÷ bandwidth).
    for (double d : {N, K})
        if (d < kDims[0]) e *= std::max(d, 1.0) / kDims[0];
    return std::min(1.0, e);
}

const char* gemm_table_source() {
    return "GEMM efficiency by (M, N, K) from XLA's measured cuBLAS table (matmul_interpolator_data.h, sm_90 / sm_100)";
}

}  // namespace vramcalc
