// Messages from the emulator to the student: every one starts with "cuda-emu:", says what
// failed and what to do. warn() explains an error the API also returns (EMU_QUIET=1 silences
// these); fatal() is for states a GPU would hang or trap in, and aborts so that a debugger
// stops right there.
#pragma once

namespace cudaemu {
void warn(const char *format, ...) __attribute__((format(printf, 1, 2)));
[[noreturn]] void fatal(const char *format, ...) __attribute__((format(printf, 1, 2)));
}  // namespace cudaemu
