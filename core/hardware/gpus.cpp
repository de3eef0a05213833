#include "hardware/gpus.hpp"

#include <algorithm>

#include "text/errors.hpp"

namespace vramcalc {
namespace {

// PCIe x16 per direction (PCI-SIG base specifications): gen 3 15.75 GB/s,
// gen 4 31.5 GB/s, gen 5 63 GB/s.
constexpr double kPcie3 = 15.75, kPcie4 = 31.5, kPcie5 = 63.0;

// Conventions, read before the table:
// - TFLOPS are dense (vendors print 2:4-sparse figures first; these are half).
//   GeForce cards run FP16/BF16 tensor math with FP32 accumulate at half the
//   FP16-accumulate rate (NVIDIA Ampere GA102 / Ada / Blackwell RTX whitepapers,
//   "Peak FP16 Tensor TFLOPS with FP32 Accumulate"): that is the figure here,
//   since training and inference frameworks accumulate in FP32.
// - Link bandwidth is per GPU per direction: NVIDIA's "NVLink 900 GB/s" is
//   bidirectional, so 450 GB/s each way.
// - memory_gib is the usable capacity: what PyTorch can allocate at most,
//   torch.cuda.get_device_properties().total_memory (the "total capacity" of
//   its out-of-memory message), a little below the box's figure (ECC and
//   driver reservations). Each "usable:" line cites a published figure; where
//   none is published the marketed figure stands (NVIDIA's and AMD's "GB" are GiB).
// - power_w is the board power limit the part runs at, from the same datasheets ("Max thermal design power"
//   / "TDP" / "TBP"): T4 70 W, L4 72, RTX 3090 350, 4090 450, 5090 575, A100 SXM 400, A100 PCIe 40 / 80 GB
//   250 / 300, L40 300, L40S 350, H100 SXM and H800 700, H100 PCIe 350, H100 NVL 400 (350-400 configurable),
//   H200 SXM 700, B200 1,000 (HGX), B300 1,100 (HGX), GB200 1,200 per GPU, MI300X 750, MI325X 1,000, MI355X
//   1,400; the Grand Teton H100 runs at the 500 W limit torchtitan's benchmarks state. Where a part runs below
//   the power of the part a kernel table was measured on, kernels.cpp scales that table (Achieved::capped_of).
const Gpu kCatalog[] = {
    // ---- ids the page and tests already use (kept first so equal capacities list them first)
    // T4 datasheet (NVIDIA Tesla T4, 2019): 8.1 FP32, 65 FP16 mixed, 320 GB/s, PCIe 3.0.
    // usable: PyTorch "total capacity of 14.56 GiB" on a Tesla T4 (2025 drivers; Zheng-Chong/CatVTON#133,
    //   AlphaGPU/leetgpu-challenges#52); older drivers 14.73-14.76 (hpcaitech/Open-Sora#697)
    {"t4", "Tesla T4 16GB", 14.56, 16, "NVIDIA", 8.1, 0, 65, 0, 0, 0.32, "PCIe 3.0 x16", kPcie3, 1, kPcie3, 4,
     "NVIDIA Tesla T4 datasheet", 70},
    // GA102 whitepaper (NVIDIA Ampere GA102 GPU Architecture, 2020), RTX 3090 column: 35.6 FP32,
    // 71 FP16 tensor FP32-acc dense, 936 GB/s; NVLink bridge 112.5 GB/s total (2 cards).
    // usable: PyTorch "23.70 GiB total capacity" on an RTX 3090 under Linux (GaoLii/DSP#10; Windows reports 24.00)
    {"rtx3090", "RTX 3090 24GB", 23.7, 24, "NVIDIA", 35.6, 35.6, 71, 0, 0, 0.936, "NVLink bridge (2 cards)", 56.25, 2,
     kPcie4, 4, "NVIDIA Ampere GA102 GPU Architecture whitepaper", 350},
    // Ada whitepaper (NVIDIA Ada GPU Architecture, 2022), RTX 4090: 82.6 FP32, 165.2 FP16 tensor
    // FP32-acc, 330.3 FP8 FP32-acc, 1008 GB/s, PCIe 4.0, no NVLink.
    // usable: PyTorch "total capacity of 23.64 GiB" on an RTX 4090 (ali-vilab/VGen#104, 3DTopia/Phidias-Diffusion#8)
    {"rtx4090", "RTX 4090 24GB", 23.64, 24, "NVIDIA", 82.6, 82.6, 165.2, 330.3, 0, 1.008, "PCIe 4.0 x16", kPcie4, 1,
     kPcie4, 4, "NVIDIA Ada GPU Architecture whitepaper", 450},
    // L4 datasheet: 30.3 FP32, TF32 120 / BF16 242 / FP8 485 sparse, 300 GB/s, PCIe 4.0.
    // usable: nvidia-smi 23034MiB on an L4 (lmstudio-ai/lmstudio-bug-tracker#1638); no published PyTorch figure
    //   found, which on the A10G is 0.5 GiB below nvidia-smi
    {"l4", "L4 24GB", 22.49, 24, "NVIDIA", 30.3, 60, 121, 242.5, 0, 0.3, "PCIe 4.0 x16", kPcie4, 1, kPcie4, 8,
     "NVIDIA L4 Tensor Core GPU datasheet", 72},
    // Blackwell RTX whitepaper (NVIDIA RTX Blackwell GPU Architecture, 2025), RTX 5090: 104.8 FP32,
    // 209.5 FP16 tensor FP32-acc, FP8 419, FP4 1676 dense (3352 AI TOPS sparse), 1792 GB/s, PCIe 5.0.
    // usable: PyTorch "total capacity of 31.37 GiB" on an RTX 5090 (Wan-Video/Wan2.1#465)
    {"rtx5090", "RTX 5090 32GB", 31.37, 32, "NVIDIA", 104.8, 104.8, 209.5, 419, 1676, 1.792, "PCIe 5.0 x16", kPcie5, 1,
     kPcie5, 4, "NVIDIA RTX Blackwell GPU Architecture whitepaper", 575},
    // A100 datasheet (NVIDIA A100 Tensor Core GPU, 2021), SXM: 19.5 FP32, 156 TF32, 312 BF16,
    // 40GB 1,555 GB/s, NVLink 3 600 GB/s (NVSwitch, 8 per HGX board).
    // usable: PyTorch "total capacity of 39.50 GiB" on an A100 40GB (TianheWu/CoSeR#10)
    {"a100-40", "A100 40GB", 39.5, 40, "NVIDIA", 19.5, 156, 312, 0, 0, 1.555, "NVLink 3 (NVSwitch)", 300, 8, kPcie4, 8,
     "NVIDIA A100 Tensor Core GPU datasheet (SXM)", 400},
    // RTX A6000 datasheet: 38.7 FP32, 309.7 tensor TFLOPS sparse, 768 GB/s, NVLink bridge 112.5 GB/s.
    {"rtxa6000", "RTX A6000 48GB", 48, 48, "NVIDIA", 38.7, 77.4, 154.8, 0, 0, 0.768, "NVLink bridge (2 cards)", 56.25, 2,
     kPcie4, 8, "NVIDIA RTX A6000 datasheet"},
    // L40S datasheet: 91.6 FP32, TF32 366 / BF16 733 / FP8 1466 sparse, 864 GB/s, PCIe 4.0.
    // usable: PyTorch "total capacity of 44.53 GiB" on an L40S 48GB (Wan-Video/Wan2.1#205)
    {"l40s", "L40S 48GB", 44.53, 48, "NVIDIA", 91.6, 183, 362, 733, 0, 0.864, "PCIe 4.0 x16", kPcie4, 1, kPcie4, 8,
     "NVIDIA L40S datasheet", 350},
    // A100 datasheet, SXM 80GB: 2,039 GB/s.
    // usable: PyTorch "total capacity of 79.14 GiB" on an A100 80GB (lianqi1008/Control-GIC#6; 79.10-79.25 elsewhere)
    {"a100-80", "A100 80GB", 79.14, 80, "NVIDIA", 19.5, 156, 312, 0, 0, 2.039, "NVLink 3 (NVSwitch)", 300, 8, kPcie4, 8,
     "NVIDIA A100 Tensor Core GPU datasheet (SXM)", 400},
    // H100 datasheet (NVIDIA H100 Tensor Core GPU), SXM: 67 FP32, TF32 989 / BF16 1,979 / FP8 3,958
    // sparse, 3.35 TB/s, NVLink 4 900 GB/s.
    // usable: PyTorch "total capacity of 79.11 GiB" on H100 80GB (vllm-project/vllm#27508, NVIDIA-NeMo/RL#2814)
    {"h100", "H100 80GB", 79.11, 80, "NVIDIA", 67, 494.7, 989.4, 1978.9, 0, 3.35, "NVLink 4 (NVSwitch)", 450, 8, kPcie5, 8,
     "NVIDIA H100 Tensor Core GPU datasheet (SXM)", 700},
    // H200 datasheet: 141 GB HBM3e, 4.8 TB/s; compute as H100 SXM; NVLink 900 GB/s.
    // usable: PyTorch "total capacity of 139.81 GiB" on GPUs listed as "NVIDIA H200 (139.8 GB)"
    // (sungwon-chae/arxiv_confi etu_logging.md; 139.80 in other 8xH200 logs)
    {"h200", "H200 141GB", 139.81, 141, "NVIDIA", 67, 494.7, 989.4, 1978.9, 0, 4.8, "NVLink 4 (NVSwitch)", 450, 8, kPcie5, 8,
     "NVIDIA H200 Tensor Core GPU datasheet (SXM)", 700},
    // DGX B200 datasheet: 1,440 GB for 8 GPUs (180 usable of 192 on the package), 64 TB/s;
    // HGX B200: FP4 144 / FP8 72 / BF16 36 / TF32 18 PFLOPS sparse for 8, FP32 600 TFLOPS for 8;
    // NVLink 5 1.8 TB/s per GPU.
    // usable: CUDA totalGlobalMem "178.35 GB" printed for a B200 (pytorch/ao#4002), the value torch reads
    {"b200", "B200 192GB", 178.35, 192, "NVIDIA", 75, 1125, 2250, 4500, 9000, 8, "NVLink 5 (NVSwitch)", 900, 8,
     kPcie5, 8, "NVIDIA DGX B200 / HGX B200 datasheets", 1000},
    // AMD Instinct MI300X datasheet: 163.4 FP32 matrix, 653.7 TF32, 1,307.4 BF16, 2,614.9 FP8
    // (dense), 192 GB HBM3, 5.3 TB/s; Infinity Fabric 7 links, 896 GB/s aggregate peer bandwidth.
    {"mi300x", "MI300X 192GB", 192, 192, "AMD", 163.4, 653.7, 1307.4, 2614.9, 0, 5.3, "Infinity Fabric (full mesh)", 448,
     8, kPcie5, 8, "AMD Instinct MI300X datasheet", 750},

    // ---- consumer cards (GeForce: FP32-accumulate tensor rate, see above)
    // GA106: RTX 3060 12GB, 28 SMs × 1,024 FP16 FLOP/clk/SM × 1.777 GHz = 51 FP16-acc, half with FP32 acc;
    // 12.7 FP32, 360 GB/s (NVIDIA GeForce RTX 3060 specifications page; GA102 whitepaper per-SM rates).
    // usable: PyTorch "11.75 GiB total capacity" on an RTX 3060 (Kunhao-Liu/StyleGaussian#12; 11.76 in
    //   TencentARC/PhotoMaker#47)
    {"rtx3060", "RTX 3060 12GB", 11.75, 12, "NVIDIA", 12.7, 12.7, 25.5, 0, 0, 0.36, "PCIe 4.0 x16", kPcie4, 1, kPcie4, 4,
     "NVIDIA GeForce RTX 3060 specifications; Ampere GA102 whitepaper per-SM tensor rate"},
    // Ada whitepaper rates × RTX 4060 Ti (34 SMs, 2.535 GHz): 22.1 FP32, 44.1 FP16 FP32-acc, 88.3 FP8; 288 GB/s.
    // usable: PyTorch "total capacity of 15.55 GiB" on a 4060 Ti 16G (boson-ai/higgs-audio#48)
    {"rtx4060ti-16", "RTX 4060 Ti 16GB", 15.55, 16, "NVIDIA", 22.1, 22.1, 44.1, 88.3, 0, 0.288, "PCIe 4.0 x8", kPcie4 / 2, 1,
     kPcie4 / 2, 4, "NVIDIA Ada GPU Architecture whitepaper (per-SM rates); GeForce RTX 4060 Ti specifications"},
    // Ada whitepaper rates × RTX 4070 (46 SMs, 2.475 GHz): 29.1 FP32, 58.3 FP16 FP32-acc, 116.6 FP8; 504 GB/s.
    {"rtx4070", "RTX 4070 12GB", 12, 12, "NVIDIA", 29.1, 29.1, 58.3, 116.6, 0, 0.504, "PCIe 4.0 x16", kPcie4, 1, kPcie4,
     4, "NVIDIA Ada GPU Architecture whitepaper (per-SM rates); GeForce RTX 4070 specifications"},
    // Ada whitepaper, RTX 4080: 48.7 FP32, 97.5 FP16 FP32-acc, 194.9 FP8, 716.8 GB/s.
    {"rtx4080", "RTX 4080 16GB", 16, 16, "NVIDIA", 48.7, 48.7, 97.5, 194.9, 0, 0.7168, "PCIe 4.0 x16", kPcie4, 1, kPcie4,
     4, "NVIDIA Ada GPU Architecture whitepaper"},
    // Blackwell RTX whitepaper rates (512 FP16 FP32-acc FLOP/clk/SM) × SMs × boost clock; FP4 = AI TOPS / 2.
    // RTX 5070: 48 SMs 2.512 GHz, 30.9 FP32, 988 AI TOPS, 672 GB/s.
    {"rtx5070", "RTX 5070 12GB", 12, 12, "NVIDIA", 30.9, 30.9, 61.7, 123.5, 494, 0.672, "PCIe 5.0 x16", kPcie5, 1, kPcie5,
     4, "NVIDIA RTX Blackwell GPU Architecture whitepaper; GeForce RTX 5070 specifications"},
    // RTX 5070 Ti: 70 SMs 2.452 GHz, 43.9 FP32, 1,406 AI TOPS, 896 GB/s.
    {"rtx5070ti", "RTX 5070 Ti 16GB", 16, 16, "NVIDIA", 43.9, 43.9, 87.9, 175.8, 703, 0.896, "PCIe 5.0 x16", kPcie5, 1,
     kPcie5, 4, "NVIDIA RTX Blackwell GPU Architecture whitepaper; GeForce RTX 5070 Ti specifications"},
    // RTX 5080: 84 SMs 2.617 GHz, 56.3 FP32, 1,801 AI TOPS, 960 GB/s.
    {"rtx5080", "RTX 5080 16GB", 16, 16, "NVIDIA", 56.3, 56.3, 112.6, 225.1, 900.5, 0.96, "PCIe 5.0 x16", kPcie5, 1,
     kPcie5, 4, "NVIDIA RTX Blackwell GPU Architecture whitepaper; GeForce RTX 5080 specifications"},

    // ---- data center, NVIDIA
    // V100 datasheet (NVIDIA Tesla V100, SXM2): 15.7 FP32, 125 FP16 tensor (no BF16), 900 GB/s,
    // NVLink 2 300 GB/s (DGX-1 hybrid cube mesh of 8).
    // usable: PyTorch "15.78 GiB total capacity" on a 16G V100 (kchengiva/Shift-GCN#34)
    {"v100-16", "V100 16GB", 15.78, 16, "NVIDIA", 15.7, 0, 125, 0, 0, 0.9, "NVLink 2", 150, 8, kPcie3, 8,
     "NVIDIA Tesla V100 datasheet (SXM2)"},
    // usable: PyTorch "31.74 GiB total capacity" on V100 32GB (liucongg/ChatGLM-Finetuning#73, haotian-liu/LLaVA#812)
    {"v100-32", "V100 32GB", 31.74, 32, "NVIDIA", 15.7, 0, 125, 0, 0, 0.9, "NVLink 2", 150, 8, kPcie3, 8,
     "NVIDIA Tesla V100 datasheet (SXM2)"},
    // A10 datasheet: 31.2 FP32, TF32 125 / BF16 250 sparse, 600 GB/s, PCIe 4.0.
    // usable: PyTorch "total capacty of 21.99 GiB" on Lambda A10 (zai-org/CogVLM#236)
    {"a10", "A10 24GB", 21.99, 24, "NVIDIA", 31.2, 62.5, 125, 0, 0, 0.6, "PCIe 4.0 x16", kPcie4, 1, kPcie4, 4,
     "NVIDIA A10 Tensor Core GPU datasheet"},
    // A10G (AWS G5 only): 24 GB, 600 GB/s (AWS EC2 G5 page); NVIDIA publishes no datasheet: the tensor
    // rate is the commonly quoted 70 TFLOPS FP16, an approximation.
    // usable: PyTorch "total capacty of 21.99 GiB" on A10G (bigcode-project/starcoder#151; SageMaker g5.12xlarge:
    //   aws-samples/amazon-sagemaker-llm-fine-tuning-remote-decorator#2)
    {"a10g", "A10G 24GB", 21.99, 24, "NVIDIA", 31.2, 35, 70, 0, 0, 0.6, "PCIe 4.0 x16", kPcie4, 1, kPcie4, 8,
     "AWS EC2 G5 instance specifications (tensor rate approximate)"},
    // L40 datasheet: 90.5 FP32, TF32 181 / BF16 362 / FP8 724 sparse, 864 GB/s.
    // usable: PyTorch "total capacity of 44.40 GiB" on an L40 (NVlabs/Eagle#68)
    {"l40", "L40 48GB", 44.4, 48, "NVIDIA", 90.5, 90.5, 181, 362, 0, 0.864, "PCIe 4.0 x16", kPcie4, 1, kPcie4, 8,
     "NVIDIA L40 datasheet", 300},
    // A100 datasheet, PCIe: 40GB 1,555 GB/s, 80GB 1,935 GB/s; NVLink bridge 600 GB/s for 2 GPUs.
    // usable: as the SXM A100 40GB (no separate PCIe figure published)
    {"a100-40-pcie", "A100 40GB PCIe", 39.5, 40, "NVIDIA", 19.5, 156, 312, 0, 0, 1.555, "NVLink bridge (2 GPUs)", 300, 2,
     kPcie4, 8, "NVIDIA A100 Tensor Core GPU datasheet (PCIe)", 250},
    // usable: as the SXM A100 80GB (no separate PCIe figure published)
    {"a100-80-pcie", "A100 80GB PCIe", 79.14, 80, "NVIDIA", 19.5, 156, 312, 0, 0, 1.935, "NVLink bridge (2 GPUs)", 300, 2,
     kPcie4, 8, "NVIDIA A100 Tensor Core GPU datasheet (PCIe)", 300},
    // H100 datasheet, PCIe: 51 FP32, TF32 756 / BF16 1,513 / FP8 3,026 sparse, 2 TB/s, bridge 600 GB/s.
    // usable: as the SXM H100 (no separate PCIe figure published)
    {"h100-pcie", "H100 80GB PCIe", 79.11, 80, "NVIDIA", 51, 378, 756, 1513, 0, 2.0, "NVLink bridge (2 GPUs)", 300, 2,
     kPcie5, 8, "NVIDIA H100 Tensor Core GPU datasheet (PCIe)", 350},
    // H100 datasheet, NVL: 60 FP32, TF32 835 / BF16 1,671 / FP8 3,341 sparse, 94 GB, 3.9 TB/s, bridge 600 GB/s.
    // usable: PyTorch "total capacity of 93.00 GiB" on an H100 NVL 94GB (ali-vilab/VACE#56)
    {"h100-nvl", "H100 NVL 94GB", 93, 94, "NVIDIA", 60, 417.5, 835.5, 1670.5, 0, 3.9, "NVLink bridge (2 GPUs)", 300, 2,
     kPcie5, 8, "NVIDIA H100 Tensor Core GPU datasheet (NVL)", 400},
    // H800 SXM (export variant): H100 SXM compute, NVLink 400 GB/s (NVIDIA H800 datasheet; DeepSeek-V3
    // report §3.1 "NVLink 400GB/s").
    // usable: as the H100 SXM (same 80 GB HBM3; no H800 figure published)
    {"h800", "H800 80GB", 79.11, 80, "NVIDIA", 67, 494.7, 989.4, 1978.9, 0, 3.35, "NVLink 4 (NVSwitch, 400 GB/s)", 200, 8,
     kPcie5, 8, "NVIDIA H800 datasheet; DeepSeek-V3 technical report §3.1", 700},
    // H100 96GB HBM2e at 500 W on Meta's Grand Teton hosts (torchtitan docs/performance.md, benchmarks of
    // 2024-12 and 2025-06: "96GB HBM2e with 2.4 TB/sec peak memory bandwidth", "default 500W power limit",
    // 400 Gb/s RDMA per GPU); torchao counts its peak as the SXM part's (torchao/testing/training/roofline_utils.py
    // gpu_name_to_specs "NVIDIA H100": 989 BF16, 1,979 FP8, 2.4e12 B/s "custom to Meta's H100 variant").
    // usable: no PyTorch figure published; the marketed 96 GB less the SXM part's 0.89 GiB
    {"h100-gt", "H100 96GB HBM2e (500 W)", 95.11, 96, "NVIDIA", 67, 494.7, 989.4, 1978.9, 0, 2.4, "NVLink 4 (NVSwitch)",
     450, 8, kPcie5, 8, "torchtitan docs/performance.md (Grand Teton); torchao roofline_utils.py", 500},
    // H20 (export variant): 96 GB HBM3, 4.0 TB/s, 148 BF16, 296 FP8, 44 FP32, NVLink 900 GB/s. NVIDIA
    // publishes no public datasheet; figures from the partner product brief as widely reported.
    {"h20", "H20 96GB", 96, 96, "NVIDIA", 44, 74, 148, 296, 0, 4.0, "NVLink 4 (NVSwitch)", 450, 8, kPcie5, 8,
     "NVIDIA H20 partner product brief (as reported)"},
    // HGX B300 datasheet: FP4 144 sparse / 108 dense, FP8 72, BF16 36, TF32 18 PFLOPS sparse, FP32 600
    // TFLOPS for 8 GPUs; 2.3 TB HBM3e for 8 (287.5 GB = 267.8 GiB each), 8 TB/s, NVLink 5 1.8 TB/s.
    {"b300", "B300 288GB", 267.8, 288, "NVIDIA", 75, 1125, 2250, 4500, 13500, 8, "NVLink 5 (NVSwitch)", 900, 8, kPcie5, 8,
     "NVIDIA HGX B300 datasheet", 1100},
    // GB200 NVL72 datasheet: for 72 GPUs FP4 1,440 / FP8 720 / BF16 360 / TF32 180 PFLOPS sparse,
    // FP32 5,760 TFLOPS, 13.4 TB HBM3e (186 GB = 173.2 GiB each), 576 TB/s; NVLink 5 1.8 TB/s across
    // the 72-GPU NVLink domain; 4 GPUs per compute tray.
    {"gb200", "GB200 (NVL72) 186GB", 173.2, 186, "NVIDIA", 80, 1250, 2500, 5000, 10000, 8, "NVLink 5 (NVL72 switch)", 900,
     72, kPcie5, 4, "NVIDIA GB200 NVL72 datasheet", 1200},

    // ---- AMD Instinct (datasheets give dense matrix rates; MI250X is two GCDs in one OAM)
    // MI250X datasheet: 95.7 FP32 matrix, 383 FP16/BF16, 128 GB HBM2e, 3.2 TB/s, Infinity Fabric up
    // to 800 GB/s per OAM; Frontier/El Capitan-class nodes hold 4.
    // Each MI250X is two GCDs, and PyTorch (ROCm) sees each GCD as its own 64 GB device
    // (AMD CDNA 2 white paper: "two Graphics Compute Dies"; ROCm/rocm_smi_lib#160 shows a
    // 67092480 KB pool per GCD): the figures here are per GCD, half the OAM's, 8 per node.
    {"mi250x", "MI250X (per GCD) 64GB", 64, 128, "AMD", 47.85, 0, 191.5, 0, 0, 1.6384, "Infinity Fabric", 200, 8, kPcie4, 8,
     "AMD Instinct MI250X datasheet"},
    // MI325X datasheet: MI300X compute, 256 GB HBM3E, 6 TB/s, same Infinity Fabric.
    {"mi325x", "MI325X 256GB", 256, 256, "AMD", 163.4, 653.7, 1307.4, 2614.9, 0, 6.0, "Infinity Fabric (full mesh)", 448,
     8, kPcie5, 8, "AMD Instinct MI325X datasheet", 1000},
    // MI355X datasheet: 157.3 FP32 matrix, 2.5 PF FP16/BF16, 5.0 PF FP8, 10 PF MXFP4 (dense), 288 GB
    // HBM3E, 8 TB/s, Infinity Fabric 1,075 GB/s aggregate.
    {"mi355x", "MI355X 288GB", 288, 288, "AMD", 157.3, 0, 2516.6, 5033.2, 10066.3, 8.0, "Infinity Fabric (full mesh)",
     537.6, 8, kPcie5, 8, "AMD Instinct MI355X datasheet", 1400},

    // ---- Intel Gaudi: 24 on-chip Ethernet ports, 21 wired all-to-all inside the 8-card node
    // Gaudi 2 whitepaper (Intel Habana Gaudi2): 96 GB HBM2E, 2.45 TB/s, BF16 432 / FP8 865 TFLOPS,
    // 24 × 100 GbE (21 × 100 Gb/s = 262.5 GB/s per direction inside the node).
    {"gaudi2", "Gaudi 2 96GB", 96, 96, "Intel", 0, 0, 432, 865, 0, 2.45, "RoCE 21 × 100 GbE (on-chip)", 262.5, 8, kPcie4,
     8, "Intel Habana Gaudi2 whitepaper"},
    // Gaudi 3 whitepaper (Intel Gaudi 3 AI Accelerator): 128 GB HBM2e, 3.7 TB/s, BF16 and FP8 1,835
    // TFLOPS, 24 × 200 GbE (21 inside the node = 525 GB/s per direction).
    {"gaudi3", "Gaudi 3 128GB", 128, 128, "Intel", 0, 0, 1835, 1835, 0, 3.7, "RoCE 21 × 200 GbE (on-chip)", 525, 8,
     kPcie5, 8, "Intel Gaudi 3 AI Accelerator whitepaper"},

    // ---- Apple unified memory: the GPU may wire about 75 % of RAM by default (Metal's
    // recommendedMaxWorkingSetSize; gpustack/gpustack#1375 "75% of total RAM"; raise it with
    // sysctl iogpu.wired_limit_mb). Bandwidth from Apple's product pages; FP32 = GPU cores × 128
    // lanes × 2 × clock (Apple does not publish TFLOPS for these; FP16 runs at the FP32 rate).
    {"m2-ultra-192", "Apple M2 Ultra 192GB (unified)", 144, 192, "Apple", 27.2, 0, 27.2, 0, 0, 0.8,
     "none (one device; Thunderbolt between Macs)", 0, 1, 0, 1, "Apple M2 Ultra press release (800 GB/s, 76-core GPU)"},
    {"m3-max-128", "Apple M3 Max 128GB (unified)", 96, 128, "Apple", 16.4, 0, 16.4, 0, 0, 0.4,
     "none (one device; Thunderbolt between Macs)", 0, 1, 0, 1, "Apple M3 Max MacBook Pro tech specs (400 GB/s, 40-core GPU)"},
    {"m4-max-128", "Apple M4 Max 128GB (unified)", 96, 128, "Apple", 18.4, 0, 18.4, 0, 0, 0.546,
     "none (one device; Thunderbolt between Macs)", 0, 1, 0, 1, "Apple M4 Max MacBook Pro tech specs (546 GB/s, 40-core GPU)"},

    // ---- Google TPU, per chip (Cloud TPU documentation, "TPU v5e" and "TPU v6e" system architecture):
    // v5e 16 GB HBM2, 819 GB/s, 197 BF16 / 394 INT8 TFLOPS, ICI 1,600 Gb/s per chip, 256-chip pod,
    // 8 chips per host; v6e 32 GB, 1,640 GB/s, 918 BF16 / 1,836 INT8, ICI 3,584 Gb/s.
    // ICI per direction taken as half the per-chip figure.
    {"tpu-v5e", "TPU v5e 16GB (per chip)", 16, 16, "Google", 0, 0, 197, 0, 0, 0.819, "ICI (2D torus)", 100, 256, kPcie4,
     8, "Google Cloud TPU v5e documentation"},
    {"tpu-v6e", "TPU v6e 32GB (per chip)", 32, 32, "Google", 0, 0, 918, 0, 0, 1.64, "ICI (2D torus)", 224, 256, kPcie4, 8,
     "Google Cloud TPU v6e documentation"},
};

// Scale-out fabrics, one NIC per GPU. Line rates: InfiniBand HDR 200 / NDR 400 / XDR 800 Gb/s
// (NVIDIA ConnectX-6 / ConnectX-7 / ConnectX-8 datasheets; DGX A100 8 × HDR, DGX H100 8 × NDR);
// RoCE at the same rates over Ethernet (Llama 3 paper §3.3.1: 400 Gb/s RoCE per GPU).
// Efficiency is an assumption, not a measurement: RDMA fabrics are taken to reach the link
// efficiency set in the request; plain Ethernet through NCCL's socket transport (no RDMA)
// is taken to reach half of that.
const Fabric kFabrics[] = {
    {"ib-hdr", "InfiniBand HDR 200 Gb/s per GPU", 200, 1.0, "NVIDIA ConnectX-6 datasheet; DGX A100 datasheet"},
    {"ib-ndr", "InfiniBand NDR 400 Gb/s per GPU", 400, 1.0, "NVIDIA ConnectX-7 datasheet; DGX H100 datasheet"},
    {"ib-xdr", "InfiniBand XDR 800 Gb/s per GPU", 800, 1.0, "NVIDIA ConnectX-8 SuperNIC datasheet (Quantum-X800)"},
    {"roce-200", "RoCE 200 Gb/s per GPU", 200, 1.0, "RDMA over Converged Ethernet, 200 GbE NIC"},
    {"roce-400", "RoCE 400 Gb/s per GPU", 400, 1.0, "Llama 3 paper (arXiv 2407.21783) §3.3.1; Spectrum-X 400 GbE"},
    {"roce-800", "RoCE 800 Gb/s per GPU", 800, 1.0, "NVIDIA ConnectX-8 / Spectrum-X 800 GbE"},
    {"eth-100", "Ethernet 100 Gb/s per GPU, TCP (no RDMA)", 100, 0.5, "plain 100 GbE; socket transport (assumed 50 %)"},
    {"eth-200", "Ethernet 200 Gb/s per GPU, TCP (no RDMA)", 200, 0.5, "plain 200 GbE; socket transport (assumed 50 %)"},
};

}  // namespace

const std::vector<Gpu>& gpu_catalog() {
    static const std::vector<Gpu> gpus = [] {
        std::vector<Gpu> v(std::begin(kCatalog), std::end(kCatalog));
        v.insert(v.end(), local_gpus().begin(), local_gpus().end());
        std::stable_sort(v.begin(), v.end(), [](const Gpu& a, const Gpu& b) { return a.memory_gib < b.memory_gib; });
        return v;
    }();
    return gpus;
}

double gpu_bytes(const Gpu& gpu) { return gpu.memory_gib * 1024.0 * 1024.0 * 1024.0; }

namespace {

// Measured kernel ceilings. MAMF (maximum achievable matmul FLOPS): the best mean TFLOPS of a
// brute-force search over matmul shapes, torch.matmul, 100 iterations after 50 warm-up (stas00/ml-engineering
// compute/accelerator/README.md "Maximum Achievable Matmul FLOPS comparison table", BF16 and FP8
// float8_e4m3fn tables; "H100 SXM ... H200 is the same" in the BF16 table). SM counts: NVIDIA's
// architecture whitepapers and datasheets (H100 SXM5 132, PCIe 114; A100 108; B200 148 per GPU; L40/L40S
// 142; RTX 4090 128, 4080 76, 3090 82, 5090 170; H20 78) and AMD's CDNA 3 whitepaper (MI300X/MI325X 304 CUs).
// NVLink SHARP (NVLS): third-generation NVSwitch reduces in the switch (NVIDIA NCCL 2.17+ release notes;
// HGX H100/H200/H20, HGX B200/B300 and NVL72 boards).
// The Grand Teton H100: torchao/testing/training/roofline_utils.py, "pct_achievable_gemm_tops_bf16": 0.69 and
// "_fp8": 0.78 of 989 / 1,979 "based on experimental observation with sample large inputs" on that variant
// (the 2.4 TB/s "custom to Meta's H100 variant" beside them): GEMMs measured on the 500 W part itself, so the
// planner applies no further cap to them. It is an H100 die at 500 W (capped_of "h100"): the kernel tables
// measured on the 700 W SXM part (FlashAttention's) scale by 683 / 794.5 = 0.86, the part's BF16 GEMM rate
// over the SXM's (NVIDIA's own ratings bracket it: the same die is rated 835.5 TFLOPS at 400 W as the H100
// NVL and 989.4 at 700 W). The FP8 reading, 1,544 TFLOPS, is above what the 700 W part sustains (MAMF
// 1,402.6), so it cannot be a sustained 500 W rate: the planner takes the SXM's FP8 MAMF × 0.86 instead.
struct AchievedRow {
    const char* id;
    Achieved a;
};
const AchievedRow kAchieved[] = {
    {"h100", {794.5, 1402.6, 132, true, true, "MAMF table: H100 SXM 794.5 BF16 (torch 2.7.0+cu126), 1,402.6 FP8"}},
    {"h800", {794.5, 1402.6, 132, true, true, "MAMF table: H100 SXM (the H800 is the same die and clocks)"}},
    {"h200", {794.5, 1453.4, 132, true, true, "MAMF table: H100 SXM BF16 ('H200 is the same'), H200 SXM 1,453.4 FP8"}},
    {"h100-gt", {0.69 * 989, 0.78 * 1979, 132, true, true, "torchao roofline_utils.py: 69 % BF16, 78 % FP8 measured on Meta's H100", "h100"}},
    {"h100-pcie", {0, 0, 114, true, false, ""}},
    {"h100-nvl", {0, 0, 132, true, false, ""}},
    {"h20", {0, 0, 78, true, true, ""}},
    {"a100-80", {271.2, 0, 108, false, false, "MAMF table: A100 SXM 271.2 BF16 (torch 2.6.0+cu126)"}},
    {"a100-40", {271.2, 0, 108, false, false, "MAMF table: A100 SXM 271.2 BF16"}},
    {"a100-80-pcie", {252.9, 0, 108, false, false, "MAMF table: A100 PCIe 252.9 BF16"}},
    {"a100-40-pcie", {252.9, 0, 108, false, false, "MAMF table: A100 PCIe 252.9 BF16"}},
    {"b200", {1745.0, 3432.5, 148, false, true, "MAMF table: B200 SXM 1,745.0 BF16, 3,432.5 FP8 (torch 2.7.1+cu128)"}},
    {"b300", {1769.0, 3353.3, 148, false, true, "MAMF table: B300 SXM 1,769.0 BF16, 3,353.3 FP8 (torch 2.9.1+cu130)"}},
    {"gb200", {1822.0, 3615.6, 148, false, true, "MAMF table: GB200 SXM 1,822.0 BF16, 3,615.6 FP8"}},
    {"mi300x", {668.4, 0, 304, false, false, "MAMF table: MI300X 668.4 BF16 (ROCm 6.3, TunableOp)"}},
    {"mi325x", {784.9, 0, 304, false, false, "MAMF table: MI325X 784.9 BF16 (ROCm 6.2.4, TunableOp, 1000 W)"}},
    {"mi355x", {1565.0, 0, 256, false, false, "MAMF table: MI355X 1,565.0 BF16 (ROCm 7.0.2)"}},
    {"gaudi2", {418.7, 826.5, 0, false, false, "MAMF table: Gaudi 2 418.7 BF16, 826.5 FP8"}},
    {"gaudi3", {1243.0, 1289.5, 0, false, false, "MAMF table: Gaudi 3 1,243.0 BF16, 1,289.5 FP8"}},
    {"l40s", {0, 0, 142, false, false, ""}},
    {"l40", {0, 0, 142, false, false, ""}},
    {"rtx4090", {0, 0, 128, false, false, ""}},
    {"rtx4080", {0, 0, 76, false, false, ""}},
    {"rtx3090", {0, 0, 82, false, false, ""}},
    {"rtx5090", {0, 0, 170, false, false, ""}},
};

}  // namespace

Achieved achieved(const Gpu& gpu) {
    for (const auto& row : kAchieved)
        if (std::string(row.id) == gpu.id) return row.a;
    return Achieved{};
}

const Gpu& find_gpu(const std::string& id, const std::string& field) {
    for (const Gpu& g : gpu_catalog())
        if (id == g.id) return g;
    std::string known;
    for (const Gpu& g : gpu_catalog()) known += (known.empty() ? "" : ", ") + std::string(g.id);
    throw InputError(field, "unknown GPU '" + short_text(id) + "'; known: " + known);
}

const std::vector<Fabric>& fabric_catalog() {
    static const std::vector<Fabric> fabrics(std::begin(kFabrics), std::end(kFabrics));
    return fabrics;
}

const Fabric& find_fabric(const std::string& id, const std::string& field) {
    for (const Fabric& f : fabric_catalog())
        if (id == f.id) return f;
    std::string known;
    for (const Fabric& f : fabric_catalog()) known += (known.empty() ? "" : ", ") + std::string(f.id);
    throw InputError(field, "unknown fabric '" + short_text(id) + "'; known: " + known);
}

}  // namespace vramcalc
