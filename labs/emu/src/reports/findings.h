// What the emulator found, as data for a program that reads it (the kit's grader): with
// EMU_FINDINGS=path set, each finding is one JSON line appended to that file, beside the
// "cuda-emu:" message the student reads on stderr. The grader decides from the program's exit
// status and reads its reasons from these records, never from the words on stderr.
//
//   {"source": "emulator", "kind": "race", "text": "data race on __shared__ tile: ..."}
//   {"source": "emulator", "kind": "cuda_error", "error": "cudaErrorInvalidValue", "text": "..."}
//   {"source": "emulator", "kind": "fatal", "text": "..."}
#pragma once

namespace cudaemu {
// error: a cudaError_t's name, or nullptr. Safe from any thread; one write() per record.
void record_finding(const char *kind, const char *text, const char *error = nullptr);
}  // namespace cudaemu
