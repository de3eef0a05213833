#include "cluster/text.hpp"

#include <cmath>

#include "text/units.hpp"

namespace vramcalc {
namespace {

// "× 10¹⁸": the power of ten in superscript digits.
std::string power_of_ten(int exponent) {
    static const char* const kSup[10] = {"⁰", "¹", "²", "³", "⁴", "⁵", "⁶", "⁷", "⁸", "⁹"};
    std::string digits = std::to_string(exponent < 0 ? -exponent : exponent), out = exponent < 0 ? "⁻" : "";
    for (char c : digits) out += kSup[c - '0'];
    return " × 10" + out;
}

// 3 significant figures, no exponent below a million: "0.606", "4.85", "12.3", "420", "1,234", "999,999";
// from a million "2.30 × 10⁸".
std::string sig3(double v) {
    if (v > 0 && (!(v < 1e6) || v < 1e-3)) {
        int e = static_cast<int>(std::floor(std::log10(v)));
        double m = v / std::pow(10.0, e);
        if (m >= 9.995) m /= 10, ++e;
        return printf_text("%.2f", m) + power_of_ten(e);
    }
    if (v >= 999.5) return grouped_text(v);
    if (v >= 99.95) return printf_text("%.0f", v);
    if (v >= 9.995) return printf_text("%.1f", v);
    if (v >= 0.9995 || v == 0) return printf_text("%.2f", v);
    return printf_text("%.3g", v);  // 0.001 … 0.999: no exponent
}

// The unit a duration is written in: seconds per unit and its name.
struct TimeUnit {
    double seconds;
    const char* name;
};
TimeUnit unit_for(double s) {
    if (s < 1e-3) return {1e-6, " µs"};
    if (s < 1) return {1e-3, " ms"};
    if (s < 120) return {1, " s"};
    if (s < 7200) return {60, " min"};
    if (s < 2 * 86400) return {3600, " h"};
    if (s < 2 * 365 * 86400) return {86400, " days"};
    return {365 * 86400, " years"};
}

// A count's scale: 1, M, B, T (past 10¹⁵ no suffix, the figure in powers of ten).
struct Scale {
    double factor;
    const char* suffix;
};
Scale scale_for(double v) {
    if (v < 1e6 || !(v < 1e15)) return {1, ""};
    if (v < 1e9) return {1e6, " M"};
    if (v < 1e12) return {1e9, " B"};
    return {1e12, " T"};
}

std::string scaled(double v, const Scale& sc) {
    if (sc.factor == 1 && v > 0 && v < 1) return sig3(v);  // a fraction of a unit: 0.42, 3.02 × 10⁻⁵
    return sc.factor == 1 && v < 1e6 ? grouped_text(v) : sig3(v / sc.factor);
}

// No range where there is none (lo = hi: an uncalibrated figure).
std::string range(const std::string& lo, const std::string& hi) { return lo == hi ? "" : " (" + lo + "–" + hi + ")"; }

}  // namespace

std::string duration_text(double s) {
    if (s <= 0) return "0 s";
    const TimeUnit u = unit_for(s);
    return sig3(s / u.seconds) + u.name;
}

std::string count_text(double v) { return v < 0 ? "−" + count_text(-v) : scaled(v, scale_for(v)) + scale_for(v).suffix; }

std::string number_text(double v) {
    if (v < 0) return "−" + number_text(-v);
    if (v == std::floor(v) && v < 1e15) return grouped_text(v);
    return sig3(v);
}

std::string rate_text(double per_s, const char* unit) {
    return (per_s < 100 ? sig3(per_s) : count_text(per_s)) + " " + unit;
}

std::string percent_text(double fraction) { return printf_text("%.1f", 100 * fraction) + " %"; }

std::string money_text(double dollars) {
    if (dollars > 0 && dollars < 0.005) return "under $0.01";
    if (dollars < 100) return "$" + printf_text("%.2f", dollars);
    if (dollars < 1e6) return "$" + grouped_text(dollars);
    return "$" + count_text(dollars);
}

std::string tflops_text(double tflops) {
    return tflops >= 1000 ? sig3(tflops / 1000) + " PFLOPS" : sig3(tflops) + " TFLOPS";
}

std::string flop_text(double flop) {
    if (flop >= 1e15) return sig3(flop / 1e15) + " PFLOP";
    if (flop >= 1e12) return sig3(flop / 1e12) + " TFLOP";
    if (flop >= 1e9) return sig3(flop / 1e9) + " GFLOP";
    return sig3(flop / 1e6) + " MFLOP";
}

std::string tokens_text(double tokens) { return count_text(tokens) + (tokens == 1 ? " token" : " tokens"); }

std::string duration_range_text(double s, double lo, double hi) {
    if (s <= 0) return duration_text(s);
    const TimeUnit u = unit_for(s);
    return duration_text(s) + range(sig3(lo / u.seconds), sig3(hi / u.seconds));
}

std::string rate_range_text(double per_s, double lo, double hi, const char* unit) {
    if (per_s < 100) return sig3(per_s) + " " + unit + range(sig3(lo), sig3(hi));
    const Scale sc = scale_for(per_s);
    return count_text(per_s) + " " + unit + range(scaled(lo, sc), scaled(hi, sc));
}

std::string count_range_text(double v, double lo, double hi) {
    const Scale sc = scale_for(v);
    return count_text(v) + range(scaled(lo, sc), scaled(hi, sc));
}

std::string money_range_text(double dollars, double lo, double hi) {
    if (dollars < 0.005) return money_text(dollars);
    if (dollars < 100) return money_text(dollars) + range(printf_text("%.2f", lo), printf_text("%.2f", hi));
    if (dollars < 1e6) return money_text(dollars) + range(grouped_text(lo), grouped_text(hi));
    const Scale sc = scale_for(dollars);
    return money_text(dollars) + range(scaled(lo, sc), scaled(hi, sc));
}

std::string percent_range_text(double fraction, double lo, double hi) {
    return percent_text(fraction) + range(printf_text("%.1f", 100 * lo), printf_text("%.1f", 100 * hi));
}

}  // namespace vramcalc
