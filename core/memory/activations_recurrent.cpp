// The recurrent mixers' saved tensors (Mamba-1, Mamba-2), shared by the decoder blocks of
// activations.cpp (pure Mamba stacks, hybrids beside attention).
#include "memory/activations_parts.hpp"

namespace vramcalc {
namespace act {

// A Mamba mixer through the fused kernels HF calls when mamba_ssm is
// installed. Mamba-1 (state-spaces/mamba mamba_ssm/ops/selective_scan_interface.py
// MambaInnerFn.forward, checkpoint_lvl=1: conv1d_out and delta are recomputed):
// in_proj's input (h), xz (2·d_inner), x_dbl (dt_rank + 2·N), the scan output
// (d_inner, out_proj's input is rebuilt from it and z), and the scan's fp32
// chunk states (d_inner·2N per 2048-token chunk, selective_scan_fwd chunk size).
// Mamba-2 (mamba_ssm/ops/triton/ssd_combined.py MambaSplitConv1dScanCombinedFn):
// in_proj's input, zxbcdt (2·d_inner + 2·groups·N + heads), the scan output
// and the gated RMSNorm's input and rstd (d_inner + fp32 per group).
// Beside attention (Falcon-H1) in_proj reads the same normed input q/k/v
// keep: one storage, counted once.
void mamba_mixer(const Plan& p, const Shape& d, BlockActivations& a, bool shared_input) {
    const RecurrentDims& r = p.m.config.recurrent;
    const double di = static_cast<double>(r.d_inner), N = static_cast<double>(r.d_state);
    if (!shared_input) a.add("mixer input", linear_inputs(d, kRoleUp, targeted(d, {kRoleUp}), d.h), true);
    if (p.m.config.mamba2) {
        const double g = static_cast<double>(std::max<int64_t>(1, r.groups)), H = static_cast<double>(r.heads);
        a.add("in_proj output zxbcdt", (2 * di + 2 * g * N + H) * d.B);
        a.add("scan output + gated norm", 2 * di * d.B + 4 * g);
    } else {
        a.add("in_proj output xz", 2 * di * d.B);
        a.add("x_proj output (dt, B, C)", (static_cast<double>(r.dt_rank) + 2 * N) * d.B);
        a.add("scan output", di * d.B);
        a.add("scan chunk states (fp32)", di * 2 * N * 4 / 2048);
    }
}

}  // namespace act
}  // namespace vramcalc
