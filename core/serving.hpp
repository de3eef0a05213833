#pragma once
// Inference terms: the working set of a forward pass and the KV cache.
#include <string>

#include "layout.hpp"
#include "plan.hpp"

namespace vramcalc {

double inference_activations(const Plan& p, const Layout& l, std::string* why);
double kv_cache_term(const Plan& p, const Layout& l, std::string* why);

}  // namespace vramcalc
