#include "memory/parallel.hpp"

#include <algorithm>

#include "text/errors.hpp"
#include "text/units.hpp"

namespace vramcalc {
namespace {

std::string count(double n) { return plain_number(n); }

// Micro-batches per optimizer step: grad_accum; under pipeline parallelism at least one per
// stage, the fewest that keep every stage busy (Megatron's 1F1B warm-up needs pp − r of them).
double microbatches(const Job& job, const Layout& l) {
    const double m = static_cast<double>(job.grad_accum);
    return l.pp > 1 && m < static_cast<double>(l.pp) ? static_cast<double>(l.pp) : m;
}

// Micro-batches of activations stage r of p holds at its peak, in units of the stage's own
// layers for one micro-batch (m micro-batches, v stages per rank for the looped schedules).
// Read from the action orders of torch.distributed.pipelining schedules.py (ScheduleGPipe,
// Schedule1F1B, ScheduleInterleaved1F1B, ScheduleZBVZeroBubble, ScheduleDualPipeV) and
// Megatron-LM core/pipeline_parallel/schedules.py (forward_backward_pipelining_with(out)_interleaving),
// which agree: GPipe runs every forward before any backward (m); 1F1B warms up with p − r
// forwards and then alternates (min(m, p − r)); interleaved 1F1B warms up with
// (v − 1)·p + 2·(p − 1 − r) chunks of L/(p·v) layers and holds one more; the V schedules keep
// 2p chunks of L/(2p) layers on every rank (ZBV) and one chunk more (DualPipeV).
double in_flight(PpSchedule schedule, double m, double p, double v, double r) {
    switch (schedule) {
        case PpSchedule::GPipe: return m;
        case PpSchedule::OneFOneB: return std::min(m, p - r);
        case PpSchedule::Interleaved: return std::min(m * v, (v - 1) * p + 2 * (p - 1 - r) + 1) / v;
        case PpSchedule::ZeroBubbleV: return std::min(m, p);
        case PpSchedule::DualPipeV: return std::min(m, p + 0.5);
    }
    return 1;
}

// The buffers one block adds under context, expert and tensor parallelism and fp8.
void block_parallel_buffers(const Plan& p, const Layout& l, const Share& s, CommBuffers& b) {
    const ModelConfig& c = p.m.config;
    const Job& job = p.job;
    const double B = p.compute.bits / 8, tp = static_cast<double>(l.tp), cp = static_cast<double>(l.cp);
    const double local_tokens = static_cast<double>(job.batch) * static_cast<double>(job.seq) / cp;
    const double head_dim = static_cast<double>(c.head_dim > 0 ? c.head_dim : c.hidden / std::max<int64_t>(1, c.heads));
    const double q_width = static_cast<double>(c.heads) * head_dim / tp;
    const double kv_width = 2 * static_cast<double>(c.kv_heads > 0 ? c.kv_heads : c.heads) * head_dim / tp;
    if (l.cp > 1 && c.heads > 0) {
        // Ring attention (torch distributed/tensor/experimental/_attention.py _templated_ring_attention
        // with the default all-gather rotater; Transformer Engine's p2p ring keeps every received block
        // too): the whole sequence's K and V for one layer; backward gathers them again and accumulates
        // dq, dk, dv in fp32 (zeros_like) with an fp32 dK/dV buffer rotated by all-to-all.
        b.ring_forward = cp * local_tokens * kv_width * B;
        b.ring_backward = b.ring_forward + local_tokens * (q_width + 2 * kv_width) * 4;
    }
    if (job.ep > 1 && c.is_moe()) {
        // Expert parallelism (Megatron token_dispatcher.py MoEAlltoAllTokenDispatcher, torchtitan
        // expert_parallel.py _token_dispatch): each token's k routed copies permuted, sent by all-to-all
        // and received (k copies per token when routing is balanced; capacity_factor pads each expert
        // to ceil(T·k/E · cf) rows), and the same on the way back.
        const double rows = local_tokens / (job.sequence_parallel ? tp : 1) * static_cast<double>(c.experts_per_token) *
                            (job.capacity_factor > 0 ? job.capacity_factor : 1);
        b.dispatch = 2 * rows * static_cast<double>(c.hidden) * B;
    }
    // Async TP (torchtitan compile.enable_async_tensor_parallel; torch distributed/_symmetric_memory
    // get_symm_mem_workspace): one persistent workspace per TP group, two output chunks of a block's
    // sequence-sharded activation.
    if (job.async_tp && l.tp > 1) b.persistent += 2 * local_tokens / tp * static_cast<double>(c.hidden) * B;
    // Transformer Engine under fp8 (transformer_engine/pytorch/module/base.py get_weight_workspace;
    // Megatron passes is_first_microbatch): each linear's fp8 weight and its transpose are cached across
    // micro-batches, 2 bytes per weight. With fp8 parameters (Megatron --fp8-param-gather, NeMo
    // bf16_with_fp8_mixed fp8_params) the weight itself is fp8 (1 byte) beside its cached transpose:
    // the same 2 bytes as the bf16 weight it replaces, nothing more.
    if (job.fp8 == Fp8::TransformerEngine && job.mode == Mode::Train && !job.fp8_all_gather) {
        const double f = s.layers / static_cast<double>(std::max<int64_t>(1, c.layers));
        const double etp = static_cast<double>(job.etp > 0 ? job.etp : l.tp);
        b.persistent += 2 * f * (p.linear_dense / tp + p.linear_expert / (static_cast<double>(job.ep) * etp));
    }
}

// One multi-token prediction layer (Megatron core/transformer/multi_token_prediction.py
// MultiTokenPredictionLayer): enorm and hnorm (h each), eh_proj (2h -> h), a transformer layer
// of the decoder's last layer's kind (models/gpt/gpt_layer_specs.py get_gpt_mtp_block_spec:
// layer_specs[-1], a MoE layer in MoE models) and its final norm (h). Dense and routed-expert
// parameters, before TP and EP split them.
struct MtpLayer {
    double dense = 0, experts = 0;
};
MtpLayer mtp_layer(const Plan& p) {
    const ModelConfig& c = p.m.config;
    const double L = static_cast<double>(std::max<int64_t>(1, c.layers)), h = static_cast<double>(c.hidden);
    const double moe_L = static_cast<double>(c.moe_layers());
    MtpLayer m{2 * h * h + 3 * h, 0};
    if (moe_L == 0 || p.m.tensors.empty()) return m.dense += p.dense_params / L, m;
    for (const Tensor& t : p.m.tensors) {
        const double one = static_cast<double>(t.in) * static_cast<double>(t.out);
        const double copies = static_cast<double>(t.copies);
        if (t.kind == TensorKind::Embedding || t.kind == TensorKind::Head) continue;
        if (t.kind == TensorKind::RoutedExpert) m.experts += one * copies / moe_L;
        else if (t.copies % std::max<int64_t>(1, c.layers) == 0) m.dense += one * copies / L;  // in every layer
        else if (copies == moe_L) m.dense += one;  // in MoE layers only (shared experts, router)
    }
    return m;
}

}  // namespace

Share share_of(const Plan& p, const Layout& l, int64_t stage) {
    const ModelConfig& c = p.m.config;
    const Job& job = p.job;
    Share s;
    s.stage = stage, s.stages = l.pp;
    s.first = stage == 0, s.last = stage == l.pp - 1;
    const double L = static_cast<double>(std::max<int64_t>(1, c.layers)), pp = static_cast<double>(l.pp);
    // Megatron-LM splits the blocks evenly over the stages (--num-layers a multiple of
    // --pipeline-model-parallel-size); so does torchtitan's pipeline_module_split.
    s.layers = L / pp;
    s.microbatches = microbatches(job, l);
    s.in_flight = l.pp > 1 ? in_flight(job.pp_schedule, s.microbatches, pp, static_cast<double>(job.pp_virtual),
                                       static_cast<double>(stage))
                           : 1;
    const int64_t etp = job.etp > 0 ? job.etp : l.tp;  // resolve_layout checks EP against the experts and the GPUs
    const double tp = static_cast<double>(l.tp), experts_split = static_cast<double>(job.ep * etp);
    const double f = s.layers / L;
    // A tied embedding is also the head: under PP the last stage keeps its own copy
    // (Megatron share_embeddings_and_output_weights, gradients all-reduced between the two).
    const bool tied_copy = c.tied_embeddings && l.pp > 1;
    auto on_stage = [&](double dense, double embedding, double head) {
        return (f * dense + (s.first ? embedding : 0) + (s.last ? head + (tied_copy ? embedding : 0) : 0)) / tp;
    };
    s.dense = on_stage(p.dense_params, p.embedding_params, p.head_params);
    s.trainable_dense = on_stage(p.trainable_dense, p.trainable_embedding, p.trainable_head);
    s.experts = f * p.expert_params / experts_split;
    s.trainable_experts = f * p.trainable_expert / experts_split;
    s.dense_dp = static_cast<double>(l.dp * l.cp);
    s.expert_dp = std::max(1.0, static_cast<double>(l.gpus) / (experts_split * pp));
    // Hybrid sharding (FSDP1 HYBRID_SHARD inside a node, FSDP2's 2-D HSDP mesh, DeepSpeed hpZ / MiCS):
    // the states shard over `shard_degree` ranks and are replicated across the groups.
    if (job.shard_degree > 0) {  // resolve_layout checks it divides DP × CP
        s.dense_dp = std::min(s.dense_dp, static_cast<double>(job.shard_degree));
        s.expert_dp = std::min(s.expert_dp, s.dense_dp);
    }
    if (s.last && job.mtp_layers > 0) {
        // The MTP layers run on the last stage, which then also builds the embedding (their decoder
        // input; Megatron gpt_model.py: `if self.pre_process or self.mtp_process`) and keeps it in
        // sync with the first stage's, as tied embeddings are.
        const MtpLayer m = mtp_layer(p);
        const double k = static_cast<double>(job.mtp_layers);
        const double embedding = l.pp > 1 && !tied_copy ? p.embedding_params : 0;
        s.mtp = k;
        s.dense += (k * m.dense + embedding) / tp;
        s.experts += k * m.experts / experts_split;
        if (job.mode == Mode::Train) s.trainable_dense += (k * m.dense + embedding) / tp, s.trainable_experts += k * m.experts / experts_split;
    }
    s.unit = p.dense_params / L / tp + p.expert_params / L / experts_split;
    s.embedding = s.first ? p.embedding_params / tp : 0;
    s.head = s.last ? (p.head_params + (c.tied_embeddings ? p.embedding_params : 0)) / tp : 0;
    s.model_params = p.m.params.total;
    return s;
}

Share uniform_share(const Plan& p, const Layout& l) {
    Share s;
    s.uniform = true;
    s.stages = l.pp;
    s.layers = static_cast<double>(p.m.config.layers) / static_cast<double>(l.pp);
    s.dense = p.m.params.total / static_cast<double>(l.tp * l.pp);
    s.trainable_dense = p.trainable / static_cast<double>(l.tp * l.pp);
    s.dense_dp = static_cast<double>(l.dp * l.cp);
    s.model_params = p.m.params.total;
    return s;
}

double held_params(const Share& s, const Layout& l, bool trainable, int zero_needed) {
    const bool sharded = l.zero >= zero_needed;
    const double dense = trainable ? s.trainable_dense : s.dense, experts = trainable ? s.trainable_experts : s.experts;
    return dense / (sharded ? s.dense_dp : 1) + experts / (sharded ? s.expert_dp : 1);
}

std::string share_text(const Share& s, const Layout& l, int zero_needed, double per_gpu) {
    if (s.uniform) return shard_text(l, zero_needed, per_gpu);
    std::string parts;
    auto add = [&parts](const std::string& part) { parts += (parts.empty() ? "" : ", ") + part; };
    if (s.stages > 1)
        add("stage " + count(static_cast<double>(s.stage + 1)) + " of " + count(static_cast<double>(s.stages)) + " (" +
            count(s.layers) + " layers" + (s.first ? " + the embedding" : "") + (s.last ? " + the head" : "") + ")");
    if (l.tp > 1) add("÷ TP " + count(static_cast<double>(l.tp)));
    if (s.experts > 0 && s.expert_dp * static_cast<double>(l.pp) < static_cast<double>(l.gpus))
        add("experts ÷ EP × ETP " + count(static_cast<double>(l.gpus) / (s.expert_dp * static_cast<double>(l.pp))));
    if (l.zero >= zero_needed && s.dense_dp > 1) add("ZeRO-" + count(l.zero) + " over " + count(s.dense_dp));
    if (parts.empty()) return "";
    return "; this GPU: " + parts + " = " + gb_text(per_gpu);
}

CommBuffers comm_buffers(const Plan& p, const Layout& l, const Share& s) {
    CommBuffers b;
    const Job& job = p.job;
    if (!trains(job)) return b;
    const double compute = p.compute.bits / 8;
    // The dtype FSDP gathers in: a frozen base as stored (QLoRA NF4, LoRA bf16), fp8 with
    // torchao's float8 all-gather (float8/fsdp_utils.py WeightWithDynamicFloat8CastTensor), else the compute dtype.
    const double gathered = uses_adapters(job) ? p.weights.bits / 8 : job.fp8 == Fp8::Torchao && job.fp8_all_gather ? 1 : compute;
    // The embedding and the output layer stay 16-bit under float8: the converter swaps the blocks'
    // nn.Linear only (an nn.Embedding is not one; torchtitan's float8 filter_fqns = ["output"]).
    const double gathered_ends = uses_adapters(job) ? gathered : compute;
    const double grad = fp32_gradient_buffers(job) ? 4 : uses_adapters(job) ? job.adapter_dtype->bits / 8 : compute;
    const double reduce = job.reduce_dtype ? job.reduce_dtype->bits / 8 : grad;  // MixedPrecisionPolicy.reduce_dtype
    const double trainable_unit = s.trainable_dense / std::max(1e-9, s.dense) * s.unit;  // a block's trainable share
    // FSDP units: a block, and on the last stage the head with the final norm (its own unit in
    // torchtitan and torchtune; the embedding's unit runs first in forward and last in backward,
    // when almost no activation is left, and is not the peak).
    const double U = s.unit, Ut = trainable_unit;
    const double H = s.head, Ht = job.mode == Mode::Train ? s.head : 0;
    const bool sharded_params = l.zero >= 3 || job.offload_params;
    const bool titan = job.reshard_after_forward == ReshardAfterForward::Torchtitan ||
                       job.reshard_after_forward == ReshardAfterForward::TorchtitanRoot;
    const bool keep_blocks = job.reshard_after_forward == ReshardAfterForward::Never || (titan && l.pp > 1);
    const double stage_params = s.dense + s.experts;
    switch (job.sharding_impl) {
        case ShardingImpl::Fsdp2:
            if (!sharded_params) break;
            // fully_shard (torch/distributed/fsdp/_fully_shard/_fsdp_param_group.py unshard,
            // wait_for_unshard; _fsdp_collectives.py foreach_all_gather / foreach_reduce): the next
            // unit is prefetched while this one runs (its all-gather output is copied out into
            // per-parameter tensors). Forward: this unit and the next one gathered. Backward: this
            // unit and the prefetched one, this unit's unsharded gradients and its reduce-scatter
            // input in reduce_dtype (the copies' overlaps are brief: the flat all-gather buffer is
            // freed as its copy-out completes in backward).
            b.forward = keep_blocks ? 0 : 2 * std::max(gathered * U, gathered_ends * H);
            b.backward = (keep_blocks ? 0 : 2 * gathered * U) + grad * Ut + reduce * Ut;
            b.head_backward = gathered_ends * H + grad * Ht + reduce * Ht;
            // CPUOffloadPolicy: each shard is copied to the GPU before its all-gather.
            if (job.offload_params) b.forward += (p.job.precision == Precision::Pure ? compute : 4) * U / s.dense_dp;
            break;
        case ShardingImpl::Fsdp1:
            if (!sharded_params) break;
            // FullyShardedDataParallel (fsdp/_runtime_utils.py, _limiter_utils.py): limit_all_gathers
            // lets 2 all-gathers be in flight; BACKWARD_PRE holds "the current set of parameters, next
            // set of parameters, and current set of gradients" (api.py BackwardPrefetch). The
            // all-gathers run on the unshard stream and the reduce-scatter on the post-backward stream:
            // the caching allocator keeps those blocks in the streams' own pools (recordStream), so
            // they stay reserved while the default stream peaks elsewhere.
            b.forward = keep_blocks ? 0 : 2 * std::max(gathered * U, gathered_ends * H);
            b.backward = (keep_blocks ? 0 : 2 * gathered * U) + grad * Ut + reduce * Ut / s.dense_dp;
            b.head_backward = gathered_ends * H + grad * Ht;
            b.side_pools = 2 * gathered * U + grad * Ut;
            if (job.offload_params) b.forward += compute * U / s.dense_dp;
            break;
        case ShardingImpl::DeepSpeed: {
            // DeepSpeed zero/config.py defaults: reduce_bucket_size 5e8 elements, one flat bucket of
            // the model dtype allocated once (stage_1_and_2.py / stage3.py ipg buffer; overlap_comm,
            // stage 3's default, double-buffers it in stages 1-2 only). ZeRO-3 gathers module by
            // module and prefetches stage3_prefetch_bucket_size = 5e7 elements ahead
            // (partitioned_param_coordinator.py).
            b.bucket = std::min(5e8, std::max(1.0, held_params(s, l, true, 99))) * compute;
            if (!sharded_params) break;
            const double module = p.largest_linear / static_cast<double>(l.tp);
            b.forward = gathered * (module + std::min(5e7, U));
            b.backward = gathered * (module + std::min(5e7, U)) + grad * std::min(Ut, module);
            break;
        }
        case ShardingImpl::Megatron:
            // Megatron-Core DDP (distributed/param_and_grad_buffer.py): gradients accumulate in one
            // persistent full-size buffer (counted as the gradients), reduce-scatter and all-gather
            // run in place in it and in the parameter buffer: nothing more.
            break;
    }
    if (sharded_params && job.sharding_impl != ShardingImpl::Megatron && job.sharding_impl != ShardingImpl::DeepSpeed) {
        // Units kept gathered after their forward: every block (reshard_after_forward False; torchtitan
        // under PP, "to avoid per-microbatch all-gathers"), or the last unit only (torchtitan's
        // [norm, output]: "FSDP would prefetch them immediately", parallelize.py apply_fsdp).
        // The embedding and the head on this stage (one tensor when tied on a single stage).
        const double ends = p.m.config.tied_embeddings && s.first && s.last ? s.head : s.head + s.embedding;
        if (keep_blocks) b.stage_unsharded = gathered * (stage_params - ends) + gathered_ends * ends;
        else if (job.reshard_after_forward == ReshardAfterForward::Torchtitan && s.last) {
            b.head_kept = gathered_ends * s.head;
            b.head_backward -= gathered_ends * s.head;  // not gathered again: it is the kept one
        } else if (job.reshard_after_forward == ReshardAfterForward::TorchtitanRoot) {
            // torchtitan before 83e6941 (parallelize_llama.py apply_fsdp): fully_shard(model) makes the
            // embedding, final norm and output the root's own group, which FSDP2 never reshards after
            // forward (_fsdp_state.py _lazy_init: "For the root, do not reshard after forward"), and the
            // last block is kept too (reshard_after_forward = layer_id < n_layers - 1).
            b.head_kept = gathered_ends * ends + gathered * U;
            b.head_backward -= gathered_ends * s.head;
        }
        // Under PP the stage's backward runs once per micro-batch with gradient sync off until the
        // last (torch pipelining stage.py backward_maybe_with_nosync): FSDP accumulates unsharded
        // gradients in reduce_dtype (_fsdp_param.py to_accumulated_grad_if_needed).
        if (l.pp > 1 && s.microbatches > 1) b.accumulated = reduce * (s.trainable_dense + s.trainable_experts);
    }
    block_parallel_buffers(p, l, s, b);
    // torch DDP without sharding copies every gradient into its buckets
    // (DistributedDataParallel gradient_as_bucket_view=False, the default): one more gradient's worth.
    if (l.zero == 0 && s.dense_dp > 1 && (job.sharding_impl == ShardingImpl::Fsdp2 || job.sharding_impl == ShardingImpl::Fsdp1))
        b.bucket = grad * held_params(s, l, true, 99);
    return b;
}

}  // namespace vramcalc
