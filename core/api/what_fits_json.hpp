#pragma once
// "What can I run?" as JSON (issue 35; core/whatfits/): the request read once, the catalog's models prepared
// once per catalog (use_catalog), the list written with every number the page shows. Fields in
// docs/what-fits.md#json.
#include <string>

namespace vramcalc {

// request: {"intent": "chat" | "serve" | "finetune", "job": {the machine and job fields, as for one model},
// "filters": {"family", "size", "modality", "license": a name or a list; "moe": true | false; "min_context": N;
// "min_tps": X; "runnable": true}, "sort": "size" | "speed" | "headroom" | "name", "configs": [{"name",
// "config"}]}. Answers {"ok":true, "intent", "context", "considered", "count", "rows": [...], "empty", ...}
// or the error shape naming the field. Uses the catalog use_catalog was given (api/catalog.hpp).
std::string what_fits_request(const std::string& request_json);
// The same answer kept until the next call, for the wasm to hand over as bytes (wasm/binding.cpp whatFitsView:
// a list of 200 models is ~250 KB, which Embind's string return would copy byte by byte in JavaScript).
const std::string& what_fits_kept(const std::string& request_json);
// The CLI's table of an answer what_fits_request gave (ok): one line a model (what_fits_text.cpp).
std::string what_fits_table(const std::string& answer_json);

}  // namespace vramcalc
