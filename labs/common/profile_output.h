// Tells the emulator's profile (EMU_PROFILE, labs/emu/src/api/memory_owners.h) which host array
// holds the lab's result, once the student's code has filled it: the grader then asks who
// computed it (grader/work.py). Nothing on a GPU build.
#pragma once

#include <cstddef>

#ifdef LABKIT_EMU
extern "C" void cudaemu_profile_output(const void *host, size_t bytes, const char *what);
extern "C" void cudaemu_profile_output_rows(const void *host, size_t pitch, size_t width, size_t rows,
                                            const char *what);
inline void lab_result_ready(const void *host, size_t bytes, const char *what)
{
    cudaemu_profile_output(host, bytes, what);
}
// A result of `rows` rows of `width` bytes, `pitch` bytes apart: the padding between is not
// the result (fw's rows of Na entries, N of them the matrix's).
inline void lab_result_rows_ready(const void *host, size_t pitch, size_t width, size_t rows, const char *what)
{
    cudaemu_profile_output_rows(host, pitch, width, rows, what);
}
#else
inline void lab_result_ready(const void *, size_t, const char *) {}
inline void lab_result_rows_ready(const void *, size_t, size_t, size_t, const char *) {}
#endif
