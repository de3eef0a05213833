#pragma once
// Building blocks shared by the architecture layouts in params.cpp: the
// tensor list itself, recurrent (SSM / linear-attention) mixers and vision
// towers. Internal to the core (params.cpp and params_parts.cpp).
#include <cstdint>
#include <vector>

#include "model/params.hpp"

namespace vramcalc {

struct TensorList {
    std::vector<Tensor> tensors;

    void add(const char* module, TensorKind kind, int64_t in, int64_t out, int64_t copies) {
        add_routed(module, kind, in, out, copies, kind == TensorKind::Vision ? 0 : copies);
    }
    void add_routed(const char* module, TensorKind kind, int64_t in, int64_t out, int64_t copies,
                    int64_t active_copies) {
        if (copies > 0 && in > 0 && out > 0)
            tensors.push_back({module, kind, in, out, copies, active_copies, role_of(module, kind)});
    }
    void vector(const char* module, int64_t length, int64_t copies) {
        add(module, TensorKind::Vector, 1, length, copies);
    }
    // Gated (SwiGLU/GeGLU) MLP: gate and up project h -> width, down projects back.
    void gated_mlp(TensorKind kind, int64_t h, int64_t width, int64_t copies, int64_t active_copies) {
        add_routed("gate_proj", kind, h, width, copies, active_copies);
        add_routed("up_proj", kind, h, width, copies, active_copies);
        add_routed("down_proj", kind, width, h, copies, active_copies);
    }
};

// The mixer tensors of `layers` recurrent layers (config.recurrent_mixer).
void recurrent_mixer(const ModelConfig& c, int64_t layers, TensorList& t);

// Encoder-only models (Family::Encoder) and encoder-decoders (Family::EncoderDecoder):
// the stacks the head runs; core/model/params_families.cpp.
void encoder_model(const ModelConfig& c, TensorList& t);
void encoder_decoder_model(const ModelConfig& c, TensorList& t);
// The output layer of the config's head (and sentence-transformers Dense modules).
void head_tensors(const ModelConfig& c, TensorList& t);

// The vision encoder + projector of a multimodal checkpoint (nothing when absent).
// Vision tensors are not "active" for text tokens (active_copies = 0).
void vision_tower(const ModelConfig& c, TensorList& t);

}  // namespace vramcalc
