// Values given as text (core/text/values.hpp, core/api/job_text.hpp): the rules, and the one table
// of tests/fixtures/text-values.json read as the CLI's flags read it (job_from_text, source flag).
// The same table runs through the CLI binary (cli_test.sh), the wasm (tests/wasm/values.test.mjs)
// and the widget (tests/browser/values.test.mjs).
#include <doctest/doctest.h>

#include "api/job_text.hpp"
#include "helpers.hpp"
#include "text/errors.hpp"

using namespace vramcalc;
using nlohmann::json;

namespace {

const std::string& llama() {
    static const std::string config = find_model(test::models(), "llama-3-8b").config.dump();
    return config;
}

// The answer for a job read from text fields: the field's value in the answer's job, or the error message.
json read_as(const std::vector<NamedText>& fields, TextSource source, const std::string& field) {
    std::string answer;
    try {
        answer = estimate_request(llama(), job_from_text(fields, source).dump());
    } catch (const InputError& e) {
        return {{"error", e.what()}};
    }
    const json a = json::parse(answer);
    if (!a["ok"].get<bool>()) return {{"error", a["error"]["message"]}};
    return {{"value", a["job"][field]}};
}

}  // namespace

TEST_CASE("text values: numbers are decimal, booleans true or false, text as given (trimmed)") {
    CHECK(value_from_text("+4", ValueKind::Number) == 4);
    CHECK(value_from_text("-1", ValueKind::Number).is_number_integer());
    CHECK(value_from_text("1e3", ValueKind::Number) == 1000.0);
    CHECK(value_from_text(".5", ValueKind::Number) == 0.5);
    CHECK(value_from_text("\t7 \n", ValueKind::Number) == 7);
    CHECK(value_from_text("9223372036854775807", ValueKind::Number) == INT64_MAX);
    CHECK(value_from_text("9223372036854775808", ValueKind::Number) == 9223372036854775808.0);  // past int64: a double
    for (const char* text : {"0x10", "0b1", "0o7", "1_000", "1,000", "inf", "nan", "-", "+", ".", "e3", "1e", "1e+", "4 4", "٣"})
        CHECK(value_from_text(text, ValueKind::Number) == text);
    CHECK(value_from_text("1e999", ValueKind::Number) == "1e999");  // the reader says "must be a finite number"
    CHECK(value_from_text(" true ", ValueKind::Boolean) == true);
    CHECK(value_from_text("false", ValueKind::Boolean) == false);
    for (const char* text : {"yes", "no", "1", "0", "on", "True", "FALSE", ""})
        CHECK(value_from_text(text, ValueKind::Boolean) == text);
    CHECK(value_from_text("", ValueKind::Boolean, true) == true);  // an attribute present without a value
    CHECK(value_from_text(" full ", ValueKind::Text) == "full");
    CHECK(value_from_text("4", ValueKind::Text) == "4");  // text stays text: vllm_version 0.10 keeps its digit
}

TEST_CASE("text values: the table of tests/fixtures/text-values.json, as the CLI's flags") {
    const json table = json::parse(test::fixture("text-values.json"));
    for (const json& c : table["cases"]) {
        const std::string field = c["field"], text = c["text"];
        CAPTURE(field);
        CAPTURE(text);
        const json got = read_as({{field, text}}, TextSource::Flag, field);
        if (c.contains("error")) CHECK(got == json{{"error", c["error"]}});
        else CHECK(got == json{{"value", c["value"]}});
    }
    for (const json& c : table["twice"]) {
        std::vector<NamedText> fields;
        std::string want = c["error"];
        for (const json& f : c["fields"]) {
            fields.push_back({f[0], f[1]});
            const std::string name = f[0];
            want.replace(want.find("{" + name + "}"), name.size() + 2, "--" + name);
        }
        CHECK(read_as(fields, TextSource::Flag, "") == json{{"error", want}});
    }
}

TEST_CASE("text values: kinds come from the job's defaults, the planner's list, else the text itself") {
    // vllm_version's default is text: "0.10" stays "0.10", not 0.1.
    CHECK(job_from_text({{"vllm-version", "0.10"}}, TextSource::Url)["vllm_version"] == "0.10");
    CHECK(job_from_text({{"tensor_split", "3,1"}}, TextSource::Url)["tensor_split"] == "3,1");
    // A field without a default (an engine-internal one) takes its text's kind.
    CHECK(job_from_text({{"sequence-parallel", "true"}, {"pp-virtual", "2"}}, TextSource::Flag) ==
          json{{"sequence_parallel", true}, {"pp_virtual", 2}});
    CHECK(cluster_from_text({{"tokens", "1e12"}, {"overlap-tp", "false"}, {"fp8", "tensorwise"}}, TextSource::Flag) ==
          json{{"tokens", 1e12}, {"overlap_tp", false}, {"fp8", "tensorwise"}});
    CHECK(cluster_from_text({{"layout", R"({"tp":8})"}}, TextSource::Flag) == json{{"layout", {{"tp", 8}}}});
    // An attribute present without a value: true for a boolean field only.
    CHECK(job_from_text({{"flash-attention", ""}, {"batch", ""}}, TextSource::Attribute) ==
          json{{"flash_attention", true}, {"batch", ""}});
    // Given twice, in either spelling: an error naming both, as the surface spells them.
    CHECK_THROWS_WITH(job_from_text({{"kv_dtype", "fp8"}, {"kv-dtype", "fp16"}}, TextSource::Attribute),
                      "job.kv_dtype: given twice: as kv-dtype and as kv_dtype; give it once");
    CHECK_THROWS_WITH(cluster_from_text({{"gpus", "8"}, {"gpus", "16"}}, TextSource::Flag),
                      "cluster.gpus: given twice: as --gpus and as --gpus; give it once");
    // The JSON boundary of the wasm.
    CHECK(json::parse(job_text_request(R"([["batch","+4"],["mode"," train"]])", "url")) ==
          json{{"ok", true}, {"job", {{"batch", 4}, {"mode", "train"}}}});
    CHECK(json::parse(job_text_request(R"([["batch"]])", "url"))["error"]["field"] == "fields");
    CHECK(json::parse(job_text_request(R"([])", "post"))["error"]["field"] == "source");
    CHECK(json::parse(value_text_request("0x10", "number", false)) == json{{"ok", true}, {"value", "0x10"}});
    CHECK(json::parse(value_text_request("4", "integer", false))["error"]["field"] == "kind");
    // JSON jobs keep their types: checkpointing is a choice, never a boolean.
    CHECK(json::parse(estimate_request(llama(), R"({"checkpointing":true})"))["error"]["message"] ==
          "job.checkpointing: must be one of none, selective, full, selective_op, got true");
}
