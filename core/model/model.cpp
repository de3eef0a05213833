#include "model/model.hpp"

namespace vramcalc {

Model prepare_model(const ModelConfig& config) { return Model{config, list_tensors(config), count_params(config), {}}; }

}  // namespace vramcalc
