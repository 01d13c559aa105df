// The cost of one fiber switch: two fibers hand control back and forth.
#include <chrono>

#include "engine/fiber.h"

namespace {
cudaemu::Fiber *main_fiber, *other_fiber;
long remaining;

void bounce()
{
    for (;;) cudaemu::Fiber::switch_to(other_fiber, main_fiber, false);
}
}  // namespace

double fiber_switch_ns(long switches)
{
    cudaemu::Fiber native, other(64 * 1024, 0);
    main_fiber = &native;
    other_fiber = &other;
    other.reset(&bounce);
    remaining = switches / 2;
    auto start = std::chrono::steady_clock::now();
    for (long i = 0; i < remaining; ++i) cudaemu::Fiber::switch_to(&native, &other, false);
    auto stop = std::chrono::steady_clock::now();
    return std::chrono::duration<double, std::nano>(stop - start).count() / (2.0 * remaining);
}
