// The machine's own ceiling for `make bench LAB=apsp`: distance updates per second of a kernel
// that does nothing but min-plus updates on registers (no memory traffic, no barriers).
#pragma once

struct MinPlusCeiling {
    double dpx_updates_per_s;    // d = __viaddmin_s32(a, b, d): Hopper's DPX min(a + b, d)
    double plain_updates_per_s;  // d = min(a + b, d): an add and a min
    double best() const { return dpx_updates_per_s > plain_updates_per_s ? dpx_updates_per_s : plain_updates_per_s; }
};

// Measured on the current device: median of a few timed launches after a warm-up.
MinPlusCeiling measure_minplus_ceiling();
