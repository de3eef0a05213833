#include "cluster/text.hpp"

#include <cmath>

#include "text/units.hpp"

namespace vramcalc {
namespace {

// 3 significant figures, no exponent.
std::string sig3(double v) {
    if (v >= 100) return printf_text("%.0f", v);
    if (v >= 10) return printf_text("%.1f", v);
    return printf_text("%.2f", v);
}

}  // namespace

std::string duration_text(double s) {
    if (s <= 0) return "0 s";
    if (s < 1e-3) return sig3(s * 1e6) + " µs";
    if (s < 1) return sig3(s * 1e3) + " ms";
    if (s < 120) return sig3(s) + " s";
    if (s < 7200) return sig3(s / 60) + " min";
    if (s < 2 * 86400) return sig3(s / 3600) + " h";
    if (s < 2 * 365 * 86400) return sig3(s / 86400) + " days";
    return sig3(s / (365 * 86400)) + " years";
}

std::string count_text(double v) {
    if (v < 1e6) return grouped_text(v);
    if (v < 1e9) return sig3(v / 1e6) + " M";
    if (v < 1e12) return sig3(v / 1e9) + " B";
    return sig3(v / 1e12) + " T";
}

std::string rate_text(double per_s, const char* unit) {
    return (per_s < 100 ? sig3(per_s) : count_text(per_s)) + " " + unit;
}

std::string percent_text(double fraction) { return printf_text("%.1f", 100 * fraction) + " %"; }

std::string money_text(double dollars) {
    if (dollars < 100) return "$" + printf_text("%.2f", dollars);
    if (dollars < 1e6) return "$" + grouped_text(dollars);
    return "$" + count_text(dollars);
}

std::string tflops_text(double tflops) {
    return tflops >= 1000 ? sig3(tflops / 1000) + " PFLOPS" : sig3(tflops) + " TFLOPS";
}

}  // namespace vramcalc
