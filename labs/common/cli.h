// Command-line options of the form `--name value` and `--flag`, plus positional arguments.
// Every getter validates and throws LabError naming the option and the bad value.
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

class Cli {
public:
    // `flags` are options that take no value; every other `--name` takes the next argument.
    Cli(int argc, char **argv, const std::set<std::string> &flags, const std::string &usage);

    bool has(const std::string &name) const;
    std::string str(const std::string &name, const std::string &fallback) const;
    long long integer(const std::string &name, long long fallback, long long min, long long max) const;
    const std::vector<std::string> &positional() const { return positional_; }
    // Throws unless every option given is one of `known` (catches typos like --rep).
    void allow_only(const std::set<std::string> &known) const;
    const std::string &usage() const { return usage_; }

private:
    std::map<std::string, std::string> options_;
    std::vector<std::string> positional_;
    std::string usage_;
};

// Parses a whole decimal integer in [min, max]; `what` names it in the error.
long long parse_integer(const std::string &text, const std::string &what, long long min, long long max);
