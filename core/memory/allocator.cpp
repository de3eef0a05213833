#include "memory/allocator.hpp"

#include <algorithm>
#include <cmath>

namespace vramcalc {
namespace {

// c10/cuda/CUDACachingAllocator.cpp constants.
constexpr int64_t kMinBlockSize = 512;
constexpr int64_t kSmallSize = 1 << 20;
constexpr int64_t kSmallBuffer = 2 << 20;
constexpr int64_t kLargeBuffer = 20 << 20;
constexpr int64_t kMinLargeAlloc = 10 << 20;
constexpr int64_t kRoundLarge = 2 << 20;

int64_t round_size(int64_t size) {  // CUDACachingAllocator round_size (no roundup_power2_divisions)
    return size < kMinBlockSize ? kMinBlockSize : kMinBlockSize * ((size + kMinBlockSize - 1) / kMinBlockSize);
}

int64_t segment_size(int64_t size) {  // get_allocation_size
    if (size <= kSmallSize) return kSmallBuffer;
    if (size < kMinLargeAlloc) return kLargeBuffer;
    return kRoundLarge * ((size + kRoundLarge - 1) / kRoundLarge);
}

}  // namespace

void CachingAllocator::insert(int b) {
    const Block& k = blocks_[static_cast<size_t>(b)];
    (k.small ? small_ : large_).insert({k.size, k.addr, b});
}

void CachingAllocator::erase(int b) {
    const Block& k = blocks_[static_cast<size_t>(b)];
    (k.small ? small_ : large_).erase({k.size, k.addr, b});
}

CachingAllocator::Handle CachingAllocator::malloc(double bytes) {
    const int64_t size = round_size(static_cast<int64_t>(std::ceil(std::max(0.0, bytes))));
    const bool small = size <= kSmallSize;
    Pool& pool = small ? small_ : large_;
    int b;
    const auto fit = pool.lower_bound({size, -1, -1});
    if (fit != pool.end()) {  // the smallest cached block that fits
        b = std::get<2>(*fit);
        pool.erase(fit);
    } else {  // a new segment (cudaMalloc)
        const int64_t seg = segment_size(size);
        Block k;
        k.size = seg;
        k.addr = next_addr_;
        k.small = small;
        next_addr_ += seg;
        reserved_ += seg;
        blocks_.push_back(k);
        b = static_cast<int>(blocks_.size()) - 1;
    }
    const int64_t rest = blocks_[static_cast<size_t>(b)].size - size;
    if (small ? rest >= kMinBlockSize : rest > kSmallSize) {  // should_split: the remainder stays cached
        Block r;
        r.size = rest;
        r.addr = blocks_[static_cast<size_t>(b)].addr + size;
        r.small = small;
        r.prev = b;
        r.next = blocks_[static_cast<size_t>(b)].next;
        blocks_.push_back(r);
        const int ri = static_cast<int>(blocks_.size()) - 1;
        if (r.next >= 0) blocks_[static_cast<size_t>(r.next)].prev = ri;
        blocks_[static_cast<size_t>(b)].next = ri;
        blocks_[static_cast<size_t>(b)].size = size;
        insert(ri);
    }
    Block& k = blocks_[static_cast<size_t>(b)];
    k.free = false;
    allocated_ += k.size;
    peak_allocated_ = std::max(peak_allocated_, allocated_);
    return b;
}

void CachingAllocator::free(Handle h) {
    Block& k = blocks_[static_cast<size_t>(h)];
    k.free = true;
    allocated_ -= k.size;
    // Merge with free neighbours of the same segment (free_block / try_merge_blocks).
    if (k.prev >= 0 && blocks_[static_cast<size_t>(k.prev)].free) {
        const int p = k.prev;
        erase(p);
        Block& pb = blocks_[static_cast<size_t>(p)];
        k.addr = pb.addr;
        k.size += pb.size;
        k.prev = pb.prev;
        if (k.prev >= 0) blocks_[static_cast<size_t>(k.prev)].next = h;
    }
    if (k.next >= 0 && blocks_[static_cast<size_t>(k.next)].free) {
        const int n = k.next;
        erase(n);
        Block& nb = blocks_[static_cast<size_t>(n)];
        k.size += nb.size;
        k.next = nb.next;
        if (k.next >= 0) blocks_[static_cast<size_t>(k.next)].prev = h;
    }
    insert(h);
}

}  // namespace vramcalc
