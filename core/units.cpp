#include "units.hpp"

#include <cmath>
#include <cstdio>

namespace vramcalc {

std::string printf_text(const char* format, double value) {
    char buf[64];
    std::snprintf(buf, sizeof buf, format, value);
    return buf;
}

std::string gb_text(double bytes) {
    const double gb = bytes / kBytesPerGB;
    return gb >= 1000 ? printf_text("%.2f TB", gb / 1000) : printf_text("%.2f GB", gb);
}

std::string params_text(double params) {
    return params >= 1e9 ? printf_text("%.2f B", params / 1e9) : printf_text("%.1f M", params / 1e6);
}

std::string capacity_text(double bytes) {
    return printf_text("%.0f GiB", bytes / (1024.0 * 1024.0 * 1024.0)) + " (" + gb_text(bytes) + ")";
}

std::string plain_number(double value) {
    return printf_text(value == std::floor(value) ? "%.0f" : "%.3g", value);
}

}  // namespace vramcalc
