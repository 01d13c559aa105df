// The L2 access-policy API (CUDA 11+): a stream's window of memory whose lines should persist
// in L2. The emulator has no L2 to steer (cudaDeviceProp::persistingL2CacheMaxSize is 0): it
// checks a window as the runtime does and keeps it so that cudaStreamGetAttribute returns
// what was set; nothing else changes.
#pragma once

#include <stddef.h>

#include "../driver_types.h"

#ifndef CUDAEMU_LAUNCH_ATTRIBUTES_DEFINED
#define CUDAEMU_LAUNCH_ATTRIBUTES_DEFINED 1
enum cudaAccessProperty {
    cudaAccessPropertyNormal = 0,
    cudaAccessPropertyStreaming = 1,
    cudaAccessPropertyPersisting = 2,
};

struct cudaAccessPolicyWindow {
    void *base_ptr;
    size_t num_bytes;
    float hitRatio;
    enum cudaAccessProperty hitProp;
    enum cudaAccessProperty missProp;
};

enum cudaSynchronizationPolicy {
    cudaSyncPolicyAuto = 1,
    cudaSyncPolicySpin = 2,
    cudaSyncPolicyYield = 3,
    cudaSyncPolicyBlockingSync = 4,
};

enum cudaLaunchAttributeID {
    cudaLaunchAttributeIgnore = 0,
    cudaLaunchAttributeAccessPolicyWindow = 1,
    cudaLaunchAttributeCooperative = 2,
    cudaLaunchAttributeSynchronizationPolicy = 3,
    cudaLaunchAttributeClusterDimension = 4,
    cudaLaunchAttributeClusterSchedulingPolicyPreference = 5,
    cudaLaunchAttributeProgrammaticStreamSerialization = 6,
    cudaLaunchAttributeProgrammaticEvent = 7,
    cudaLaunchAttributePriority = 8,
};

union cudaLaunchAttributeValue {
    char pad[64];
    struct cudaAccessPolicyWindow accessPolicyWindow;
    int cooperative;
    enum cudaSynchronizationPolicy syncPolicy;
    struct {
        unsigned int x, y, z;
    } clusterDim;
    int programmaticStreamSerializationAllowed;
    int priority;
};

typedef enum cudaLaunchAttributeID cudaStreamAttrID;
typedef union cudaLaunchAttributeValue cudaStreamAttrValue;
#define cudaStreamAttributeAccessPolicyWindow cudaLaunchAttributeAccessPolicyWindow
#define cudaStreamAttributeSynchronizationPolicy cudaLaunchAttributeSynchronizationPolicy
#define cudaStreamAttributePriority cudaLaunchAttributePriority
#endif  // CUDAEMU_LAUNCH_ATTRIBUTES_DEFINED

extern "C" {
cudaError_t cudaStreamSetAttribute(cudaStream_t stream, cudaStreamAttrID attr, const cudaStreamAttrValue *value);
cudaError_t cudaStreamGetAttribute(cudaStream_t stream, cudaStreamAttrID attr, cudaStreamAttrValue *value_out);
cudaError_t cudaCtxResetPersistingL2Cache(void);
}
