#include "text/units.hpp"

#include <charconv>

#include <cmath>
#include <cstdio>

namespace vramcalc {

std::string printf_text(const char* format, double value) {
    char buf[64];
    std::snprintf(buf, sizeof buf, format, value);
    return buf;
}

// printf("%.Nf") for the sizes shown here, without glibc's slow float
// formatting (it dominated the cost of an estimate).
std::string fixed_text(double value, int decimals) {
    const int64_t scale = decimals == 1 ? 10 : 100;
    if (!(std::fabs(value) < 1e15)) return printf_text(decimals == 1 ? "%.1f" : "%.2f", value);
    // Digits into one stack buffer, one string at the end (this runs for every text an estimate writes).
    int64_t n = std::llround(value * static_cast<double>(scale));
    char buf[32];
    char* p = buf;
    if (n < 0) *p++ = '-', n = -n;
    p = std::to_chars(p, buf + sizeof buf, n / scale).ptr;
    *p++ = '.';
    const int64_t fraction = n % scale;
    if (decimals == 2 && fraction < 10) *p++ = '0';
    p = std::to_chars(p, buf + sizeof buf, fraction).ptr;
    return std::string(buf, p);
}

namespace {
thread_local TextUnit current_unit = TextUnit::GB;
}  // namespace

TextUnit text_unit() { return current_unit; }
UnitScope::UnitScope(TextUnit u) : saved_(current_unit) { current_unit = u; }
UnitScope::~UnitScope() { current_unit = saved_; }

const char* unit_name(TextUnit u) { return u == TextUnit::GiB ? "gib" : u == TextUnit::MiB ? "mib" : "gb"; }
const char* unit_symbol(TextUnit u) { return u == TextUnit::GiB ? "GiB" : u == TextUnit::MiB ? "MiB" : "GB"; }
double unit_bytes(TextUnit u) { return u == TextUnit::GiB ? 1073741824.0 : u == TextUnit::MiB ? 1048576.0 : kBytesPerGB; }
bool unit_named(const std::string& name, TextUnit& u) {
    for (TextUnit x : {TextUnit::GB, TextUnit::GiB, TextUnit::MiB})
        if (name == unit_name(x)) return u = x, true;
    return false;
}

// GB past 1000 reads TB and GiB past 1024 TiB; MiB stays MiB, as llama.cpp logs it.
std::string gb_text(double bytes) {
    const TextUnit u = current_unit;
    const double x = bytes / unit_bytes(u);
    if (u == TextUnit::GB && x >= 1000) return fixed_text(x / 1000, 2) + " TB";
    if (u == TextUnit::GiB && x >= 1024) return fixed_text(x / 1024, 2) + " TiB";
    return fixed_text(x, 2) + " " + unit_symbol(u);
}

std::string size_number(double bytes) { return fixed_text(bytes / unit_bytes(current_unit), 2); }

std::string params_text(double params) {
    return params >= 1e9 ? fixed_text(params / 1e9, 2) + " B" : fixed_text(params / 1e6, 1) + " M";
}

std::string capacity_text(double bytes) {
    // Whole numbers as marketed ("24 GiB" under GiB), else two decimals ("79.11 GiB", "84.94 GB").
    const double x = bytes / unit_bytes(current_unit);
    if (x == std::floor(x) && x < 1000) return std::to_string(std::llround(x)) + " " + unit_symbol(current_unit);
    return gb_text(bytes);
}

// Concurrency as vLLM logs it ("%.2fx"), but cut, not rounded, to two decimals: a pool of 0.996
// requests reads 0.99x beside "does not fit", not 1.00x. (The 1e-9: 29 / 100 × 100 is
// 28.999999999999996 in binary and must still read 0.29x.)
std::string concurrency_text(double x) { return printf_text("%.2fx", std::floor(x * 100 + 1e-9) / 100); }

std::string plain_number(double value) {
    if (value == std::floor(value) && std::fabs(value) < 9e15) return std::to_string(static_cast<int64_t>(value));
    return printf_text("%.3g", value);
}

std::string grouped_text(double v) {
    std::string digits = printf_text("%.0f", v), out;
    const size_t n = digits.size();
    for (size_t i = 0; i < n; ++i) {
        out += digits[i];
        if ((n - i - 1) % 3 == 0 && i + 1 < n) out += ',';
    }
    return out;
}

}  // namespace vramcalc
