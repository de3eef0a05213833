#include "memory/model_init.hpp"

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "memory/allocator.hpp"

namespace vramcalc {
namespace {

using Handle = CachingAllocator::Handle;

// An NF4Tensor's storages (torchao v0.1, tag v0.1 of 2024-04-04, dtypes/nf4tensor.py;
// block_size 64, scaler_block_size 256): packed 4-bit data (n/2 bytes), int8 block scalers
// (n/64), the bf16 quantization factors (a [:, 0] view that keeps its whole n/64 × 2-byte
// storage alive), the scalers' mean and the 16-entry lookup table.
struct Nf4 {
    Handle lut, mean, qf, qs, qd;
};

struct Replay {
    CachingAllocator a;
    Handle alloc(double bytes) { return a.malloc(bytes); }
    void release(std::initializer_list<Handle> hs) {
        for (Handle h : hs) a.free(h);
    }

    // NF4Tensor.from_tensor on a bf16 weight of n elements, on the GPU, without chunking
    // (chunks of 1024**2 elements came with torchao 6081796, 2024-05-01, v0.2.0). In order:
    // double_quantize_scalers (get_block_absmax's abs copy and max, the scalers' mean,
    // their own absmax and int8 rounding), then convert_to_norm_float_weight: abs copy
    // again, blocks / scales (bf16), quantize_tensor_nearest's (n, 16) bf16 difference
    // and its abs (both live: 64 bytes per element), min's values and int64 indices, and
    // the packing of two nibbles per byte through int64 halves.
    Nf4 to_nf4(double n) {
        Nf4 t;
        const double blocks = n / 64, groups = blocks / 256;
        t.lut = alloc(32);
        Handle x = alloc(2 * n), v = alloc(2 * blocks), i = alloc(8 * blocks);
        release({x, i});
        t.mean = alloc(2);
        const Handle scalers = alloc(2 * blocks);
        release({v});
        x = alloc(2 * blocks);
        const Handle gv = alloc(2 * groups);
        i = alloc(8 * groups);
        release({x, i});
        x = alloc(2 * blocks);
        t.qf = alloc(2 * blocks);
        release({x});
        x = alloc(2 * blocks);
        Handle y = alloc(2 * blocks);
        release({x});
        x = alloc(2 * blocks);
        release({y});
        t.qs = alloc(blocks);
        release({x, gv, scalers});
        x = alloc(2 * n);
        const Handle scales = alloc(2 * blocks);
        i = alloc(8 * blocks);
        release({x, i});
        const Handle scaled = alloc(2 * n);
        x = alloc(32 * n);  // value.unsqueeze(-1) - nf4
        y = alloc(32 * n);  // .abs()
        release({x});
        x = alloc(2 * n);                   // min values
        const Handle index = alloc(8 * n);  // min indices (int64)
        release({x, y});
        x = alloc(4 * n);  // (idx[::2] << 4): int64 half
        y = alloc(4 * n);  // | idx[1::2]
        release({x});
        t.qd = alloc(n / 2);
        release({y, scales, scaled, index});
        return t;
    }
    void free_nf4(const Nf4& t) { release({t.qs, t.qf, t.mean, t.qd, t.lut}); }
    // NF4Tensor.get_original_weight: unpack the nibbles (int64 halves), look up, scale, stack.
    Handle dequantize(double n) {
        Handle x = alloc(n / 2);
        const Handle first = alloc(4 * n);
        release({x});
        x = alloc(n / 2);
        const Handle second = alloc(4 * n);
        release({x});
        const Handle d1 = alloc(n), d2 = alloc(n);
        x = alloc(n / 32);
        const Handle scalers = alloc(n / 32);
        release({x});
        x = alloc(n);
        const Handle s1 = alloc(n);
        release({x});
        x = alloc(n);
        const Handle s2 = alloc(n);
        release({x});
        const Handle out = alloc(2 * n);
        release({first, second, d1, d2, scalers, s1, s2});
        return out;
    }
    // copy.deepcopy of an NF4Tensor: its storages copied.
    Nf4 copy_nf4(double n) { return {alloc(32), alloc(2), alloc(n / 32), alloc(n / 64), alloc(n / 2)}; }
};

struct Linear {
    int64_t in, out;
    bool adapter;
};

// One decoder layer's linears in the model's tensor order, each with or without an adapter:
// what the replay builds, and (with the config's sizes) what its memo is keyed by.
std::vector<Linear> layer_linears(const Plan& p) {
    const int64_t layers = std::max<int64_t>(1, p.m.config.layers);
    std::vector<Linear> linears;
    for (const Tensor& t : p.m.tensors) {
        if (!t.is_linear()) continue;
        const bool adapter = std::find(p.lora.begin(), p.lora.end(), &t) != p.lora.end();
        for (int64_t k = 0; k < std::max<int64_t>(1, t.copies / layers); ++k) linears.push_back({t.in, t.out, adapter});
    }
    return linears;
}

// RotaryPositionalEmbeddings (torchtune modules/position_embeddings.py, 0.1): theta (fp32,
// head_dim/2), then _build_rope_cache over max_seq_len positions: seq_idx, idx_theta, cos
// and sin (fp32, temporaries) stacked into the kept cache.
std::vector<Handle> rope(Replay& r, double head_dim, double positions) {
    const double half = head_dim / 2;
    const Handle theta = r.alloc(4 * half);
    const Handle idx = r.alloc(4 * positions), angles = r.alloc(4 * positions * half);
    const Handle cos = r.alloc(4 * positions * half), sin = r.alloc(4 * positions * half);
    const Handle cache = r.alloc(8 * positions * half);
    r.release({idx, angles, cos, sin});
    return {theta, cache};
}

// torchtune 0.1 lora_finetune_single_device with quantize_base (April 2024): under the GPU as
// default device, the builder makes one template decoder layer (each LoRALinear creates its
// bf16 nn.Linear and keeps to_nf4 of it), the embeddings and output projection, then
// TransformerDecoder's _get_clones deep-copies the template per layer (torchtune's
// NF4Tensor clone override requantizes to_nf4(get_original_weight())); the template is then
// dropped. load_state_dict copies each checkpoint weight to the GPU and swaps in its to_nf4
// (torchtune utils/_register_nf4_dispatch_ops.py inplace_copy).
InitReplay torchtune_qlora_init(const Plan& p, const std::vector<Linear>& linears) {
    const ModelConfig& c = p.m.config;
    const double L = static_cast<double>(std::max<int64_t>(1, c.layers));
    const double D = static_cast<double>(c.hidden);
    const double head_dim = static_cast<double>(c.head_dim > 0 ? c.head_dim : c.hidden / std::max<int64_t>(1, c.heads));
    const double positions = static_cast<double>(c.context_length > 0 ? c.context_length : 4096);
    const double rank = static_cast<double>(p.job.lora_rank);
    const auto elements = [](const Linear& w) { return static_cast<double>(w.in) * static_cast<double>(w.out); };
    Replay r;
    auto adapters = [&](const Linear& w, std::vector<Handle>& kept) {
        if (w.adapter)  // lora_a, lora_b (bf16)
            kept.insert(kept.end(), {r.alloc(2 * rank * static_cast<double>(w.in)), r.alloc(2 * static_cast<double>(w.out) * rank)});
    };
    // The template layer.
    std::vector<Nf4> template_weights;
    std::vector<Handle> template_kept;
    for (size_t k = 0; k < linears.size(); ++k) {
        const double n = elements(linears[k]);
        const Handle w = r.alloc(2 * n);
        template_weights.push_back(r.to_nf4(n));
        r.release({w});
        adapters(linears[k], template_kept);
        if (k == 3) {  // after the attention projections: the attention module's RoPE
            const std::vector<Handle> b = rope(r, head_dim, positions);
            template_kept.insert(template_kept.end(), b.begin(), b.end());
        }
    }
    template_kept.push_back(r.alloc(2 * D));
    template_kept.push_back(r.alloc(2 * D));  // the two RMSNorm scales
    // Embeddings and output projection (bf16).
    const double V = static_cast<double>(c.vocab);
    r.alloc(2 * V * D);
    if (!c.tied_embeddings) r.alloc(2 * V * D);
    // The clones.
    std::vector<std::vector<Nf4>> layers(static_cast<size_t>(L));
    for (auto& layer : layers) {
        r.alloc(2 * D);
        std::vector<Handle> kept;
        for (size_t k = 0; k < linears.size(); ++k) {
            const double n = elements(linears[k]);
            const Handle w = r.dequantize(n);
            const Nf4 fresh = r.to_nf4(n);
            r.release({w});
            layer.push_back(r.copy_nf4(n));  // __deepcopy__ copies the template's attributes over it
            r.free_nf4(fresh);
            adapters(linears[k], kept);
            if (k == 3) kept.insert(kept.end(), {r.alloc(2 * head_dim), r.alloc(8 * positions * head_dim / 2)});
        }
        r.alloc(2 * D);
    }
    r.alloc(2 * D);  // final norm
    for (const Nf4& t : template_weights) r.free_nf4(t);
    for (Handle h : template_kept) r.a.free(h);
    // load_state_dict: each weight copied to the GPU, quantized, swapped in.
    for (auto& layer : layers) {
        for (size_t k = 0; k < linears.size(); ++k) {
            const double n = elements(linears[k]);
            const Handle src = r.alloc(2 * n);
            const Nf4 fresh = r.to_nf4(n);
            r.release({src});
            r.free_nf4(layer[k]);
            layer[k] = fresh;
        }
    }
    return {r.a.peak_allocated(), r.a.allocated(), r.a.reserved()};
}

}  // namespace

InitReplay model_init_replay(const Plan& p) {
    if (p.job.model_init == ModelInit::None) return {};
    // Keyed by what the replay reads: the config's sizes, the rank, the layer's linears.
    const std::vector<Linear> linears = layer_linears(p);
    std::string key;
    const ModelConfig& c = p.m.config;
    for (int64_t v : {c.layers, c.hidden, c.heads, c.head_dim, c.context_length, c.vocab, int64_t{c.tied_embeddings}, p.job.lora_rank})
        key += std::to_string(v) + ",";
    for (const Linear& w : linears) key += std::to_string(w.in) + "x" + std::to_string(w.out) + (w.adapter ? "a;" : ";");
    thread_local std::map<std::string, InitReplay> memo;
    if (auto it = memo.find(key); it != memo.end()) return it->second;
    if (memo.size() >= 16) memo.clear();
    return memo[key] = torchtune_qlora_init(p, linears);
}

}  // namespace vramcalc
