// Hostile input at the limits, CI-sized: deep nesting at and over the depth
// limit, texts at and over the size limit, long strings, huge numbers,
// invalid UTF-8 and duplicate keys. Every answer must be valid JSON (the
// nlohmann parser used here also rejects invalid UTF-8), and every rejection
// a named error of bounded length. The randomized test is in test_fuzz.cpp.
#include <doctest/doctest.h>

#include <string>

#include "text/errors.hpp"
#include "helpers.hpp"
#include "text/json_text.hpp"

using namespace vramcalc;
using nlohmann::json;

namespace {

const std::string kLlama = test::fixture("llama-3-8b.config.json");
// Llama 3 8B, default job (inference, bf16, batch 1, seq 4096): the total
// tests/cli_test.sh pins for the CLI's --json output.
constexpr double kLlamaDefaultTotal = 18868203673.6;

// Parses an answer; it must be JSON, and a rejection must be well-formed.
json answer_of(const std::string& text) {
    const json r = json::parse(text, nullptr, false);
    REQUIRE_FALSE(r.is_discarded());
    if (!r.at("ok").get<bool>()) {
        const std::string field = r.at("error").at("field");
        const std::string message = r.at("error").at("message");
        CHECK(field != "internal");
        CHECK(message.rfind(field + ": ", 0) == 0);
        CHECK(field.size() <= kMaxErrorFieldBytes + 3);  // + the "…"
        CHECK(message.size() <= field.size() + 2 + kMaxErrorMessageBytes + 3);
    }
    return r;
}

// The error message of a rejected request ("" when it was accepted).
std::string error_of(const std::string& config, const std::string& job = "{}") {
    const json r = answer_of(estimate_request(config, job));
    return r.at("ok").get<bool>() ? "" : r.at("error").at("message").get<std::string>();
}

std::string nested_arrays(size_t depth) { return std::string(depth, '[') + std::string(depth, ']'); }
std::string nested_objects(size_t depth) {
    std::string text;
    for (size_t i = 0; i < depth; ++i) text += "{\"a\":";
    text += "1";
    return text + std::string(depth, '}');
}

std::string llama_with(const std::string& key, const json& value) {
    json c = json::parse(kLlama);
    c[key] = value;
    return c.dump();
}

}  // namespace

TEST_CASE("hostile: nesting up to 64 levels reaches the parser, deeper is a named error") {
    // 64 levels are legal JSON for us: the error is about the shape, not the depth.
    CHECK(error_of(nested_arrays(64)) == "config: must be a JSON object like a Hugging Face config.json");
    CHECK(error_of(nested_objects(63)).rfind("config.model_type: missing", 0) == 0);
    for (size_t depth : {65, 5000, 55000}) {
        CAPTURE(depth);
        CHECK(error_of(nested_arrays(depth)) == "config: nested deeper than 64 levels");
        CHECK(error_of(nested_objects(depth)) == "config: nested deeper than 64 levels");
        CHECK(error_of(kLlama, nested_arrays(depth)) == "job: nested deeper than 64 levels");
        CHECK(error_of(kLlama, nested_objects(depth)) == "job: nested deeper than 64 levels");
        CHECK(answer_of(inspect_config(nested_arrays(depth))).at("error").at("field") == "config");
        CHECK(answer_of(use_config(nested_objects(depth))).at("error").at("field") == "config");
        CHECK(answer_of(models_summary(nested_arrays(depth))).at("error").at("message") ==
              "models.json: nested deeper than 64 levels");
    }
    // A deep value inside an otherwise good config or job, and a deep job after a good config.
    CHECK(error_of(R"({"text_config":)" + nested_arrays(100) + "}") == "config: nested deeper than 64 levels");
    CHECK(error_of(kLlama, R"({"mode":)" + nested_objects(70) + "}") == "job: nested deeper than 64 levels");
    use_config(kLlama);
    CHECK(answer_of(estimate_current(nested_arrays(55000))).at("error").at("message") ==
          "job: nested deeper than 64 levels");
}

TEST_CASE("hostile: brackets and quotes inside strings do not count as nesting") {
    json c = json::parse(kLlama);
    c["comment"] = std::string(10000, '[') + "\"{\\" + std::string(10000, '{');
    c["architectures"] = json::array({"LlamaForCausalLM", "[[[[\\\"]]"});
    const json r = answer_of(estimate_request(c.dump(), "{}"));
    REQUIRE(r.at("ok").get<bool>());
    CHECK(r.at("total_bytes").get<double>() == doctest::Approx(kLlamaDefaultTotal).epsilon(1e-12));
}

TEST_CASE("hostile: texts up to 8 MB are read, larger ones are a named error") {
    std::string at_limit = kLlama;
    at_limit.resize(kMaxJsonBytes, ' ');  // trailing whitespace is valid JSON
    const json ok = answer_of(estimate_request(at_limit, "{}"));
    REQUIRE(ok.at("ok").get<bool>());
    CHECK(ok.at("total_bytes").get<double>() == doctest::Approx(kLlamaDefaultTotal).epsilon(1e-12));

    const std::string over = at_limit + " ";
    const std::string message = "larger than 8 MB (the limit for a JSON input is 8000000 bytes)";
    CHECK(error_of(over) == "config: " + message);
    CHECK(error_of(kLlama, over) == "job: " + message);
    CHECK(answer_of(models_summary(over)).at("error").at("message") == "models.json: " + message);
    // 100 MB in one string: rejected by size before any parsing, not echoed.
    const std::string huge = "{\"model_type\":\"" + std::string(100'000'000, 'x') + "\"}";
    CHECK(error_of(huge) == "config: " + message);
}

TEST_CASE("hostile: long strings are quoted in at most 60 characters") {
    // Without the generic keys (with them, an unknown architecture is estimated as approximate).
    const std::string message = error_of(json{{"model_type", std::string(1'000'000, 'x')}}.dump());
    CHECK(message.rfind("config.model_type: unknown architecture '" + std::string(60, 'x') + "… (1000000 bytes)'", 0) == 0);
    CHECK(message.size() < 400);

    const std::string dtype = error_of(kLlama, json{{"dtype", std::string(1'000'000, 'q')}}.dump());
    CHECK(dtype.rfind("job.dtype: unknown format '" + std::string(60, 'q') + "… (1000000 bytes)'", 0) == 0);
    CHECK(error_of(kLlama, json{{"mode", std::string(100'000, 'm')}}.dump()).size() <= 10 + 1000 + 3);  // "job.mode: " + the bound + "…"

    // A 1 MB unknown key: the field itself is cut to 120 bytes.
    const json r = answer_of(estimate_request(kLlama, json{{std::string(1'000'000, 'k'), 1}}.dump()));
    CHECK(r.at("error").at("field") == "job." + std::string(116, 'k') + "…");
}

TEST_CASE("hostile: huge and odd numbers give the field's range error") {
    // Past a size cap, the error says why the cap is there (core/model/config_read.hpp).
    CHECK(error_of(llama_with("hidden_size", 1e308)) ==
          "config.hidden_size: must be at most 1000000 (about 50 × the widest published model, MT-NLG 530B's 20,480), got 1e+308");
    CHECK(error_of(llama_with("hidden_size", json::parse("18446744073709551615"))) ==
          "config.hidden_size: must be at most 1000000 (about 50 × the widest published model, MT-NLG 530B's 20,480), "
          "got 18446744073709551615");
    CHECK(error_of(llama_with("num_hidden_layers", json::parse("-9223372036854775808"))) ==
          "config.num_hidden_layers: must be between 1 and 10000, got -9223372036854775808");
    CHECK(error_of(llama_with("num_hidden_layers", 10'001)) ==
          "config.num_hidden_layers: must be at most 10000 (10 × the deepest Transformer trained, DeepNet's 1,000 layers), got 10001");
    CHECK(error_of(llama_with("num_local_experts", 1e15)) ==
          "config.num_local_experts: must be at most 100000 (about 260 × Kimi K2's 384 experts), got 1e+15");
    CHECK(error_of(llama_with("hidden_size", "NaN")) == "config.hidden_size: must be a number, got \"NaN\"");
    CHECK(error_of(R"({"model_type":"llama","hidden_size":1e999})").rfind("config: malformed JSON", 0) == 0);
    // Plain words: no library id in the message, and a cleared form field says it is empty.
    CHECK(error_of(R"({"model_type": )") ==
          "config: malformed JSON: parse error at line 1, column 16: syntax error while parsing value - unexpected end "
          "of input; expected '[', '{', or a literal");
    CHECK(error_of(kLlama, R"({"seq": ""})") == "job.seq: needs a number (the field is empty)");
    CHECK(error_of(kLlama, R"({"seq": "  "})") == "job.seq: needs a number (the field is empty)");
    // 10,000 layers × (4·10¹² attention + 3·10¹³ MLP weights) = 3.4·10¹⁷ parameters.
    CHECK(error_of(R"({"model_type":"llama","vocab_size":32000,"intermediate_size":10000000,"hidden_size":1000000,)"
                   R"("num_hidden_layers":10000,"num_attention_heads":100000})") ==
          "config: describes an absurd model (3.4e+17 parameters > 1e15); check hidden_size, layers and expert counts");
    CHECK(error_of(kLlama, R"({"batch":1e300})") == "job.batch: must be between 1 and 1000000, got 1e+300");
    CHECK(error_of(kLlama, R"({"seq":-0.0})") == "job.seq: must be between 1 and 100000000, got -0.0");
    CHECK(error_of(kLlama, R"({"fragmentation":[1,2,3]})") == "job.fragmentation: must be a number, got a list of 3 items");
    CHECK(error_of(kLlama, R"({"batch":{"a":[[[]]]}})") == "job.batch: must be a number, got an object with 1 fields");
}

TEST_CASE("hostile: invalid UTF-8 in keys and values is malformed JSON, answered in valid UTF-8") {
    const char* bad[] = {"\xff", "\xc0\xaf", "\xed\xa0\x80", "\xf4\x90\x80\x80", "\xe2\x82", "\\ud800"};
    for (const char* bytes : bad) {
        CAPTURE(bytes);
        const std::string s(bytes);
        CHECK(error_of("{\"model_type\":\"llama" + s + "\"}").rfind("config: malformed JSON", 0) == 0);
        CHECK(error_of("{\"" + s + "\":1}").rfind("config: malformed JSON", 0) == 0);
        CHECK(error_of(kLlama, "{\"dtype\":\"" + s + "\"}").rfind("job: malformed JSON", 0) == 0);
        CHECK(error_of(kLlama, "{\"" + s + "\":1}").rfind("job: malformed JSON", 0) == 0);
    }
    // Invalid bytes outside any string: the parser's "last read" quote is cleaned.
    CHECK(error_of("{\xff\xfe}").find("\xef\xbf\xbd") != std::string::npos);
}

TEST_CASE("hostile: a key given twice is an error naming its path") {
    const std::string config = kLlama.substr(0, kLlama.rfind('}')) + ",\"hidden_size\":8192}";
    CHECK(error_of(config) == "config.hidden_size: given twice in one object");
    CHECK(error_of(R"({"text_config":{"layers":[{"a":1,"a":2}]}})") == "config.text_config.layers[].a: given twice in one object");
    CHECK(error_of(kLlama, R"({"mode":"train","batch":2,"mode":"lora"})") == "job.mode: given twice in one object");
    // The same key in two different objects is fine.
    CHECK(error_of(kLlama, R"({"mode":"train"})").empty());
    const json both = json::parse(R"({"a":{"x":1},"b":{"x":1},"x":[{"x":1},{"x":2}]})");
    CHECK(parse_json_text(both.dump(), "t") == both);
}

TEST_CASE("hostile: a duplicate among 200,000 small objects is found in one linear pass") {
    // nlohmann's callback parser rescans a parent's children at every '}': this text
    // took minutes before the SAX check (adversarial review, finding 1); now milliseconds.
    std::string text = "{";
    for (int i = 0; i < 200000; ++i) text += "\"k" + std::to_string(i) + "\":{},";
    text += "\"k7\":1}";
    REQUIRE(text.size() < kMaxJsonBytes);
    try {
        parse_json_text(text, "config");
        FAIL("accepted a duplicate key");
    } catch (const InputError& e) {
        CHECK(e.field() == "config.k7");
    }
}

TEST_CASE("hostile: error texts are bounded, valid UTF-8 and one line") {
    const InputError e(std::string(1'000'000, 'f'), std::string(1'000'000, 'm'));
    CHECK(e.field() == std::string(120, 'f') + "…");
    CHECK(std::string(e.what()) == e.field() + ": " + std::string(1000, 'm') + "…");

    CHECK(bounded_text("a\nb\tc\x01\x7f", 100) == "a\\nb\\tc\\u0001\\u007f");
    CHECK(bounded_text("x\xffy\xc3", 100) == "x\xef\xbf\xbdy\xef\xbf\xbd");
    CHECK(bounded_text("\xe2\x80\xae" "evil", 100) == "\\u202eevil");   // right-to-left override
    CHECK(bounded_text("\xe2\x81\xa9", 100) == "\\u2069");               // pop directional isolate
    CHECK(bounded_text("\xc3\xa9\xc3\xa9\xc3\xa9", 5) == "\xc3\xa9\xc3\xa9…");  // cut between characters
    CHECK(is_utf8("plain \xc3\xa9 \xf0\x9f\x98\x80"));
    CHECK_FALSE(is_utf8("\xed\xa0\x80"));  // a UTF-16 surrogate
    CHECK_FALSE(is_utf8("\xe0\x80\xaf"));  // overlong

    CHECK(short_text("abc") == "abc");
    CHECK(short_text(std::string(61, 'z')) == std::string(60, 'z') + "… (61 bytes)");
    CHECK(describe_value(json(std::nan(""))) == "NaN");
    CHECK(describe_value(json(-HUGE_VAL)) == "-Infinity");
    CHECK(describe_value(json::array()) == "an empty list");
    CHECK(describe_value(json::parse(nested_arrays(60))) == "a list of 1 items");
    CHECK(describe_value(json("q\"x")) == "\"q\"x\"");
    CHECK(describe_value(json(nullptr)) == "null");
    CHECK(describe_value(json(7)) == "7");
}

TEST_CASE("hostile: models.json with wrong-typed optional fields is a named error") {
    const json config = json::parse(kLlama);
    auto summary_error = [&](const json& entry) {
        const json r = answer_of(models_summary(json{{"models", json::array({entry})}}.dump()));
        return r.at("ok").get<bool>() ? std::string() : r.at("error").at("message").get<std::string>();
    };
    const json good = {{"id", "a"}, {"name", "A"}, {"config", config}};
    CHECK(summary_error(good).empty());
    json bad = good;
    bad["hf_id"] = 5;
    CHECK(summary_error(bad) == "models[0].hf_id: must be a string, got 5");
    bad = good;
    bad["published_params"] = "8B";
    CHECK(summary_error(bad) == "models[0].published_params: must be a number, got \"8B\"");
}

TEST_CASE("hostile: 500 rejected requests in a row leave the API answering correctly") {
    const std::string hostile[] = {nested_arrays(55000), nested_objects(5000), "{\xff}", std::string(9'000'000, ' '),
                                   R"({"hidden_size":1e999})", "{\"a\":1,\"a\":2}", "", "null"};
    for (int i = 0; i < 500; ++i) {
        const std::string& text = hostile[i % 8];
        answer_of(estimate_request(text, "{}"));
        answer_of(estimate_request(kLlama, text));
        answer_of(use_config(text));
        answer_of(estimate_current(text));
    }
    const json r = answer_of(estimate_request(kLlama, "{}"));
    REQUIRE(r.at("ok").get<bool>());
    CHECK(r.at("total_bytes").get<double>() == doctest::Approx(kLlamaDefaultTotal).epsilon(1e-12));
    use_config(kLlama);
    CHECK(json::parse(estimate_current("{}")).at("total_bytes").get<double>() ==
          doctest::Approx(kLlamaDefaultTotal).epsilon(1e-12));
}
