// Charts people can read (issue 23): the range around the current job, the y axis's ticks
// (linear, capped, or logarithmic), the current point and its label, and the user's GPU as a
// capacity line, all from the core; the page draws exactly this.
#include "api/chart.hpp"

#include <algorithm>
#include <cmath>

#include "api/sweep.hpp"
#include "hardware/gpus.hpp"
#include "serving/serving.hpp"
#include "step/timeline.hpp"
#include "text/errors.hpp"
#include "text/guarded.hpp"
#include "text/json_text.hpp"
#include "text/json_writer.hpp"
#include "text/units.hpp"

namespace vramcalc {
namespace {

constexpr int kStepsPerOctave = 4;  // values at 2^(k/4) × the current one: 17 points over ¼× … 4×
constexpr double kSpan = 16;        // the range spans 16× (¼× … 4×), shifted when an end is capped
constexpr double kLogAbove = 10;    // the largest total over 10× the smallest: a log axis
constexpr double kCapAbove = 4;     // on a linear axis, totals past 4× the capacity line are clipped

std::string tokens_short(int64_t v) {
    if (v >= 1024 && v % 1024 == 0) return std::to_string(v / 1024) + "k";
    return grouped_text(static_cast<double>(v));
}

// The values around `current`: ¼× … 4× in quarter octaves, within [lo_limit, hi_limit].
std::vector<int64_t> range_around(int64_t current, int64_t lo_limit, int64_t hi_limit) {
    double lo = static_cast<double>(current) / 4, hi = static_cast<double>(current) * 4;
    if (lo < lo_limit) lo = lo_limit, hi = std::max(hi, lo * kSpan);
    if (hi > hi_limit) hi = hi_limit, lo = std::max<double>(lo_limit, std::min(lo, hi / kSpan));
    std::vector<int64_t> values;
    for (int k = -8 * kStepsPerOctave; k <= 8 * kStepsPerOctave; ++k) {
        const double x = static_cast<double>(current) * std::pow(2.0, static_cast<double>(k) / kStepsPerOctave);
        const int64_t v = std::llround(x);
        if (v >= lo - 1e-9 && v <= hi + 1e-9 && (values.empty() || values.back() != v)) values.push_back(v);
    }
    for (int64_t end : {static_cast<int64_t>(std::llround(lo)), static_cast<int64_t>(std::llround(hi)), current})
        if (std::find(values.begin(), values.end(), end) == values.end()) values.push_back(end);
    std::sort(values.begin(), values.end());
    return values;
}

// 1, 2, 5 × 10^k in the unit, within [lo, hi] (the drawn range).
std::vector<double> log_ticks(double lo, double hi) {
    const double u = unit_bytes(text_unit());
    std::vector<double> ticks;
    for (double p = std::pow(10.0, std::floor(std::log10(lo / u))); p * u <= hi * 10; p *= 10)
        for (double m : {1.0, 2.0, 5.0})
            if (m * p * u >= lo * (1 - 1e-9) && m * p * u <= hi * (1 + 1e-9)) ticks.push_back(m * p * u);
    return ticks;
}

std::string tick_text(double bytes) {
    const TextUnit unit = text_unit();
    const double x = bytes / unit_bytes(unit);
    if (unit == TextUnit::GB && x >= 1000) return plain_number(x / 1000) + " TB";
    return plain_number(x) + " " + unit_symbol(unit);
}

}  // namespace

std::string chart_current(const std::string& job_json, const std::string& axis) {
    if (!current_model()) return current_model_error();
    return guarded([&] { return chart_for(*current_model(), parse_job(parse_json_text(job_json, "job")), axis); });
}

std::string chart_for(const Model& m, const Job& job, const std::string& axis) {
    {
        const UnitScope units(job.units);
        if (axis != "seq" && axis != "batch") throw InputError("sweep.axis", "must be seq or batch, got '" + short_text(axis) + "'");
        const bool seq = axis == "seq";
        const int64_t context = m.config.context_length;
        // Sequence lengths stop at the model's context (max_position_embeddings), or the current one past it.
        const int64_t hi_limit = seq ? (context > 0 ? std::max(context, job.seq) : 100'000'000) : 1'000'000;
        const int64_t current = seq ? job.seq : job.batch;
        const std::vector<int64_t> values = range_around(current, 1, hi_limit);
        const bool pooled = engine_budgets_device(job);
        const double capacity = device_bytes(job);

        struct Point {
            int64_t value;
            Breakdown b;
            double kv = 0, pool = 0;
            bool fits = true;
        };
        std::vector<Point> points;
        Job at = job;
        for (int64_t v : values) {
            (seq ? at.seq : at.batch) = v;
            if (seq && at.max_model_len > 0) at.max_model_len = std::max(at.max_model_len, v);
            const Step s = run_step(make_plan(m, at), resolve_layout(m.config, at), false);
            points.push_back({v, s.breakdown, s.serving.kv_needed, std::max(0.0, s.serving.kv_pool), s.serving.fits});
            if (trains(at) && capacity > 0) points.back().fits = s.breakdown.total() <= capacity;
        }
        // What the chart plots: per-GPU totals, or under vLLM / SGLang the KV the requests need against the pool.
        auto plotted = [&](const Point& p) { return pooled ? p.kv : p.b.total(); };
        const double line = pooled ? points.front().pool : capacity;
        double lo = 1e300, hi = 0;
        for (const Point& p : points)
            if (plotted(p) > 0) lo = std::min(lo, plotted(p)), hi = std::max(hi, plotted(p));
        if (line > 0) lo = std::min(lo, line), hi = std::max(hi, line);
        if (hi <= 0) lo = hi = 1;
        const bool log = hi / lo > kLogAbove;
        const double top = !log && line > 0 && hi > kCapAbove * line ? kCapAbove * line : hi;

        JsonWriter w;
        w.begin_object().field("ok", true).field("axis", axis).field("units", unit_name(job.units));
        w.field("x_label", seq ? "Sequence length (tokens)" : trains(job) ? "Batch (sequences per GPU)" : "Users at once (batch)");
        w.field("y_label", pooled ? std::string("KV cache needed, ") + unit_symbol(job.units) : std::string("Memory per GPU, ") + unit_symbol(job.units));
        w.field("plotted", pooled ? "kv_needed" : "total").field("context_length", context);
        w.key("terms").begin_array();
        for (int t = 0; t < kTermCount; ++t) w.begin_object().field("key", term_key(t)).field("label", term_label(t)).end_object();
        w.end_array().key("points").begin_array();
        for (const Point& p : points) {
            w.begin_object().field("value", p.value).field("value_text", seq ? tokens_short(p.value) : std::to_string(p.value));
            w.key("bytes").begin_array();
            for (double x : p.b.bytes) w.value(x);
            w.end_array().field("total_bytes", p.b.total()).field("total_text", gb_text(p.b.total()));
            w.field("plotted_bytes", plotted(p)).field("plotted_text", gb_text(plotted(p))).field("clipped", plotted(p) > top);
            if (pooled) w.field("kv_needed_bytes", p.kv).field("pool_bytes", p.pool);
            w.field("fits", p.fits).field("current", p.value == current).end_object();
        }
        w.end_array();
        for (const Point& p : points)
            if (p.value == current)
                w.key("current").begin_object().field("value", current).field("plotted_bytes", plotted(p))
                    .field("label", (seq ? tokens_short(current) + " tokens" : "batch " + std::to_string(current)) + ": " +
                                        gb_text(plotted(p)) + (pooled ? " of KV" : ""))
                    .end_object();
        if (line > 0) {
            const std::string name = pooled ? std::string(job.engine == Engine::Sglang ? "SGLang" : "vLLM") + "'s KV pool"
                                     : job.device_gib > 0 ? "Your GPU" : job.gpu ? job.gpu->name : "Your GPU";
            w.key("capacity").begin_object().field("bytes", line).field("text", gb_text(line))
                .field("label", name + ": " + gb_text(line)).end_object();
        } else {
            w.key("capacity").raw("null");
        }
        w.key("y").begin_object().field("scale", log ? "log" : "linear").field("min_bytes", log ? lo : 0.0).field("max_bytes", top);
        w.field("capped", top < hi).key("ticks").begin_array();
        // Marks inside the drawn range only: a mark past it would be drawn on the edge with the wrong figure.
        const std::vector<double> ticks = log ? log_ticks(lo, top) : [&] {
            std::vector<double> t;
            const double step = axis_step(top / unit_bytes(job.units)) * unit_bytes(job.units);
            for (int i = 0; i <= 12 && step * i <= top * (1 + 1e-9); ++i) t.push_back(step * i);
            return t;
        }();
        for (double t : ticks) w.begin_object().field("bytes", t).field("text", tick_text(t)).end_object();
        w.end_array().end_object();
        w.key("x").begin_object().field("scale", "log2").key("ticks").begin_array();
        for (const Point& p : points) {
            const double octave = std::log2(static_cast<double>(p.value));
            if (std::fabs(octave - std::round(octave)) < 1e-9 || p.value == current)
                w.begin_object().field("value", p.value).field("text", seq ? tokens_short(p.value) : std::to_string(p.value)).end_object();
        }
        w.end_array().end_object();
        return w.end_object().str();
    }
}

}  // namespace vramcalc
