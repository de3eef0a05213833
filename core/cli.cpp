// vramcalc command line: estimate GPU memory for a model and a job.
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <string>

#include <nlohmann/json.hpp>

#include "api/api.hpp"
#include "api/catalog.hpp"
#include "api/intents.hpp"
#include "api/job_text.hpp"
#include "checkpoint/checkpoint.hpp"
#include "cluster/cluster.hpp"
#include "answers/inverse.hpp"
#include "text/errors.hpp"
#include "text/json_text.hpp"
#include "answers/report.hpp"
#include "cluster/report.hpp"

using nlohmann::json;
using namespace vramcalc;

namespace {

const char* kUsage = R"(usage: vramcalc [--model ID | --config config.json | --params N] [job options] [--json]

Model (default: --model llama-3-8b):
  --model ID            a model from models.json (see --list)
  --config PATH         a Hugging Face config.json
  --params N            only a parameter count (e.g. 7e9); add dimensions with --config for activations
  --checkpoint PATH     a .safetensors file, model.safetensors.index.json or .gguf: its header gives
                        the exact weight bytes (used with --dtype auto, the default); only the header is read
  --models PATH         models.json to use (default: the repository's)
  --list                list the models and exit (with --json: each with its
                        config and parameter counts, the page's catalog)

Job (defaults in brackets):
  --mode M              inference | train | lora | qlora            [inference]
  --dtype D             fp32 fp16 bf16 fp8 int8 int4 gptq awq nf4 q8_0 q6_k q5_k_m q4_k_m q4_0 q3_k_m q2_k  [bf16]
  --optimizer O         adamw | sgd | sgd_momentum | adam_8bit | adafactor  [adamw]
  --batch N             micro-batch per GPU                           [1]
  --seq N               tokens per sequence (encoder-decoders: the decoder's)  [4096]
  --encoder-seq N       encoder-decoders: the encoder's input tokens (0 = seq; Whisper: 1500 frames)  [0]
  --head H              auto | causal_lm | seq2seq_lm | masked_lm | pretraining | sequence_classification |
                        token_classification | question_answering | ctc | base | encoder  [auto: architectures]
  --num-labels N        classification outputs (0 = the config's id2label, else 2)  [0]
  --checkpointing C     none | selective | full | selective_op        [none]
  --flash | --no-flash  FlashAttention on/off                         [on]
  --kv-dtype D          auto | fp32 | fp16 | bf16 | fp8 | int8 | int4 | q8_0 | q4_0  [auto]
  --lora-rank R         LoRA rank                                     [16]
  --lora-targets T      all-linear | attention | mlp | q_proj,v_proj,...  [all-linear]
  --adapter-dtype D     fp32 | fp16 | bf16                            [fp32]
  --no-master-weights   pure 16-bit training without an fp32 master copy
  --gpus N  --tp N  --pp N  --zero 0..3                               [1, auto, auto, 0]
  --cp N  --ep N  --etp N  --shard-degree N   context / expert parallel, hybrid sharding
  --framework F         hf | accelerate_fsdp | torchtune | deepspeed | megatron | nemo | unsloth | torchtitan
  --sharding-impl I     fsdp2 | fsdp1 | deepspeed | megatron          [fsdp2]
  --reshard-after-forward R   always | never | torchtitan | torchtitan_root  [always]
  --pp-schedule S       1f1b | gpipe | interleaved_1f1b | zbv | dualpipev  [1f1b]
  --pp-virtual V  --grad-accum M  --pp-stage peak|first|last         [2, 1 (under PP: pp), peak]
  --sequence-parallel true|false  --fp8 none|torchao|te  --fp8-all-gather true
  --offload-params true  --offload-optimizer true   FSDP / ZeRO CPU offload (host RAM shown)
  --mtp-layers N        Megatron multi-token prediction layers on the last stage  [0]
  --logits-fp32 true    the model returns fp32 logits (torchtune); else the loss upcasts them
  --overhead-gb X       CUDA context + framework per GPU              [1.0]
  --fragmentation F     allocator slack fraction                      [0.05]
  --engine E            custom | hf | vllm | sglang | llamacpp | ollama  [custom]
  --gpu ID              the GPU served on (see the fit table ids); engines size pools from it
  --device-gib X        device memory as the engine sees it (vLLM's total_gpu_memory)
  --gpu-memory-utilization F   vLLM budget fraction                [0.9]
  --mem-fraction-static F      SGLang static fraction (0 = by TP)  [0]
  --max-model-len N  --max-num-batched-tokens N  --max-num-seqs N  --block-size N
  --chunked-prefill true|false   vLLM profile run size rule         [true]
  --new-tokens N        HF generate: tokens generated after the prompt  [0]
  --n-ubatch N          llama.cpp physical batch                      [512]
  --n-gpu-layers N      llama.cpp -ngl (-1 = all + output)            [-1]
  --experts-on-cpu true llama.cpp -ot exps=CPU
  --gguf-rules R        current | 2023-12 (llama.cpp type rules era)  [current]
  --swa-full true       sliding-window layers at full length
  --ep N  --dp-attention true   expert parallel degree, data-parallel attention
  --split-mode M        llama.cpp -sm over --gpus: layer | row | none   [layer]
  --tensor-split 3,1    llama.cpp -ts shares per GPU (default: by free memory)
  --main-gpu N          llama.cpp -mg (the GPU of -sm none)           [0]
  --ollama-spread true  Ollama: spread over every GPU even when one holds the model
  --vllm-version V      vLLM release whose accounting to follow, e.g. 0.6.5, 0.19.0   [newest]
  --vllm-engine E       v0 | v1 (0.7 - 0.10 ship both)
  --enforce-eager true  vLLM without CUDA graphs; --max-cudagraph-capture-size N
  --kv-cache-dtype D    vLLM's name for kv_dtype: auto | fp8 | fp8_e4m3 | fp8_e5m2
  --limit-mm-per-prompt N   images per prompt in vLLM's profile run (V0 1, V1 999)
  --swa-full-tokens-ratio F --cuda-graph-max-bs N --chunked-prefill-size N   SGLang
  --cache-implementation C  HF generate: dynamic | static | offloaded | offloaded_static | quantized
  --cache-nbits N       QuantizedCache bits (2, 4, 8)                 [4]
  Post-training (docs/posttrain.md):
  --mode M              dpo | kto | orpo | grpo | ppo | rloo, with --policy full|lora|qlora  [full]
  --framework F         trl (default) | verl | openrlhf | unsloth: each framework's defaults
  --num-generations N --max-prompt-length N --max-completion-length N --beta X
  --use-vllm true --vllm-mode colocate|server --vllm-gpu-memory-utilization F --sleep-mode 0|1|2
  --vllm-tensor-parallel-size N --vllm-gpus N --vllm-max-model-length N --precompute-ref-log-probs true
  --solve max_completion_length | max_num_generations   the longest completion, the most per prompt
  Serving extras (docs/serving.md): --speculative-method draft|eagle|eagle3|mtp|ngram --speculative-model ID
  --num-speculative-tokens N (llama.cpp --draft-max), --enable-lora true --max-loras N --max-lora-rank N
  --max-cpu-loras N; machine_jobs (several models on the GPU) in --job JSON
  Any other job field as --field-name value (see docs/serving.md).
  --solve Q             max_context | max_batch | best_format | min_gpus | max_gpu_layers
                        (needs --gpu; answers by exact search, prints JSON)
  --gpu ID --gpus N     your GPUs: the answer leads with one verdict (fits / tight / partial / does not fit)
  --device-gb X | --device-gib X   your GPU by its memory instead of an id
  --units gb|gib|mib    the unit of every size written [gb]; --recommend-from auto|datacenter|workstation|consumer|any
  --job PATH            read job fields from a JSON file (flags override)
  --json                print the estimate as JSON
  --ladder | --intents | --search TEXT   JSON: the llama.cpp quant ladder for --gpu (full / partial -ngl N /
                        too large), the page's four entry points, or catalog models as the page finds them
  --bake                print the page's first view as one line of JSON (the estimate of the job and of
                        its counterpart in the other mode), for the build to write into the page

Cluster planner (throughput, interconnect, time and cost; any of these turns it on):
  --gpu ID              accelerator (see --list-gpus)                 [h100]
  --fabric ID           network between nodes                         [ib-ndr]
  --cluster PATH        cluster fields from a JSON file (flags override)
  --cluster-FIELD V     any cluster field, e.g. --cluster-tokens 1e12 --cluster-price-per-gpu-hour 2
                        --cluster-global-batch 1024 --cluster-concurrency 8 --cluster-fp8 tensorwise
                        --cluster-schedule zbv --cluster-attention fa3 --cluster-node-limit 4
                        --cluster-compute-efficiency 0.4 (the single override of the per-op rates)
  --plan                run the planner with the defaults
  --list-gpus           list the accelerators and fabrics and exit
  The job's --gpus/--tp/--pp/--zero set the layout to time; without them it is recommended.
)";

// Reads at most kMaxJsonBytes: a huge file or /dev/zero gives the size
// error after 8 MB instead of running out of memory.
std::string read_file(const std::string& path, const std::string& field) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw InputError(field, "cannot read file '" + short_text(path) + "'");
    std::string text;
    char chunk[65536];
    while (in.read(chunk, sizeof chunk) || in.gcount() > 0) {
        text.append(chunk, static_cast<size_t>(in.gcount()));
        if (text.size() > kMaxJsonBytes) throw_too_large(field);
    }
    if (in.bad()) throw InputError(field, "cannot read file '" + short_text(path) + "'");
    return text;
}

// Only the metadata of a checkpoint: as many leading bytes as its first 8 say
// the core needs (core/checkpoint.hpp checkpoint_bytes_needed).
std::string read_checkpoint_header(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw InputError("checkpoint", "cannot read file '" + short_text(path) + "'");
    std::string bytes(8, '\0');
    in.read(&bytes[0], 8);
    bytes.resize(static_cast<size_t>(in.gcount()));
    const size_t want = checkpoint_bytes_needed(bytes);
    std::string chunk(65536, '\0');
    while (bytes.size() < want && in) {
        in.read(&chunk[0], static_cast<std::streamsize>(std::min(chunk.size(), want - bytes.size())));
        bytes.append(chunk.data(), static_cast<size_t>(in.gcount()));
    }
    return bytes;
}

// argv holds whatever bytes the shell passed; JSON and error texts need UTF-8.
std::string utf8_argument(const std::string& text, const std::string& field) {
    if (!is_utf8(text)) throw InputError(field, "is not valid UTF-8 text: '" + short_text(text) + "'");
    return text;
}

// A flag's field name: kv-dtype is job.kv_dtype.
std::string underscored(std::string name) {
    for (char& ch : name)
        if (ch == '-') ch = '_';
    return name;
}

std::string default_models_path() {
    if (const char* env = std::getenv("VRAMCALC_MODELS")) return env;
    std::ifstream here("models.json");
    if (here) return "models.json";
    return VRAMCALC_DEFAULT_MODELS;
}

int run(int argc, char** argv) {
    std::string model_id = "llama-3-8b", config_path, params, models_path = default_models_path();
    bool as_json = false, list = false, plan = false, list_gpus = false, gpu_given = false, bake = false;
    bool ladder = false, intents_only = false, search_given = false;
    std::string search;
    json cluster_fields = json::object();
    std::string question, checkpoint_path;
    json job_fields = json::object();
    // Job and cluster flags as typed, read by the one value parser (api/job_text.hpp) by each field's kind.
    std::vector<NamedText> job_flags, cluster_flags;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = utf8_argument(argv[i], "arguments");
        // File paths are bytes to the OS and may be any; every other value
        // goes into JSON and must be UTF-8.
        auto path = [&](const std::string& field) -> std::string {
            if (i + 1 >= argc) throw InputError(field, "missing value after " + arg);
            return argv[++i];
        };
        auto value = [&](const std::string& field) { return utf8_argument(path(field), field); };
        if (arg == "--help" || arg == "-h") {
            std::cout << kUsage;
            return 0;
        } else if (arg == "--json") as_json = true;
        else if (arg == "--bake") bake = true;
        else if (arg == "--ladder") ladder = true;
        else if (arg == "--intents") intents_only = true;
        else if (arg == "--search") search = value("search.query"), search_given = true;
        else if (arg == "--list") list = true;
        else if (arg == "--solve") question = value("question");
        else if (arg == "--model") model_id = value("model");
        else if (arg == "--config") config_path = path("config");
        else if (arg == "--params") params = value("config.num_parameters");
        else if (arg == "--checkpoint") checkpoint_path = path("checkpoint");
        else if (arg == "--models") models_path = path("models.json");
        else if (arg == "--job") job_fields = parse_json_text(read_file(path("job"), "job"), "job");
        else if (arg == "--flash" || arg == "--no-flash") job_flags.push_back({"flash-attention", arg == "--flash" ? "true" : "false"});
        else if (arg == "--master-weights" || arg == "--no-master-weights")
            job_flags.push_back({"master-weights", arg == "--master-weights" ? "true" : "false"});
        else if (arg == "--plan") plan = true;
        else if (arg == "--list-gpus") list_gpus = true;
        else if (arg == "--gpu") {
            // The GPU serves both the planner and the serving engines' pools (job.gpu).
            gpu_given = true;
            const std::string gpu = value("cluster.gpu");
            job_flags.push_back({"gpu", gpu});
            cluster_flags.push_back({"gpu", gpu});
        }
        else if (arg == "--fabric") plan = true, cluster_flags.push_back({"fabric", value("cluster.fabric")});
        else if (arg == "--cluster") plan = true, cluster_fields = parse_json_text(read_file(path("cluster"), "cluster"), "cluster");
        else if (arg.rfind("--cluster-", 0) == 0 && arg.size() > 10) {
            plan = true;
            const std::string name = arg.substr(10);
            cluster_flags.push_back({name, value("cluster." + underscored(name))});
        }
        else if (arg.rfind("--", 0) == 0 && arg.size() > 2) {
            const std::string name = arg.substr(2);
            job_flags.push_back({name, value("job." + underscored(name))});
        } else {
            throw InputError("arguments", "unexpected '" + short_text(arg) + "' (see --help)");
        }
    }
    if (!job_fields.is_object()) throw InputError("job", "the --job file must hold a JSON object");
    job_fields.update(job_from_text(job_flags, TextSource::Flag));  // flags override the --job file's fields
    // --gpu alone asks the planner, unless the job names a serving engine or a question.
    // A post-training job (mode grpo, dpo, ...) or several jobs on one machine answer their own question.
    PostMode post_mode = PostMode::None;
    if (job_fields.contains("mode") && job_fields["mode"].is_string()) post_mode_named(job_fields["mode"].get<std::string>(), post_mode);
    if (gpu_given && question.empty() && !job_fields.contains("engine") && post_mode == PostMode::None &&
        !job_fields.contains("machine_jobs"))
        plan = true;
    json cluster_given = cluster_from_text(cluster_flags, TextSource::Flag);
    if (!plan) cluster_given.erase("gpu");

    if (intents_only) {
        std::cout << json::parse(intents_json()).dump(2) << "\n";
        return 0;
    }
    if (search_given) {
        const std::string answer = (use_catalog(read_file(models_path, "models.json")), search_catalog(search));
        const json parsed = json::parse(answer);
        if (!parsed.value("ok", false)) {
            std::cerr << "vramcalc: error: " << parsed["error"]["message"].get<std::string>() << "\n";
            return 2;
        }
        std::cout << parsed.dump(2) << "\n";
        return 0;
    }
    if (list_gpus) {
        std::cout << format_gpu_list();
        return 0;
    }
    if (list && as_json) {
        // The page's catalog (web/models.json, written by scripts/build.sh): each model with
        // its config and parameter counts, so the page does not count them again on load.
        const std::string answer = models_summary(read_file(models_path, "models.json"));
        const json parsed = json::parse(answer);
        // A bad catalog is one error line and status 2, as for any input.
        if (!parsed.value("ok", false)) {
            std::cerr << "vramcalc: error: " << parsed["error"].value("message", "models.json: not a catalog") << "\n";
            return 2;
        }
        std::cout << answer << "\n";
        return 0;
    }
    if (list) {
        for (const auto& m : parse_models(read_file(models_path, "models.json")))
            std::cout << m.id << "\t" << m.name << "\n";
        return 0;
    }

    json config;
    std::string name;
    if (!params.empty()) {
        json count = value_from_text(params, ValueKind::Number);
        config = config_path.empty() ? json::object() : parse_json_text(read_file(config_path, "config"), "config");
        if (!config.is_object()) throw InputError("config", "must be a JSON object like a Hugging Face config.json");
        config["num_parameters"] = count;
        name = "explicit " + params + " parameters";
    } else if (!config_path.empty()) {
        config = parse_json_text(read_file(config_path, "config"), "config");
        name = config_path;
    } else {
        const auto models = parse_models(read_file(models_path, "models.json"));
        const ModelEntry& entry = find_model(models, model_id);
        config = entry.config;
        name = entry.name + (entry.hf_id.empty() ? "" : " (" + entry.hf_id + ")");
    }

    // Job fields that name other models (speculative_model, machine_jobs) find them in the catalog.
    if (job_fields.contains("speculative_model") || job_fields.contains("machine_jobs")) {
        const json answer = json::parse(use_catalog(read_file(models_path, "models.json")));
        if (!answer.value("ok", false)) throw InputError("models.json", answer["error"].value("message", "not a catalog"));
    }
    Model model = prepare_model(parse_config(config));
    if (!checkpoint_path.empty()) attach_checkpoint(model, read_checkpoint(read_checkpoint_header(checkpoint_path)));
    const Job job = parse_job(job_fields);
    if (ladder) {
        const json parsed = json::parse(ladder_for(model, job_fields.dump()));
        if (!parsed.value("ok", false)) {  // the answer's message already starts with its field
            std::cerr << "vramcalc: error: " << parsed["error"]["message"].get<std::string>() << "\n";
            return 2;
        }
        std::cout << parsed.dump(2) << "\n";
        return 0;
    }
    if (bake) {
        // The page's first paint: the estimate as the page asks for it, and its counterpart
        // (the same job in the other mode), from the same core the wasm runs.
        json other = job_fields;
        other["mode"] = trains(job) ? "inference" : "train";
        for (const char* key : {"engine", "vllm_version", "vllm_engine"}) other.erase(key);
        const std::string counterpart = estimate_json(model, parse_job(other), estimate(model, parse_job(other)));
        std::cout << "{\"ok\":true,\"model\":" << json(model_id).dump() << ",\"job\":" << job_fields.dump()
                  << ",\"estimate\":" << estimate_json(model, job, estimate(model, job)) << ",\"counterpart\":" << counterpart
                  << "}\n";
        return 0;
    }
    if (plan) {
        if (!cluster_fields.is_object()) throw InputError("cluster", "the --cluster file must hold a JSON object");
        cluster_fields.update(cluster_given);
        const std::string answer = cluster_answer(model, job, parse_cluster(cluster_fields, job));
        // The text answer leads with the verdict for the GPU given (the planner times the layout either way).
        std::string lead;  // an estimate's error is not this question's: the planner's own answer stands
        try { lead = !as_json && job.gpu ? estimate(model, job).verdict.text + "\n\n" : ""; } catch (const InputError&) {}
        std::cout << (as_json ? nlohmann::json::parse(answer).dump(2) + "\n" : lead + format_cluster_report(answer));
        return 0;
    }
    if (!question.empty()) {
        const std::string answer = solve_for(model, job_fields.dump(), question);
        const json parsed = json::parse(answer);
        if (!parsed.value("ok", false)) {  // the answer's message already starts with its field
            std::cerr << "vramcalc: error: " << parsed["error"]["message"].get<std::string>() << "\n";
            return 2;
        }
        std::cout << parsed.dump(2) << "\n";
        return 0;
    }
    const Estimate e = estimate(model, job);
    if (as_json)
        std::cout << nlohmann::json::parse(estimate_json(model, job, e)).dump(2) << "\n";
    else
        std::cout << format_report(name, job, e);
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    try {
        return run(argc, argv);
    } catch (const InputError& e) {
        std::cerr << "vramcalc: error: " << e.what() << "\n";
        return 2;
    } catch (const std::exception& e) {
        std::cerr << "vramcalc: internal error: " << e.what() << "\n";
        return 3;
    }
}
