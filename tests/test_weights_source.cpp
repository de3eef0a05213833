// Where the weights figure comes from with dtype "auto" (the default): the
// config's quantization_config, or exact checkpoint metadata when attached.
#include <doctest/doctest.h>

#include "checkpoint/checkpoint.hpp"
#include "model/config.hpp"
#include "helpers.hpp"
#include "model/params.hpp"

using namespace vramcalc;
using nlohmann::json;

namespace {

Model tiny(const json& extra = json::object()) {
    json c = json::parse(test::fixture("tiny-llama.config.json"));
    c.update(extra);
    return prepare_model(parse_config(c));
}

double weights(const Model& m, const json& job) { return estimate(m, test::job(job), false).breakdown.bytes[kWeights]; }

}  // namespace

TEST_CASE("published: gpt-oss-20b's MXFP4 quantization_config gives its checkpoint's bytes") {
    // openai/gpt-oss-20b model.safetensors.index.json: "metadata": {"total_size": 13761264768}.
    // MXFP4 routed experts (4-bit E2M1 + one E8M0 scale per 32 = 4.25 bits), everything
    // else bf16 (quantization_config.modules_to_not_convert).
    const Model m = prepare_model(parse_config_text(test::fixture("gpt-oss-20b.config.json")));
    const Estimate e = estimate(m, test::job({{"mode", "inference"}}), false);
    CHECK(e.weights_source == WeightsSource::QuantizationConfig);
    CHECK(e.weights_reference_bytes == doctest::Approx(13'761'264'768.0).epsilon(0.001));
    // An explicit dtype overrides the checkpoint: bf16 everywhere.
    const Estimate bf16 = estimate(m, test::job({{"mode", "inference"}, {"dtype", "bf16"}}), false);
    CHECK(bf16.weights_source == WeightsSource::Job);
    CHECK(bf16.weights_reference_bytes == doctest::Approx(2 * m.params.total));
}

TEST_CASE("GPTQ quantization_config: b + (16 + b)/g bits on linear weights, embeddings, head and norms kept 16-bit") {
    const Model m = tiny({{"quantization_config", {{"quant_method", "gptq"}, {"bits", 4}, {"group_size", 128}}}});
    const double kept = 2 * 64 * 256 + 3 * 256;  // untied embed + lm_head, two layer norms and the final norm
    const double linear = 623'360 - kept;        // 589,824: q, k, v, o, gate, up, down (nn.Linear, what GPTQ converts)
    const double hand = linear * (4 + 20.0 / 128) / 8 + kept * 2;
    CHECK(weights(m, {{"mode", "inference"}}) == doctest::Approx(hand));
    CHECK(weights(m, {{"mode", "lora"}}) > hand);  // + adapters, base still GPTQ
    // Full training dequantizes; QLoRA re-quantizes to NF4: neither keeps the checkpoint's scheme.
    CHECK(estimate(m, test::job({{"mode", "train"}}), false).weights_source == WeightsSource::Job);
    CHECK(estimate(m, test::job({{"mode", "qlora"}}), false).weights_source == WeightsSource::Job);
    // The real GPTQ checkpoint of the same model (fixture with qweight/qzeros/scales/g_idx) is
    // within 5 % of the formula: g_idx (desc_act layout) is the only term the bits leave out.
    const CheckpointInfo info = read_checkpoint(test::fixture("tiny-llama-gptq.safetensors-header"));
    CHECK(static_cast<double>(info.weight_bytes) == doctest::Approx(hand).epsilon(0.05));
}

TEST_CASE("attached safetensors header: weights exact to the byte with dtype auto, formula otherwise") {
    Model m = tiny();
    attach_checkpoint(m, read_checkpoint(test::fixture("tiny-llama.safetensors-header")));
    CHECK(weights(m, {{"mode", "inference"}}) == 1'246'720.0);
    const Estimate e = estimate(m, test::job({{"mode", "inference"}}), true);
    CHECK(e.weights_source == WeightsSource::Exact);
    CHECK(e.breakdown.why[kWeights].find("1246720 bytes, exact from the safetensors header") != std::string::npos);
    CHECK(weights(m, {{"mode", "inference"}, {"dtype", "fp32"}}) == 4 * 623'360.0);
    CHECK(estimate(m, test::job({{"mode", "train"}}), false).weights_source == WeightsSource::Job);
    // A GPTQ checkpoint's packed bytes are taken as they are.
    Model q = tiny();
    const CheckpointInfo gptq = read_checkpoint(test::fixture("tiny-llama-gptq.safetensors-header"));
    attach_checkpoint(q, gptq);
    CHECK(weights(q, {{"mode", "inference"}}) == static_cast<double>(gptq.weight_bytes));
}

TEST_CASE("attached GGUF header: llama.cpp's -ngl split uses the file's own blocks") {
    Model m = tiny();
    const CheckpointInfo info = read_checkpoint(test::fixture("tiny-llama.gguf-header"));
    attach_checkpoint(m, info);
    double blocks = 0, embd = 0, rest = 0;
    for (const auto& t : info.tensors) {
        if (t.name.rfind("blk.", 0) == 0) blocks += static_cast<double>(t.bytes);
        else if (t.name == "token_embd.weight") embd += static_cast<double>(t.bytes);
        else rest += static_cast<double>(t.bytes);
    }
    REQUIRE(blocks > 0);
    REQUIRE(embd > 0);
    CHECK(blocks + embd + rest == static_cast<double>(info.weight_bytes));
    // All layers + output on the GPU; token_embd stays in host memory (llama-model.cpp).
    CHECK(weights(m, {{"engine", "llamacpp"}}) == blocks + rest);
    CHECK(weights(m, {{"engine", "llamacpp"}, {"n_gpu_layers", 1}}) == blocks);
    CHECK(weights(m, {{"engine", "llamacpp"}, {"n_gpu_layers", 0}}) == 0);
}

TEST_CASE("job.dtype auto is the default and is echoed; unknown names list auto") {
    const json r = json::parse(estimate_request(test::fixture("tiny-llama.config.json"), "{}"));
    CHECK(r["job"]["dtype"] == "auto");
    CHECK(r["weights_source"] == "job");
    const json bad = json::parse(estimate_request(test::fixture("tiny-llama.config.json"), R"({"dtype":"fp12"})"));
    CHECK(bad["error"]["field"] == "job.dtype");
    CHECK(bad["error"]["message"].get<std::string>().find("choose auto or one of") != std::string::npos);
}

TEST_CASE("a checkpoint is re-attached to its own config without reading the header again") {
    const std::string tiny_cfg = test::fixture("tiny-llama.config.json");
    const std::string other_cfg = test::fixture("gpt2.config.json");
    use_config(tiny_cfg);
    REQUIRE(json::parse(use_checkpoint(test::fixture("tiny-llama.safetensors-header")))["ok"] == true);
    use_config(other_cfg);
    CHECK_FALSE(reattach_checkpoint());  // another model: nothing to re-attach
    CHECK(json::parse(estimate_current("{}"))["weights_source"] == "job");
    use_config(tiny_cfg);
    REQUIRE(reattach_checkpoint());
    const json back = json::parse(estimate_current("{}"));
    CHECK(back["weights_source"] == "exact");
    CHECK(back["weights_reference_bytes"] == 1246720.0);
}

TEST_CASE("checkpoint metadata is bounded: 64 keys kept, long strings cut, keys given twice refused") {
    std::string header = R"({"__metadata__":{)";
    for (int i = 0; i < 200; ++i) header += "\"k" + std::to_string(i) + "\":\"" + std::string(i == 0 ? 5000 : 3, 'x') + "\",";
    header.back() = '}';
    header += R"(,"w":{"dtype":"BF16","shape":[2],"data_offsets":[0,4]}})";
    const json a = json::parse(inspect_checkpoint(header));
    REQUIRE(a["ok"] == true);
    CHECK(a["checkpoint"]["metadata_keys"] == 200);
    CHECK(a["checkpoint"]["metadata"].size() == 64);
    CHECK(a["checkpoint"]["metadata"]["k0"].get<std::string>().size() < 100);  // summarised, not 5000 bytes
    // GGUF: the fixture's metadata is kept (a few keys), and counted.
    const json g = json::parse(inspect_checkpoint(test::fixture("tiny-llama.gguf-header")));
    CHECK(g["checkpoint"]["metadata_keys"].get<int64_t>() == static_cast<int64_t>(g["checkpoint"]["metadata"].size()));
}
