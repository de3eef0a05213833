#include "answers/ladder.hpp"

#include "answers/inverse.hpp"
#include "serving/gguf.hpp"
#include "serving/serving.hpp"
#include "step/timeline.hpp"
#include "text/errors.hpp"
#include "text/units.hpp"

namespace vramcalc {

std::vector<LadderRung> quant_ladder(const Model& m, const Job& asked) {
    if (!llama_cpp_like(asked)) throw InputError("job.engine", "the quantization ladder is llama.cpp's or Ollama's: set engine llamacpp or ollama");
    const UnitScope units(asked.units);
    std::vector<LadderRung> ladder;
    const bool device = device_bytes(asked) > 0;
    for (FormatId id : format_ladder(asked)) {
        Job job = asked;
        job.dtype = &format(id);
        job.dtype_auto = false;
        job.n_gpu_layers = -1;
        LadderRung r;
        r.dtype = job.dtype->name;
        r.label = job.dtype->label;
        const Plan plan = make_plan(m, job);
        r.file_bytes = gguf_weights(plan).total();
        const Step full = run_step(plan, resolve_layout(m.config, job), false);
        r.total_bytes = full.breakdown.total();
        r.layers = full.serving.layers;
        r.gpu_layers = full.serving.gpu_layers;
        r.gpu_bytes = r.total_bytes;
        r.cpu_bytes = full.serving.cpu_bytes;
        const std::string size = gb_text(r.file_bytes) + " file, " + gb_text(r.total_bytes) + " on the GPU fully offloaded";
        if (!device) {
            r.text = r.label + ": " + size;
        } else if (full.serving.fits) {
            r.status = "full";
            r.text = r.label + ": full offload, " + gb_text(r.total_bytes) + " of " + gb_text(device_bytes(job)) + " (" +
                     printf_text("%.0f %%", 100 * r.total_bytes / device_bytes(job)) + ")";
        } else {
            const Answer a = solve(m, job, Question::MaxGpuLayers);
            if (a.found && a.value >= 1) {
                r.status = "partial";
                r.gpu_layers = std::min<int64_t>(a.value, r.layers);
                Job at = job;
                at.n_gpu_layers = a.value;
                const Step part = run_step(make_plan(m, at), resolve_layout(m.config, at), false);
                r.gpu_bytes = part.breakdown.total();
                r.cpu_bytes = part.serving.cpu_bytes;
                r.text = r.label + ": partial, -ngl " + std::to_string(a.value) + " of " + std::to_string(r.layers) + " layers (" +
                         gb_text(r.gpu_bytes) + " on the GPU, " + gb_text(r.cpu_bytes) + " in system RAM)";
            } else {
                r.status = "too_large";
                r.gpu_layers = 0;
                r.text = r.label + ": too large (" + size + ")";
            }
        }
        ladder.push_back(std::move(r));
    }
    return ladder;
}

}  // namespace vramcalc
