#pragma once
// "What can I run?" (issue 35): every model of the catalog, and any config the user pasted, on the user's
// machine for one intent, each at the best format that runs, with how it runs, both pools, the context it was
// sized at, its speed and the command. Every row is the single-model answer for that model, format and machine:
// it is computed by the same functions (core/local/ for a local run, the engines' accounting and the cluster
// planner for serving and fine-tuning), never by a formula of its own. docs/what-fits.md.
//
// rows.cpp: one model's row for each intent (the candidates and which one is best); list.cpp: the list, its
// filters, its order and the reasons it may be empty.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "job/job.hpp"
#include "model/model.hpp"

namespace vramcalc {

// What the user wants to do with the models (docs/what-fits.md "Intents").
enum class FitIntent { Chat, Serve, Finetune };
const char* fit_intent_name(FitIntent i);
FitIntent fit_intent_named(const std::string& name, const std::string& field);
std::vector<const char*> fit_intent_names();

// One model of the list: a catalog entry or a pasted config, prepared once and kept (the page asks again on
// every change of the machine; the GGUF sizes of each format stay in the prepared model, model/model.hpp).
struct ListedModel {
    std::string id, name, hf_id, family, license, modality, released;
    bool pasted = false;
    std::shared_ptr<const Model> model;  // null: its config failed (error_field, error)
    std::string error_field, error;
};
// The catalog's fields of a pasted config, from the config itself: family = model_type; modality encoder,
// audio (Whisper), vision (a vision tower) or text.
ListedModel pasted_model(const std::string& name, std::shared_ptr<const Model> model);

// Size classes by total parameters (docs/what-fits.md): tiny < 3 B ≤ small < 10 B ≤ medium < 35 B ≤ large
// < 150 B ≤ frontier.
const char* size_class(double params_total);
std::vector<const char*> size_class_names();

enum class FitSort { Size, Speed, Headroom, Name };
const char* fit_sort_name(FitSort s);
FitSort fit_sort_named(const std::string& name, const std::string& field);
std::vector<const char*> fit_sort_names();

struct FitFilters {
    std::vector<std::string> families, sizes, modalities, licenses;  // any of (case-insensitive); empty: all
    int moe = -1;                // -1 both, 0 dense only, 1 mixture-of-experts only
    int64_t min_context = 0;     // the model's trained context at least this
    double min_tps = 0;          // decode (chat, serve) or training tokens/s at least this; unknown speeds fail it
    bool runnable_only = false;  // leave out the models that do not fit
};

struct FitRequest {
    FitIntent intent = FitIntent::Chat;
    // The job every row starts from (the intent's fields under the user's, read once); the finetune intent's
    // two modes each read once (lora, then qlora). `context` is the one every row is sized at.
    Job job;
    std::vector<Job> modes;
    int64_t context = 8192;
    bool context_given = false;
    FitFilters filters;
    FitSort sort = FitSort::Size;
};

// One pool as a row shows it: what the run needs of it and what is left.
struct FitPool {
    bool known = false;          // its size is known (the RAM given, the machine's own unified memory)
    double need_bytes = 0, have_bytes = 0, headroom_bytes = 0, headroom_share = 0;
    std::string text;
};

struct FitRow {
    const ListedModel* model = nullptr;
    const char* size = "";
    double params_total = 0, params_active = 0;
    bool moe = false;
    int64_t trained_context = 0;
    // The best format (chat, serve) or mode (finetune), and every candidate tried, largest first.
    std::string dtype, format_label, mode;
    std::vector<std::string> candidates;
    // How it runs: full | experts_in_ram | partial | cpu (chat); fits (serve, finetune); too_large; unsupported.
    const char* fit = "too_large";
    std::string fit_text;
    const char* status = "no";   // the single-model answer's status (local: fits | tight | partial | slow | no)
    std::string symbol, verdict;
    bool runs = false;
    int64_t n_cpu_moe = 0, gpu_layers = -1, layers = 0, gpus = 1;
    int64_t context = 0;
    bool context_capped = false;  // the model's trained context is shorter than the one asked: sized at it
    FitPool gpu, ram;
    double weights_bytes = 0;     // the weights in the row's format (llama.cpp: the GGUF's tensors)
    // Speed: chat, the local speed model (decode at the start of a conversation, prefill of the prompt); serve,
    // the planner's decode per user and in all with time to first token; finetune, training tokens/s.
    bool speed_known = false;
    double decode_tps = 0, decode_low = 0, decode_high = 0;
    double prefill_tps = 0, prefill_low = 0, prefill_high = 0;
    double total_tps = 0, total_low = 0, total_high = 0;  // serve: every user together; finetune: tokens trained
    double ttft_s = 0;
    std::string speed_text;
    std::string command;          // the launch line (chat, serve); empty for fine-tuning
    Job job;                      // the single-model job this row answers (its format and context set)
    std::string error_field, error;  // unsupported: why the core cannot answer this model for this intent
};

// The row of one model: its candidates, the best one that runs and its answer.
FitRow fit_row(const ListedModel& model, const FitRequest& request);

struct FitList {
    std::vector<FitRow> rows;          // filtered and sorted
    int64_t considered = 0;            // models listed (catalog and pasted), failed configs excluded
    int64_t runnable = 0;              // of the rows, those that run
    std::vector<std::string> filter_steps;  // "family Llama 3: 9 left", in the order applied
    std::string empty_field, empty_reason;  // why the list is empty (never empty without one)
    std::vector<const ListedModel*> failed; // pasted configs that failed: named, the list stays
};

// The whole list. No GPU and no RAM: no rows, and empty_reason says what to set.
FitList what_fits(const std::vector<ListedModel>& models, const FitRequest& request);
// Whether the machine of `job` has anything to size against (a GPU, its memory, or the RAM of a CPU-only
// machine); false with the field to set and the sentence.
bool machine_given(const Job& job, FitIntent intent, std::string& field, std::string& reason);

}  // namespace vramcalc
