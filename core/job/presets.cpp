#include "job/presets.hpp"

namespace vramcalc {
namespace {

// Each value is the framework's own default (or the setting its reference
// recipes use), read from the code cited beside it.
const std::vector<Preset> kPresets = {
    {Framework::Custom, "custom", {}},
    {Framework::HfTrainer,
     "Hugging Face Trainer + PEFT",
     {
         {"precision", "\"autocast\"", "transformers TrainingArguments(bf16=True): torch.autocast over the loaded weights"},
         {"optimizer_impl", "\"foreach\"", "transformers TrainingArguments.optim 'adamw_torch': torch.optim.AdamW, foreach on CUDA"},
         {"attention", "\"sdpa\"", "transformers PreTrainedModel._autoset_attn_implementation: sdpa by default"},
         {"loss", "\"full\"", "transformers loss/loss_utils.py ForCausalLMLoss: logits.float() then cross_entropy"},
         {"adapter_dtype", "\"fp32\"", "peft LoraModel autocast_adapter_dtype=True: adapters upcast to fp32"},
         {"report", "\"reserved\"", "torch.cuda.max_memory_reserved, what Trainer's memory metrics log"},
     }},
    {Framework::AccelerateFsdp,
     "Accelerate FSDP",
     {
         {"zero", "3", "accelerate FullyShardedDataParallelPlugin sharding_strategy FULL_SHARD"},
         {"sharding_impl", "\"fsdp1\"", "accelerate utils/dataclasses.py FullyShardedDataParallelPlugin: torch FullyShardedDataParallel (fsdp_version 1)"},
         {"precision", "\"autocast\"", "accelerate mixed_precision bf16 with FSDP: fp32 sharded params, bf16 compute"},
         {"optimizer_impl", "\"foreach\"", "torch.optim.AdamW default foreach on CUDA"},
         {"attention", "\"sdpa\"", "transformers default attn_implementation sdpa"},
         {"report", "\"reserved\"", "torch.cuda.max_memory_reserved"},
     }},
    {Framework::Torchtune,
     "torchtune",
     {
         {"precision", "\"pure\"", "torchtune recipes/full_finetune_single_device.py: model loaded in dtype bf16, no master copy"},
         {"sharding_impl", "\"fsdp2\"", "torchtune training/_distributed.py shard_model: fully_shard per layer, then the root (torchtune >= 0.2)"},
         {"reshard_after_forward", "\"always\"", "torchtune recipes/full_finetune_distributed.py: cfg.get('fsdp_reshard_after_forward', True)"},
         {"optimizer_dtype", "\"bf16\"", "torch.optim.AdamW zeros_like(param): states take the bf16 param dtype"},
         {"optimizer_impl", "\"fused\"", "torchtune recipes/configs/llama3_2/3B_full_single_device.yaml optimizer fused: True"},
         {"attention", "\"sdpa\"", "torchtune modules/attention.py: scaled_dot_product_attention after expanding k, v"},
         {"loss", "\"chunked\"", "torchtune modules/loss CEWithChunkedOutputLoss (num_output_chunks 8) in current configs"},
         {"checkpointing", "\"full\"", "torchtune configs enable_activation_checkpointing: True"},
         {"adapter_dtype", "\"bf16\"", "torchtune lora recipes: adapters created in the model dtype"},
         {"logits_fp32", "true", "torchtune modules/transformer.py TransformerDecoder.unembed: output = self.output(h).float()"},
         {"qlora_matmul", "\"torchao\"", "torchtune modules/low_precision: linear_nf4 (torchao dtypes/nf4tensor.py LinearNF4 keeps the NF4 weight only)"},
         {"report", "\"allocated\"", "torchtune training/memory.py get_memory_stats: peak_memory_active"},
         {"overhead_gb", "0", "active bytes count torch tensors only"},
     }},
    {Framework::DeepSpeed,
     "DeepSpeed ZeRO",
     {
         {"precision", "\"master\"", "deepspeed runtime/bf16_optimizer.py BF16_Optimizer: bf16 params + fp32 master copy"},
         {"sharding_impl", "\"deepspeed\"", "deepspeed runtime/zero/stage_1_and_2.py, stage3.py: ZeRO's flat partitions and reduce buckets"},
         {"fp32_gradients", "true", "deepspeed BF16_Optimizer: gradients accumulated in fp32 (fp32_groups_gradients)"},
         {"optimizer_impl", "\"fused\"", "deepspeed ops/adam FusedAdam"},
         {"attention", "\"flash\"", "typical DeepSpeed recipes use flash-attn 2"},
         {"report", "\"reserved\"", "deepspeed see_memory_usage: max_memory_reserved"},
     }},
    {Framework::Megatron,
     "Megatron-LM",
     {
         {"precision", "\"master\"", "megatron core optimizer Float16OptimizerWithFloat16Params: fp32 main params"},
         {"sharding_impl", "\"megatron\"", "megatron core distributed/param_and_grad_buffer.py: persistent grad buffer, in-place reduce-scatter"},
         {"sequence_parallel", "false", "megatron training/arguments.py: --sequence-parallel is off unless given"},
         {"loss", "\"vocab_parallel\"", "megatron core models/gpt/gpt_model.py compute_language_model_loss: tensor_parallel.vocab_parallel_cross_entropy"},
         {"fp32_gradients", "true", "megatron arguments --accumulate-allreduce-grads-in-fp32 (on for bf16): main_grad buffers"},
         {"optimizer_impl", "\"fused\"", "megatron uses apex/TE FusedAdam"},
         {"attention", "\"flash\"", "megatron core TEDotProductAttention (flash / cuDNN fused attention)"},
         {"report", "\"reserved\"", "megatron training/utils.py report_memory: max_memory_reserved"},
     }},
    {Framework::Unsloth,
     "Unsloth",
     {
         {"precision", "\"pure\"", "unsloth FastLanguageModel: bf16 base, no fp32 master"},
         {"checkpointing", "\"full\"", "unsloth use_gradient_checkpointing='unsloth'"},
         {"activation_offload", "true", "unsloth 'unsloth' gradient checkpointing offloads checkpoints to system RAM"},
         {"loss", "\"fused\"", "unsloth fused linear cross-entropy (no full logits)"},
         {"optimizer", "\"adam_8bit\"", "unsloth notebooks: optim='adamw_8bit'"},
         {"attention", "\"flash\"", "unsloth attention kernels (flash-attn / xformers)"},
         {"adapter_dtype", "\"bf16\"", "unsloth get_peft_model: adapters in the compute dtype"},
         {"report", "\"reserved\"", "unsloth notebooks print torch.cuda.max_memory_reserved"},
     }},
    {Framework::Torchtitan,
     "torchtitan",
     {
         {"mode", "\"train\"", "torchtitan trains every weight (pretraining; no adapters)"},
         {"zero", "3", "torchtitan parallelize: FSDP2 fully_shard over the data-parallel mesh"},
         {"sharding_impl", "\"fsdp2\"", "torchtitan models/llama3/infra/parallelize.py apply_fsdp: fully_shard per block"},
         {"reshard_after_forward", "\"torchtitan\"", "torchtitan apply_fsdp, fsdp_reshard_after_forward 'default': blocks reshard unless PP; [norm, output] never"},
         {"reduce_dtype", "\"fp32\"", "torchtitan config parallelism.mixed_precision_reduce = float32 (MixedPrecisionPolicy reduce_dtype)"},
         {"sequence_parallel", "true", "torchtitan apply_tp: SequenceParallel on the norms, sequence-sharded block outputs"},
         {"loss_parallel", "true", "torchtitan train.py: loss under loss_parallel() unless parallelism.disable_loss_parallel (False by default)"},
         // FSDP2 MixedPrecisionPolicy(param_dtype=bf16, reduce_dtype=fp32) over fp32 sharded parameters:
         // 4 (param) + 4 (grad) + 8 (Adam) bytes per parameter, as master weights count them.
         {"precision", "\"master\"", "torchtitan config training.mixed_precision_param=bfloat16 over fp32 FSDP2 shards"},
         {"optimizer_impl", "\"fused\"", "torchtitan config optimizer.implementation = 'fused' (the default since 6e49885, 2025-02-24; foreach before)"},
         {"checkpointing", "\"selective_op\"", "torchtitan train_configs/llama3_8b.toml: activation_checkpoint mode selective, option op"},
         {"attention", "\"sdpa\"", "torchtitan models/llama3 Attention: F.scaled_dot_product_attention (flash backend)"},
         {"loss", "\"full\"", "torchtitan train.py cross_entropy_loss: F.cross_entropy(pred.float()), pred deleted before backward"},
         {"report", "\"reserved\"", "torchtitan metrics.py: memory_stats reserved_bytes.all.peak"},
     }},
    {Framework::Nemo,
     "NeMo 2.0",
     {
         {"zero", "1", "nemo collections/llm/recipes/optim/adam.py distributed_fused_adam_with_cosine_annealing: use_distributed_optimizer=True"},
         {"sharding_impl", "\"megatron\"", "nemo MegatronStrategy: Megatron-Core DistributedDataParallel (param_and_grad_buffer.py)"},
         {"precision", "\"master\"", "nemo recipes/precision/mixed_precision.py bf16_mixed: bf16 params, fp32 main params in the distributed optimizer"},
         {"fp32_gradients", "true", "nemo recipes/precision/mixed_precision.py bf16_mixed: grad_reduce_in_fp32=True"},
         {"sequence_parallel", "false", "nemo recipes/llama3_8b.py trainer(sequence_parallelism=False)"},
         {"loss", "\"vocab_parallel\"", "megatron core models/gpt/gpt_model.py compute_language_model_loss: tensor_parallel.vocab_parallel_cross_entropy"},
         {"optimizer_impl", "\"fused\"", "nemo MegatronOptimizerModule: TE/apex FusedAdam"},
         {"attention", "\"flash\"", "megatron core TEDotProductAttention (flash / cuDNN fused attention)"},
     }},
    // Post-training frameworks (issue 36): their trainers' own defaults; each mode's are in
    // core/job/posttrain_presets.cpp.
    {Framework::Trl,
     "TRL",
     {
         {"precision", "\"autocast\"", "trl trainer/utils.py create_model_from_path: dtype 'float32' unless model_init_kwargs say otherwise; bf16=True autocasts"},
         {"optimizer_impl", "\"foreach\"", "transformers TrainingArguments.optim 'adamw_torch': torch.optim.AdamW, foreach on CUDA"},
         {"attention", "\"sdpa\"", "transformers PreTrainedModel._autoset_attn_implementation: sdpa by default"},
         {"adapter_dtype", "\"fp32\"", "peft LoraModel autocast_adapter_dtype=True: adapters upcast to fp32"},
         {"report", "\"reserved\"", "torch.cuda.max_memory_reserved, what Trainer's memory metrics log"},
     }},
    {Framework::Verl,
     "verl",
     {
         {"zero", "3", "verl engine/fsdp.yaml: FSDP FULL_SHARD over the actor's GPUs (fsdp_size -1)"},
         {"sharding_impl", "\"fsdp1\"", "verl actor.strategy fsdp: torch FullyShardedDataParallel (fsdp2 by choice)"},
         {"precision", "\"master\"", "verl engine/fsdp.yaml model_dtype fp32 under a bf16 MixedPrecision: 4-byte params and gradients, fp32 Adam"},
         {"reduce_dtype", "\"fp32\"", "verl workers/fsdp_workers.py MixedPrecision(reduce_dtype=float32)"},
         {"optimizer_impl", "\"foreach\"", "verl optim/fsdp.yaml optimizer_impl torch.optim: AdamW, foreach on CUDA"},
         {"checkpointing", "\"full\"", "verl model.enable_gradient_checkpointing = True"},
         {"attention", "\"flash\"", "verl model.use_remove_padding: flash-attn varlen kernels"},
         {"report", "\"reserved\"", "verl utils/debug: max_memory_reserved in the step's metrics"},
     }},
    {Framework::OpenRlhf,
     "OpenRLHF",
     {
         {"zero", "2", "openrlhf cli/train_ppo_ray.py --ds.zero_stage default 2"},
         {"sharding_impl", "\"deepspeed\"", "openrlhf: DeepSpeed engines for actor, critic, reference and reward model"},
         {"precision", "\"master\"", "openrlhf --ds.param_dtype bf16: DeepSpeed bf16 params with an fp32 master copy"},
         {"optimizer_impl", "\"fused\"", "deepspeed ops/adam FusedAdam"},
         {"attention", "\"flash\"", "openrlhf --ds.attn_implementation default flash_attention_2"},
         {"checkpointing", "\"none\"", "openrlhf --actor.gradient_checkpointing_enable default False"},
         {"report", "\"reserved\"", "deepspeed see_memory_usage: max_memory_reserved"},
     }},
};

// QLoRA is run with activation checkpointing in the recipes people copy: PEFT's
// prepare_model_for_kbit_training turns it on by default, and the QLoRA configs of
// torchtune and fsdp_qlora enable it too.
const std::vector<PresetField> kQloraDefaults = {
    {"checkpointing", "\"full\"",
     "peft utils/other.py prepare_model_for_kbit_training(use_gradient_checkpointing=True); torchtune qlora configs "
     "enable_activation_checkpointing: True; fsdp_qlora train.py gradient_checkpointing True"},
};
const std::vector<PresetField> kNoDefaults = {};

}  // namespace

const std::vector<Preset>& all_presets() { return kPresets; }

const std::vector<PresetField>& mode_defaults(Mode mode) { return mode == Mode::QLoRA ? kQloraDefaults : kNoDefaults; }

const Preset& preset_of(Framework framework) {
    for (const auto& p : kPresets)
        if (p.framework == framework) return p;
    return kPresets.front();
}

}  // namespace vramcalc
