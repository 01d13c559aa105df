// NVTX, NVIDIA's annotation API (ranges, marks, names), as the emulator provides it: without a
// profiler attached to collect them, NVTX calls do nothing, and that is all they do here. The
// values returned are those of NVTX with no tool attached (a push or pop returns
// NVTX_NO_PUSH_POP_TRACKING). Header-only, as NVTX v3 is; no library to link.
#pragma once

#include <stddef.h>
#include <stdint.h>
#include <wchar.h>

#define NVTX_VERSION 3
#define NVTX_NO_PUSH_POP_TRACKING ((int)-2)

#define NVTX_EVENT_ATTRIB_STRUCT_SIZE ((uint16_t)(sizeof(nvtxEventAttributes_t)))

typedef enum nvtxColorType_t { NVTX_COLOR_UNKNOWN = 0, NVTX_COLOR_ARGB = 1 } nvtxColorType_t;
typedef enum nvtxMessageType_t {
    NVTX_MESSAGE_UNKNOWN = 0,
    NVTX_MESSAGE_TYPE_ASCII = 1,
    NVTX_MESSAGE_TYPE_UNICODE = 2,
    NVTX_MESSAGE_TYPE_REGISTERED = 3
} nvtxMessageType_t;
typedef enum nvtxPayloadType_t {
    NVTX_PAYLOAD_UNKNOWN = 0,
    NVTX_PAYLOAD_TYPE_UNSIGNED_INT64 = 1,
    NVTX_PAYLOAD_TYPE_INT64 = 2,
    NVTX_PAYLOAD_TYPE_DOUBLE = 3,
    NVTX_PAYLOAD_TYPE_UNSIGNED_INT32 = 4,
    NVTX_PAYLOAD_TYPE_INT32 = 5,
    NVTX_PAYLOAD_TYPE_FLOAT = 6
} nvtxPayloadType_t;

typedef struct nvtxStringHandle *nvtxStringHandle_t;
typedef struct nvtxDomainHandle *nvtxDomainHandle_t;
typedef uint64_t nvtxRangeId_t;

typedef union nvtxMessageValue_t {
    const char *ascii;
    const wchar_t *unicode;
    nvtxStringHandle_t registered;
} nvtxMessageValue_t;

typedef struct nvtxEventAttributes_v2 {
    uint16_t version;
    uint16_t size;
    uint32_t category;
    int32_t colorType;
    uint32_t color;
    int32_t payloadType;
    int32_t reserved0;
    union payload_t {
        uint64_t ullValue;
        int64_t llValue;
        double dValue;
        uint32_t uiValue;
        int32_t iValue;
        float fValue;
    } payload;
    int32_t messageType;
    nvtxMessageValue_t message;
} nvtxEventAttributes_v2;
typedef struct nvtxEventAttributes_v2 nvtxEventAttributes_t;

static inline void nvtxMarkEx(const nvtxEventAttributes_t *) {}
static inline void nvtxMarkA(const char *) {}
static inline void nvtxMarkW(const wchar_t *) {}
static inline nvtxRangeId_t nvtxRangeStartEx(const nvtxEventAttributes_t *) { return 0; }
static inline nvtxRangeId_t nvtxRangeStartA(const char *) { return 0; }
static inline nvtxRangeId_t nvtxRangeStartW(const wchar_t *) { return 0; }
static inline void nvtxRangeEnd(nvtxRangeId_t) {}
static inline int nvtxRangePushEx(const nvtxEventAttributes_t *) { return NVTX_NO_PUSH_POP_TRACKING; }
static inline int nvtxRangePushA(const char *) { return NVTX_NO_PUSH_POP_TRACKING; }
static inline int nvtxRangePushW(const wchar_t *) { return NVTX_NO_PUSH_POP_TRACKING; }
static inline int nvtxRangePop(void) { return NVTX_NO_PUSH_POP_TRACKING; }
static inline void nvtxNameCategoryA(uint32_t, const char *) {}
static inline void nvtxNameCategoryW(uint32_t, const wchar_t *) {}
static inline void nvtxNameOsThreadA(uint32_t, const char *) {}
static inline void nvtxNameOsThreadW(uint32_t, const wchar_t *) {}

static inline nvtxDomainHandle_t nvtxDomainCreateA(const char *) { return (nvtxDomainHandle_t)0; }
static inline nvtxDomainHandle_t nvtxDomainCreateW(const wchar_t *) { return (nvtxDomainHandle_t)0; }
static inline void nvtxDomainDestroy(nvtxDomainHandle_t) {}
static inline nvtxStringHandle_t nvtxDomainRegisterStringA(nvtxDomainHandle_t, const char *)
{
    return (nvtxStringHandle_t)0;
}
static inline void nvtxDomainMarkEx(nvtxDomainHandle_t, const nvtxEventAttributes_t *) {}
static inline nvtxRangeId_t nvtxDomainRangeStartEx(nvtxDomainHandle_t, const nvtxEventAttributes_t *) { return 0; }
static inline void nvtxDomainRangeEnd(nvtxDomainHandle_t, nvtxRangeId_t) {}
static inline int nvtxDomainRangePushEx(nvtxDomainHandle_t, const nvtxEventAttributes_t *)
{
    return NVTX_NO_PUSH_POP_TRACKING;
}
static inline int nvtxDomainRangePop(nvtxDomainHandle_t) { return NVTX_NO_PUSH_POP_TRACKING; }
static inline void nvtxDomainNameCategoryA(nvtxDomainHandle_t, uint32_t, const char *) {}
