#include "model/model.hpp"

#include "model/heads.hpp"

namespace vramcalc {

double LayerBytes::total() const {
    double t = output + token_embd;
    for (double b : layer) t += b;
    return t;
}

HeadCache::Entry* HeadCache::find(int head, int64_t labels) const {
    for (Entry& e : entries_)
        if (e.head == head && e.labels == labels) return &e;
    return nullptr;
}

void HeadCache::keep(Entry entry) const {
    if (entries_.size() >= kKept) entries_.erase(entries_.begin());  // the oldest
    entries_.push_back(std::move(entry));
}

namespace {

bool same_bytes(const LayerBytes& a, const LayerBytes& b) {
    return a.layer == b.layer && a.experts == b.experts && a.output == b.output && a.token_embd == b.token_embd && a.mix == b.mix;
}
bool same_exact(const ExactWeights& a, const ExactWeights& b) {
    return a.bytes == b.bytes && a.source == b.source && a.elements == b.elements && a.note == b.note &&
           same_bytes(a.placed, b.placed);
}

}  // namespace

Model prepare_model(const ModelConfig& config) {
    Model m{config, list_tensors(config), count_params(config), {}, {}, {}, {}};
    if (config.quant.present()) m.quant = quant_split(m.config, m.tensors, m.params);
    return m;
}

std::shared_ptr<const Model> with_head(const Model& m, Head head, int64_t labels, const char* field) {
    if (head == m.config.head && (labels <= 0 || labels == m.config.num_labels)) return nullptr;
    // The checkpoint attached to `m` (it may have changed since the copy was kept) goes with it.
    if (HeadCache::Entry* kept = m.heads.find(static_cast<int>(head), labels)) {
        if (!same_exact(kept->model->exact, m.exact)) kept->model->exact = m.exact;
        return kept->model;
    }
    ModelConfig c = m.config;
    apply_head(c, head, field);
    if (labels > 0) c.num_labels = labels;
    auto out = std::make_shared<Model>(prepare_model(c));
    out->exact = m.exact;
    m.heads.keep({static_cast<int>(head), labels, out});
    return out;
}

}  // namespace vramcalc
