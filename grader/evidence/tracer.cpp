// The GPU run record: a CUPTI activity-API injection library that records, from outside the
// student's code, every kernel launch, memcpy and memset the process makes on the GPU, and
// streams them as JSON lines to the file named by LABKIT_GPU_RECORD. grader/evidence/record.py
// reads it; README.md in this folder says how the grader loads it and what it can be trusted for.
//
// Theory of operation. The CUDA driver loads the library named by CUDA_INJECTION64_PATH when the
// process first initializes CUDA, and calls InitializeInjection() before any CUDA work runs.
// There the tracer opens the record (append-only, close-on-exec), writes its header line,
// removes both variables from the environment (a child process is not traced into the same
// file), and asks CUPTI for the activity of kernels, copies (peer copies too) and memsets.
// CUPTI hands back filled buffers from its own thread (at the latest every kFlushPeriodMs): each
// buffer's records are written in one write() as they come, so a record already written is
// never rewritten by the tracer, and what a program does later cannot change it through the
// tracer. At exit (return from main, or exit()) an atexit handler flushes what CUPTI still holds
// and writes the end line with the count of records and of records CUPTI dropped.
//
// What is lost: a process that ends by _exit(), a signal or a crash runs no atexit handler, so
// its record has no end line and lacks the last buffers (up to kFlushPeriodMs of work): the
// reader calls that record truncated, a fact about the run the grader reports, never a verdict
// drawn from missing evidence.
//
// Record lines (one JSON object each; "seq" counts the event lines from 0):
//   {"labkit_gpu_record": 1, "pid", "cupti_api_version", "flush_period_ms"}
//   {"seq", "kind": "kernel", "name" (demangled), "device", "stream", "grid": [x,y,z], "block": [x,y,z],
//    "start", "end" (ns, CUPTI's clock), "correlation" (the API call's order in the process)}
//   {"seq", "kind": "memcpy", "direction": "HtoD"|"DtoH"|"DtoD"|"HtoH"|"PtoP"|"other", "bytes", "device",
//    "src_device", "dst_device", "stream", "start", "end", "correlation"}
//   {"seq", "kind": "memset", "bytes", "device", "stream", "start", "end", "correlation"}
//   {"error": "..."}                           a CUPTI call failed: the record is incomplete
//   {"end": true, "events", "dropped"}          written at exit
#include <cupti.h>
#include <cxxabi.h>
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>

namespace {

// Record layouts: CUPTI fills the newest layout of its release; the fields read here have kept
// their place across the 12.x and 13.x layouts.
#if CUPTI_API_VERSION >= 130000
using KernelRecord = CUpti_ActivityKernel10;
using MemcpyRecord = CUpti_ActivityMemcpy6;
#else
using KernelRecord = CUpti_ActivityKernel9;
using MemcpyRecord = CUpti_ActivityMemcpy5;
#endif
using PeerRecord = CUpti_ActivityMemcpyPtoP4;
using MemsetRecord = CUpti_ActivityMemset4;

constexpr const char *kRecordVariable = "LABKIT_GPU_RECORD";
constexpr std::size_t kBufferBytes = 1 << 20;
constexpr std::size_t kAlign = 8;
constexpr std::uint32_t kFlushPeriodMs = 100;  // a killed run loses at most this much

struct Tracer {
    std::mutex mutex;  // CUPTI's thread and the exit handler both write
    int fd = -1;
    std::string path;
    std::uint64_t events = 0;
    std::uint64_t dropped = 0;
    bool ended = false;
};
Tracer tracer;

void say(const std::string &what)
{
    std::string line = "labkit GPU record (grader/evidence/tracer.cpp): " + what + "\n";
    ssize_t ignored = write(STDERR_FILENO, line.data(), line.size());
    (void)ignored;
}

// The whole of `text` or an error said on stderr (the record then reads as truncated).
void write_all(const std::string &text)
{
    const char *data = text.data();
    std::size_t left = text.size();
    while (left > 0 && tracer.fd >= 0) {
        ssize_t done = write(tracer.fd, data, left);
        if (done < 0 && errno == EINTR) continue;
        if (done <= 0) {
            say("writing " + tracer.path + " failed: " + std::strerror(errno) +
                "; the record stops here (the grader reports it as incomplete): free disk space or check the folder");
            close(tracer.fd);
            tracer.fd = -1;
            return;
        }
        data += done;
        left -= (std::size_t)done;
    }
}

std::string quoted(const char *text)
{
    std::string out = "\"";
    for (const unsigned char *c = (const unsigned char *)(text ? text : ""); *c; ++c) {
        if (*c == '"' || *c == '\\') {
            out += '\\';
            out += (char)*c;
        } else if (*c < 0x20 || *c >= 0x7f) {  // JSON-safe and ASCII: a name is data, not text to show
            char escaped[8];
            std::snprintf(escaped, sizeof escaped, "\\u%04x", *c);
            out += escaped;
        } else {
            out += (char)*c;
        }
    }
    return out + "\"";
}

std::string demangled(const char *name)
{
    int status = 0;
    char *readable = abi::__cxa_demangle(name, nullptr, nullptr, &status);
    std::string out = status == 0 && readable ? readable : (name ? name : "");
    std::free(readable);
    return out;
}

bool checked(CUptiResult result, const char *call)
{
    if (result == CUPTI_SUCCESS) return true;
    const char *text = "unknown error";
    cuptiGetResultString(result, &text);
    std::string what = std::string(call) + " failed: " + text;
    say(what + "; the GPU record is incomplete. Check that libcupti of the same CUDA version as the driver "
               "is on LD_LIBRARY_PATH, and that no other profiler (ncu, nsys) is attached");
    std::lock_guard<std::mutex> lock(tracer.mutex);
    write_all("{\"error\": " + quoted(what.c_str()) + "}\n");
    return false;
}

const char *direction(std::uint8_t kind)
{
    switch (kind) {
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOD: return "HtoD";
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOH: return "DtoH";
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOA: return "HtoD";
    case CUPTI_ACTIVITY_MEMCPY_KIND_ATOH: return "DtoH";
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOD:
    case CUPTI_ACTIVITY_MEMCPY_KIND_ATOA:
    case CUPTI_ACTIVITY_MEMCPY_KIND_ATOD:
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOA: return "DtoD";
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOH: return "HtoH";
    case CUPTI_ACTIVITY_MEMCPY_KIND_PTOP: return "PtoP";
    default: return "other";
    }
}

bool from_host(std::uint8_t kind)
{
    return kind == CUPTI_ACTIVITY_MEMCPY_KIND_HTOD || kind == CUPTI_ACTIVITY_MEMCPY_KIND_HTOA ||
           kind == CUPTI_ACTIVITY_MEMCPY_KIND_HTOH;
}

bool to_host(std::uint8_t kind)
{
    return kind == CUPTI_ACTIVITY_MEMCPY_KIND_DTOH || kind == CUPTI_ACTIVITY_MEMCPY_KIND_ATOH ||
           kind == CUPTI_ACTIVITY_MEMCPY_KIND_HTOH;
}

// A copy's line, the same fields whichever CUPTI record (a copy, a peer copy) it comes from.
std::string copy_line(const char *direction, unsigned long long bytes, unsigned device, int src_device,
                      int dst_device, unsigned stream, unsigned long long start, unsigned long long end,
                      unsigned correlation)
{
    char body[512];
    std::snprintf(body, sizeof body,
                  "\"kind\": \"memcpy\", \"direction\": \"%s\", \"bytes\": %llu, \"device\": %u, "
                  "\"src_device\": %d, \"dst_device\": %d, \"stream\": %u, \"start\": %llu, \"end\": %llu, "
                  "\"correlation\": %u}\n",
                  direction, bytes, device, src_device, dst_device, stream, start, end, correlation);
    return body;
}

std::string event_line(const CUpti_Activity *record)
{
    char head[64];
    std::snprintf(head, sizeof head, "{\"seq\": %llu, ", (unsigned long long)tracer.events);
    char body[512];
    switch (record->kind) {
    case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
    case CUPTI_ACTIVITY_KIND_KERNEL: {
        auto *k = (const KernelRecord *)record;
        std::snprintf(body, sizeof body,
                      ", \"device\": %u, \"stream\": %u, \"grid\": [%d, %d, %d], \"block\": [%d, %d, %d], "
                      "\"start\": %llu, \"end\": %llu, \"correlation\": %u}\n",
                      k->deviceId, k->streamId, k->gridX, k->gridY, k->gridZ, k->blockX, k->blockY, k->blockZ,
                      (unsigned long long)k->start, (unsigned long long)k->end, k->correlationId);
        return head + std::string("\"kind\": \"kernel\", \"name\": ") + quoted(demangled(k->name).c_str()) + body;
    }
    case CUPTI_ACTIVITY_KIND_MEMCPY: {
        auto *m = (const MemcpyRecord *)record;
        return head + copy_line(direction(m->copyKind), m->bytes, m->deviceId,
                                from_host(m->copyKind) ? -1 : (int)m->deviceId,
                                to_host(m->copyKind) ? -1 : (int)m->deviceId, m->streamId, m->start, m->end,
                                m->correlationId);
    }
    case CUPTI_ACTIVITY_KIND_MEMCPY2: {
        auto *p = (const PeerRecord *)record;
        return head + copy_line(p->srcDeviceId == p->dstDeviceId ? "DtoD" : "PtoP", p->bytes, p->deviceId,
                                (int)p->srcDeviceId, (int)p->dstDeviceId, p->streamId, p->start, p->end,
                                p->correlationId);
    }
    case CUPTI_ACTIVITY_KIND_MEMSET: {
        auto *s = (const MemsetRecord *)record;
        std::snprintf(body, sizeof body,
                      "\"kind\": \"memset\", \"bytes\": %llu, \"device\": %u, \"stream\": %u, \"start\": %llu, "
                      "\"end\": %llu, \"correlation\": %u}\n",
                      (unsigned long long)s->bytes, s->deviceId, s->streamId, (unsigned long long)s->start,
                      (unsigned long long)s->end, s->correlationId);
        return head + std::string(body);
    }
    default:
        return "";
    }
}

void CUPTIAPI buffer_requested(uint8_t **buffer, size_t *size, size_t *max_records)
{
    void *memory = nullptr;
    if (posix_memalign(&memory, kAlign, kBufferBytes) != 0) {
        say("no memory for a CUPTI buffer; the records of this stretch are dropped (counted in the end line)");
        *buffer = nullptr;
        *size = 0;
    } else {
        *buffer = static_cast<uint8_t *>(memory);
        *size = kBufferBytes;
    }
    *max_records = 0;
}

void CUPTIAPI buffer_completed(CUcontext context, uint32_t stream, uint8_t *buffer, size_t size, size_t valid)
{
    std::string lines;
    {
        std::lock_guard<std::mutex> lock(tracer.mutex);
        CUpti_Activity *record = nullptr;
        while (cuptiActivityGetNextRecord(buffer, valid, &record) == CUPTI_SUCCESS) {
            std::string line = event_line(record);
            if (line.empty()) continue;
            lines += line;
            ++tracer.events;
        }
        std::size_t lost = 0;
        if (cuptiActivityGetNumDroppedRecords(context, stream, &lost) == CUPTI_SUCCESS) tracer.dropped += lost;
        if (!tracer.ended) write_all(lines);
    }
    std::free(buffer);
    (void)size;
}

void at_exit()
{
    // FORCED: buffers still being filled are delivered too (a kernel's record once it has ended).
    checked(cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED), "cuptiActivityFlushAll");
    std::lock_guard<std::mutex> lock(tracer.mutex);
    char line[128];
    std::snprintf(line, sizeof line, "{\"end\": true, \"events\": %llu, \"dropped\": %llu}\n",
                  (unsigned long long)tracer.events, (unsigned long long)tracer.dropped);
    write_all(line);
    tracer.ended = true;
    if (tracer.fd >= 0) close(tracer.fd);
    tracer.fd = -1;
}

}  // namespace

// Called by the CUDA driver (CUDA_INJECTION64_PATH); the library's one exported symbol.
extern "C" __attribute__((visibility("default"))) int InitializeInjection(void)
{
    const char *path = std::getenv(kRecordVariable);
    if (!path || !*path) {
        say(std::string(kRecordVariable) + " is not set: no record is written. The grader sets it with "
                                           "CUDA_INJECTION64_PATH; set both, or neither");
        return 1;
    }
    tracer.path = path;
    tracer.fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0600);
    if (tracer.fd < 0) {
        say("cannot open " + tracer.path + " for writing: " + std::strerror(errno) +
            "; no record is written (the grader reports it missing): give a writable path in " + kRecordVariable);
        return 1;
    }
    unsetenv(kRecordVariable);
    unsetenv("CUDA_INJECTION64_PATH");
    bool periodic = cuptiActivityFlushPeriod(kFlushPeriodMs) == CUPTI_SUCCESS;
    char header[160];
    std::snprintf(header, sizeof header,
                  "{\"labkit_gpu_record\": 1, \"pid\": %d, \"cupti_api_version\": %d, \"flush_period_ms\": %u}\n",
                  (int)getpid(), (int)CUPTI_API_VERSION, periodic ? kFlushPeriodMs : 0u);
    {
        std::lock_guard<std::mutex> lock(tracer.mutex);
        write_all(header);
    }
    if (!checked(cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed), "cuptiActivityRegisterCallbacks"))
        return 1;
    const CUpti_ActivityKind kinds[] = {CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, CUPTI_ACTIVITY_KIND_MEMCPY,
                                        CUPTI_ACTIVITY_KIND_MEMCPY2, CUPTI_ACTIVITY_KIND_MEMSET};
    const char *names[] = {"cuptiActivityEnable(CONCURRENT_KERNEL)", "cuptiActivityEnable(MEMCPY)",
                           "cuptiActivityEnable(MEMCPY2)", "cuptiActivityEnable(MEMSET)"};
    for (int i = 0; i < 4; ++i)
        if (!checked(cuptiActivityEnable(kinds[i]), names[i])) return 1;
    if (std::atexit(at_exit) != 0) say("atexit failed: the record will have no end line (read as truncated)");
    return 1;
}
