// The message for a block whose threads all wait and none of whose barriers can complete: a
// GPU would hang (or give undefined results); the emulator says who waits where, and stops.
#include <string>
#include <vector>

#include "engine/block_runner.h"
#include "reports/diagnostics.h"

namespace cudaemu {

namespace {
// "0-31, 64, 70-71": thread numbers as ranges.
std::string ranges(const std::vector<unsigned int> &numbers)
{
    std::string text;
    for (std::size_t i = 0; i < numbers.size();) {
        std::size_t j = i;
        while (j + 1 < numbers.size() && numbers[j + 1] == numbers[j] + 1) ++j;
        if (!text.empty()) text += ", ";
        text += std::to_string(numbers[i]);
        if (j > i) text += "-" + std::to_string(numbers[j]);
        i = j + 1;
        if (text.size() > 300) {
            text += ", ...";
            break;
        }
    }
    return text;
}
}  // namespace

void BlockRunner::report_deadlock()
{
    std::vector<unsigned int> at_block, at_warp, at_grid, at_tile;
    for (const Thread &thread : threads_) {
        if (thread.state != State::Waiting) continue;
        if (thread.wait == Wait::Block) at_block.push_back(thread.linear);
        if (thread.wait == Wait::Warp) at_warp.push_back(thread.linear);
        if (thread.wait == Wait::Grid) at_grid.push_back(thread.linear);
        if (thread.wait == Wait::Range) at_tile.push_back(thread.linear);
    }
    std::string waits;
    if (!at_block.empty()) waits += "\n  at __syncthreads(): threads " + ranges(at_block);
    if (!at_warp.empty())
        waits += "\n  in a warp function (__shfl*_sync, __ballot_sync, __syncwarp, ...): threads " + ranges(at_warp);
    if (!at_tile.empty()) waits += "\n  at the sync() of a tile of more than 32 threads: threads " + ranges(at_tile);
    if (!at_grid.empty()) waits += "\n  at this_grid().sync(): threads " + ranges(at_grid);
    fatal("deadlock in kernel %s%s, block (%u,%u,%u): every thread that has not returned waits, "
          "and none of the barriers can complete:%s\n"
          "  (thread numbers are threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z)). A warp "
          "function waits for every lane its mask names, so a lane of that mask is waiting somewhere else: "
          "make all named lanes call it, or narrow the mask. A GPU would hang here or give undefined results.",
          grid_->kernel_name, grid_->launch_site().c_str(), blockIdx.x, blockIdx.y, blockIdx.z, waits.c_str());
}

}  // namespace cudaemu
