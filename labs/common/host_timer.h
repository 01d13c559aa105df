// Wall-clock timer for whole-run and host-side timings (device work: gpu_timer.h).
#pragma once

#include <chrono>

class HostTimer {
public:
    HostTimer() : start_(std::chrono::steady_clock::now()) {}
    void restart() { start_ = std::chrono::steady_clock::now(); }
    double ms() const
    {
        return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start_)
            .count();
    }

private:
    std::chrono::steady_clock::time_point start_;
};
