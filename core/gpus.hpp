#pragma once
#include <cstddef>
#include <string>
#include <vector>

namespace vramcalc {

struct Gpu {
    const char* id;
    const char* name;
    double memory_gib;  // capacity as marketed (these vendors' "GB" are GiB)
};

const std::vector<Gpu>& gpu_catalog();
double gpu_bytes(const Gpu& gpu);

}  // namespace vramcalc
