// One way to stop on a bad argument or input: throw LabError with a message that says what
// is wrong and what to do; run_lab_main() prints it and exits with LAB_EXIT_USAGE.
#pragma once

#include <stdexcept>
#include <string>

struct LabError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// Calls body(); turns a LabError into "error: <message>" on stderr and LAB_EXIT_USAGE.
int run_lab_main(const char *program, int (*body)(int argc, char **argv), int argc, char **argv);
