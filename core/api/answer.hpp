#pragma once
// The one answer (issue 33; docs/answer.md): the page, the widget and the CLI's --json ask the core one
// question (api/question.hpp: the machine, the intent, the job) and get one answer, every part of it
// computed from the same machine, job and layout, so no two parts can disagree:
//
//   head       the job's estimate (every field estimate_json writes: terms, verdict, views, serving view, the
//              GPU table, notes, assumptions), and the title, machine, capacity line, headline, recipe, the
//              two cards and the counterpart estimate (inference beside training);
//   what_fits  the inverse answers on your GPU, else on the GPU the verdict recommends;
//   charts     memory against sequence length and batch around the job, your GPU's line;
//   planner    the cluster planner on your GPUs (else on the recommended ones), with whether its chosen
//              layout fits beside the verdict's;
//   matrix     every weight format × mode; ladder: llama.cpp's quants (llama.cpp / Ollama only).
//
// The page asks for the head on its own thread first and for the other parts in its worker, each part
// with the same question: the parts agree because each is computed from it here, not by the page.
#include <string>

#include "api/api.hpp"

namespace vramcalc {

constexpr int kAnswerSchema = 1;

// {"ok":true,"schema":1,"parts":[...], ...the parts asked for...} or the error shape (a bad question,
// config or job: the whole answer's error; a part's own error stays in that part).
std::string answer_for(const Model& model, const std::string& question_json);
std::string answer_request(const std::string& config_json, const std::string& question_json);
// The page's path: the model chosen by use_config.
std::string answer_current(const std::string& question_json);
// The CLI's text: the verdict and breakdown (answers/report.cpp), the recipe, what the users need under an
// engine, the assumptions and the planner's report (Shown: its error as a line; Named: the text without it,
// its error in `planner_error`); throws InputError on a bad question or job.
enum class Planner { None, Shown, Named };
std::string answer_text(const Model& model, const std::string& question_json, const std::string& heading, Planner planner,
                        std::string* planner_error = nullptr);

}  // namespace vramcalc
