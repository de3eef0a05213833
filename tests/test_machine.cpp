// Your machine (issue 32): the two pools, MoE experts in RAM, unified memory, CPU only, the runtimes'
// defaults by version, the launch command and bad input. Each figure derived by hand beside its check.
#include <doctest/doctest.h>

#include "answers/inverse.hpp"
#include "helpers.hpp"
#include "job/runtime_versions.hpp"
#include "local/speed_params.hpp"
#include "text/errors.hpp"
#include "text/field_labels.hpp"

using namespace vramcalc;
using nlohmann::json;

namespace {
Estimate run(const std::string& id, const json& job) { return estimate(test::model(id), parse_job(job)); }
}  // namespace

TEST_CASE("gpt-oss-120b MXFP4 on a 24 GB GPU with 64 GB of RAM: the smallest --n-cpu-moe, both pools, the verdict") {
    // One layer's routed experts: 128 experts × (gate‖up 2880 × 5760 + down 2880 × 2880) = 128 × 3 × 2880² =
    // 3,185,049,600 MXFP4 values at 17 bytes per 32 (block_mxfp4) = 1,692,057,600 bytes. token_embd 201,088 × 2880
    // Q8_0 (34 bytes per 32) = 615,329,280 bytes stays in RAM (llama.cpp keeps it on the CPU).
    constexpr double kExperts = 1'692'057'600.0, kEmbd = 615'329'280.0;
    const json job = {{"engine", "llamacpp"}, {"gpu", "rtx4090"}, {"ram_gb", 64}};
    const Model m = test::model("gpt-oss-120b");
    // llama.cpp's --fit (newest): the trained context 131,072 does not fit, nor does 4,096 (fit_params_min_ctx)
    // with every expert on the GPU, so the context goes to 4,096 and the experts of the first N layers to RAM.
    const Estimate e = estimate(m, parse_job(job));
    CHECK(e.local.fit.ran);
    CHECK(e.local.fit.ctx_from == 131072);
    CHECK(e.context == 4096);
    const int64_t n = e.n_cpu_moe;
    CHECK(n == 24);
    // N is the smallest that keeps --fit's 1 GiB margin: with N − 1 layers' experts in RAM the GPU would need
    // one layer's experts more than the margin leaves.
    const double margin = 1024.0 * 1024 * 1024, gpu = 23.64 * test::GiB;
    CHECK(e.breakdown.total() <= gpu - margin);
    CHECK(e.breakdown.total() + kExperts > gpu - margin);
    const Answer a = solve(m, parse_job({{"engine", "llamacpp"}, {"gpu", "rtx4090"}, {"seq", 4096}}), Question::NCpuMoe);
    CHECK(a.found);
    CHECK(a.value == n);
    CHECK_FALSE(a.fits_next);
    CHECK(a.total_next == doctest::Approx(a.total_at + kExperts));
    // Both pools: the GPU's is the breakdown; RAM holds token_embd and N layers' experts (the output and the KV
    // stay on the GPU).
    CHECK(e.serving.cpu_weights == kEmbd + static_cast<double>(n) * kExperts);
    CHECK(e.local.ram.need_bytes == e.serving.cpu_bytes);
    CHECK(e.local.ram.have_bytes == 64e9);
    CHECK(e.local.gpu.need_bytes == e.breakdown.total());
    CHECK(e.local.gpu.fits);
    CHECK(e.local.ram.fits);
    CHECK(std::string(e.local.status) == "fits");
    CHECK(e.verdict.text.find("--n-cpu-moe 24") != std::string::npos);
    CHECK(e.verdict.text.find("system RAM") != std::string::npos);
    CHECK(e.command.text.find(" -c 4096 ") != std::string::npos);
    CHECK(e.command.text.find(" --n-cpu-moe 24 ") != std::string::npos);
    // With 32 GB the same layout is short of RAM by what the verdict names.
    json small = job;
    small["ram_gb"] = 32;
    const Estimate s = run("gpt-oss-120b", small);
    CHECK(std::string(s.local.status) == "slow");  // the weights in RAM are memory-mapped: the OS pages them
    CHECK(s.local.ram.short_bytes == doctest::Approx(s.serving.cpu_bytes - 32e9));
    CHECK(s.verdict.text.find("more RAM") != std::string::npos);
    small["mmap"] = false;
    CHECK(std::string(run("gpt-oss-120b", small).local.status) == "no");
}

TEST_CASE("gpt-oss-120b on a 128 GB Mac at the default wired limit: one memory, the GPU's share of it") {
    // macOS lets Metal wire 3/4 of RAM above 36 GB (recommendedMaxWorkingSetSize): 96 GiB of 128.
    const Estimate e = run("gpt-oss-120b", {{"engine", "llamacpp"}, {"gpu", "m3-max-128"}});
    CHECK(e.local.machine.unified);
    CHECK(e.local.gpu.have_bytes == 96 * test::GiB);
    CHECK(std::string(e.local.ram.key) == "unified");  // no separate system RAM
    CHECK(e.local.ram.have_bytes == 128 * test::GiB);
    // The whole model fits the share, with the trained context: --fit changes nothing.
    CHECK(e.context == 131072);
    CHECK(e.n_cpu_moe == 0);
    CHECK(e.serving.gpu_layers == 36);
    CHECK(e.local.gpu.fits);
    CHECK(std::string(e.local.status) == "fits");
    CHECK(e.verdict.text.find("unified memory") != std::string::npos);
    CHECK(e.verdict.text.find("in system RAM") == std::string::npos);
    // Never a partial offload to a second pool, and never more than one Mac in the GPU table.
    for (const GpuFit& f : e.fits)
        if (std::string(f.id).rfind("m", 0) == 0 && unified_machine(&gpu_catalog()[static_cast<size_t>(&f - e.fits.data())]))
            CHECK(f.gpus_needed <= 1);
    // sysctl iogpu.wired_limit_mb raises the share.
    const Estimate raised = run("gpt-oss-120b", {{"engine", "llamacpp"}, {"gpu", "m3-max-128"}, {"wired_limit_mb", 114688}});
    CHECK(raised.local.gpu.have_bytes == 112 * test::GiB);
}

TEST_CASE("Qwen3-30B-A3B Q4_K_M on 8 GB + 32 GB with --n-cpu-moe: each layer's experts, and the smallest N") {
    // Q4_K_M: an expert layer's gate and up are q4_K (144 bytes per 256): 128 × 768 × 2048 × 144 / 256 =
    // 113,246,208 bytes each; its down is q6_K (210 per 256: 165,150,720) on use_more_bits layers (the first and
    // last eighth of 48, and every third between: layer 5 yes, 6 no), else q4_K.
    const json base = {{"engine", "llamacpp"}, {"dtype", "q4_k_m"}, {"gpu", "rtx3070"}, {"ram_gb", 32},
                       {"seq", 4096}, {"n_gpu_layers", 99}};
    auto cpu = [&](int64_t n) {
        json j = base;
        j["n_cpu_moe"] = n;
        return run("qwen3-30b-a3b", j).serving.cpu_weights;
    };
    CHECK(cpu(6) - cpu(5) == 2 * 113'246'208.0 + 165'150'720.0);  // layer 5
    CHECK(cpu(7) - cpu(6) == 3 * 113'246'208.0);                   // layer 6
    // The smallest N that keeps 1 GiB of the 3070's 8 GiB free at 4,096 tokens: 35 of 48 (the RTX 2080 run of
    // tests/validation/local.json used 36 on its 8 GB).
    const Answer a = solve(test::model("qwen3-30b-a3b"), parse_job(base), Question::NCpuMoe);
    CHECK(a.value == 35);
    CHECK(a.total_at <= 8 * test::GiB - 1024.0 * 1024 * 1024);
    CHECK(a.total_next > 8 * test::GiB - 1024.0 * 1024 * 1024);
    json at = base;
    at["n_cpu_moe"] = 35;
    const Estimate e = run("qwen3-30b-a3b", at);
    CHECK(e.local.gpu.fits);
    CHECK(e.local.ram.fits);
    CHECK(e.local.speed.known);
    CHECK(e.local.speed.hops == 2 * 35 + 2);  // into RAM and back for each such layer, plus the first and last hand-over
}

TEST_CASE("a CPU-only machine: the answer is the RAM, and the speed its bandwidth") {
    const json job = {{"engine", "llamacpp"}, {"gpu", "cpu"}, {"dtype", "q4_k_m"}, {"seq", 4096}, {"ram_gb", 32},
                      {"ram_kind", "ddr5"}, {"ram_channels", 2}, {"ram_mts", 5600}};
    const Estimate e = run("qwen3-30b-a3b", job);
    CHECK(e.local.machine.cpu_only);
    CHECK_FALSE(e.local.gpu.known);
    CHECK(e.local.ram.need_bytes == e.breakdown.total());  // the breakdown is the RAM's
    CHECK(e.breakdown.bytes[kOverhead] == 0);               // no CUDA context
    CHECK(e.serving.gpu_layers == 0);
    // 2 channels × 8 bytes × 5,600 MT/s = 89.6 GB/s, read at the fitted efficiency; no GPU, no hand-over.
    CHECK(e.local.machine.ram_bandwidth == 89.6e9);
    CHECK(e.local.speed.hops == 0);
    // tokens/s × bytes per token = the bandwidth reached (the 64-token KV read beside the weights adds under 1 %).
    CHECK(e.local.speed.decode_tps * e.local.speed.ram_read_bytes == doctest::Approx(89.6e9 * speed_params().ram_read_efficiency).epsilon(0.01));
    CHECK(std::string(e.local.status) == "fits");
    CHECK(e.command.text.find(" -ngl 0 ") != std::string::npos);
    CHECK_THROWS_WITH_AS(parse_job({{"engine", "vllm"}, {"cpu_only", true}}), doctest::Contains("job.cpu_only"), InputError);
}

TEST_CASE("runtime defaults by version: llama.cpp, Ollama, MLX") {
    // llama.cpp: flash attention off before 2025-08 (PR #15434), --fit from 2025-12 (PR #16653).
    CHECK(parse_job({{"engine", "llamacpp"}, {"llamacpp_version", "2025-03"}}).attention == Attention::Eager);
    CHECK(parse_job({{"engine", "llamacpp"}, {"llamacpp_version", "2025-09"}}).attention == Attention::Flash);
    CHECK_FALSE(parse_job({{"engine", "llamacpp"}, {"llamacpp_version", "2025-09"}}).fit);
    const Job newest = parse_job({{"engine", "llamacpp"}});
    CHECK(newest.fit);
    CHECK(newest.ctx_auto);
    CHECK(newest.fit_target_mib == 1024);
    // A context the user gives is kept.
    CHECK_FALSE(parse_job({{"engine", "llamacpp"}, {"seq", 8192}}).ctx_auto);
    // Ollama: num_ctx 2048 before 0.6.7, 4096 after, by VRAM from 0.15.5 (4,096 / 32,768 / 262,144 at 23 / 47 GiB).
    CHECK(parse_job({{"engine", "ollama"}, {"ollama_version", "0.5.7"}}).seq == 2048);
    CHECK(parse_job({{"engine", "ollama"}, {"ollama_version", "0.9.0"}}).seq == 4096);
    CHECK(parse_job({{"engine", "ollama"}, {"gpu", "rtx3060"}}).seq == 4096);          // 11.75 GiB
    CHECK(parse_job({{"engine", "ollama"}, {"gpu", "rtx4090"}}).seq == 32768);         // 23.64 GiB
    CHECK(parse_job({{"engine", "ollama"}, {"gpu", "rtx4090"}, {"gpus", 2}}).seq == 262144);  // 47.28 GiB
    CHECK(parse_job({{"engine", "ollama"}, {"gpu", "rtx4090"}, {"num_ctx", 8192}}).seq == 8192);
    CHECK(parse_job({{"engine", "ollama"}, {"ollama_version", "0.5.7"}}).attention == Attention::Eager);
    CHECK(parse_job({{"engine", "ollama"}}).attention == Attention::Flash);
    CHECK(parse_job({{"engine", "ollama"}, {"ollama_version", "0.9.0"}}).batch == 4);  // OLLAMA_NUM_PARALLEL auto
    CHECK(parse_job({{"engine", "ollama"}}).batch == 1);
    // Ollama caps num_ctx at the model's trained context (llm/server.go): 262,144 → Llama 3 8B's 8,192.
    CHECK(run("llama-3-8b", {{"engine", "ollama"}, {"gpu", "rtx4090"}, {"gpus", 2}}).context == 8192);
    // MLX: fp16 KV unless kv_bits, prefill steps of 2048.
    const Job mlx = parse_job({{"engine", "mlx"}});
    CHECK(mlx.kv_bits == 0);
    CHECK(mlx.prefill_step_size == 2048);
    CHECK_THROWS_WITH_AS(parse_job({{"engine", "llamacpp"}, {"llamacpp_version", "b6000"}}), doctest::Contains("job.llamacpp_version"),
                         InputError);
    CHECK_THROWS_WITH_AS(parse_job({{"engine", "vllm"}, {"ollama_version", "0.12.0"}}), doctest::Contains("applies to engine ollama"),
                         InputError);
}

TEST_CASE("Ollama before 0.30 refuses as it prints it: model requires more system memory") {
    // Llama 3.1 70B Q4_K_M on one RTX 4090 with 16 GB of RAM: what Ollama keeps in RAM exceeds free RAM + swap.
    const Estimate e = run("llama-3.1-70b", {{"engine", "ollama"}, {"ollama_version", "0.12.0"}, {"dtype", "q4_k_m"},
                                             {"gpu", "rtx4090"}, {"ram_gb", 16}});
    CHECK(e.local.runtime_error.rfind("model requires more system memory (", 0) == 0);
    CHECK(e.local.runtime_error.find(" GiB) than is available (14.9 GiB)") != std::string::npos);  // 16e9 B = 14.9 GiB
    CHECK(std::string(e.local.status) == "no");
}

TEST_CASE("MLX: mlx-lm's quantized sizes and its KV cache") {
    // Qwen3-4B 4-bit (group 64: 4 + 32/64 = 4.5 bits per matrix weight); KV in bf16 grows in steps of 256 tokens:
    // 36 layers × 8 KV heads × 128 × 2 (K and V) × 2 bytes = 147,456 bytes per token × 2,304 (2,176 rounded up).
    const Estimate e = run("qwen3-4b", {{"engine", "mlx"}, {"dtype", "int4"}, {"seq", 2176}, {"gpu", "m3-pro-18"}});
    CHECK(e.breakdown.bytes[kKvCache] == 147'456.0 * 2304);
    const Estimate q = run("qwen3-4b", {{"engine", "mlx"}, {"dtype", "int4"}, {"seq", 2176}, {"gpu", "m3-pro-18"}, {"kv_bits", 4}});
    CHECK(q.breakdown.bytes[kKvCache] == doctest::Approx(147'456.0 * 2304 * 4.5 / 16));
    CHECK_THROWS_WITH_AS(parse_job({{"engine", "mlx"}, {"gpu", "rtx4090"}}), doctest::Contains("MLX runs on Apple silicon"), InputError);
    CHECK_THROWS_AS(run("qwen3-4b", {{"engine", "mlx"}, {"dtype", "q4_k_m"}}), InputError);
}

TEST_CASE("bad machine input: one error naming the field") {
    for (const json& ram : {json(0), json(-1), json(100'001), json(1e300), json("lots")})
        CHECK_THROWS_WITH_AS(parse_job({{"engine", "llamacpp"}, {"ram_gb", ram}}), doctest::Contains("job.ram_gb"), InputError);
    CHECK_THROWS_WITH_AS(parse_job({{"engine", "llamacpp"}, {"ram_gib", 0}}), doctest::Contains("job.ram_gib"), InputError);
    CHECK_THROWS_WITH_AS(parse_job({{"engine", "llamacpp"}, {"ram_gb", 32}, {"ram_used_gb", 40}}), doctest::Contains("job.ram_used_gb"),
                         InputError);
    CHECK_THROWS_WITH_AS(run("llama-3-8b", {{"engine", "llamacpp"}, {"n_cpu_moe", 2}}),
                         doctest::Contains("job.n_cpu_moe: moves the routed experts of mixture-of-experts layers"), InputError);
    CHECK_THROWS_WITH_AS(run("qwen3-30b-a3b", {{"engine", "llamacpp"}, {"n_cpu_moe", 49}}),
                         doctest::Contains("job.n_cpu_moe: must be at most the model's 48 layers"), InputError);
    CHECK_THROWS_WITH_AS(parse_job({{"engine", "vllm"}, {"n_cpu_moe", 2}}), doctest::Contains("job.n_cpu_moe"), InputError);
    CHECK_THROWS_WITH_AS(parse_job({{"engine", "llamacpp"}, {"ram_kind", "ddr6"}}), doctest::Contains("job.ram_kind"), InputError);
    CHECK_THROWS_WITH_AS(solve(test::model("llama-3-8b"), parse_job({{"engine", "llamacpp"}, {"gpu", "rtx4090"}}), Question::NCpuMoe),
                         doctest::Contains("job.n_cpu_moe"), InputError);
}

TEST_CASE("the printed command: every layout flag, and a model name that cannot run anything else") {
    CHECK(shell_quote("gpt-oss-120b-MXFP4.gguf") == "gpt-oss-120b-MXFP4.gguf");
    CHECK(shell_quote("my model.gguf") == "'my model.gguf'");
    CHECK(shell_quote("a;rm -rf ~") == "'a;rm -rf ~'");
    CHECK(shell_quote("it's$(id)`x`") == "'it'\\''s$(id)`x`'");
    const Estimate e = run("gpt-oss-20b", {{"engine", "llamacpp"}, {"gpu", "rtx4090"}, {"seq", 8192},
                                           {"model_file", "models/o'neil; rm -rf ~.gguf"}});
    CHECK(e.command.text.rfind("llama-server -m 'models/o'\\''neil; rm -rf ~.gguf' -c 8192 -ngl 25 -fa on -ctk f16 -ctv f16", 0) == 0);
    // A name that starts with '-' is given as a path, not read as an option.
    CHECK(run("gpt-oss-20b", {{"engine", "llamacpp"}, {"model_file", "--help.gguf"}}).command.text.find("-m ./--help.gguf") != std::string::npos);
    // Ollama: the environment, and a Modelfile whose FROM cannot start a line of its own.
    const Estimate o = run("llama-3-8b", {{"engine", "ollama"}, {"gpu", "rtx4090"}, {"model_file", "x\nPARAMETER num_gpu 99"}});
    CHECK(o.command.text == "OLLAMA_FLASH_ATTENTION=1 OLLAMA_NUM_PARALLEL=1 ollama serve");
    CHECK(o.command.modelfile.rfind("FROM \"xPARAMETER num_gpu 99\"\nPARAMETER num_ctx 8192", 0) == 0);
    // vLLM and SGLang: the memory flags the answer used.
    CHECK(run("llama-3-8b", {{"engine", "vllm"}, {"gpu", "h100"}, {"seq", 8192}, {"model_file", "meta-llama/Meta-Llama-3-8B"}}).command.text ==
          "vllm serve meta-llama/Meta-Llama-3-8B --gpu-memory-utilization 0.9 --max-model-len 8192");
    CHECK(run("llama-3-8b", {{"engine", "sglang"}, {"gpu", "h100"}, {"gpus", 2}, {"tp", 2}, {"model_file", "m"}}).command.text ==
          "python -m sglang.launch_server --model-path m --context-length 4096 --tp 2");
    CHECK(run("qwen3-4b", {{"engine", "mlx"}, {"dtype", "int4"}, {"model_file", "mlx-community/Qwen3-4B-4bit"}}).command.text ==
          "mlx_lm.server --model mlx-community/Qwen3-4B-4bit");
}

TEST_CASE("the page's texts for the machine: the layout in words, the widget's ram, the RAM kinds, unified GPU rows") {
    // The layout the verdict names, as the page's "Layout" line says it.
    const Estimate moe = run("gpt-oss-120b", {{"engine", "llamacpp"}, {"gpu", "rtx4090"}, {"ram_gb", 64}});
    CHECK(moe.local.layout_text == "the routed experts of the first 24 of 36 layers in RAM (--n-cpu-moe 24)");
    CHECK(moe.local.verdict.find(" with " + moe.local.layout_text + ":") != std::string::npos);
    const Estimate partial = run("llama-3-8b", {{"engine", "llamacpp"}, {"gpu", "rtx4090"}, {"n_gpu_layers", 20}});
    CHECK(partial.local.layout_text == "-ngl 20 of 32 layers on the GPU");
    CHECK(run("llama-3-8b", {{"engine", "llamacpp"}, {"gpu", "rtx4090"}}).local.layout_text == "every layer on the GPU");
    CHECK(run("llama-3-8b", {{"engine", "llamacpp"}, {"gpu", "cpu"}, {"ram_gb", 32}}).local.layout_text ==
          "no GPU: every layer on the CPU, in RAM");
    CHECK(run("llama-3-8b", {{"engine", "vllm"}, {"gpu", "rtx4090"}}).local.layout_text.empty());  // not a local runtime
    // ram: the widget's attribute, in GB as ram_gb; given with ram_gb (or ram_gib) it is one error naming job.ram.
    CHECK(parse_job({{"ram", 64}}).machine.ram_bytes == 64e9);
    CHECK_THROWS_WITH_AS(parse_job({{"ram", 64}, {"ram_gb", 32}}), doctest::Contains("job.ram: gives the RAM a second time (ram_gb"),
                         InputError);
    CHECK_THROWS_WITH_AS(parse_job({{"ram", 0}}), doctest::Contains("job.ram: must be more than 0 and at most 100,000 GB (100 TB), got 0"),
                         InputError);
    CHECK(field_label("job.ram") == "System RAM");
    CHECK(field_label("job.ram_gb") == "System RAM");
    // options(): each RAM kind with the configuration the bandwidth assumes for it (machine.cpp's rows: DDR5-5600 ×
    // 2 channels, DDR4-3200, LPDDR5X-8533), and the unknown kind first.
    const json kinds = json::parse(options_json()).at("ram_kinds");
    REQUIRE(kinds.size() == 5);
    CHECK(kinds[0] == json{{"id", "unknown"}, {"label", "Not given (2 channels at 5600 MT/s assumed)"}});
    CHECK(kinds[1] == json{{"id", "ddr4"}, {"label", "DDR4 (usually 2 channels at 3200 MT/s)"}});
    CHECK(kinds[2] == json{{"id", "ddr5"}, {"label", "DDR5 (usually 2 channels at 5600 MT/s)"}});
    CHECK(kinds[4] == json{{"id", "lpddr5x"}, {"label", "LPDDR5X (usually 2 channels at 8533 MT/s)"}});
    // gpus(): the unified-memory machines (their RAM is the GPU's) and a discrete GPU.
    int unified = 0;
    for (const json& g : json::parse(gpus_json())) {
        const std::string id = g.at("id");
        if (id == "m3-max-128" || id == "strix-halo-128" || id == "dgx-spark") CHECK(g.at("unified") == true);
        if (id == "rtx4090") CHECK(g.at("unified") == false);
        unified += g.at("unified").get<bool>();
    }
    CHECK(unified >= 3);
}
