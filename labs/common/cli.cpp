#include "cli.h"

#include <cerrno>
#include <cstdlib>

#include "lab_error.h"

Cli::Cli(int argc, char **argv, const std::set<std::string> &flags, const std::string &usage)
    : usage_(usage)
{
    for (int i = 1; i < argc; ++i) {
        std::string arg = argv[i];
        if (arg == "-h" || arg == "--help")
            throw LabError("usage: " + usage_);
        if (arg.rfind("--", 0) != 0 || arg.size() == 2) {
            positional_.push_back(arg);
            continue;
        }
        std::string name = arg.substr(2);
        if (flags.count(name)) {
            options_[name] = "";
        } else if (i + 1 < argc) {
            options_[name] = argv[++i];
        } else {
            throw LabError("option --" + name + " needs a value\nusage: " + usage_);
        }
    }
}

bool Cli::has(const std::string &name) const { return options_.count(name) != 0; }

std::string Cli::str(const std::string &name, const std::string &fallback) const
{
    auto it = options_.find(name);
    return it == options_.end() ? fallback : it->second;
}

long long Cli::integer(const std::string &name, long long fallback, long long min, long long max) const
{
    auto it = options_.find(name);
    if (it == options_.end())
        return fallback;
    return parse_integer(it->second, "--" + name, min, max);
}

void Cli::allow_only(const std::set<std::string> &known) const
{
    for (const auto &option : options_)
        if (!known.count(option.first))
            throw LabError("unknown option --" + option.first + "\nusage: " + usage_);
}

long long parse_integer(const std::string &text, const std::string &what, long long min, long long max)
{
    errno = 0;
    char *end = nullptr;
    long long value = std::strtoll(text.c_str(), &end, 10);
    if (text.empty() || *end != '\0' || errno == ERANGE)
        throw LabError(what + " must be a whole number, got '" + text + "'");
    if (value < min || value > max)
        throw LabError(what + " must be between " + std::to_string(min) + " and " +
                       std::to_string(max) + ", got " + text);
    return value;
}
