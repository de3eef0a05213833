// Memory of encoders and encoder-decoders (issue 24): each figure derived by hand
// from the op order of the transformers modeling code (arithmetic in the
// comments; the blocks themselves are checked against autograd in
// tests/calibration/), and the job fields head, num_labels, encoder_seq.
#include <doctest/doctest.h>

#include "helpers.hpp"
#include "memory/kv.hpp"
#include "memory/loss.hpp"
#include "step/timeline.hpp"
#include "text/errors.hpp"

using namespace vramcalc;
using nlohmann::json;

namespace {

Model fixture_model(const std::string& name) {
    return prepare_model(parse_config_text(test::fixture(name + ".config.json")));
}

Estimate run(const std::string& name, const json& job) { return estimate(fixture_model(name), test::job(job)); }

std::string job_error(const std::string& name, const json& job) {
    try {
        run(name, job);
    } catch (const InputError& e) {
        return e.field();
    }
    return "";
}

}  // namespace

TEST_CASE("a BERT-large layer in fp32, eager: bidirectional s × s scores with dropout, post-LN") {
    // Per token (h 1024, I 4096, 16 heads, s 512, fp32): LayerNorm inputs + mean/rstd 2 · (4h + 8); q/k/v input 4h;
    // q, k, v 12h; softmax output, dropout mask, dropped probabilities 16 · 512 · (4 + 1 + 4); context 4h;
    // MLP input 4h; GELU input 4I; output dense input 4I; two hidden dropout masks 2h.
    const double per_token = 2 * (4 * 1024.0 + 8) + 4 * 1024.0 + 12 * 1024.0 + 16 * 512.0 * 9 + 4 * 1024.0 + 4 * 1024.0 +
                             8 * 4096.0 + 2 * 1024.0;
    const Estimate e = run("bert-large-uncased", {{"mode", "train"}, {"dtype", "fp32"}, {"precision", "pure"},
                                                  {"attention", "eager"}, {"batch", 4}, {"seq", 512}});
    CHECK(e.layer.total == 4 * 512 * per_token);
    // SDPA keeps the output (4h) and the fp32 logsumexp (4 per head) instead of the scores.
    const Estimate sdpa = run("bert-large-uncased", {{"mode", "train"}, {"dtype", "fp32"}, {"precision", "pure"},
                                                     {"attention", "sdpa"}, {"batch", 4}, {"seq", 512}});
    CHECK(sdpa.layer.total == 4 * 512 * (per_token - 16 * 512.0 * 9 + 4 * 1024.0 + 16 * 4));
    // No KV cache for an encoder, whatever the engine.
    const Estimate inf = run("bert-large-uncased", {{"mode", "inference"}, {"seq", 512}, {"batch", 8}});
    CHECK(inf.breakdown.bytes[kKvCache] == 0);
}

TEST_CASE("heads: the loss follows the head's logits; the job's head re-lists the tensors") {
    const json train = {{"mode", "train"}, {"dtype", "fp32"}, {"precision", "pure"}, {"batch", 2}, {"seq", 128}};
    // BertForMaskedLM (the config's): fp32 log-probabilities of every token over 30522 words, 4 · 256 · 30522 kept.
    const Estimate mlm = run("bert-large-uncased", train);
    json cls = train;
    cls["head"] = "sequence_classification";
    cls["num_labels"] = 3;
    const Estimate seq = run("bert-large-uncased", cls);
    // pooler (1024² + 1024) + classifier 1024·3 + 3 instead of the MLM head (1024² + 1024 + 2·1024 + 30522).
    CHECK(seq.params.total == mlm.params.total - (2 * 1024.0 + 30522) + 1024 * 3 + 3);
    CHECK(seq.trainable_params == seq.params.total);
    CHECK(seq.activations_saved_bytes < mlm.activations_saved_bytes - 4 * 256 * 30522.0);
    CHECK(job_error("bert-large-uncased", {{"head", "causal_lm"}}) == "job.head");
    CHECK(job_error("bert-large-uncased", {{"head", "lm"}}) == "job.head");
    CHECK(job_error("llama-3-8b", {{"head", "masked_lm"}}) == "job.head");
}

TEST_CASE("T5 inference: cross-attention KV per sequence, self-attention KV growing with the generated tokens") {
    // t5-base, bf16: each of 12 decoder layers keeps 2 · 768 values per token: 36,864 bytes per decoder token;
    // its cross-attention keeps the same per encoder token, once per sequence.
    const Estimate e = run("t5-base", {{"mode", "inference"}, {"dtype", "bf16"}, {"batch", 8}, {"seq", 128},
                                       {"encoder_seq", 512}});
    CHECK(e.breakdown.bytes[kKvCache] == 36'864.0 * 8 * 128 + 36'864.0 * 8 * 512);
    const Estimate longer = run("t5-base", {{"mode", "inference"}, {"dtype", "bf16"}, {"batch", 8}, {"seq", 256},
                                            {"encoder_seq", 512}});
    CHECK(longer.breakdown.bytes[kKvCache] - e.breakdown.bytes[kKvCache] == 36'864.0 * 8 * 128);
    // The encoder alone (T5EncoderModel) caches nothing.
    const Estimate enc = run("t5-base", {{"mode", "inference"}, {"head", "encoder"}, {"seq", 512}});
    CHECK(enc.breakdown.bytes[kKvCache] == 0);
}

TEST_CASE("Whisper: the encoder always sees 1500 frames; the decoder's KV is the tokens'") {
    // whisper-large-v3, fp16: 32 decoder layers × 2 · 1280 values × 2 bytes = 163,840 bytes per token, and the
    // cross-attention's over 1500 frames per sequence.
    const Estimate e = run("whisper-large-v3", {{"mode", "inference"}, {"dtype", "fp16"}, {"batch", 4}, {"seq", 448}});
    CHECK(e.breakdown.bytes[kKvCache] == 163'840.0 * 4 * (448 + 1500));
}

TEST_CASE("encoder-decoder training keeps the encoder's output for every decoder layer's cross-attention") {
    // flan-t5-base, bf16 pure, eager (T5Attention's only kernel), no dropout in the difference: the encoder output
    // (b · s_enc · h · 2) is kept once whatever the decoder's length, and each decoder layer keeps its own cross k, v.
    const json base = {{"mode", "train"}, {"dtype", "bf16"}, {"precision", "pure"}, {"batch", 2}, {"seq", 64},
                       {"encoder_seq", 256}, {"checkpointing", "full"}};
    const Estimate full = run("flan-t5-base", base);
    // Full checkpointing: each layer's input (12 encoder layers × 2 · 256 tokens, 12 decoder layers × 2 · 64) · 768 · 2,
    // the three position biases each layer receives (2 · 12 heads · (256² + 64² + 64 · 256) · 2), the encoder output
    // 2 · 256 · 768 · 2, then around the stacks: per encoder token the final norm (4h + 4 + 2h + 2h: T5LayerNorm keeps
    // its bf16 input too) and the embedding dropout mask h; per decoder token the same, plus the LM head's input 2h.
    const double h = 768, norm = 8 * h + 4;
    const double expected = (12 * 512 + 12 * 128) * h * 2 + 2 * 12 * (256.0 * 256 + 64 * 64 + 64 * 256) * 2 +
                            512 * h * 2 + 512 * (norm + h) + 128 * (norm + h + 2 * h);
    const Model model = fixture_model("flan-t5-base");
    const Job job = test::job(base);
    const Plan plan = make_plan(model, job);
    const Layout layout = resolve_layout(model.config, job);
    const LossBuffers loss = loss_buffers(plan, layout, share_of(plan, layout, 0));
    CHECK(full.activations_saved_bytes - loss.saved == doctest::Approx(expected));
}

TEST_CASE("ALiBi under SDPA materializes one batch × heads × s × s bias; eager and flash take the slopes") {
    // bloom-560m, bf16, batch 2, 1024 tokens: 2 · 16 heads · 1024² · 2 bytes over the flash-attn estimate's
    // difference in the attention core (SDPA output + logsumexp are the same for both kernels here).
    const json job = {{"mode", "train"}, {"dtype", "bf16"}, {"precision", "pure"}, {"batch", 2}, {"seq", 1024}};
    json sdpa = job, flash = job;
    sdpa["attention"] = "sdpa";
    flash["attention"] = "flash";
    const Estimate s = run("bloom-560m", sdpa), f = run("bloom-560m", flash);
    // BLOOM keeps kv_heads = heads, so SDPA and flash save the same per layer except o_proj's input copy (2h per token).
    CHECK(s.activations_saved_bytes - f.activations_saved_bytes == 2.0 * 16 * 1024 * 1024 * 2 + 24 * 2048 * 1024.0 * 2);
}

TEST_CASE("modules.json alone is refused with the file to give") {
    const std::string modules = R"([{"idx":0,"name":"0","path":"0_Transformer","type":"sentence_transformers.models.Transformer"}])";
    try {
        parse_config_text(modules);
        FAIL("accepted");
    } catch (const InputError& e) {
        CHECK(e.field() == "config");
        CHECK(std::string(e.what()).find("0_Transformer/config.json") != std::string::npos);
    }
}
