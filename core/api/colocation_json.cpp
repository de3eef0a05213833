#include "api/colocation_json.hpp"

#include "text/units.hpp"

namespace vramcalc {

void write_colocation(JsonWriter& w, const ColocationAnswer& a) {
    w.begin_object().field("fits", a.fits).field("verdict", a.verdict);
    w.field("total_bytes", a.total_bytes).field("total_text", gb_text(a.total_bytes));
    w.field("capacity_bytes", a.capacity_bytes).field("capacity_text", gb_text(a.capacity_bytes));
    w.field("free_bytes", a.free_bytes).field("free_text", gb_text(a.free_bytes)).field("shares", a.shares);
    w.key("jobs").begin_array();
    for (const ColocationEntry& m : a.jobs)
        w.begin_object().field("label", m.label).field("engine", m.engine).field("share", m.share).field("bytes", m.bytes)
            .field("text", m.text).field("own_fits", m.own_fits).field("headroom_bytes", m.headroom_bytes)
            .field("headroom_text", gb_text(m.headroom_bytes)).field("why", m.why).end_object();
    w.end_array().end_object();
}

}  // namespace vramcalc
