// Findings of the adversarial pass of 2026-12-04 (docs/hostile-input.md, "Adversarial pass
// 2026-12-04"), each pinned by the input that found it.
#include <doctest/doctest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "api/catalog.hpp"
#include "api/sweep.hpp"
#include "helpers.hpp"

using namespace vramcalc;
using nlohmann::json;

namespace {

const std::string kLlama = test::fixture("llama-3-8b.config.json");

json estimate_answer(const std::string& job) { return json::parse(estimate_request(kLlama, job)); }

}  // namespace

TEST_CASE("adversarial: a GPU of 1e-308 GiB is the field's error, not an internal one") {
    // Before: "internal error: non-finite number for 'used_share'" (the share of a 1e-299-byte GPU in use).
    for (const char* key : {"device_gib", "device_gb"}) {
        for (const char* value : {"1e-308", "5e-324", "1e-9", "0.4999"}) {
            const json r = estimate_answer(std::string(R"({")") + key + R"(":)" + value + "}");
            const std::string asked = std::string(key) + " " + value;
            CAPTURE(asked);
            REQUIRE_FALSE(r.at("ok").get<bool>());
            CHECK(r.at("error").at("field") == std::string("job.") + key);
            CHECK(r.at("error").at("message").get<std::string>().find("must be 0 (no GPU given) or between 0.5 and 100000") !=
                  std::string::npos);
        }
        // 0 is "no GPU given"; 0.5 is the smallest GPU taken, answered with a finite share.
        CHECK(estimate_answer(std::string(R"({")") + key + R"(":0})").at("ok").get<bool>());
        const json smallest = estimate_answer(std::string(R"({")") + key + R"(":0.5})");
        REQUIRE(smallest.at("ok").get<bool>());
    }
    // The CLI's and the page's text path reads the same rule.
    const Job j = test::job({{"device_gib", 24}});
    CHECK(j.device_gib == 24);
    CHECK(test::job({{"device_gb", 24}}).device_gib == doctest::Approx(24e9 / test::GiB));
}

TEST_CASE("adversarial: a model id longer than any in the catalog matches nothing and suggests nothing") {
    // Before: "llama-3-8b " × 100,000 matched every word of Llama 3 8B (rank 3) and its "did you mean" ran
    // edit distances over the whole 1.1 MB id: 0.22 s of CPU natively for 1 MB, 0.62 s in wasm for 4 MB.
    std::string id;
    for (int i = 0; i < 100'000; ++i) id += "llama-3-8b ";
    CHECK(search_models(test::models(), id).empty());
    CHECK(did_you_mean(test::models(), id).empty());
    const std::string message = unknown_model_message(test::models(), id);
    CHECK(message.find("did you mean") == std::string::npos);
    CHECK(message.find("(1100000 bytes)") != std::string::npos);
    // At the limit the search still works: the same words within 200 characters find the model.
    const std::string short_id = id.substr(0, kMaxModelQuery);
    CHECK_FALSE(search_models(test::models(), short_id).empty());
    const std::vector<std::string> near = did_you_mean(test::models(), short_id);
    CHECK(std::find(near.begin(), near.end(), "llama-3-8b") != near.end());
}

TEST_CASE("adversarial: a sweep takes at most 256 points") {
    // Before: 4,096 points, each a whole estimate (1.2 s of CPU in wasm on a 10,000-layer model under Ollama).
    REQUIRE(json::parse(use_config(kLlama)).at("ok").get<bool>());
    const auto values = [](int n) {
        json v = json::array();
        for (int i = 1; i <= n; ++i) v.push_back(i * 128);
        return v.dump();
    };
    const json at = json::parse(sweep_json("{}", "seq", values(256)));
    REQUIRE(at.at("ok").get<bool>());
    CHECK(at.at("points").size() == 256);
    const json over = json::parse(sweep_json("{}", "seq", values(257)));
    REQUIRE_FALSE(over.at("ok").get<bool>());
    CHECK(over.at("error").at("field") == "sweep.values");
    CHECK(over.at("error").at("message") == "sweep.values: at most 256 points, got 257");
}
