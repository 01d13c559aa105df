// Who last wrote each part of device memory, for the profile (EMU_PROFILE): a kernel (which
// one, on which device), a copy from the host (its file and line), a cudaMemset, or a copy from
// other device memory (which passes on what the source's bytes were written by). Kept per
// 4-byte word of each allocation, made on the first write the profile sees.
//
// The harness says which host array holds the lab's result (cudaemu_profile_output): the
// profile then tells, for that array, the copies from the device it came from and who wrote
// their bytes, so the grader can ask whether the student's kernels computed it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "cuda_runtime.h"

namespace cudaemu {

enum class WriterKind : unsigned char { Never, Kernel, HostCopy, Memset };

struct Writer {
    WriterKind kind = WriterKind::Never;
    std::string name;  // the kernel, or the API call
    std::string file;  // where the call was made, when known
    int line = 0;
    int device = 0;
    bool harness = false;  // called from the harness's own code (CUDAEMU_HARNESS, cuda_emu/launch.h)
};

// The id of a writer (the same writer, the same id); 0 is "never written".
std::uint16_t intern_writer(WriterKind kind, const std::string &name, const char *file, int line, int device,
                            bool harness);
std::vector<Writer> writers();

// A kernel's store (or atomic) of `bytes` at `address`, if that is device memory.
void owners_mark(std::uintptr_t address, std::size_t bytes, std::uint16_t writer);
// After a copy or fill was made (api/memory_copy.cpp); `call` names the API function.
void profile_copy(const char *call, void *dst, const void *src, std::size_t bytes);
void profile_copy_2d(const char *call, void *dst, std::size_t dpitch, const void *src, std::size_t spitch,
                     std::size_t width, std::size_t height);
void profile_fill(const char *call, void *dst, std::size_t bytes);
void profile_freed(const void *start);

// What came back into a host range: for the profile's "output" section.
struct OutputPart {
    std::uint64_t bytes = 0;
    std::vector<std::pair<std::uint16_t, std::uint64_t>> writers;  // writer id, bytes
    int device = -1;            // the device it was copied from; -1: not copied from a device
    std::string file;           // the copy's call
    int line = 0;
    bool changed_on_host = false;  // the host bytes differ from what the copy brought
};
struct OutputRecord {
    std::string what;
    std::uint64_t bytes = 0;
    // Bytes that kernels wrote and other copies brought back to the host (a staging buffer
    // the program then copied into the result on the host, as the NTHU report's code does).
    std::uint64_t staged_kernel_bytes = 0;
    // Of those, per device: the bytes its own kernels wrote (a multi-GPU program's bands).
    std::vector<std::pair<int, std::uint64_t>> staged_own_by_device;
    std::vector<OutputPart> parts;
};
std::vector<OutputRecord> output_records();

// Per device: bytes copied in from the host, out to the host, and between devices.
struct DeviceTraffic {
    std::uint64_t from_host = 0, to_host = 0, from_other_devices = 0, to_other_devices = 0;
};
std::vector<DeviceTraffic> device_traffic();

// The API call's site, set by the macros of cuda_runtime.h just before the call.
void note_call_site(const char *file, int line, bool harness);

}  // namespace cudaemu

extern "C" void cudaemu_profile_output(const void *host, size_t bytes, const char *what);
