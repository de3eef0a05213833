#include "answers/inverse.hpp"

#include <algorithm>
#include <cstring>

#include "text/errors.hpp"
#include "answers/fit.hpp"
#include "local/local.hpp"
#include "serving/gguf.hpp"
#include "serving/serving.hpp"
#include "step/timeline.hpp"
#include "text/units.hpp"

namespace vramcalc {
namespace {

struct QName {
    const char* name;
    Question q;
};
const QName kQuestions[] = {{"max_context", Question::MaxContext},   {"max_batch", Question::MaxBatch},
                            {"best_format", Question::BestFormat},   {"min_gpus", Question::MinGpus},
                            {"max_gpu_layers", Question::MaxGpuLayers}, {"n_cpu_moe", Question::NCpuMoe},
                            {"max_completion_length", Question::MaxCompletionLength},
                            {"max_num_generations", Question::MaxGenerations}};

constexpr int64_t kMaxContext = 100'000'000, kMaxBatch = 1'000'000, kMaxGpus = kMinGpusLimit;

// A job at a trial value: a copy with one field changed. An invalid layout at
// that value (heads not divisible, ...) counts as not fitting.
template <class Set>
bool fits_with(const Model& m, const Job& base, Set set, double* total, ServingInfo* serving = nullptr) {
    Job j = base;
    try {
        set(j);  // may refuse a value that has no layout
        return fits_device(m, j, total, serving);
    } catch (const InputError&) {
        return false;
    }
}

// Largest v in [lo, hi] with fits(v), for fits true up to some point and false after; lo - 1 if none.
template <class Fits>
int64_t largest(int64_t lo, int64_t hi, Fits fits) {
    if (!fits(lo)) return lo - 1;
    int64_t good = lo, step = 1;
    // Gallop up, then bisect between the last fit and the first miss.
    while (good + step <= hi && fits(good + step)) {
        good += step;
        step *= 2;
    }
    int64_t bad = std::min(hi + 1, good + step);
    while (bad - good > 1) {
        const int64_t mid = good + (bad - good) / 2;
        (fits(mid) ? good : bad) = mid;
    }
    return good;
}

}  // namespace

std::vector<FormatId> format_ladder(const Job& job) {
    using F = FormatId;
    if (llama_cpp_like(job)) return {F::Fp16, F::Q8_0, F::Q6_K, F::Q5_K_M, F::Q4_K_M, F::Q4_0, F::Q3_K_M, F::Q2_K};
    return {F::Fp16, F::Fp8, F::Gptq, F::Nf4, F::Int4};
}

Question parse_question(const std::string& name) {
    std::string names;
    for (const auto& q : kQuestions) {
        if (name == q.name) return q.q;
        names += (names.empty() ? "" : ", ") + std::string(q.name);
    }
    throw InputError("question", "must be one of " + names + ", got '" + short_text(name) + "'");
}

const char* question_name(Question q) {
    for (const auto& x : kQuestions)
        if (x.q == q) return x.name;
    return "?";
}

// The questions every job is asked on the page (options_json's "questions"). n_cpu_moe is asked only of
// mixture-of-experts models under llama.cpp, and a post-training job's (issue 36) only of such jobs: both
// are accepted by parse_question but not listed here.
std::vector<const char*> question_names() {
    std::vector<const char*> n;
    for (const auto& q : kQuestions)
        if (q.q != Question::NCpuMoe && q.q != Question::MaxCompletionLength && q.q != Question::MaxGenerations) n.push_back(q.name);
    return n;
}

std::vector<const char*> posttrain_question_names() {
    return {question_name(Question::MaxCompletionLength), question_name(Question::MaxGenerations)};
}

bool fits_device(const Model& model, const Job& job, double* total, ServingInfo* serving) {
    const Step s = run_step(make_plan(model, job), resolve_layout(model.config, job), false);
    if (total) *total = s.breakdown.total();
    if (serving) *serving = s.serving;
    // Inference: the engine's own test (vLLM / SGLang pools); training: the step's peak on the GPU;
    // post-training: also its rollout engine starting (core/posttrain/rollout.cpp).
    if (s.post.active && (!s.post.rollout.starts || !s.post.rollout.server_fits)) return false;
    return trains(job) ? s.breakdown.total() <= device_bytes(job) : s.serving.fits;
}

Answer solve(const Model& m, const Job& job, Question q) {
    if (!job.gpu && job.device_gib <= 0) throw InputError("job.gpu", "choose your GPU, or give its memory, to ask what fits on it");
    if (trains(job) && q == Question::BestFormat)
        throw InputError("job.mode", "the largest weight format is an inference question (fine-tuning's format follows "
                                     "the mode: QLoRA trains on NF4 weights)");
    const bool online = generates(job.post);
    if ((q == Question::MaxCompletionLength || q == Question::MaxGenerations) && !online)
        throw InputError("question", std::string(question_name(q)) + " is asked of a post-training job that generates (mode grpo, ppo or rloo)");
    if (q == Question::MaxContext && online)
        throw InputError("question", "a job that generates has prompt + completion for its context: ask max_completion_length");
    Answer a;
    a.question = q;
    a.pooled = engine_budgets_device(job);
    double t = 0;
    ServingInfo at, next;
    // `largest` gives lo - 1 when not even lo fits: then there is no answer and no next.
    auto record = [&](auto set, int64_t value, int64_t lo, int64_t hi) {
        a.found = value >= lo && fits_with(m, job, [&](Job& j) { set(j, value); }, &a.total_at, &at);
        a.value = value;
        if (!a.found) return;
        a.next_exists = value + 1 <= hi;
        a.next = value + 1;
        if (a.next_exists) a.fits_next = fits_with(m, job, [&](Job& j) { set(j, value + 1); }, &a.total_next, &next);
    };
    switch (q) {
        case Question::MaxContext: {
            auto set = [](Job& j, int64_t v) {
                j.seq = v;
                if (j.max_model_len > 0) j.max_model_len = v;
            };
            const int64_t v = largest(1, kMaxContext, [&](int64_t x) { return fits_with(m, job, [&](Job& j) { set(j, x); }, &t); });
            record(set, v, 1, kMaxContext);
            a.text = !a.found ? "not even one token fits"
                     : "largest context: " + grouped_text(static_cast<double>(v)) + " tokens × " +
                           (trains(job) ? "batch " + std::to_string(job.batch)
                                        : std::to_string(job.batch) + (job.batch == 1 ? " user" : " users"));
            a.answer_label = "context " + std::to_string(v);
            a.next_label = "context " + std::to_string(v + 1);
            break;
        }
        case Question::MaxBatch: {
            auto set = [](Job& j, int64_t v) { j.batch = v; };
            const int64_t v = largest(1, kMaxBatch, [&](int64_t x) { return fits_with(m, job, [&](Job& j) { set(j, x); }, &t); });
            record(set, v, 1, kMaxBatch);
            // Serving speaks in users (requests at once) and tokens.
            a.text = !a.found ? (trains(job) ? "not even one sequence fits" : "not even one user fits")
                     : trains(job) ? "largest batch: " + std::to_string(v) + " sequence" + (v == 1 ? "" : "s") + " of " +
                                         grouped_text(static_cast<double>(job.seq)) + " tokens"
                                   : "most users at once: " + std::to_string(v) + (v == 1 ? " user" : " users") + " × " +
                                         grouped_text(static_cast<double>(job.seq)) + " tokens";
            a.answer_label = "batch " + std::to_string(v);
            a.next_label = "batch " + std::to_string(v + 1);
            break;
        }
        case Question::MinGpus: {
            // Per-GPU memory falls with the count but layouts need divisibility: every count is tried in order.
            // The layout the GPU table uses (core/fit.cpp; core/layout.cpp training_layout_for and
            // inference_layout_for): the job's own degrees where given, the rest filled as counted there.
            const ModelConfig& config = m.config;
            const bool training = trains(job);
            auto set = [&config, &job, training](Job& j, int64_t v) {
                j.gpus = v;
                if (training) {
                    if (!training_layout_for(job, v, j.zero)) throw InputError("job.gpus", "no layout for this count");
                    return;
                }
                int64_t tp = 0, pp = 0;
                if (!inference_layout_for(config, job, v, tp, pp)) throw InputError("job.gpus", "no layout for this count");
                if (llama_cpp_like(job)) return;  // llama.cpp splits the gpus by split_mode, not by tp and pp
                j.tp = tp;
                j.pp = pp;
            };
            // Training an MoE, each count takes the expert-parallel degree with the least per-GPU total, as the
            // GPU table does (answers/fit.cpp LayoutSearch); any other job keeps its own EP.
            auto best_ep = [&](int64_t n) -> int64_t {
                const std::vector<int64_t> eps = expert_degrees(config, job, n);
                if (eps.size() == 1) return eps[0];
                int64_t best = -1;
                double least = 0;
                for (int64_t e : eps) {
                    double total = 0;
                    fits_with(m, job, [&](Job& j) { set(j, n); j.ep = e; }, &total);
                    if (total > 0 && (best < 0 || total < least)) best = e, least = total;
                }
                return best;
            };
            int64_t v = 0, v_ep = job.ep;
            const int64_t most = llama_cpp_like(job) ? kLlamaCppMaxDevices : kMaxGpus;
            for (int64_t n = 1; n <= most && v == 0; ++n) {
                const int64_t e = best_ep(n);
                if (e >= 1 && fits_with(m, job, [&](Job& j) { set(j, n); j.ep = e; }, &t)) v = n, v_ep = e;
            }
            a.found = v > 0;
            a.value = v;
            if (a.found) {
                fits_with(m, job, [&](Job& j) { set(j, v); j.ep = v_ep; }, &a.total_at, &at);
                // "next" for a minimum is the largest smaller count that has a layout (131 GPUs has none
                // for 61 layers and 128 heads; 130 does): its total, which does not fit.
                int64_t below = v - 1;
                auto laid_out = [&](int64_t n) {
                    Job j = job;
                    try {
                        set(j, n);
                        resolve_layout(m.config, j);
                        return true;
                    } catch (const InputError&) {
                        return false;
                    }
                };
                while (below >= 1 && !laid_out(below)) --below;
                a.next_exists = below >= 1;
                a.next = below;
                const int64_t below_ep = a.next_exists ? best_ep(below) : job.ep;
                if (a.next_exists && below_ep >= 1)
                    a.fits_next = fits_with(m, job, [&](Job& j) { set(j, below); j.ep = below_ep; }, &a.total_next, &next);
                a.next_label = std::to_string(below) + (below == 1 ? " GPU" : " GPUs");
            }
            // The layout at the answer, so the count can be set as it was counted.
            std::string how;
            if (a.found) {
                Job laid = job;
                set(laid, v);
                if (training) {
                    std::string parts = laid.zero == 3 && job.zero == 0 ? "ZeRO-3 / FSDP" : laid.zero > 0 ? "ZeRO-" + std::to_string(laid.zero) : "";
                    if (v_ep > 1) parts += (parts.empty() ? "" : ", ") + std::string("EP ") + std::to_string(v_ep);
                    how = parts.empty() ? "" : " (" + parts + ")";
                }
                else if (v > 1 && llama_cpp_like(job)) how = std::string(" (-sm ") + split_mode_name(job.split_mode) + ")";
                else if (v > 1) how = " (TP " + std::to_string(laid.tp) + " × PP " + std::to_string(laid.pp) + ")";
            }
            a.text = a.found ? "fewest GPUs: " + std::to_string(v) + how
                             : "does not fit on up to " + std::to_string(most) + " GPUs" +
                                   (llama_cpp_like(job) ? " (llama.cpp's most)" : "");
            a.answer_label = std::to_string(v) + (v == 1 ? " GPU" : " GPUs");
            break;
        }
        case Question::MaxGpuLayers: {
            if (!llama_cpp_like(job)) throw InputError("job.engine", "the -ngl answer is for llama.cpp or Ollama");
            const int64_t L = m.config.layers;
            auto set = [](Job& j, int64_t v) { j.n_gpu_layers = v; };
            const int64_t v = largest(0, L + 1, [&](int64_t x) { return fits_with(m, job, [&](Job& j) { set(j, x); }, &t); });
            record(set, v, 0, L + 1);
            a.text = a.found ? "-ngl " + std::to_string(v) + (v > L ? " (every layer and the output)" : " of " + std::to_string(L) + " layers")
                             : "not even the CPU-only setup's GPU buffers fit";
            a.answer_label = "-ngl " + std::to_string(v);
            a.next_label = "-ngl " + std::to_string(v + 1);
            break;
        }
        case Question::NCpuMoe: {
            // llama.cpp --n-cpu-moe: the fewest layers whose routed experts go to RAM for the GPUs to keep
            // --fit's margin (fit_target_mib), as --fit would choose (core/local/fit.cpp).
            if (job.engine != Engine::LlamaCpp) throw InputError("job.engine", "--n-cpu-moe is llama.cpp's; choose engine llamacpp");
            bool found = false;
            const int64_t v = smallest_n_cpu_moe(m, job, found, a.total_at, a.total_next);
            a.found = found;
            a.value = v;
            a.next_exists = found && v > 0;
            a.next = v - 1;
            a.fits_next = false;
            a.text = !found ? "does not fit even with every layer's experts in RAM (--cpu-moe): move layers too (max_gpu_layers)"
                     : v == 0 ? "--n-cpu-moe 0: every expert fits on the GPU"
                              : "--n-cpu-moe " + std::to_string(v) + ": the routed experts of the first " + std::to_string(v) + " of " +
                                    std::to_string(m.config.layers) + " layers in RAM";
            a.answer_label = "--n-cpu-moe " + std::to_string(v);
            a.next_label = "--n-cpu-moe " + std::to_string(v - 1);
            break;
        }
        case Question::MaxCompletionLength: {
            auto set = [](Job& j, int64_t v) { j.post.max_completion_length = v; };
            const int64_t v = largest(1, kMaxContext, [&](int64_t x) { return fits_with(m, job, [&](Job& j) { set(j, x); }, &t); });
            record(set, v, 1, kMaxContext);
            a.text = a.found ? "longest completion: " + std::to_string(v) + " tokens after a " + std::to_string(job.post.max_prompt_length) +
                                   "-token prompt, " + std::to_string(job.post.num_generations) + " per prompt"
                             : "not even a one-token completion fits";
            a.answer_label = "max_completion_length " + std::to_string(v);
            a.next_label = "max_completion_length " + std::to_string(v + 1);
            break;
        }
        case Question::MaxGenerations: {
            // The same prompts per micro-batch, each with more completions: the micro-batch (and a given
            // generation batch) grow with num_generations, so each prompt's group stays whole (TRL's rule).
            const int64_t prompts = std::max<int64_t>(1, job.batch / job.post.num_generations);
            const int64_t per_gen = job.post.generation_batch_size / job.post.num_generations;
            auto set = [prompts, per_gen](Job& j, int64_t v) {
                j.post.num_generations = v;
                j.batch = prompts * v;
                if (j.post.generation_batch_size > 0) j.post.generation_batch_size = std::max<int64_t>(1, per_gen) * v;
            };
            const int64_t lo = job.post.mode == PostMode::Ppo ? 1 : 2;
            const int64_t v = largest(lo, kMaxBatch, [&](int64_t x) { return fits_with(m, job, [&](Job& j) { set(j, x); }, &t); });
            record(set, v, lo, kMaxBatch);
            a.text = a.found ? "most completions per prompt: " + std::to_string(v) + " (" + std::to_string(prompts) + " prompt" +
                                   (prompts == 1 ? "" : "s") + " per micro-batch, batch " + std::to_string(prompts * v) + ", " +
                                   std::to_string(job.post.max_completion_length) + "-token completions)"
                             : "not even " + std::to_string(lo) + " completions per prompt fit";
            a.answer_label = "num_generations " + std::to_string(v);
            a.next_label = "num_generations " + std::to_string(v + 1);
            break;
        }
        case Question::BestFormat: {
            const std::vector<FormatId> ladder = format_ladder(job);
            for (FormatId f : ladder) a.candidates.push_back(format(f).name);
            auto set = [&](Job& j, int64_t i) { j.dtype = &format(ladder[static_cast<size_t>(i)]); };
            const int64_t n = static_cast<int64_t>(a.candidates.size());
            // Index 0 is the largest format; fitting is monotone in the index: find the first that fits.
            int64_t lo = 0, hi = n;  // answer in [lo, hi]; hi = n means none
            while (lo < hi) {
                const int64_t mid = (lo + hi) / 2;
                if (fits_with(m, job, [&](Job& j) { set(j, mid); }, &t)) hi = mid;
                else lo = mid + 1;
            }
            a.found = lo < n;
            a.value = lo;
            if (a.found) {
                a.format = a.candidates[static_cast<size_t>(lo)];
                fits_with(m, job, [&](Job& j) { set(j, lo); }, &a.total_at, &at);
                a.next_exists = lo > 0;  // the next larger format, which does not fit
                a.next = lo - 1;
                if (a.next_exists) a.fits_next = fits_with(m, job, [&](Job& j) { set(j, lo - 1); }, &a.total_next, &next);
            }
            a.text = a.found ? "largest format that fits: " + a.format : "none of the formats fits";
            a.answer_label = a.found ? "format " + a.format : "";
            a.next_label = a.next_exists ? "format " + a.candidates[static_cast<size_t>(lo - 1)] : "";
            break;
        }
    }
    if (!a.found) a.answer_label.clear();
    if (!a.next_exists) a.next_label.clear();
    a.kv_at = at.kv_needed;
    a.pool_at = std::max(0.0, at.kv_pool);
    a.kv_next = next.kv_needed;
    a.pool_next = std::max(0.0, next.kv_pool);
    return a;
}

std::vector<PostLimit> post_limits(const Model& m, const Job& job) {
    std::vector<PostLimit> limits;
    if (!generates(job.post) || (!job.gpu && job.device_gib <= 0)) return limits;
    for (Question q : {Question::MaxCompletionLength, Question::MaxGenerations}) {
        const Answer a = solve(m, job, q);
        PostLimit l;
        l.question = question_name(q), l.found = a.found, l.value = a.value, l.total_at = a.total_at;
        l.text = a.text, l.answer_label = a.answer_label;
        limits.push_back(std::move(l));
    }
    return limits;
}

}  // namespace vramcalc
