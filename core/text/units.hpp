#pragma once
// How numbers are written for people, in one place: the CLI table, the
// explanations and the page all use these, so they always agree.
#include <string>

namespace vramcalc {

constexpr double kBytesPerGB = 1e9;  // decimal GB, as model cards and the seed example use

// The unit every size text is written in (issue 23): decimal GB (10⁹ B, the default, as model
// cards and the classic "16 GB of weights" explanation count), GiB (2³⁰ B, what nvidia-smi,
// PyTorch and vLLM's logs show) or MiB (2²⁰ B, as llama.cpp logs its buffers). The job's `units`
// field chooses it; an API call that writes texts for a job holds a UnitScope while it does.
enum class TextUnit { GB, GiB, MiB };
TextUnit text_unit();               // the unit texts are written in now (GB outside any scope)
const char* unit_name(TextUnit u);  // "gb", "gib", "mib"
const char* unit_symbol(TextUnit u);  // "GB", "GiB", "MiB"
double unit_bytes(TextUnit u);      // 1e9, 2³⁰, 2²⁰
bool unit_named(const std::string& name, TextUnit& u);
class UnitScope {
public:
    explicit UnitScope(TextUnit u);
    ~UnitScope();
    UnitScope(const UnitScope&) = delete;
    UnitScope& operator=(const UnitScope&) = delete;

private:
    TextUnit saved_;
};

std::string printf_text(const char* format, double value);
std::string fixed_text(double value, int decimals);  // like printf("%.1f"/"%.2f"), decimals 1 or 2
std::string gb_text(double bytes);        // in the current unit: "16.06 GB", "1.34 TB"; "14.96 GiB"; "15317.00 MiB"
std::string size_number(double bytes);    // the same number without its unit: "16.06" (GB), "14.96" (GiB)
std::string params_text(double params);   // "8.03 B", "41.9 M"
std::string plain_number(double value);   // "2", "0.606", "4.85"
std::string grouped_text(double value);   // "16,060,522,496" (whole number, thousands grouped)
std::string capacity_text(double bytes);  // a GPU's usable memory, once, in the current unit: "84.94 GB", "79.11 GiB"
std::string concurrency_text(double x);  // "0.99x": as vLLM logs it, but cut (not rounded) to two decimals

}  // namespace vramcalc
