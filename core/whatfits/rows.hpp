#pragma once
// Inside core/whatfits/: each intent's row (local_rows.cpp: chat on llama.cpp, Ollama or MLX; engine_rows.cpp:
// serving on vLLM or SGLang, LoRA / QLoRA fine-tuning) and what they share.
#include "whatfits/what_fits.hpp"

namespace vramcalc {

// The row's model fields (size class, parameters, trained context) and its job: the request's, sized at the
// request's context, or at the model's trained context when that is shorter.
FitRow row_for(const ListedModel& model, const FitRequest& request, const Job& base);
// A pool as the row shows it: what the run needs, what the machine has, the headroom.
FitPool pool_of(bool known, double need, double have, const std::string& text);

FitRow chat_row(const ListedModel& model, const FitRequest& request);
FitRow serve_row(const ListedModel& model, const FitRequest& request);
FitRow finetune_row(const ListedModel& model, const FitRequest& request);

}  // namespace vramcalc
