#include "model/model.hpp"

#include "model/heads.hpp"

namespace vramcalc {

double LayerBytes::total() const {
    double t = output + token_embd;
    for (double b : layer) t += b;
    return t;
}

Model prepare_model(const ModelConfig& config) {
    Model m{config, list_tensors(config), count_params(config), {}, {}, {}};
    if (config.quant.present()) m.quant = quant_split(m.config, m.tensors, m.params);
    return m;
}

std::shared_ptr<const Model> with_head(const Model& m, Head head, int64_t labels, const char* field) {
    if (head == m.config.head && (labels <= 0 || labels == m.config.num_labels)) return nullptr;
    ModelConfig c = m.config;
    apply_head(c, head, field);
    if (labels > 0) c.num_labels = labels;
    auto out = std::make_shared<Model>(prepare_model(c));
    out->exact = m.exact;
    return out;
}

}  // namespace vramcalc
