// Built with AddressSanitizer by tests/emu (see texture_test.cu): a texture of linear memory
// outlives the memory; the fetch reads freed memory, and ASan must name this file and the line
// of the fetch, through the texture's code in the runtime.
#include <stdio.h>

__global__ void fetch(cudaTextureObject_t texture, float *out)
{
    out[threadIdx.x] = tex1Dfetch<float>(texture, (int)threadIdx.x);  // PLANTED: the memory was freed
}

int main()
{
    float *data = NULL, *out = NULL;
    cudaMalloc(&data, 32 * sizeof(float));
    cudaMalloc(&out, 32 * sizeof(float));
    cudaResourceDesc resource = {};
    resource.resType = cudaResourceTypeLinear;
    resource.res.linear.devPtr = data;
    resource.res.linear.desc = cudaCreateChannelDesc<float>();
    resource.res.linear.sizeInBytes = 32 * sizeof(float);
    cudaTextureDesc description = {};
    cudaTextureObject_t texture = 0;
    cudaCreateTextureObject(&texture, &resource, &description, NULL);
    cudaFree(data);
    fetch<<<1, 32>>>(texture, out);
    cudaDeviceSynchronize();
    printf("finished without a report\n");
    return 0;
}
