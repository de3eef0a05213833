// Engine accounting against measured logs: tests/validation/serving.json
// holds each figure (vLLM and llama.cpp rows of the shared calibration file)
// with its source; every row must land within its tolerance.
#include <cmath>
#include <cstdio>

#include <doctest/doctest.h>

#include "helpers.hpp"

using namespace vramcalc;
using nlohmann::json;

namespace {

double unit_bytes(const std::string& unit) {
    if (unit == "GiB") return test::GiB;
    if (unit == "MiB") return 1024.0 * 1024.0;
    if (unit == "blocks") return 1;
    throw std::runtime_error("serving.json: unknown unit " + unit);
}

double quantity(const std::string& q, const Estimate& e) {
    const auto& b = e.breakdown.bytes;
    if (q == "weights") return b[kWeights];
    if (q == "activations") return b[kActivations];
    if (q == "kv_cache") return b[kKvCache];
    if (q == "buffers") return b[kBuffers];
    if (q == "cpu") return e.serving.cpu_bytes;
    if (q == "gguf_total") return b[kWeights] + e.serving.cpu_bytes;
    if (q == "pool_blocks") return static_cast<double>(e.serving.pool_blocks);
    throw std::runtime_error("serving.json: unknown quantity " + q);
}

}  // namespace

TEST_CASE("engine accounting reproduces measured vLLM and llama.cpp logs") {
    const json table = json::parse(test::read_text(std::string(VRAMCALC_VALIDATION) + "/serving.json"));
    REQUIRE(table["rows"].size() >= 12);
    std::printf("\n%-24s %-12s %12s %12s %9s\n", "row", "quantity", "measured", "vramcalc", "error");
    for (const json& row : table["rows"]) {
        const std::string id = row["id"];
        CAPTURE(id);
        CAPTURE(row["source"].get<std::string>());
        const Model model = prepare_model(parse_config(find_model(test::models(), row["model"]).config));
        const Estimate e = estimate(model, parse_job(row["job"]), false);
        const double ours = quantity(row["quantity"], e) / unit_bytes(row["unit"]);
        const double measured = row["expected"], error = ours / measured - 1;
        std::printf("%-24s %-12s %12.2f %12.2f %+8.2f%%\n", id.c_str(), row["quantity"].get<std::string>().c_str(), measured,
                    ours, 100 * error);
        CHECK(std::fabs(error) <= row["tolerance"].get<double>());
    }
}
