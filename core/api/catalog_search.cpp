// Finding a catalog model by what people type (issue 23).
#include <algorithm>
#include <cctype>
#include <cstring>

#include "api/catalog.hpp"

namespace vramcalc {
namespace {

// Short names as Ollama's library names its default tag of each model (ollama.com/library:
// `ollama run llama3` is Llama 3 8B, `phi4` Phi-4 14B, `qwen2.5` Qwen2.5 7B, `gemma2` Gemma 2
// 9B, `gemma3` Gemma 3 4B, `mixtral` 8x7B, `deepseek-v3` the 671B MoE), and "r1" for DeepSeek-R1
// as its release and most write-ups call it.
struct Alias {
    const char* alias;
    const char* id;
};
const Alias kAliases[] = {
    {"llama3", "llama-3-8b"},        {"llama3.1", "llama-3.1-8b"}, {"llama3.2", "llama-3.2-3b"},
    {"llama3.3", "llama-3.3-70b"},   {"llama2", "llama-2-7b"},     {"mistral", "mistral-7b-v0.3"},
    {"mixtral", "mixtral-8x7b"},     {"phi3", "phi-3-mini"},       {"phi3.5", "phi-3.5-mini"},
    {"phi4", "phi-4"},               {"phi4-mini", "phi-4-mini"},  {"qwen2.5", "qwen2.5-7b"},
    {"qwen3", "qwen3-8b"},           {"qwq", "qwq-32b"},           {"gemma2", "gemma-2-9b"},
    {"gemma3", "gemma-3-4b"},        {"r1", "deepseek-r1"},        {"deepseek-r1", "deepseek-r1"},
    {"deepseek-v3", "deepseek-v3"},  {"gpt-oss", "gpt-oss-20b"},   {"tinyllama", "tinyllama-1.1b"},
    {"codellama", "codellama-34b"},  {"starcoder2", "starcoder2-3b"}, {"smollm2", "smollm2-1.7b"},
    {"kimi-k2", "kimi-k2"},          {"command-r", "command-r"},   {"whisper", "whisper-large-v3"},
};

// Lower case with spaces, dashes, dots, underscores and slashes dropped: "Qwen 2.5 7B" → "qwen257b".
std::string squash(const std::string& s) {
    std::string out;
    for (unsigned char c : s)
        if (std::isalnum(c)) out += static_cast<char>(std::tolower(c));
        else if (c >= 0x80) out += static_cast<char>(c);
    return out;
}

bool ends_with_ci(const std::string& s, const char* tail) {
    const size_t n = std::strlen(tail);
    if (s.size() < n) return false;
    for (size_t i = 0; i < n; ++i)
        if (std::tolower(static_cast<unsigned char>(s[s.size() - n + i])) != tail[i]) return false;
    return true;
}

// A Hub id as its base model: the organisation dropped, then the fine-tune and format suffixes
// the Hub's families add ("meta-llama/Llama-3.1-8B-Instruct" → "Llama-3.1-8B",
// "Llama-2-7b-chat-hf" → "Llama-2-7b", "gemma-2-9b-it" → "gemma-2-9b").
std::string base_repo(std::string s) {
    const size_t slash = s.rfind('/');
    if (slash != std::string::npos) s = s.substr(slash + 1);
    static const char* kTails[] = {"-instruct", "-chat", "-it", "-base", "-hf", "-pt", "-fp8", "-gguf"};
    for (bool cut = true; cut;) {
        cut = false;
        for (const char* t : kTails)
            if (ends_with_ci(s, t) && s.size() > std::strlen(t)) {
                s.resize(s.size() - std::strlen(t));
                cut = true;
            }
    }
    return s;
}

// The words of a query: runs of letters and digits ("qwen 2.5 7b" → qwen, 2, 5, 7b).
std::vector<std::string> words(const std::string& s) {
    std::vector<std::string> out;
    std::string cur;
    for (unsigned char c : s) {
        if (std::isalnum(c) || c >= 0x80) cur += static_cast<char>(std::tolower(c));
        else if (!cur.empty()) out.push_back(cur), cur.clear();
    }
    if (!cur.empty()) out.push_back(cur);
    return out;
}

size_t edit_distance(const std::string& a, const std::string& b) {
    std::vector<size_t> row(b.size() + 1);
    for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
    for (size_t i = 1; i <= a.size(); ++i) {
        size_t prev = row[0];
        row[0] = i;
        for (size_t j = 1; j <= b.size(); ++j) {
            const size_t cur = row[j];
            row[j] = std::min({row[j] + 1, row[j - 1] + 1, prev + (a[i - 1] == b[j - 1] ? 0 : 1)});
            prev = cur;
        }
    }
    return row[b.size()];
}

}  // namespace

std::vector<SearchHit> search_models(const std::vector<ModelEntry>& models, const std::string& query) {
    std::vector<SearchHit> hits;
    if (query.size() > kMaxModelQuery) return hits;
    const std::string q = squash(query), q_base = squash(base_repo(query));
    if (q.empty()) return hits;
    const std::vector<std::string> qwords = words(query);
    for (const ModelEntry& m : models) {
        const std::string id = squash(m.id), hub = squash(m.hf_id), hub_base = squash(base_repo(m.hf_id)), name = squash(m.name);
        SearchHit h{&m, 9, ""};
        auto better = [&](int rank, const char* how) {
            if (rank < h.rank) h.rank = rank, h.how = how;
        };
        for (const Alias& a : kAliases)
            if (a.id == m.id && squash(a.alias) == q) better(0, "alias");
        if (id == q || id == q_base) better(0, "id");
        if (!hub.empty() && (hub == q || hub_base == q_base || squash(m.hf_id.substr(m.hf_id.rfind('/') + 1)) == q)) better(0, "hub");
        if (id.rfind(q, 0) == 0) better(1, "id");
        if (id.find(q) != std::string::npos) better(2, "id");
        if (!hub.empty() && hub.find(q_base) != std::string::npos) better(2, "hub");
        if (name.find(q) != std::string::npos) better(2, "name");
        if (h.rank > 3 && !qwords.empty()) {
            const std::string all = id + " " + name + " " + hub;
            if (std::all_of(qwords.begin(), qwords.end(), [&](const std::string& w) { return all.find(w) != std::string::npos; }))
                better(3, "words");
        }
        if (h.rank < 9) hits.push_back(h);
    }
    std::stable_sort(hits.begin(), hits.end(), [](const SearchHit& a, const SearchHit& b) {
        return a.rank != b.rank ? a.rank < b.rank : a.entry->name < b.entry->name;
    });
    return hits;
}

const ModelEntry* resolve_model(const std::vector<ModelEntry>& models, const std::string& query) {
    const std::vector<SearchHit> hits = search_models(models, query);
    // Exact only, and only when it names one model (an alias and an id naming the same entry count once).
    const ModelEntry* found = nullptr;
    for (const SearchHit& h : hits) {
        if (h.rank != 0) break;
        if (found && found != h.entry) return nullptr;
        found = h.entry;
    }
    return found;
}

std::vector<std::string> did_you_mean(const std::vector<ModelEntry>& models, const std::string& id) {
    std::vector<std::string> out;
    if (id.size() > kMaxModelQuery) return out;
    for (const SearchHit& h : search_models(models, id))
        if (out.size() < 3) out.push_back(h.entry->id);
    if (!out.empty()) return out;
    // Nothing contains it: the ids nearest by edit distance on the squashed forms.
    const std::string q = squash(base_repo(id));
    std::vector<std::pair<size_t, const ModelEntry*>> near;
    for (const ModelEntry& m : models) near.emplace_back(edit_distance(q, squash(m.id)), &m);
    std::stable_sort(near.begin(), near.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    for (size_t i = 0; i < near.size() && i < 3; ++i)
        if (near[i].first <= std::max<size_t>(3, q.size() / 2)) out.push_back(near[i].second->id);
    return out;
}

}  // namespace vramcalc
