// Sweeps and the precision × mode matrix: one core call per chart, numbers
// equal to the full estimate's for each point, hand-derived where it matters.
#include <doctest/doctest.h>

#include "helpers.hpp"
#include "api/sweep.hpp"

using nlohmann::json;
using namespace vramcalc;

namespace {
std::string llama_config() { return find_model(test::models(), "llama-3-8b").config.dump(); }
int term_index(const json& sweep, const std::string& key) {
    for (size_t i = 0; i < sweep["terms"].size(); ++i)
        if (sweep["terms"][i]["key"] == key) return static_cast<int>(i);
    FAIL("no term " << key);
    return -1;
}
double total_of(const std::string& config, const std::string& job) {
    return json::parse(estimate_request(config, job))["total_bytes"].get<double>();
}
}  // namespace

TEST_CASE("a sequence-length sweep: KV cache grows linearly, weights stay, totals equal full estimates") {
    const std::string llama = llama_config();
    use_config(llama);
    const json s = json::parse(sweep_json(R"({"mode":"inference"})", "seq", "[4096, 8192, 1]"));
    REQUIRE(s["ok"] == true);
    CHECK(s["axis"] == "seq");
    const int kv = term_index(s, "kv_cache");
    const int weights = term_index(s, "weights");
    const json& p = s["points"];
    REQUIRE(p.size() == 3);
    // Llama 3 8B: 8,030,261,248 parameters × 2 bytes (bf16).
    CHECK(p[0]["bytes"][weights] == 16'060'522'496.0);
    CHECK(p[1]["bytes"][weights] == 16'060'522'496.0);
    // KV cache: 32 layers × 2 (K and V) × 8 KV heads × 128 dims × 2 bytes = 131,072 bytes per token.
    CHECK(p[0]["bytes"][kv] == 131'072.0 * 4096);
    CHECK(p[1]["bytes"][kv] == 131'072.0 * 8192);
    CHECK(p[2]["bytes"][kv] == 131'072.0);
    CHECK(p[0]["total_bytes"] == total_of(llama, R"({"mode":"inference","seq":4096})"));
    CHECK(p[1]["total_bytes"] == total_of(llama, R"({"mode":"inference","seq":8192})"));
    CHECK(p[0]["total_text"] == json::parse(estimate_request(llama, "{}"))["total_text"]);
}

TEST_CASE("a batch sweep of a training job matches the full estimate at every point") {
    const std::string llama = llama_config();
    use_config(llama);
    const std::string job = R"({"mode":"train","checkpointing":"full","seq":2048})";
    const json s = json::parse(sweep_json(job, "batch", "[1,2,4,8]"));
    REQUIRE(s["ok"] == true);
    for (int i = 0; i < 4; ++i) {
        const int batch = 1 << i;
        json j = json::parse(job);
        j["batch"] = batch;
        CHECK(s["points"][i]["value"] == batch);
        CHECK(s["points"][i]["total_bytes"] == total_of(llama, j.dump()));
    }
    CHECK(json::parse(sweep_json(R"({"mode":"train"})", "batch", "[1]"))["points"][0]["total_text"] ==
          json::parse(estimate_request(llama, R"({"mode":"train"})"))["total_text"]);
}

TEST_CASE("sweep errors name the field: bad axis, bad values, bad job, no model") {
    use_config(llama_config());
    auto field = [](const std::string& answer) { return json::parse(answer)["error"]["field"].get<std::string>(); };
    CHECK(field(sweep_json("{}", "gpus_per_node", "[1]")) == "sweep.axis");
    CHECK(field(sweep_json("{}", "seq", "[]")) == "sweep.values");
    CHECK(field(sweep_json("{}", "seq", "[1,")) == "sweep.values");
    CHECK(field(sweep_json("{}", "seq", "[1, 0]")) == "job.seq");
    CHECK(field(sweep_json("{}", "batch", "[1, \"two\"]")) == "job.batch");
    CHECK(field(sweep_json(R"({"batch":-1})", "seq", "[1]")) == "job.batch");
    CHECK(field(sweep_json("{}", "seq", json(std::vector<int>(5000, 1)).dump())) == "sweep.values");
    use_config(test::fixture("unknown-arch.config.json"));
    CHECK(field(sweep_json("{}", "seq", "[1]")) == "config.model_type");
    CHECK(field(matrix_json("{}")) == "config.model_type");
}

TEST_CASE("precision × mode matrix: every cell equals the full estimate or carries its error") {
    const std::string llama = llama_config();
    use_config(llama);
    const json m = json::parse(matrix_json(R"({"seq":2048})"));
    REQUIRE(m["ok"] == true);
    CHECK(m["modes"] == json::parse(R"(["inference","train","lora","qlora"])"));
    bool saw_error = false;
    for (const json& row : m["rows"]) {
        for (size_t c = 0; c < m["modes"].size(); ++c) {
            // The matrix holds the job's checkpointing (none) across the modes: QLoRA's default does not apply.
            json job = {{"seq", 2048}, {"dtype", row["dtype"]}, {"mode", m["modes"][c]}, {"checkpointing", "none"}};
            const json full = json::parse(estimate_request(llama, job.dump()));
            const json& cell = row["cells"][c];
            if (full["ok"] == true) {
                CHECK(cell["total_bytes"] == full["total_bytes"]);
            } else {
                saw_error = true;
                CHECK(cell["error"] == full["error"]["message"]);
            }
        }
    }
    CHECK(saw_error);  // full training of a 4-bit format is refused
    CHECK(m["rows"][0]["cells"][0].contains("total_text"));
}

TEST_CASE("axis marks: round steps of 1, 2, 2.5 or 5 × 10^k up to the maximum") {
    auto texts = [](double max_bytes) {
        std::vector<std::string> out;
        const json answer = json::parse(ticks_json(max_bytes));
        for (const json& t : answer["ticks"]) out.push_back(t["text"].get<std::string>());
        return out;
    };
    // 157.28 GB / 5 = 31.5 GB per step, rounded up to 50 GB.
    CHECK(texts(157.28e9) == std::vector<std::string>{"0 GB", "50 GB", "100 GB", "150 GB", "200 GB"});
    // 18.87 GB / 5 = 3.8, rounded up to 5 GB.
    CHECK(texts(18.87e9) == std::vector<std::string>{"0 GB", "5 GB", "10 GB", "15 GB", "20 GB"});
    // 1.2 TB / 5 = 240 GB, rounded up to 250 GB; marks above 1000 GB read in TB.
    CHECK(texts(1.2e12) == std::vector<std::string>{"0 GB", "250 GB", "500 GB", "750 GB", "1 TB", "1.25 TB"});
    CHECK(json::parse(ticks_json(0))["error"]["field"] == "ticks.max_bytes");
    CHECK(json::parse(ticks_json(5e-324))["error"]["field"] == "ticks.max_bytes");  // denormals are not sizes
    CHECK(json::parse(ticks_json(-1))["ok"] == false);
}

TEST_CASE("the sweep's number table holds exactly the JSON sweep's figures, one row per value") {
    use_config(llama_config());
    const std::string job = R"({"mode":"qlora","checkpointing":"full"})";
    const json s = json::parse(sweep_json(job, "seq", "[512,2048,8192]"));
    const SweepTable& t = sweep_table(job, "seq", "[512,2048,8192]");
    const json header = json::parse(t.header);
    REQUIRE(header["ok"] == true);
    REQUIRE(header["columns"] == kTermCount + 2);
    REQUIRE(t.numbers.size() == 3u * (kTermCount + 2));
    CHECK(header["terms"] == s["terms"]);
    for (int i = 0; i < 3; ++i) {
        const double* row = &t.numbers[static_cast<size_t>(i) * (kTermCount + 2)];
        CHECK(row[0] == s["points"][i]["value"].get<double>());
        // The JSON text rounds fractional bytes to 12 significant digits; the table keeps every bit.
        for (int term = 0; term < kTermCount; ++term)
            CHECK(row[1 + term] == doctest::Approx(s["points"][i]["bytes"][term].get<double>()).epsilon(1e-11));
        CHECK(row[kTermCount + 1] == doctest::Approx(s["points"][i]["total_bytes"].get<double>()).epsilon(1e-11));
        CHECK(header["total_texts"][i] == s["points"][i]["total_text"]);
    }
    // A refused sweep leaves no numbers from the previous call behind.
    const SweepTable& bad = sweep_table(job, "seq", "[0]");
    CHECK(json::parse(bad.header)["error"]["field"] == "job.seq");
    CHECK(bad.numbers.empty());
}
