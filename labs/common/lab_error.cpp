#include "lab_error.h"

#include <cstdio>
#include <new>

#include "exit_codes.h"

int run_lab_main(const char *program, int (*body)(int argc, char **argv), int argc, char **argv)
{
    try {
        return body(argc, argv);
    } catch (const LabError &e) {
        std::fprintf(stderr, "%s: error: %s\n", program, e.what());
        return LAB_EXIT_USAGE;
    } catch (const std::bad_alloc &) {
        std::fprintf(stderr, "%s: error: out of host memory; try a smaller size\n", program);
        return LAB_EXIT_USAGE;
    }
}
