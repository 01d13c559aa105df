"""The evidence of what a GPU run did, taken from outside the student's code (issue 32).

The grade of record on a GPU node is the GPU run's, so its work is judged from the GPU run:
    tracer.cpp, tracer_build.py  the CUPTI injection library that records every kernel launch,
                                 copy and memset of the run, and its build
    record.py                    reads that record, and turns the emulator's profile into the same shape
    compare.py                   the GPU run's record against the emulated run's of the same case
    counters.py                  Nsight Compute's global-memory sectors per kernel against the emulator's
    timing.py                    whether the program's kernel_ms is backed by kernels the record shows
    stale_memory.cu              does a fresh cudaMalloc hold an earlier process's data? (measured once)
Each module's docstring says what to call, with what, and what it returns. README.md says how
the pieces fit a grading run; grader/SECURITY.md what the tracer, inside the student's process,
can and cannot be trusted for.
"""
