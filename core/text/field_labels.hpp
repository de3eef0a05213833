#pragma once
// A plain label for every field an error can name, so the page, the widget and the CLI's
// JSON show "Sequence length: must be between 1 and 100000000, got 0" rather than the core's
// field id "job.seq" (issue 23). One table here; the page keeps no list of its own.
#include <string>

namespace vramcalc {

// "job.seq" → "Sequence length", "cluster.tokens" → "Training tokens", "config.hidden_size" →
// "config.json hidden_size"; a field without a row reads as its key in words ("Optimizer dtype").
std::string field_label(const std::string& field);
// The message without its leading "field: ", led by the label instead.
std::string labelled_message(const std::string& field, const std::string& message);

}  // namespace vramcalc
