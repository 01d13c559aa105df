#include "real_option.h"

#include <cmath>
#include <cstdlib>

#include "lab_error.h"

double real_option(const Cli &cli, const std::string &name, double fallback, double min, double max)
{
    if (!cli.has(name))
        return fallback;
    std::string text = cli.str(name, "");
    char *end = nullptr;
    double value = std::strtod(text.c_str(), &end);
    if (text.empty() || *end != '\0' || !std::isfinite(value))
        throw LabError("--" + name + " " + text + " is not a number");
    if (value < min || value > max)
        throw LabError("--" + name + " " + text + " is out of range: give a value from " + std::to_string(min) +
                       " to " + std::to_string(max));
    return value;
}
