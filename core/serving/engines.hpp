#pragma once
// Each engine's accounting (core/serving/*.cpp), called by inference_terms
// (core/serving/serving.cpp): each fills the breakdown's inference terms and
// the engine's own figures.
#include "job/layout.hpp"
#include "job/plan.hpp"
#include "memory/kv.hpp"
#include "memory/terms.hpp"
#include "serving/serving_info.hpp"

namespace vramcalc {

void hf_terms(const Plan& p, const Layout& l, Breakdown& b, ServingInfo& s, const KvCost& k, bool explain);
void vllm_terms(const Plan& p, const Layout& l, Breakdown& b, ServingInfo& s, const KvCost& k, bool explain);
void sglang_terms(const Plan& p, const Layout& l, Breakdown& b, ServingInfo& s, const KvCost& k, bool explain);
void llama_cpp_terms(const Plan& p, const Layout& l, Breakdown& b, ServingInfo& s, bool explain);
void mlx_terms(const Plan& p, const Layout& l, Breakdown& b, ServingInfo& s, bool explain);
// llama.cpp: whether a layer's routed experts stay in RAM (--cpu-moe, or among the first --n-cpu-moe layers).
bool experts_in_ram(const Job& job, int64_t layer);

}  // namespace vramcalc
