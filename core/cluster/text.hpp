#pragma once
// How the cluster planner writes times, rates and money for people.
#include <string>

namespace vramcalc {

std::string duration_text(double seconds);  // "420 µs", "12.3 ms", "2.41 s", "3.2 min", "5.1 h", "54 days", "2.1 years"
std::string rate_text(double per_s, const char* unit);  // "5,762 tok/s", "1.23 M tok/s"
std::string percent_text(double fraction);  // "43.1 %"
std::string count_text(double value);       // "16,384", "1.23 M", "4.5 B", "15.6 T"
std::string money_text(double dollars);     // "$1,234", "$1.23 M"
std::string tflops_text(double tflops);     // "989 TFLOPS", "2.25 PFLOPS"

}  // namespace vramcalc
