#pragma once
// How numbers are written for people, in one place: the CLI table, the
// explanations and the page all use these, so they always agree.
#include <string>

namespace vramcalc {

constexpr double kBytesPerGB = 1e9;  // decimal GB, as model cards and the seed example use

std::string printf_text(const char* format, double value);
std::string fixed_text(double value, int decimals);  // like printf("%.1f"/"%.2f"), decimals 1 or 2
std::string gb_text(double bytes);        // "16.06 GB", "1.34 TB"
std::string params_text(double params);   // "8.03 B", "41.9 M"
std::string plain_number(double value);   // "2", "0.606", "4.85"
std::string grouped_text(double value);   // "16,060,522,496" (whole number, thousands grouped)
std::string capacity_text(double bytes);  // "80 GiB (85.90 GB)", "79.11 GiB (84.94 GB)": GPU sizes are in GiB
std::string concurrency_text(double x);  // "0.99x": as vLLM logs it, but cut (not rounded) to two decimals

}  // namespace vramcalc
