#pragma once
#include <ctime>
#include <fstream>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "api/api.hpp"
#include "answers/estimate.hpp"

namespace test {

inline std::string read_text(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw std::runtime_error("test cannot read " + path);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

inline std::string fixture(const std::string& name) { return read_text(std::string(VRAMCALC_FIXTURES) + "/" + name); }

inline const std::vector<vramcalc::ModelEntry>& models() {
    static const auto entries = vramcalc::parse_models(read_text(VRAMCALC_MODELS));
    return entries;
}

inline vramcalc::Model model(const std::string& id) {
    return vramcalc::prepare_model(vramcalc::parse_config(vramcalc::find_model(models(), id).config));
}

inline vramcalc::Job job(const nlohmann::json& fields) { return vramcalc::parse_job(fields); }

// CPU seconds `fn` takes (std::clock: the shared build machine's load does not count). A few
// findings ask for a bound natively (issue 37); under the sanitizers (5-20 × slower) the bound is
// loosened by kSlowdown, still far under what the findings took before their fixes.
template <typename Fn>
double cpu_seconds(Fn&& fn) {
    const std::clock_t start = std::clock();
    fn();
    return static_cast<double>(std::clock() - start) / CLOCKS_PER_SEC;
}
#if defined(__SANITIZE_ADDRESS__)
constexpr double kSlowdown = 20;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr double kSlowdown = 20;
#else
constexpr double kSlowdown = 1;
#endif
#else
constexpr double kSlowdown = 1;
#endif

constexpr double GB = 1e9;
constexpr double GiB = 1024.0 * 1024.0 * 1024.0;

}  // namespace test
