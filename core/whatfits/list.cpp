// The list: the filters first (on the catalog's fields, before any model is sized; the speed filter after),
// every remaining model's row, then the order. Never empty without a reason: no machine says what to set,
// filters that leave nothing say which one did.
#include <algorithm>
#include <cctype>

#include "text/errors.hpp"
#include "text/units.hpp"
#include "whatfits/what_fits.hpp"

namespace vramcalc {
namespace {

std::string lower(std::string s) {
    for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return s;
}
bool any_of(const std::vector<std::string>& wanted, const std::string& value) {
    if (wanted.empty()) return true;
    const std::string v = lower(value);
    return std::any_of(wanted.begin(), wanted.end(), [&](const std::string& w) { return lower(w) == v; });
}
// The values a filter was given, as the user wrote them but each cut short and at most 8 named (a link or a flag
// can hold thousands: the message names the filter, not all of its input).
std::string joined(const std::vector<std::string>& values) {
    constexpr size_t kNamed = 8;
    const size_t shown = std::min(values.size(), kNamed);
    std::string out;
    for (size_t i = 0; i < shown; ++i)
        out += (i ? (i + 1 == values.size() ? " or " : ", ") : "") + short_text(values[i]);
    if (values.size() > shown) out += " or " + std::to_string(values.size() - shown) + " more";
    return out;
}
std::string steps_text(const std::vector<std::string>& steps) {
    std::string out;
    for (const std::string& s : steps) out += (out.empty() ? "" : "; ") + s;
    return out;
}
std::string left_text(size_t n) { return n == 0 ? "none left" : std::to_string(n) + " left"; }

// The key a sort compares, larger first (name: compared as text, A first).
double sort_key(const FitRow& r, FitSort s) {
    switch (s) {
        case FitSort::Size: return r.params_total;
        case FitSort::Speed: return !r.speed_known ? -1 : r.decode_tps > 0 ? r.decode_tps : r.total_tps;
        case FitSort::Headroom: return r.gpu.known && r.gpu.have_bytes > 0 ? r.gpu.headroom_share : r.ram.headroom_share;
        case FitSort::Name: return 0;
    }
    return 0;
}

}  // namespace

FitList what_fits(const std::vector<ListedModel>& models, const FitRequest& r) {
    FitList list;
    std::vector<const ListedModel*> kept;
    for (const ListedModel& m : models) {
        if (!m.model) {
            list.failed.push_back(&m);  // a pasted config that failed: named, the list stays
            continue;
        }
        kept.push_back(&m);
    }
    list.considered = static_cast<int64_t>(kept.size());
    if (!machine_given(r.job, r.intent, list.empty_field, list.empty_reason)) return list;
    // The catalog's fields, each filter in turn (its count said, so a list emptied by one names it).
    const FitFilters& f = r.filters;
    auto step = [&](bool active, const std::string& what, auto keep) {
        if (!active) return;
        std::vector<const ListedModel*> next;
        for (const ListedModel* m : kept)
            if (keep(*m)) next.push_back(m);
        kept.swap(next);
        list.filter_steps.push_back(what + ": " + left_text(kept.size()));
    };
    step(!f.families.empty(), "family " + joined(f.families), [&](const ListedModel& m) { return any_of(f.families, m.family); });
    step(!f.sizes.empty(), "size " + joined(f.sizes), [&](const ListedModel& m) { return any_of(f.sizes, size_class(m.model->params.total)); });
    step(f.moe >= 0, f.moe ? "mixture of experts" : "dense", [&](const ListedModel& m) { return m.model->config.is_moe() == (f.moe == 1); });
    // Chat is for models that generate text: without a modality asked, the chat list leaves out encoders (BERT,
    // embedding models) and speech models (whisper.cpp, not llama.cpp, runs Whisper); the serving list leaves out
    // encoders. "any" asks for every modality.
    std::vector<std::string> modalities = f.modalities;
    const bool by_default = modalities.empty() && r.intent != FitIntent::Finetune;
    if (by_default) modalities = r.intent == FitIntent::Chat ? std::vector<std::string>{"text", "vision"}
                                                              : std::vector<std::string>{"text", "vision", "audio"};
    if (std::any_of(modalities.begin(), modalities.end(), [](const std::string& m) { return lower(m) == "any"; })) modalities.clear();
    step(!modalities.empty(), "modality " + joined(modalities) + (by_default ? std::string(" (the default of ") + fit_intent_name(r.intent) + ")" : ""),
         [&](const ListedModel& m) { return any_of(modalities, m.modality); });
    step(!f.licenses.empty(), "licence " + joined(f.licenses), [&](const ListedModel& m) { return any_of(f.licenses, m.license); });
    step(f.min_context > 0, "context of at least " + grouped_text(static_cast<double>(f.min_context)) + " tokens",
         [&](const ListedModel& m) { return m.model->config.context_length >= f.min_context; });
    for (const ListedModel* m : kept) list.rows.push_back(fit_row(*m, r));
    // Then what needs the rows: the speed, and whether it runs.
    auto step_rows = [&](bool active, const std::string& what, auto keep) {
        if (!active) return;
        list.rows.erase(std::remove_if(list.rows.begin(), list.rows.end(), [&](const FitRow& row) { return !keep(row); }), list.rows.end());
        list.filter_steps.push_back(what + ": " + left_text(list.rows.size()));
    };
    step_rows(f.min_tps > 0, "at least " + fixed_text(f.min_tps, 1) + " tokens/s",
              [&](const FitRow& row) { return row.runs && row.speed_known && sort_key(row, FitSort::Speed) >= f.min_tps; });
    step_rows(f.runnable_only, "runs on this machine", [](const FitRow& row) { return row.runs; });
    for (const FitRow& row : list.rows) list.runnable += row.runs ? 1 : 0;
    // The order: what runs first; then the key, larger first (name: A to Z); ties by name, then id. Stable.
    // Sorted as indices, then moved once (a row holds its job: 2 KB).
    const FitSort s = r.sort;
    const size_t n = list.rows.size();
    std::vector<size_t> order(n);
    std::vector<double> keys(n);
    std::vector<std::string> names(n);
    for (size_t i = 0; i < n; ++i) {
        order[i] = i;
        keys[i] = s == FitSort::Name ? 0 : sort_key(list.rows[i], s);
        names[i] = lower(list.rows[i].model->name);
    }
    const std::vector<FitRow>& rows = list.rows;
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
        if (rows[a].runs != rows[b].runs) return rows[a].runs;
        if (keys[a] != keys[b]) return keys[a] > keys[b];
        if (names[a] != names[b]) return names[a] < names[b];
        return rows[a].model->id < rows[b].model->id;
    });
    std::vector<FitRow> sorted;
    sorted.reserve(order.size());
    for (size_t i : order) sorted.push_back(std::move(list.rows[i]));
    list.rows.swap(sorted);
    if (list.rows.empty()) {
        list.empty_field = "filters";
        list.empty_reason = list.considered == 0 ? "no models to list: the catalog is empty and no config was pasted"
                                                 : "the filters leave none of the " + std::to_string(list.considered) +
                                                       " models (" + steps_text(list.filter_steps) + ")";
    }
    return list;
}

}  // namespace vramcalc
