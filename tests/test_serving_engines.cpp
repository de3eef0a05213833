// Engines by version and across GPUs, each figure derived by hand from the
// engine's code (the derivation beside each check).
#include <doctest/doctest.h>

#include "answers/inverse.hpp"
#include "answers/report.hpp"
#include "helpers.hpp"
#include "text/errors.hpp"

using namespace vramcalc;
using nlohmann::json;

namespace {
Estimate run(const std::string& id, const json& job) { return estimate(test::model(id), parse_job(job), false); }
}  // namespace

TEST_CASE("llama.cpp splits Mistral 7B BF16 over 2 × RTX 3060 by layers: about half each, it fits") {
    // Mistral 7B: 32 layers of q 4096², k and v 4096·1024, o 4096², gate/up/down 3·4096·14336 = 218,103,808
    // f16 values = 436,207,616 bytes + two f32 norms (32,768) = 436,240,384 bytes per layer; output 32000·4096 f16
    // + its norm = 262,160,384; token_embd 262,144,000 stays in host memory.
    // -sm layer with equal free memory: split points [0.5, 1] (float); layer il on GPU 0 while il / 33 < 0.5,
    // i.e. layers 0-16 (17); GPU 1 takes 17-31 (15) and the output at 32 / 33 (llama-model.cpp load_tensors).
    // llama.cpp before -fa auto and --fit (2024-11): n_ctx 4096, no flash attention, as derived below.
    const json job = {{"engine", "llamacpp"}, {"llamacpp_version", "2024-11"}, {"gpu", "rtx3060"}, {"gpus", 2}};
    const Estimate e = run("mistral-7b", job);
    REQUIRE(e.serving.devices.size() == 2);
    const DeviceShare &a = e.serving.devices[0], &b = e.serving.devices[1];
    CHECK(a.layers == 17);
    CHECK(b.layers == 15);
    CHECK(b.output);
    CHECK(a.weights == 17 * 436'240'384.0);
    CHECK(b.weights == 15 * 436'240'384.0 + 262'160'384.0);
    CHECK(e.serving.cpu_bytes == 262'144'000.0);
    // KV follows the layers: 2 · 8 · 128 · 4096 tokens · 2 bytes = 16 MiB per layer.
    CHECK(a.kv == 17 * 16'777'216.0);
    CHECK(b.kv == 15 * 16'777'216.0);
    // Compute buffer (f32, n_ubatch 512, n_ctx 4096, no flash attention): 3 hidden streams 25,165,824 + the
    // scores 32 · 512 · 4096 · 4 = 268,435,456 (above the MLP's 3 · 512 · 14336 · 4) = 293,601,280, and with
    // pipeline parallelism 4 copies of the inputs (hidden 512 · 4096 · 4 + f32 mask 512 · 4096 · 4) = 67,108,864.
    CHECK(a.compute_buffer == 360'710'144.0);
    CHECK(b.compute_buffer == 360'710'144.0);  // its output logits 512 · 32000 · 4 + 512 · 4096 · 4 are smaller
    // The fullest GPU decides: 7,416,086,528 + 285,212,672 + 360,710,144 + 1 GB context = 9,062,009,344 bytes,
    // 8.44 GiB of the RTX 3060's 11.75.
    CHECK(e.breakdown.total() == 9'062'009'344.0);
    CHECK(e.serving.fits);
    const auto row = std::find_if(e.fits.begin(), e.fits.end(), [](const GpuFit& f) { return std::string(f.id) == "rtx3060"; });
    REQUIRE(row != e.fits.end());
    CHECK(row->gpus_needed == 2);
    const std::string text = format_report("Mistral 7B", parse_job(job), estimate(test::model("mistral-7b"), parse_job(job)));
    CHECK(text.find("checkpointing") == std::string::npos);
    CHECK(text.find("17 + 15+out layers") != std::string::npos);
    // The fewest-GPUs answer agrees with the table.
    const Answer g = solve(test::model("mistral-7b"), parse_job({{"engine", "llamacpp"}, {"llamacpp_version", "2024-11"}, {"gpu", "rtx3060"}}),
                           Question::MinGpus);
    CHECK(g.value == 2);
}

TEST_CASE("llama.cpp -ts, -sm row and -sm none; Ollama keeps a model that fits on one GPU") {
    // -ts 3,1: split point 0.75; il / 33 < 0.75 up to il = 24: 25 layers on GPU 0, 7 and the output on GPU 1.
    const Estimate ts = run("mistral-7b", {{"engine", "llamacpp"}, {"llamacpp_version", "2024-11"}, {"gpu", "rtx4090"}, {"gpus", 2}, {"tensor_split", "3,1"}});
    CHECK(ts.serving.devices[0].layers == 25);
    CHECK(ts.serving.devices[1].layers == 7);
    // -sm row: each layer's matrices half on each GPU, the output on the last; the KV stays with the layers.
    const Estimate row = run("mistral-7b", {{"engine", "llamacpp"}, {"llamacpp_version", "2024-11"}, {"gpu", "rtx4090"}, {"gpus", 2}, {"split_mode", "row"}});
    CHECK(row.serving.devices[0].weights == doctest::Approx(32 * 436'240'384.0 / 2));
    CHECK(row.serving.devices[1].weights == doctest::Approx(32 * 436'240'384.0 / 2 + 262'160'384.0));
    CHECK(row.serving.devices[0].kv == 17 * 16'777'216.0);
    CHECK_THROWS_AS(parse_job({{"engine", "llamacpp"}, {"gpus", 2}, {"tensor_split", {1, 1, 1}}}), InputError);
    CHECK_THROWS_AS(run("mistral-7b", {{"engine", "llamacpp"}, {"gpus", 2}, {"split_mode", "none"}}), InputError);
    CHECK_THROWS_AS(run("mistral-7b", {{"engine", "llamacpp"}, {"gpus", 2}, {"tp", 2}}), InputError);
    // Ollama (server/sched.go): a 15.5 GB model on two 24 GB cards stays on one; OLLAMA_SCHED_SPREAD spreads it;
    // on two 12 GB cards it needs both.
    const json ollama = {{"engine", "ollama"}, {"ollama_version", "0.12.0"}, {"gpu", "rtx4090"}, {"gpus", 2}};
    const Estimate one = run("mistral-7b", ollama);
    REQUIRE(one.serving.devices.size() == 1);
    CHECK(one.serving.devices[0].layers == 32);
    json spread = ollama;
    spread["ollama_spread"] = true;
    CHECK(run("mistral-7b", spread).serving.devices.size() == 2);
    json small = ollama;
    small["gpu"] = "rtx3060";
    CHECK(run("mistral-7b", small).serving.devices.size() == 2);
}

TEST_CASE("vLLM's eager-attention profile grows as s²: 4k and 8k tokens") {
    // vLLM V0 0.9 with attention "eager" (the math SDPA path), max_num_seqs 1: one dummy sequence of
    // max(max_model_len, 2048) tokens. Llama-3-8B, 32 heads of 128: per sequence of s tokens the fp32 scores and
    // softmax 32 · s² · 8, the masks s² · 4 and the fp32 q, k, v copies 24 · s · 32 · 128, over one layer's
    // temporaries s · (3 · 4096 + 3 · 14336) · 2.
    //   s = 4096: 4,294,967,296 + 67,108,864 + 402,653,184 + 452,984,832 = 5,217,714,176
    //   s = 8192: 17,179,869,184 + 268,435,456 + 805,306,368 + 905,969,664 = 19,159,580,672 (3.67 ×)
    // The sampler (one row: 128256 · 38 + the hidden states) is far below either.
    for (const auto& [len, peak] : {std::pair<int64_t, double>{4096, 5'217'714'176.0}, {8192, 19'159'580'672.0}}) {
        const json job = {{"engine", "vllm"}, {"vllm_version", "0.9.2"}, {"vllm_engine", "v0"}, {"gpu", "h100"}, {"seq", len},
                          {"max_model_len", len}, {"max_num_seqs", 1}, {"attention", "eager"}};
        const Estimate e = run("llama-3-8b", job);
        CHECK(e.serving.profile_tokens == len);
        CHECK(e.breakdown.bytes[kActivations] == peak);
        json flash = job;
        flash["attention"] = "flash";
        CHECK(run("llama-3-8b", flash).breakdown.bytes[kActivations] == static_cast<double>(len) * 55296 * 2);
    }
}

TEST_CASE("vllm_version selects the accounting; the default is the newest and says so") {
    const json h100 = {{"engine", "vllm"}, {"gpu", "h100"}, {"seq", 8192}};
    const Job newest = parse_job(h100);
    CHECK(std::string(newest.vllm_accounting) == "vLLM 0.21 and later");
    CHECK(newest.vllm_version.find("newest") == 0);
    CHECK(newest.cudagraph_in_budget);
    // V1 on a GPU of 70 GiB or more: max_num_seqs 1024, max_num_batched_tokens 8192 (arg_utils.py); 256 and 2048
    // below (an L4), and from 0.9 on A100s too; 16384 tokens for the LLM class.
    CHECK(run("llama-3.1-8b", h100).serving.max_num_seqs == 1024);
    CHECK(run("llama-3.1-8b", h100).serving.profile_tokens == 8192);
    json l4 = h100;
    l4["gpu"] = "l4";
    CHECK(run("llama-3.1-8b", l4).serving.max_num_seqs == 256);
    CHECK(run("llama-3.1-8b", l4).serving.profile_tokens == 2048);
    json a100 = h100;
    a100["gpu"] = "a100-80";
    CHECK(run("llama-3.1-8b", a100).serving.max_num_seqs == 256);
    a100["vllm_version"] = "0.8.5";
    CHECK(run("llama-3.1-8b", a100).serving.max_num_seqs == 1024);
    json offline = h100;
    offline["vllm_offline"] = true;
    CHECK(run("llama-3.1-8b", offline).serving.profile_tokens == 16384);
    // The sampler's dummy batch: 1024 rows of Llama 3.1's 128256 logits. 0.17+ (Triton top-k/top-p): 2 + 12
    // bytes each + the 8192 hidden states (67,108,864) + 80 MiB = 1,989,476,352; 0.11 - 0.16 (the sort): 2 + 36.
    json v019 = h100;
    v019["vllm_version"] = "0.19.0";
    CHECK(run("llama-3.1-8b", v019).breakdown.bytes[kActivations] == 1024.0 * 128256 * 14 + 67'108'864 + 83'886'080);
    v019["vllm_version"] = "0.15.0";
    CHECK(run("llama-3.1-8b", v019).breakdown.bytes[kActivations] == 1024.0 * 128256 * 38 + 67'108'864);
    // V0 0.6.5: 256 rows, max(max_model_len, 2048) tokens.
    v019["vllm_version"] = "0.6.5";
    CHECK(run("llama-3.1-8b", v019).breakdown.bytes[kActivations] == 256.0 * 128256 * 38 + 8192.0 * 4096 * 2);
    for (const json& bad : {json{{"vllm_version", "banana"}}, json{{"vllm_version", "0.1.9"}},
                            json{{"vllm_version", "0.19"}, {"vllm_engine", "v0"}}, json{{"vllm_version", "0.6.5"}, {"vllm_engine", "v1"}}}) {
        json j = h100;
        j.update(bad);
        CHECK_THROWS_AS(parse_job(j), InputError);
    }
    CHECK_THROWS_AS(parse_job({{"engine", "llamacpp"}, {"vllm_version", "0.19"}}), InputError);
}

TEST_CASE("vLLM's non-torch memory and CUDA graphs by layout and version") {
    // Non-torch: 0.268 GB on a GPU that samples; + NCCL's NVLS buffers 1.954 GB at TP 2 on H100s, none on PCIe
    // RTX 4090s; 0.075 GB on a pipeline stage that does not sample.
    CHECK(run("llama-3.1-8b", {{"engine", "vllm"}, {"gpu", "h100"}, {"gpus", 2}, {"tp", 2}}).serving.non_torch == doctest::Approx(2.222e9));
    CHECK(run("llama-3.1-8b", {{"engine", "vllm"}, {"gpu", "rtx4090"}, {"gpus", 2}, {"tp", 2}, {"seq", 2048}}).serving.non_torch ==
          doctest::Approx(0.268e9));
    CHECK(run("llama-3.1-8b", {{"engine", "vllm"}, {"gpu", "h100"}, {"gpus", 2}, {"pp", 2}}).serving.non_torch_quiet ==
          doctest::Approx(0.075e9));
    // Graphs, newest on one H100, max_num_seqs 1024: sizes 1, 2, 4, 8 … 256 by 8, 272 … 512 by 16 = 51 piecewise
    // captures and 51 FULL decode captures (all ≤ max_num_seqs) = 102. Each keeps 32 layers × 192 KiB of graph
    // executables: 641,728,512; the pool one layer at 512 tokens, 512 · (3 · 4096 + 3 · 14336) · 2 = 56,623,104;
    // FlashAttention 3's split buffers 32 splits · 32 heads · 512 · (128 + 1) · 4 = 270,532,608; the capture
    // stream's cuBLAS workspace 32 MiB = 33,554,432: 1,002,438,656 bytes (0.93 GiB; the v0.19 log: 0.91), taken
    // from the budget (0.21+).
    const Estimate g = run("llama-3.1-8b", {{"engine", "vllm"}, {"gpu", "h100"}, {"seq", 8192}});
    CHECK(g.serving.graphs == 102);
    CHECK(g.serving.capture_max == 512);
    CHECK(g.serving.cuda_graphs == 1'002'438'656.0);
    CHECK(g.breakdown.bytes[kBuffers] == 1'002'438'656.0);
    // enforce_eager captures none; 0.19 captures the same graphs outside the budget, so its pool is larger by them.
    const Estimate eager = run("llama-3.1-8b", {{"engine", "vllm"}, {"gpu", "h100"}, {"seq", 8192}, {"enforce_eager", true}});
    CHECK(eager.serving.cuda_graphs == 0);
    CHECK(eager.serving.kv_pool == doctest::Approx(g.serving.kv_pool + 1'002'438'656.0));
    const Estimate v019 = run("llama-3.1-8b", {{"engine", "vllm"}, {"gpu", "h100"}, {"seq", 8192}, {"vllm_version", "0.19"}});
    CHECK_FALSE(v019.serving.graphs_in_budget);
    CHECK(v019.serving.kv_pool == doctest::Approx(g.serving.kv_pool + 1'002'438'656.0));
    // No FlashAttention 3 on an A100 (sm80): no split buffers, and PyTorch's workspace there is 2 · 4 MiB + 16 · 8 KiB;
    // max_num_seqs 256 there (0.9+), so 2 · 256 = 512 piecewise sizes (51) but FULL graphs only to 256 (35).
    const Estimate a100 = run("llama-3.1-8b", {{"engine", "vllm"}, {"gpu", "a100-80"}, {"seq", 8192}});
    CHECK(a100.serving.graphs == 51 + 35);
    CHECK(a100.serving.cuda_graphs == 86.0 * 32 * 192 * 1024 + 56'623'104 + 8'519'680);
    // Gemma 3 serves through TRITON_ATTN (its image prefix): no split buffers either.
    const Estimate gemma = run("gemma-3-4b", {{"engine", "vllm"}, {"gpu", "h100"}, {"seq", 8192}});
    CHECK(gemma.serving.cuda_graphs == 102.0 * 34 * 192 * 1024 + 512.0 * (3 * 2560 + 3 * 10240) * 2 + 33'554'432);
    // gpt-oss: capture sizes to 1024 (83); FA3 splits up to 992 sequences, so the buffers follow the 992 capture.
    const Estimate oss = run("gpt-oss-20b", {{"engine", "vllm"}, {"gpu", "h100"}, {"seq", 8192}, {"vllm_version", "0.19.0"}});
    CHECK(oss.serving.capture_max == 1024);
    CHECK(oss.serving.graphs == 83 + 83);
    // kv_cache_dtype fp8 (vLLM's name; 1 byte per element) doubles the tokens of the same pool.
    const Estimate fp8 = run("llama-3.1-8b", {{"engine", "vllm"}, {"gpu", "h100"}, {"seq", 8192}, {"kv_cache_dtype", "fp8_e4m3"}});
    CHECK(fp8.serving.kv_pool == doctest::Approx(g.serving.kv_pool));
    CHECK(fp8.serving.pool_blocks == static_cast<int64_t>(fp8.serving.kv_pool / (16.0 * 32 * 2 * 8 * 128)));
    CHECK(g.serving.pool_blocks == static_cast<int64_t>(g.serving.kv_pool / (16.0 * 32 * 2 * 8 * 128 * 2)));
}

TEST_CASE("SGLang: the sliding-window pool, chunked prefill by GPU, CUDA graphs outside the fraction") {
    // Gemma 2 9B with 4096-token windows: 21 sliding + 21 full layers of 2 · 8 · 256 · 2 = 8192 bytes per token.
    // model_runner.py: tokens = pool / (42 · 8192); full_tokens = tokens · 42 / (0.8 · 21 + 21); swa = 0.8 · full.
    json c = find_model(test::models(), "gemma-2-9b").config;
    c["sliding_window"] = 4096;
    const Model m = prepare_model(parse_config(c));
    const Estimate e = estimate(m, parse_job({{"engine", "sglang"}, {"gpu", "h100"}, {"seq", 8192}}), false);
    const double tokens = e.serving.kv_pool / (42 * 8192.0);
    CHECK(e.serving.pool_tokens == static_cast<int64_t>(tokens * 42 / 37.8));
    CHECK(e.serving.swa_tokens == static_cast<int64_t>(static_cast<double>(static_cast<int64_t>(tokens * 42 / 37.8)) * 0.8));
    // The two pools share the bytes: 21 layers × full + 21 layers × swa tokens ≈ the pool.
    CHECK(21 * 8192.0 * static_cast<double>(e.serving.pool_tokens + e.serving.swa_tokens) == doctest::Approx(e.serving.kv_pool).epsilon(1e-4));
    // One pool at full length with disable_hybrid_swa_memory.
    const Estimate one = estimate(m, parse_job({{"engine", "sglang"}, {"gpu", "h100"}, {"seq", 8192}, {"disable_hybrid_swa_memory", true}}), false);
    CHECK(one.serving.pool_tokens == static_cast<int64_t>(one.serving.kv_pool / (42 * 8192.0)));
    CHECK(one.serving.swa_tokens == 0);
    // server_args.py (v0.5.2): chunked_prefill_size 8192 on an H100, 2048 under 35 GiB; cuda_graph_max_bs 160
    // on an H100: batch sizes 1, 2, 4, 8, 16 … 160 by 8 = 23 graphs, after the pool (in the 1 − fraction).
    CHECK(e.serving.profile_tokens == 8192);
    CHECK(e.serving.graphs == 23);
    CHECK(run("llama-3-8b", {{"engine", "sglang"}, {"gpu", "rtx4090"}}).serving.profile_tokens == 2048);
    CHECK(run("llama-3-8b", {{"engine", "sglang"}, {"gpu", "h100"}, {"disable_cuda_graph", true}}).serving.cuda_graphs == 0);
}

TEST_CASE("transformers generate: static, offloaded and quantized caches") {
    // Llama-3-8B, a 96-token prompt and 4000 new tokens: 4096 tokens × 131072 bytes = 536,870,912 of KV.
    // Prefill of 96 tokens: 96 · (3 · 4096 + 3 · 14336) · 2 + last-token logits 128256 · 6 = 11,386,368;
    // a decode step: 55296 · 2 + 769,536 = 880,128.
    const json base = {{"engine", "hf"}, {"seq", 4096}, {"new_tokens", 4000}};
    auto with_cache = [&](const char* c) {
        json j = base;
        j["cache_implementation"] = c;
        return run("llama-3-8b", j);
    };
    // static (StaticLayer): the whole 4096-token cache from the first step, updated in place: the peak is prefill's.
    const Estimate st = with_cache("static");
    CHECK(st.breakdown.bytes[kKvCache] == 536'870'912.0);
    CHECK(st.breakdown.bytes[kActivations] == 11'386'368.0);
    // dynamic: the last step copies one layer (torch.cat), 16,777,216 + 880,128.
    CHECK(with_cache("dynamic").breakdown.bytes[kActivations] == 16'777'216.0 + 880'128);
    // offloaded (OffloadedCache): all 32 layers in CPU memory, the computed and the prefetched one on the GPU.
    const Estimate off = with_cache("offloaded");
    CHECK(off.breakdown.bytes[kKvCache] == 2 * 16'777'216.0);
    CHECK(off.serving.cpu_bytes == 536'870'912.0);
    // quantized (QuantizedLayer, 4 bits, fp16 scale and zero per 64 values, residual 128): 3968 tokens at
    // 0.5 + 4/64 bytes and 128 at 2 bytes per value: 131072 · (3968 · 0.28125 + 128) = 163,053,568; an update
    // dequantizes a layer and concatenates (two layers of 16,777,216).
    const Estimate q = with_cache("quantized");
    CHECK(q.breakdown.bytes[kKvCache] == 163'053'568.0);
    CHECK(q.breakdown.bytes[kActivations] == 2 * 16'777'216.0 + 880'128);
    CHECK_THROWS_AS(parse_job({{"cache_implementation", "quantized"}, {"cache_nbits", 3}}), InputError);
}
