// The GPU's FP32 ceiling for `make bench LAB=nbody`, from the same run: the peak its SMs can
// issue at its clock (SMs x FP32 lanes a SM x 2 flops a fused multiply-add x clock), and what a
// kernel of independent fused multiply-adds reaches.
#pragma once

struct Fp32Peak {
    int sms = 0;
    int lanes_per_sm = 0;      // FP32 units a SM, from the compute capability
    double clock_mhz = 0;      // the device's peak clock, as it reports it
    double peak_gflops = 0;    // sms * lanes_per_sm * 2 * clock
    double fma_gflops = 0;     // measured: a kernel doing nothing but fused multiply-adds
};

// GPU only (the emulator has no SMs to count); every CUDA call checked.
Fp32Peak measure_fp32_peak();
