#pragma once
// The model catalog (models.json): reading it, and finding a model in it the way people type
// one (issue 23): case, spaces, dashes, dots and underscores ignored; Hub ids with their
// organisation and -Instruct / -chat / -it / -Base / -hf suffixes; short names as Ollama's
// library calls them (llama3, phi4, r1); "did you mean …" for an id that is not there.
#include <cstdint>
#include <string>
#include <vector>

#include "api/api.hpp"

namespace vramcalc {

// The longest text searched for or matched against the catalog: longer than any id, name or Hub id
// (the Hub allows 96 characters a part). Longer texts match nothing and get no "did you mean":
// the "did you mean" of a 4 MB id took 0.62 s of CPU in wasm, 8 MB about twice that (adversarial pass 2026-12-04).
constexpr size_t kMaxModelQuery = 200;

struct SearchHit {
    const ModelEntry* entry;
    int rank;         // 0 exact (id, alias or Hub id), 1 the start of one, 2 inside one, 3 every word of the query
    const char* how;  // "id", "alias", "hub", "name", "words"
};
// Every entry that matches, best first (rank, then name); empty for an empty query or one over kMaxModelQuery.
std::vector<SearchHit> search_models(const std::vector<ModelEntry>& models, const std::string& query);
// The entry an id, alias or Hub id names exactly, or null.
const ModelEntry* resolve_model(const std::vector<ModelEntry>& models, const std::string& query);
// Up to three ids close to `id`: the search's best, else the nearest by edit distance.
std::vector<std::string> did_you_mean(const std::vector<ModelEntry>& models, const std::string& id);
// "unknown model 'x'; did you mean a, b or c?"
std::string unknown_model_message(const std::vector<ModelEntry>& models, const std::string& id);

// The page's catalog, given once (as use_config gives a model): {"ok":true,"count":156}.
std::string use_catalog(const std::string& models_json);
// The catalog use_catalog was given last (empty before), and a count that changes each time it is given
// (what_fits_json.cpp keeps the prepared models until then).
const std::vector<ModelEntry>& current_catalog();
uint64_t current_catalog_generation();
// {"ok":true,"query","count","models":[{"id","name","hf_id","how"}]}: count is the list's length.
std::string search_catalog(const std::string& query);
// {"ok":true,"id","name","hf_id","how"} for an id, alias or Hub id the catalog names exactly, else
// the error {"field":"model","message":"model: unknown model 'x'; did you mean …"}.
std::string lookup_model(const std::string& id);

}  // namespace vramcalc
