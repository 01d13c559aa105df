// In its own file: with separable compilation, vector_add.cu's kernel calls it across files.
__device__ float scaled(float value, float factor) { return value * factor; }
