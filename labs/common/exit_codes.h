// Exit codes of every lab program; the grader reads them (grader/verdict.py).
#pragma once

enum {
    LAB_EXIT_OK = 0,
    LAB_EXIT_WRONG = 1,   // the harness's own check of the result failed
    LAB_EXIT_USAGE = 2,   // bad arguments or a bad input file
    LAB_EXIT_CUDA = 3,    // a CUDA call or launch failed
    LAB_EXIT_TODO = 4,    // the student's code reached a LAB_TODO
    LAB_EXIT_NO_GPU = 5,  // no CUDA device to run on
};

// Set by the CPU emulator's runtime (labs/emu), not by a harness.
enum {
    LAB_EXIT_RACE = 6,  // the race detector (EMU_RACECHECK=1) found a data race: one "cuda-emu: data race" line on stderr
};
