#pragma once
// PyTorch's CUDA caching allocator, replayed: what `torch.cuda.memory_reserved`
// holds after a sequence of allocations and frees. Freed blocks stay cached;
// a request takes the smallest cached block that fits (splitting it), or a
// new segment from the device. So the reserved memory depends on the order
// and sizes of past tensors, not only on what is live: a peak of large
// temporaries leaves segments that later small tensors fill partly.
//
// Rules of c10/cuda/CUDACachingAllocator.cpp (PyTorch 2.x, default settings:
// one stream, no expandable segments, max_split_size unlimited):
//   - sizes round up to 512 bytes (kMinBlockSize);
//   - requests up to 1 MiB (kSmallSize) come from 2 MiB segments (kSmallBuffer);
//   - larger ones below 10 MiB (kMinLargeAlloc) from 20 MiB segments (kLargeBuffer),
//     the rest from segments rounded up to 2 MiB (kRoundLarge);
//   - get_free_block: best fit by (size, address) in its pool;
//   - should_split: a small block when at least 512 bytes remain, a large one when
//     more than 1 MiB remains;
//   - free_block: merged with free neighbours of the same segment.
#include <cstdint>
#include <set>
#include <tuple>
#include <vector>

namespace vramcalc {

class CachingAllocator {
public:
    using Handle = int;
    Handle malloc(double bytes);
    void free(Handle h);

    double allocated() const { return static_cast<double>(allocated_); }
    double reserved() const { return static_cast<double>(reserved_); }
    double peak_allocated() const { return static_cast<double>(peak_allocated_); }
    double peak_reserved() const { return static_cast<double>(reserved_); }  // nothing is released

private:
    struct Block {
        int64_t size = 0, addr = 0;
        int prev = -1, next = -1;  // neighbours in the same segment
        bool free = true, small = false;
    };
    using Pool = std::set<std::tuple<int64_t, int64_t, int>>;  // free blocks by (size, address), with their index
    void insert(int b);
    void erase(int b);

    std::vector<Block> blocks_;  // a replay is short: merged-away blocks are not reused
    Pool small_, large_;
    int64_t next_addr_ = 0, allocated_ = 0, reserved_ = 0, peak_allocated_ = 0;
};

}  // namespace vramcalc
