// A real-valued command-line option (--softening 0.05, --dt 1e-3): the kit's Cli reads whole
// numbers only. Throws LabError naming the option, the bad text and the range.
#pragma once

#include <string>

#include "cli.h"

double real_option(const Cli &cli, const std::string &name, double fallback, double min, double max);
