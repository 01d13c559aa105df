"""Calls that mean one thing in host code and another in device code. `clock()` in a
__global__ or __device__ function is the SM's cycle counter on a GPU, not the C library's
processor time, which counts much slower (CLOCKS_PER_SEC is 10^6: a kernel that spins
`while (clock() - start < cycles)` would wait a thousand times too long). Such a call becomes
the emulator's device clock, which in a kernel counts cycles of the device's nominal clock
(clockRate, 1 GHz: nanoseconds, as clock64()) and outside one, in a __host__ __device__
function called by the host, is the C library's clock():

    unsigned int start = (unsigned int)clock();  ->  ... = (unsigned int)::cudaemu::device_clock();
"""

from accesses import device_bodies

NOT_GLOBAL = {".", "->", "::"}  # s.clock(), p->clock(), std::clock(): someone else's clock


def device_clock_edits(tokens, in_code):
    edits = []
    for open_, close in device_bodies(tokens, in_code):
        for i in range(open_ + 1, close - 2):
            token = tokens[i]
            if token.text != "clock" or token.in_directive or tokens[i - 1].text in NOT_GLOBAL:
                continue
            if tokens[i + 1].text == "(" and tokens[i + 2].text == ")":
                edits.append((token.start, token.end, "::cudaemu::device_clock"))
    return edits
