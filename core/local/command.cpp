// The command that runs the answer's layout (issue 32): llama-server's flags, Ollama's environment and
// Modelfile, mlx_lm.server's, and under vLLM / SGLang their launch line with the memory flags the
// answer used. Every value the user typed (a model id, a file name) is shell-quoted.
#include <algorithm>
#include <cctype>

#include "local/local.hpp"
#include "serving/serving.hpp"
#include "text/units.hpp"

namespace vramcalc {
namespace {

std::string num(int64_t n) { return std::to_string(n); }

// The model as the command names it: the job's model_file, else a file named after the model.
std::string model_word(const Plan& p, const std::string& model_id, const char* suffix) {
    const std::string id = !model_id.empty() ? model_id : p.job.model_id;
    std::string name = !p.job.model_file.empty() ? p.job.model_file : id.empty() ? std::string("MODEL") : id;
    if (p.job.model_file.empty() && *suffix) {
        const size_t slash = name.rfind('/');
        if (slash != std::string::npos) name = name.substr(slash + 1);
        std::string quant = p.weights.name;
        std::transform(quant.begin(), quant.end(), quant.begin(), [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
        name += "-" + quant + suffix;
    }
    // A name that begins with '-' would read as an option: name it as a path.
    if (!name.empty() && name[0] == '-') name = "./" + name;
    return shell_quote(name);
}

const char* kv_type(const Plan& p) {
    const NumberFormat* kv = p.job.kv_dtype;
    if (!kv) return "f16";
    switch (kv->id) {
        case FormatId::Q8_0: return "q8_0";
        case FormatId::Q4_0: return "q4_0";
        case FormatId::Fp32: return "f32";
        case FormatId::Bf16: return "bf16";
        default: return "f16";
    }
}

LaunchCommand llama_server(const Plan& p, const Layout& l, const std::string& model_id) {
    const Job& j = p.job;
    const ModelConfig& c = p.m.config;
    LaunchCommand cmd;
    cmd.kind = "llama-server";
    std::string t = "llama-server -m " + model_word(p, model_id, ".gguf") + " -c " + num(j.seq * j.batch);
    if (j.batch > 1) t += " -np " + num(j.batch);
    t += " -ngl " + (j.machine.cpu_only ? std::string("0") : j.n_gpu_layers < 0 ? num(c.layers + 1) : num(j.n_gpu_layers));
    if (j.experts_on_cpu) t += " --cpu-moe";
    else if (j.n_cpu_moe > 0) t += " --n-cpu-moe " + num(j.n_cpu_moe);
    t += std::string(" -fa ") + (j.attention == Attention::Eager ? "off" : "on");
    t += std::string(" -ctk ") + kv_type(p) + " -ctv " + kv_type(p);
    if (j.n_ubatch != 512) t += " -ub " + num(j.n_ubatch) + " -b " + num(std::max<int64_t>(j.n_ubatch, 2048));
    if (l.gpus > 1 || j.gpus > 1) {
        if (j.split_mode != SplitMode::Layer) t += std::string(" -sm ") + split_mode_name(j.split_mode);
        if (!j.tensor_split.empty()) {
            std::string ts;
            for (double x : j.tensor_split) ts += (ts.empty() ? "" : ",") + plain_number(x);
            t += " -ts " + ts;
        }
        if (j.split_mode == SplitMode::None) t += " -mg " + num(j.main_gpu);
    }
    if (!j.mmap) t += " --no-mmap";
    if (j.mlock) t += " --mlock";
    if (j.runtime_version == "ik_llama.cpp") t += " -fmoe";
    cmd.text = t;
    cmd.note = "every value written out, so llama.cpp's --fit changes nothing";
    return cmd;
}

LaunchCommand ollama(const Plan& p, const std::string& model_id) {
    const Job& j = p.job;
    LaunchCommand cmd;
    cmd.kind = "ollama";
    cmd.env.push_back(std::string("OLLAMA_FLASH_ATTENTION=") + (j.attention == Attention::Eager ? "0" : "1"));
    if (j.kv_dtype && std::string(kv_type(p)) != "f16") cmd.env.push_back(std::string("OLLAMA_KV_CACHE_TYPE=") + kv_type(p));
    cmd.env.push_back("OLLAMA_NUM_PARALLEL=" + num(j.batch));
    if (j.ollama_spread) cmd.env.push_back("OLLAMA_SCHED_SPREAD=1");
    // A Modelfile is not a shell: its FROM takes the path as written, without control characters (a newline
    // would start a line of its own), in double quotes when it holds a space or a quote.
    std::string from = model_word(p, model_id, ".gguf");
    if (from.size() >= 2 && from.front() == '\'' && from.back() == '\'') {
        std::string raw = !j.model_file.empty() ? j.model_file : from.substr(1, from.size() - 2);
        from = "\"";
        for (char ch : raw)
            if (static_cast<unsigned char>(ch) >= 0x20 && ch != 0x7f) from += (ch == '"' || ch == '\\') ? std::string("\\") + ch : std::string(1, ch);
        from += "\"";
    }
    cmd.modelfile = "FROM " + from + "\nPARAMETER num_ctx " + num(j.seq);
    if (j.n_gpu_layers >= 0 || j.machine.cpu_only) cmd.modelfile += "\nPARAMETER num_gpu " + num(j.machine.cpu_only ? 0 : j.n_gpu_layers);
    std::string env;
    for (const std::string& e : cmd.env) env += e + " ";
    cmd.text = env + "ollama serve";
    cmd.note = "then, with the Modelfile: ollama create NAME -f Modelfile && ollama run NAME";
    return cmd;
}

LaunchCommand mlx_server(const Plan& p, const std::string& model_id) {
    const Job& j = p.job;
    LaunchCommand cmd;
    cmd.kind = "mlx_lm.server";
    std::string t;
    if (j.machine.wired_limit_mb > 0) t += "sudo sysctl iogpu.wired_limit_mb=" + num(static_cast<int64_t>(j.machine.wired_limit_mb)) + " && ";
    t += "mlx_lm.server --model " + model_word(p, model_id, "");
    if (j.prefill_step_size != 2048) t += " --prefill-step-size " + num(j.prefill_step_size);
    if (j.prompt_cache_size != 10) t += " --prompt-cache-size " + num(j.prompt_cache_size);
    cmd.text = t;
    if (j.kv_bits > 0) cmd.note = "kv_bits is mlx_lm.generate's --kv-bits " + num(j.kv_bits) + " (the server keeps fp16 KV)";
    return cmd;
}

LaunchCommand vllm(const Plan& p, const Layout& l, const std::string& model_id) {
    const Job& j = p.job;
    LaunchCommand cmd;
    cmd.kind = "vllm";
    std::string t = "vllm serve " + model_word(p, model_id, "") + " --gpu-memory-utilization " + plain_number(j.gpu_memory_utilization) +
                    " --max-model-len " + num(j.max_model_len > 0 ? j.max_model_len : j.seq);
    if (l.tp > 1) t += " --tensor-parallel-size " + num(l.tp);
    if (l.pp > 1) t += " --pipeline-parallel-size " + num(l.pp);
    if (j.ep > 1) t += " --enable-expert-parallel";
    if (j.max_num_seqs > 0) t += " --max-num-seqs " + num(j.max_num_seqs);
    if (j.max_num_batched_tokens > 0) t += " --max-num-batched-tokens " + num(j.max_num_batched_tokens);
    if (j.kv_dtype && j.kv_dtype->id == FormatId::Fp8) t += " --kv-cache-dtype fp8";
    if (j.enforce_eager) t += " --enforce-eager";
    if (!j.dtype_auto && p.weights.id == FormatId::Fp8) t += " --quantization fp8";
    cmd.text = t;
    return cmd;
}

LaunchCommand sglang(const Plan& p, const Layout& l, const std::string& model_id) {
    const Job& j = p.job;
    LaunchCommand cmd;
    cmd.kind = "sglang";
    std::string t = "python -m sglang.launch_server --model-path " + model_word(p, model_id, "") + " --context-length " +
                    num(j.max_model_len > 0 ? j.max_model_len : j.seq);
    if (j.mem_fraction_static > 0) t += " --mem-fraction-static " + plain_number(j.mem_fraction_static);
    if (l.tp > 1) t += " --tp " + num(l.tp);
    if (l.pp > 1) t += " --pp " + num(l.pp);
    if (j.ep > 1) t += " --ep " + num(j.ep);
    if (j.dp_attention) t += " --enable-dp-attention";
    if (j.max_num_batched_tokens > 0) t += " --chunked-prefill-size " + num(j.max_num_batched_tokens);
    if (j.kv_dtype && j.kv_dtype->id == FormatId::Fp8) t += " --kv-cache-dtype fp8_e4m3";
    if (j.disable_cuda_graph) t += " --disable-cuda-graph";
    cmd.text = t;
    return cmd;
}

}  // namespace

std::string shell_quote(const std::string& word) {
    if (word.empty()) return "''";
    bool safe = true;
    for (unsigned char ch : word)
        if (!(std::isalnum(ch) || ch == '_' || ch == '-' || ch == '.' || ch == '/' || ch == ':' || ch == '@' || ch == '%' ||
              ch == '+' || ch == ',' || ch == '='))
            safe = false;
    if (safe) return word;
    std::string out = "'";
    for (char ch : word) out += ch == '\'' ? std::string("'\\''") : std::string(1, ch);
    return out + "'";
}

LaunchCommand launch_command(const Plan& p, const Layout& l, const std::string& model_id) {
    switch (p.job.engine) {
        case Engine::LlamaCpp: return llama_server(p, l, model_id);
        case Engine::Ollama: return ollama(p, model_id);
        case Engine::Mlx: return mlx_server(p, model_id);
        case Engine::Vllm: return vllm(p, l, model_id);
        case Engine::Sglang: return sglang(p, l, model_id);
        default: return LaunchCommand{};
    }
}

}  // namespace vramcalc
