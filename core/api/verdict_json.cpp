#include "api/verdict_json.hpp"

#include <algorithm>

#include "text/units.hpp"

namespace vramcalc {
namespace {

void write_recommendation(JsonWriter& w, const Recommendation& r) {
    w.begin_object().field("found", r.found).field("pool", r.pool).field("text", r.text);
    if (r.found) {
        w.field("gpu", r.gpu_id).field("gpu_name", r.gpu_name).field("gpus", r.gpus).field("layout", r.layout);
        w.field("per_gpu_bytes", r.per_gpu_bytes).field("per_gpu_text", gb_text(r.per_gpu_bytes));
        w.field("capacity_bytes", r.capacity_bytes).field("capacity_text", gb_text(r.capacity_bytes));
        const double free = std::max(0.0, r.capacity_bytes - r.per_gpu_bytes);
        w.field("free_bytes", free).field("free_text", gb_text(free));
        w.field("tight", r.tight);
    }
    w.end_object();
}

}  // namespace

void write_verdict(JsonWriter& w, const Verdict& v) {
    w.begin_object().field("status", v.status).field("symbol", v.symbol).field("text", v.text);
    w.field("gpu", v.gpu_id).field("gpu_name", v.gpu_name).field("gpus", v.gpus);
    w.field("capacity_bytes", v.capacity_bytes).field("capacity_text", gb_text(v.capacity_bytes));
    w.field("capacity_source", v.capacity_source);
    w.field("used_bytes", v.used_bytes).field("used_text", gb_text(v.used_bytes));
    const double free = v.capacity_bytes - v.used_bytes;  // free, or over when it does not fit: never negative
    w.field("free_bytes", std::max(0.0, free)).field("free_text", gb_text(std::max(0.0, free)));
    w.field("over_bytes", std::max(0.0, -free)).field("over_text", gb_text(std::max(0.0, -free)));
    w.field("used_share", v.used_share).field("used_percent_text", printf_text("%.0f %%", 100 * v.used_share));
    w.field("headroom_share", std::max(0.0, v.headroom_share));
    w.field("needs_gpus", v.needs_gpus).field("needs_layout", v.needs_layout);
    w.field("needs_per_gpu_bytes", v.needs_per_gpu_bytes).field("needs_per_gpu_text", v.needs_gpus > 0 ? gb_text(v.needs_per_gpu_bytes) : "");
    w.field("gpu_layers", std::max<int64_t>(0, v.gpu_layers)).field("layers", v.layers);
    w.field("cpu_bytes", v.cpu_bytes).field("cpu_text", gb_text(v.cpu_bytes));
    w.field("headline", v.headline);
    write_recommendation(w.key("recommendation"), v.recommendation);
    w.end_object();
}

void write_training_views(JsonWriter& w, const std::vector<TrainingView>& views) {
    w.begin_array();
    for (const TrainingView& v : views) {
        w.begin_object().field("key", v.key).field("label", v.label).field("total_bytes", v.total);
        w.field("total_text", v.total_text).field("text", v.text).key("rows").begin_array();
        for (const ViewRow& r : v.rows)
            w.begin_object().field("key", r.key).field("label", r.label).field("bytes", r.bytes).field("text", r.text)
                .field("why", r.why).end_object();
        w.end_array().end_object();
    }
    w.end_array();
}

void write_serving_view(JsonWriter& w, const ServingView& v) {
    w.begin_object().field("pooled", v.pooled).field("users", v.users).field("context", v.context);
    w.field("load_text", std::to_string(v.users) + (v.users == 1 ? " user × " : " users × ") + grouped_text(static_cast<double>(v.context)) + " tokens");
    w.field("users_at_context_text", std::to_string(v.users_at_context) + (v.users_at_context == 1 ? " user" : " users"));
    w.field("kv_needed_bytes", v.kv_needed).field("kv_needed_text", gb_text(v.kv_needed));
    w.field("pool_bytes", v.pool_bytes).field("pool_text", gb_text(v.pool_bytes)).field("pool_tokens", v.pool_tokens);
    w.field("users_at_context", v.users_at_context).field("fits", v.fits).field("text", v.text).field("detail", v.detail);
    if (v.pooled)
        w.field("need_bytes", v.need).field("need_text", gb_text(v.need)).field("need_why", v.need_why)
            .field("engine_text", v.engine_text);
    w.end_object();
}

}  // namespace vramcalc
