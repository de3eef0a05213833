#pragma once
// How the cluster planner writes times, rates, counts and money for people: digits grouped, no e-notation,
// and a figure with its range in the same unit ("40.6 days (35.2–44.1)").
#include <string>

namespace vramcalc {

std::string duration_text(double seconds);  // "420 µs", "12.3 ms", "2.41 s", "3.20 min", "5.10 h", "54.0 days", "2.10 years"
std::string rate_text(double per_s, const char* unit);  // "5,762 tok/s", "1.23 M tok/s"
std::string percent_text(double fraction);  // "43.1 %"
std::string count_text(double value);       // "16,384", "1.23 M", "4.50 B", "15.6 T", "1.39 × 10¹⁸"
std::string number_text(double value);      // "16,384", "0.606", "4.85", "1,234", "2.30 × 10¹⁸"
std::string money_text(double dollars);     // "$42.50", "$1,234", "$1.23 M"
std::string tflops_text(double tflops);     // "989 TFLOPS", "2.25 PFLOPS"
std::string flop_text(double flop);         // "57.9 GFLOP", "2.52 TFLOP"
std::string tokens_text(double tokens);     // "1 token", "8,192 tokens", "1.00 T tokens"

// A range after a figure, in the figure's own unit: duration_range_text(3.5e6, 3.0e6, 3.8e6) = "40.5 days
// (34.7–44.0)"; rate_range_text(5762, 5100, 6230, "tok/s") = "5,762 tok/s (5,100–6,230)".
std::string duration_range_text(double seconds, double lo, double hi);
std::string rate_range_text(double per_s, double lo, double hi, const char* unit);
std::string count_range_text(double value, double lo, double hi);
std::string money_range_text(double dollars, double lo, double hi);
std::string percent_range_text(double fraction, double lo, double hi);

}  // namespace vramcalc
