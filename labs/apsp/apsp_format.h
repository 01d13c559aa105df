// The two numbers of the APSP file format (docs/design.md, the NTHU HW3 format), shared by the
// harness, the student's code (through apsp.h) and the testcase oracle.
#pragma once

// The distance of a pair with no path: 2^30 - 1. Twice it still fits in an int, so the sum
// d(i,k) + d(k,j) of two entries never overflows, whatever they hold.
#define APSP_INF 1073741823

// Edge weights are 0..APSP_MAX_WEIGHT; with n < 2^20 no real distance comes near APSP_INF.
#define APSP_MAX_WEIGHT 1000
