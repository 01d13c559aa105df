// The tensor-core instruction of inline PTX that the rewriter translates (rewriter/inline_asm.py):
//
//     asm("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
//         "{%10,%11,%12,%13};" : "=f"(d0), ... : "r"(a0), ..., "f"(c0), ...);
//  -> ::cudaemu::ptx_mma_m16n8k8_tf32(d0, d1, d2, d3, a0, a1, a2, a3, b0, b1, c0, c1, c2, c3)
//
// The fragments are the PTX ISA's ([NVIDIA PTX ISA n.d.], "Matrix fragments for mma.m16n8k8"),
// with g = lane / 4 and t = lane % 4: A (16 x 8) a0 (g, t), a1 (g + 8, t), a2 (g, t + 4),
// a3 (g + 8, t + 4); B (8 x 8) b0 (t, g), b1 (t + 4, g); C and D (16 x 8) c0 (g, 2t),
// c1 (g, 2t + 1), c2 (g + 8, 2t), c3 (g + 8, 2t + 1). The arithmetic is wmma's (mma.h): each
// TF32 operand read with its low 13 bits ignored, the products exact, the sum with c formed in
// double and rounded once. Like wmma::mma_sync it is warp-wide: the 32 lanes meet to read each
// other's fragments, and the profile counts one matrix operation per warp.
#pragma once

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "block_sync.h"

namespace cudaemu {
void note_warp_matrix_op();  // the profile's count, once a warp (src/engine/device_entry_points.cpp)

namespace ptx {
template <class T>
inline std::uint32_t bits32(T value)
{
    static_assert(sizeof(T) == 4, "an mma.sync operand register is 32 bits");
    std::uint32_t bits;
    std::memcpy(&bits, &value, 4);
    return bits;
}

inline double tf32_operand(std::uint32_t bits)
{
    bits &= ~0x1fffu;
    float value;
    std::memcpy(&value, &bits, 4);
    return value;
}
}  // namespace ptx

template <class RA, class RB, class RC>
inline void ptx_mma_m16n8k8_tf32(float &d0, float &d1, float &d2, float &d3, RA a0, RA a1, RA a2, RA a3, RB b0,
                                 RB b1, RC c0, RC c1, RC c2, RC c3)
{
    struct Operands {
        std::uint32_t a[4], b[2];
    } mine{{ptx::bits32(a0), ptx::bits32(a1), ptx::bits32(a2), ptx::bits32(a3)}, {ptx::bits32(b0), ptx::bits32(b1)}};
    WarpExchange met = warp_exchange(0xffffffffu, to_bits(&mine), 0);
    if (met.arrived != 0xffffffffu) {
        std::fprintf(stderr,
                     "cuda-emu: mma.sync.aligned.m16n8k8 (inline PTX): lanes 0x%08x of the warp took part; .aligned "
                     "asks every one of the 32 lanes to execute it together (no lane returned or branched away)\n",
                     met.arrived);
        std::abort();
    }
    if (met.lane == 0)
        note_warp_matrix_op();
    const Operands *lanes[32];
    for (int l = 0; l < 32; ++l)
        lanes[l] = from_bits<const Operands *>(met.values[l]);
    const int g = (int)met.lane / 4, t = (int)met.lane % 4;
    const float c[4] = {(float)c0, (float)c1, (float)c2, (float)c3};
    float d[4];
    for (int q = 0; q < 4; ++q) {
        int row = g + 8 * (q / 2), col = 2 * t + q % 2;
        double sum = c[q];
        for (int k = 0; k < 8; ++k) {
            // A(row, k): lane (row % 8) * 4 + k % 4, register (row >= 8) + 2 (k >= 4); B(k, col): lane col * 4 + k % 4.
            const Operands *a_lane = lanes[(row % 8) * 4 + k % 4], *b_lane = lanes[col * 4 + k % 4];
            sum += ptx::tf32_operand(a_lane->a[(row >= 8) + 2 * (k >= 4)]) * ptx::tf32_operand(b_lane->b[k >= 4]);
        }
        d[q] = (float)sum;
    }
    warp_exchange(0xffffffffu, 0, 0);  // every lane has read the fragments: d may alias c
    d0 = d[0];
    d1 = d[1];
    d2 = d[2];
    d3 = d[3];
}
}  // namespace cudaemu
