#pragma once
// The CLI's --help text (core/cli.cpp prints it): every flag, grouped as docs/ groups them.

namespace {

const char* kUsage = R"(usage: vramcalc [--model ID | --config config.json | --params N] [job options] [--json]

Model (default: --model llama-3-8b):
  --model ID            a model from models.json (see --list)
  --config PATH         a Hugging Face config.json
  --params N            only a parameter count (e.g. 7e9); add dimensions with --config for activations
  --checkpoint PATH     a .safetensors file, model.safetensors.index.json or .gguf: its header gives
                        the exact weight bytes (used with --dtype auto, the default); only the header is read
  --models PATH         models.json to use (default: the repository's)
  --list                list the models and exit (with --json: each with its
                        config and parameter counts, the page's catalog)

Job (defaults in brackets):
  --mode M              inference | train | lora | qlora            [inference]
  --dtype D             fp32 fp16 bf16 fp8 int8 int4 gptq awq nf4 q8_0 q6_k q5_k_m q4_k_m q4_0 q3_k_m q2_k  [bf16]
  --optimizer O         adamw | sgd | sgd_momentum | adam_8bit | adafactor  [adamw]
  --batch N             micro-batch per GPU                           [1]
  --seq N               tokens per sequence (encoder-decoders: the decoder's)  [4096]
  --encoder-seq N       encoder-decoders: the encoder's input tokens (0 = seq; Whisper: 1500 frames)  [0]
  --head H              auto | causal_lm | seq2seq_lm | masked_lm | pretraining | sequence_classification |
                        token_classification | question_answering | ctc | base | encoder  [auto: architectures]
  --num-labels N        classification outputs (0 = the config's id2label, else 2)  [0]
  --checkpointing C     none | selective | full | selective_op        [none]
  --flash | --no-flash  FlashAttention on/off                         [on]
  --kv-dtype D          auto | fp32 | fp16 | bf16 | fp8 | int8 | int4 | q8_0 | q4_0  [auto]
  --lora-rank R         LoRA rank                                     [16]
  --lora-targets T      all-linear | attention | mlp | q_proj,v_proj,...  [all-linear]
  --adapter-dtype D     fp32 | fp16 | bf16                            [fp32]
  --no-master-weights   pure 16-bit training without an fp32 master copy
  --gpus N  --tp N  --pp N  --zero 0..3                               [1, auto, auto, 0]
  --cp N  --ep N  --etp N  --shard-degree N   context / expert parallel, hybrid sharding
  --framework F         hf | accelerate_fsdp | torchtune | deepspeed | megatron | nemo | unsloth | torchtitan
  --sharding-impl I     fsdp2 | fsdp1 | deepspeed | megatron          [fsdp2]
  --reshard-after-forward R   always | never | torchtitan | torchtitan_root  [always]
  --pp-schedule S       1f1b | gpipe | interleaved_1f1b | zbv | dualpipev  [1f1b]
  --pp-virtual V  --grad-accum M  --pp-stage peak|first|last         [2, 1 (under PP: pp), peak]
  --sequence-parallel true|false  --fp8 none|torchao|te  --fp8-all-gather true
  --offload-params true  --offload-optimizer true   FSDP / ZeRO CPU offload (host RAM shown)
  --mtp-layers N        Megatron multi-token prediction layers on the last stage  [0]
  --logits-fp32 true    the model returns fp32 logits (torchtune); else the loss upcasts them
  --overhead-gb X       CUDA context + framework per GPU              [1.0]
  --fragmentation F     allocator slack fraction                      [0.05]
  --engine E            custom | hf | vllm | sglang | llamacpp | ollama  [custom]
  --gpu ID              the GPU served on (see the fit table ids); engines size pools from it
  --device-gib X        device memory as the engine sees it (vLLM's total_gpu_memory)
  --gpu-memory-utilization F   vLLM budget fraction                [0.9]
  --mem-fraction-static F      SGLang static fraction (0 = by TP)  [0]
  --max-model-len N  --max-num-batched-tokens N  --max-num-seqs N  --block-size N
  --chunked-prefill true|false   vLLM profile run size rule         [true]
  --new-tokens N        HF generate: tokens generated after the prompt  [0]
  --n-ubatch N          llama.cpp physical batch                      [512]
  --n-gpu-layers N      llama.cpp -ngl (-1 = all + output)            [-1]
  --experts-on-cpu true llama.cpp -ot exps=CPU (also --cpu-moe true)
  --n-cpu-moe N         llama.cpp: the routed experts of the first N layers in RAM   [0]

Your machine (llama.cpp, Ollama, MLX: both pools, the speed and the command; docs/machine.md):
  --ram-gb X | --ram-gib X   system RAM (X > 0, up to 100 TB); --ram-used-gb X what other programs hold
  --ram-kind K          ddr4 | ddr5 | lpddr5 | lpddr5x; --ram-channels N --ram-mts N, or --ram-bandwidth-gbs X
  --gpu cpu             a machine without a GPU (everything in RAM)
  --gpu m3-max-128      a Mac (its unified memory); --wired-limit-mb N as after sudo sysctl iogpu.wired_limit_mb=N
  --llamacpp-version V  2024-11 | 2025-08 | 2025-12 | ik | newest   (-fa auto from 2025-08, --fit from 2025-12)
  --ollama-version V    e.g. 0.5.7, 0.12.0 (num_ctx by VRAM from 0.15.5, llama-server runner from 0.30)
  --engine mlx          mlx-lm on a Mac: --dtype int4|int8|bf16, --kv-bits N
  --mmap false --mlock true   how llama.cpp holds the weights in RAM
  --model-file PATH     the file the printed command names (quoted for the shell)
  --gguf-rules R        current | 2023-12 (llama.cpp type rules era)  [current]
  --swa-full true       sliding-window layers at full length
  --ep N  --dp-attention true   expert parallel degree, data-parallel attention
  --split-mode M        llama.cpp -sm over --gpus: layer | row | none   [layer]
  --tensor-split 3,1    llama.cpp -ts shares per GPU (default: by free memory)
  --main-gpu N          llama.cpp -mg (the GPU of -sm none)           [0]
  --ollama-spread true  Ollama: spread over every GPU even when one holds the model
  --vllm-version V      vLLM release whose accounting to follow, e.g. 0.6.5, 0.19.0   [newest]
  --vllm-engine E       v0 | v1 (0.7 - 0.10 ship both)
  --enforce-eager true  vLLM without CUDA graphs; --max-cudagraph-capture-size N
  --kv-cache-dtype D    vLLM's name for kv_dtype: auto | fp8 | fp8_e4m3 | fp8_e5m2
  --limit-mm-per-prompt N   images per prompt in vLLM's profile run (V0 1, V1 999)
  --swa-full-tokens-ratio F --cuda-graph-max-bs N --chunked-prefill-size N   SGLang
  --cache-implementation C  HF generate: dynamic | static | offloaded | offloaded_static | quantized
  --cache-nbits N       QuantizedCache bits (2, 4, 8)                 [4]
  Post-training (docs/posttrain.md):
  --mode M              dpo | kto | orpo | grpo | ppo | rloo, with --policy full|lora|qlora  [full]
  --framework F         trl (default) | verl | openrlhf | unsloth: each framework's defaults
  --num-generations N --max-prompt-length N --max-completion-length N --beta X
  --use-vllm true --vllm-mode colocate|server --vllm-gpu-memory-utilization F --sleep-mode 0|1|2
  --vllm-tensor-parallel-size N --vllm-gpus N --vllm-max-model-length N --precompute-ref-log-probs true
  --solve max_completion_length | max_num_generations   the longest completion, the most per prompt
  Serving extras (docs/serving.md): --speculative-method draft|eagle|eagle3|mtp|ngram --speculative-model ID
  --num-speculative-tokens N (llama.cpp --draft-max), --enable-lora true --max-loras N --max-lora-rank N
  --max-cpu-loras N; machine_jobs (several models on the GPU) in --job JSON
  Any other job field as --field-name value (see docs/serving.md).
  --solve Q             max_context | max_batch | best_format | min_gpus | max_gpu_layers | n_cpu_moe
                        (needs --gpu; answers by exact search, prints JSON)
  --gpu ID --gpus N     your GPUs: the answer leads with one verdict (fits / tight / partial / does not fit)
  --device-gb X | --device-gib X   your GPU by its memory instead of an id
  --units gb|gib|mib    the unit of every size written [gb]; --recommend-from auto|datacenter|workstation|consumer|any
  --job PATH            read job fields from a JSON file (flags override)
  --intent I            run_locally | serve | fine_tune | pretrain | post_train: the page's entry point, its recipe for the model
  --fp8-recipe R        FP8 training: tensorwise | rowwise | rowwise_gw_hp | mxfp8 | te_delayed | te_current | blockwise
  --json                print the answer as JSON (docs/answer.md: the estimate, verdict, cards, recipe, what
                        fits, charts, planner, matrix): the page's and the widget's answer
  --ladder | --intents | --search TEXT   JSON: the llama.cpp quant ladder for --gpu (full / partial -ngl N /
                        too large), the page's four entry points, or catalog models as the page finds them
  --bake                print the page's first view as one line of JSON (the estimate of the job and of
                        its counterpart in the other mode), for the build to write into the page

What can I run? (the whole catalog on your machine, each model at its best format; docs/what-fits.md):
  --what-fits           list every model for --gpu / --gpus / --device-gb and --ram-gb (a table; --json for all of it)
  --intent I            chat (llama.cpp, Ollama or MLX; one user) | serve (vLLM or SGLang, --batch users × --seq
                        tokens) | finetune (LoRA, else QLoRA, at --batch × --seq)  [chat]
  --seq N               the context every model is sized at  [chat 8192, serve 8192, finetune 2048]
  --sort S              size | speed | headroom | name (what runs first; ties by name)  [size]
  --family F --size S --modality M --license L   comma-separated lists; size tiny|small|medium|large|frontier,
                        modality text|vision|audio|encoder|any  [chat: text,vision; serve: text,vision,audio]
  --moe true|false --min-context N --min-tps X --runnable   mixture of experts or dense, trained context,
                        tokens/s, only what runs; --config PATH adds your config to the list
  Any job field as --field-name value (--engine ollama, --llamacpp-version 2025-08, --wired-limit-mb N, ...).

Cluster planner (throughput, interconnect, time and cost; any of these turns it on):
  --gpu ID              accelerator (see --list-gpus)                 [h100]
  --fabric ID           network between nodes                         [ib-ndr]
  --cluster PATH        cluster fields from a JSON file (flags override)
  --cluster-FIELD V     any cluster field, e.g. --cluster-tokens 1e12 --cluster-price-per-gpu-hour 2
                        --cluster-global-batch 1024 --cluster-concurrency 8 --cluster-fp8 tensorwise
                        --cluster-schedule zbv --cluster-attention fa3 --cluster-node-limit 4
                        --cluster-compute-efficiency 0.4 (the single override of the per-op rates)
  --plan                run the planner with the defaults
  --list-gpus           list the accelerators and fabrics and exit
  The job's --gpus/--tp/--pp/--zero set the layout to time; without them it is recommended.
)";

}  // namespace
