#include "api/sweep.hpp"

#include <cmath>
#include <vector>

#include <nlohmann/json.hpp>

#include "api/api.hpp"
#include "text/errors.hpp"
#include "model/formats.hpp"
#include "text/json_text.hpp"
#include "text/guarded.hpp"
#include "text/json_writer.hpp"
#include "answers/estimate.hpp"
#include "serving/serving.hpp"
#include "step/timeline.hpp"
#include "job/plan.hpp"
#include "text/units.hpp"

namespace vramcalc {
namespace {

using nlohmann::json;

// A chart of a few hundred points is plenty (the page's charts ask for at most 28: powers of two up to
// 10^8 tokens); more is a mistake or an attack. Each point is a whole estimate: 4,096 points on a
// 10,000-layer model served by Ollama over 16 GPUs took 0.36 s of CPU natively and 1.2 s in wasm
// (adversarial pass 2026-12-04); 256 take 23 and 45 ms.
constexpr size_t kMaxPoints = 256;

// The job fields a chart may sweep, with parse_job's limits for them
// (core/job.cpp read_field: batch 1..1e6, seq 1..1e8, lora_rank 1..65536).
struct Axis {
    const char* name;
    int64_t& (*field)(Job&);
    int64_t min, max;
};
constexpr Axis kAxes[] = {{"seq", [](Job& j) -> int64_t& { return j.seq; }, 1, 100'000'000},
                          {"batch", [](Job& j) -> int64_t& { return j.batch; }, 1, 1'000'000},
                          {"lora_rank", [](Job& j) -> int64_t& { return j.lora_rank; }, 1, 65'536},
                          // Issue 36: a post-training job's completion length (its sequence is prompt + completion).
                          {"max_completion_length", [](Job& j) -> int64_t& { return j.post.max_completion_length; }, 1, 100'000'000}};

const Axis& find_axis(const std::string& name) {
    for (const Axis& a : kAxes)
        if (name == a.name) return a;
    throw InputError("sweep.axis", "must be seq, batch, lora_rank or max_completion_length, got '" + short_text(name) + "'");
}

// Each value is checked as parse_job checks a typed-in value (same limits
// and message, field job.<axis>); the job is then reused with only the swept
// field changed. (parse_job has no rule tying these fields to others; if one
// is added, check it here too.)
std::vector<int64_t> read_values(const Axis& axis, const std::string& values_json) {
    const json values = parse_json_text(values_json, "sweep.values");
    if (!values.is_array() || values.empty()) throw InputError("sweep.values", "must be a non-empty list of numbers");
    if (values.size() > kMaxPoints)
        throw InputError("sweep.values", "at most " + std::to_string(kMaxPoints) + " points, got " +
                                             std::to_string(values.size()));
    std::vector<int64_t> out;
    out.reserve(values.size());
    const std::string field = std::string("job.") + axis.name;
    for (const json& v : values) out.push_back(whole_field(v, field, axis.min, axis.max));
    return out;
}

void write_terms(JsonWriter& w) {
    w.key("terms").begin_array();
    for (int t = 0; t < kTermCount; ++t) w.begin_object().field("key", term_key(t)).field("label", term_label(t)).end_object();
    w.end_array();
}

}  // namespace

// 1, 2, 2.5 or 5 × 10^k: the step that gives about five marks.
double axis_step(double max_value) {
    const double rough = max_value / 5;
    const double power = std::pow(10.0, std::floor(std::log10(rough)));
    for (double m : {1.0, 2.0, 2.5, 5.0})
        if (m * power >= rough) return m * power;
    return 10 * power;
}

namespace {

// Row-major numbers, one row per value: the value, each term's bytes, the total
// (kSweepColumns wide). The plan (LoRA targets, trainable count, largest tensors)
// does not depend on seq or batch: resolved once and reused for every point, as
// the GPU fit does.
std::vector<double> sweep_rows(const Model& model, Job job, const Axis& axis, const std::vector<int64_t>& values) {
    std::vector<double> rows;
    rows.reserve(values.size() * kSweepColumns);
    const bool plan_fixed = std::string(axis.name) != "lora_rank";
    const Plan fixed = make_plan(model, job);  // refers to `job`, which each point updates
    for (int64_t v : values) {
        axis.field(job) = v;
        rows.push_back(static_cast<double>(v));
        // exactly the estimate's terms (tests compare them); the step is read in place, not copied
        const auto append = [&rows](const Breakdown& b) {
            rows.insert(rows.end(), b.bytes.begin(), b.bytes.end());
            rows.push_back(b.total());
        };
        if (plan_fixed) append(run_step(fixed, resolve_layout(model.config, job), false).breakdown);
        else append(compute_breakdown(model, job, false));
    }
    return rows;
}

struct SweepRequest {
    const Axis& axis;
    std::vector<double> rows;
    TextUnit units;
};

SweepRequest read_sweep(const std::string& job_json, const std::string& axis_name, const std::string& values_json) {
    const Axis& axis = find_axis(axis_name);
    const Job job = parse_job(parse_json_text(job_json, "job"));
    return {axis, sweep_rows(*current_model(), job, axis, read_values(axis, values_json)), job.units};
}

}  // namespace

std::string sweep_json(const std::string& job_json, const std::string& axis_name, const std::string& values_json) {
    if (!current_model()) return current_model_error();
    return guarded([&] {
        const SweepRequest r = read_sweep(job_json, axis_name, values_json);
        const UnitScope units(r.units);
        JsonWriter w;
        w.begin_object().field("ok", true).field("axis", r.axis.name);
        write_terms(w);
        w.key("points").begin_array();
        for (size_t i = 0; i < r.rows.size(); i += kSweepColumns) {
            const double* row = &r.rows[i];
            w.begin_object().field("value", static_cast<int64_t>(row[0])).key("bytes").begin_array();
            for (int t = 0; t < kTermCount; ++t) w.value(row[1 + t]);
            const double total = row[kSweepColumns - 1];
            w.end_array().field("total_bytes", total).field("total_text", gb_text(total)).end_object();
        }
        return w.end_array().end_object().str();
    });
}

const SweepTable& sweep_table(const std::string& job_json, const std::string& axis_name, const std::string& values_json) {
    thread_local SweepTable table;
    table.numbers.clear();
    if (!current_model()) {
        table.header = current_model_error();
        return table;
    }
    table.header = guarded([&] {
        SweepRequest r = read_sweep(job_json, axis_name, values_json);
        const UnitScope units(r.units);
        JsonWriter w;
        w.begin_object().field("ok", true).field("axis", r.axis.name).field("columns", kSweepColumns);
        write_terms(w);
        w.key("total_texts").begin_array();
        for (size_t i = kSweepColumns - 1; i < r.rows.size(); i += kSweepColumns) w.value(gb_text(r.rows[i]));
        w.end_array().end_object();
        table.numbers = std::move(r.rows);
        return w.str();
    });
    return table;
}

std::string matrix_json(const std::string& job_json) {
    if (!current_model()) return current_model_error();
    return matrix_for(*current_model(), job_json);
}

std::string matrix_for(const Model& model, const std::string& job_json) {
    return guarded([&] {
        json request = parse_json_text(job_json, "job");
        const Job asked = parse_job(request);  // a bad job is the whole answer's error, not every cell's
        const UnitScope units(asked.units);
        // One recipe across the modes: the job's checkpointing holds in every cell, so QLoRA's
        // default checkpointing does not make its column look cheaper than LoRA's by itself.
        if (!request.contains("checkpointing")) request["checkpointing"] = checkpointing_name(asked.checkpointing);
        // The row the job's weights are in: its dtype, or the one auto falls back to;
        // none when the checkpoint's own scheme or bytes set them (no row is that).
        const Plan plan = make_plan(model, asked);
        const bool pooled = engine_budgets_device(asked);
        JsonWriter w;
        w.begin_object().field("ok", true).field("current_dtype", plan.exact || plan.shipped ? "" : plan.weights.name);
        w.field("units", unit_name(asked.units)).field("shows", pooled ? "kv" : "total");
        w.key("held").begin_array().value("checkpointing").end_array();
        w.key("modes").begin_array();
        for (const char* name : mode_names()) w.value(name);
        w.end_array().key("rows").begin_array();
        for (const NumberFormat& f : all_formats()) {
            w.begin_object().field("dtype", f.name).field("label", f.label).key("cells").begin_array();
            for (const char* mode : mode_names()) {
                // Each cell is read by parse_job, so the rules tying mode and dtype hold
                // (full training refuses a quantized format, with its message); a post-training job's
                // cells are its policy's, without the fields their mode refuses (issue 36).
                json cell_request = job_for_mode(request, mode);
                cell_request["dtype"] = f.name;
                w.begin_object();
                try {
                    const Job cell = parse_job(cell_request);
                    const Step s = run_step(make_plan(model, cell), resolve_layout(model.config, cell), false);
                    const double total = s.breakdown.total();
                    w.field("total_bytes", total).field("total_text", gb_text(total));
                    if (pooled) {
                        // Under vLLM / SGLang every format fills the same budget: what differs is the KV
                        // each leaves, in tokens and in users of the job's length.
                        const double pool = std::max(0.0, s.serving.kv_pool);
                        const double per_user = cell.batch > 0 ? s.serving.kv_needed / static_cast<double>(cell.batch) : 0;
                        const int64_t users = per_user > 0 ? static_cast<int64_t>(std::floor(pool / per_user + 1e-9)) : 0;
                        w.field("kv_pool_bytes", pool).field("kv_pool_text", gb_text(pool)).field("pool_tokens", s.serving.pool_tokens);
                        w.field("users", users).field("fits", s.serving.fits);
                        w.field("text", grouped_text(static_cast<double>(s.serving.pool_tokens)) + " tokens · " + std::to_string(users) +
                                            (users == 1 ? " user" : " users") + " at " + grouped_text(static_cast<double>(cell.seq)));
                    } else if (s.serving.device > 0 || device_bytes(cell) > 0) {
                        w.field("fits", trains(cell) ? total <= device_bytes(cell) : s.serving.fits);
                    }
                } catch (const InputError& e) {
                    w.field("field", e.field()).field("error", e.what());
                }
                w.end_object();
            }
            w.end_array().end_object();
        }
        return w.end_array().end_object().str();
    });
}

std::string ticks_json(double max_bytes) {
    return guarded([&] {
        if (!(max_bytes >= 1) || !(max_bytes < 1e21)) throw InputError("ticks.max_bytes", "must be between 1 byte and 1e21 bytes");
        const double max_gb = max_bytes / kBytesPerGB;
        const double step = axis_step(max_gb);
        JsonWriter w;
        w.begin_object().field("ok", true).key("ticks").begin_array();
        for (int i = 0; i <= 12; ++i) {
            const double gb = step * i;
            const std::string text = gb >= 1000 ? plain_number(gb / 1000) + " TB" : plain_number(gb) + " GB";
            w.begin_object().field("bytes", gb * kBytesPerGB).field("text", text).end_object();
            if (gb >= max_gb) break;
        }
        return w.end_array().end_object().str();
    });
}

}  // namespace vramcalc
