// Exit codes of every lab program. The one place they are defined: the grader reads this file
// (grader/verdict.py read_exit_codes), so a code added here is known there.
#pragma once

enum {
    LAB_EXIT_OK = 0,
    LAB_EXIT_WRONG = 1,   // the harness's own check of the result failed
    LAB_EXIT_USAGE = 2,   // bad arguments or a bad input file
    LAB_EXIT_CUDA = 3,    // a CUDA call or launch failed
    LAB_EXIT_TODO = 4,    // the student's code reached a LAB_TODO
    LAB_EXIT_NO_GPU = 5,  // no CUDA device to run on
    LAB_EXIT_MEMCHECK = 23, // AddressSanitizer found a bad access (the grader sets ASAN_OPTIONS=exitcode=23;
                            // a number no harness or student uses for anything else)
};

// Set by the CPU emulator's runtime (labs/emu), not by a harness.
enum {
    LAB_EXIT_RACE = 6,  // the race detector (EMU_RACECHECK=1) found a data race: one "cuda-emu: data race" line on stderr
};
