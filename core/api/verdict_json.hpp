#pragma once
// The estimate's answer in the user's words as JSON (issue 23): the verdict for the user's
// GPUs ("verdict"), the training views ("views") and the serving view ("serving_view").
#include "answers/estimate.hpp"
#include "text/json_writer.hpp"

namespace vramcalc {

void write_verdict(JsonWriter& w, const Verdict& v);
void write_training_views(JsonWriter& w, const std::vector<TrainingView>& views);
void write_serving_view(JsonWriter& w, const ServingView& v);

}  // namespace vramcalc
