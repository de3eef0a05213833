#pragma once
// The cluster planner's field names, in the order parse.cpp reads them (its kClusterFields): the CLI's
// --cluster-FIELD flags, the page's cl_ link keys and the widget's cluster-* attributes name the same fields.
#include <vector>

namespace vramcalc {

std::vector<const char*> cluster_field_names();

}  // namespace vramcalc
