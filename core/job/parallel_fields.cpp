// The distributed-training fields of a job (job/job.hpp, "Distributed training"):
// read once into typed values; memory/parallel.cpp uses them.
#include "job/choices.hpp"
#include "job/job.hpp"

namespace vramcalc {
namespace {

using nlohmann::json;

const Choice<ShardingImpl> kShardingImpl[] = {{"fsdp2", ShardingImpl::Fsdp2},
                                              {"fsdp1", ShardingImpl::Fsdp1},
                                              {"deepspeed", ShardingImpl::DeepSpeed},
                                              {"megatron", ShardingImpl::Megatron}};
const Choice<ReshardAfterForward> kReshard[] = {{"always", ReshardAfterForward::Always},
                                                {"never", ReshardAfterForward::Never},
                                                {"torchtitan", ReshardAfterForward::Torchtitan},
                                                {"torchtitan_root", ReshardAfterForward::TorchtitanRoot}};
const Choice<PpSchedule> kPpSchedules[] = {{"1f1b", PpSchedule::OneFOneB},
                                           {"gpipe", PpSchedule::GPipe},
                                           {"interleaved_1f1b", PpSchedule::Interleaved},
                                           {"zbv", PpSchedule::ZeroBubbleV},
                                           {"dualpipev", PpSchedule::DualPipeV}};
const Choice<PpStage> kPpStages[] = {{"peak", PpStage::Peak}, {"first", PpStage::First}, {"last", PpStage::Last}};
const Choice<Fp8> kFp8[] = {{"none", Fp8::None}, {"torchao", Fp8::Torchao}, {"te", Fp8::TransformerEngine}};

}  // namespace

bool read_parallel_field(Job& job, const std::string& key, const json& v, const std::string& field) {
    if (key == "sharding_impl") job.sharding_impl = read_choice(v, field, kShardingImpl);
    else if (key == "reshard_after_forward") {
        if (v.is_boolean()) job.reshard_after_forward = v.get<bool>() ? ReshardAfterForward::Always : ReshardAfterForward::Never;
        else job.reshard_after_forward = read_choice(v, field, kReshard);
    } else if (key == "reduce_dtype") {
        const std::string name = text_field(v, field);
        if (name == "auto") job.reduce_dtype = nullptr;
        else {
            const NumberFormat& f = find_format(name, field);
            if (!f.trainable) throw InputError(field, "must be auto, fp32, fp16 or bf16, got '" + std::string(f.name) + "'");
            job.reduce_dtype = &f;
        }
    } else if (key == "sequence_parallel") job.sequence_parallel = bool_field(v, field);
    else if (key == "pp_schedule") job.pp_schedule = read_choice(v, field, kPpSchedules);
    else if (key == "pp_virtual") job.pp_virtual = whole_field(v, field, 1, 64);
    else if (key == "pp_stage") job.pp_stage = read_choice(v, field, kPpStages);
    else if (key == "fp8") job.fp8 = read_choice(v, field, kFp8);
    else if (key == "fp8_all_gather") job.fp8_all_gather = bool_field(v, field);
    else if (key == "etp") job.etp = whole_field(v, field, 0, 1024);
    else if (key == "async_tp") job.async_tp = bool_field(v, field);
    else if (key == "shard_degree") job.shard_degree = whole_field(v, field, 0, 1'000'000);
    else if (key == "capacity_factor") job.capacity_factor = number_field(v, field, 0, 64);
    else return false;
    return true;
}

const char* sharding_impl_name(ShardingImpl v) { return name_of(kShardingImpl, v); }
const char* reshard_name(ReshardAfterForward v) { return name_of(kReshard, v); }
const char* pp_schedule_name(PpSchedule v) { return name_of(kPpSchedules, v); }
const char* pp_stage_name(PpStage v) { return name_of(kPpStages, v); }
const char* fp8_name(Fp8 v) { return name_of(kFp8, v); }
std::vector<const char*> sharding_impl_names() { return names_of(kShardingImpl); }
std::vector<const char*> reshard_names() { return names_of(kReshard); }
std::vector<const char*> pp_schedule_names() { return names_of(kPpSchedules); }
std::vector<const char*> pp_stage_names() { return names_of(kPpStages); }
std::vector<const char*> fp8_names() { return names_of(kFp8); }

}  // namespace vramcalc
