// Student corpus: the per-row kernel's guard is `row < rows - 1` (row_ptr has rows + 1
// entries, and the student counted them): the last row's sum is never added, its y keeps the
// starting value: one entry of a thousand, far past its own row's bound.
#include "spmv.h"

#define BLOCK_SIZE 256   // threads a block; the segmented scan's stretch is one block of elements
#define MAX_LEVELS 8     // scan levels: 256^8 elements is far past the lab's 2^30 nonzeros

// ---- thread per row -------------------------------------------------------------------------

// The lecture's kernel: thread `row` adds row `row`'s dot product with x to y[row]. The guard
// keeps the threads of the last block that lie past the matrix from reading row_ptr[row + 1].
__global__ void spmv_row_kernel(int rows, const int *row_ptr, const int *col_idx, const float *values,
                                const float *x, float *y)
{
    int row = blockIdx.x * blockDim.x + threadIdx.x;
    if (row < rows - 1) {
        float dot = 0.0f;
        int row_start = row_ptr[row], row_end = row_ptr[row + 1];
        for (int jj = row_start; jj < row_end; jj++)
            dot += values[jj] * x[col_idx[jj]];
        y[row] += dot;
    }
}

// The hybrid's per-row part: the same, over the row's first `line` nonzeros only.
__global__ void spmv_row_part_kernel(int rows, int line, const int *row_ptr, const int *col_idx, const float *values,
                                     const float *x, float *y)
{
    int row = blockIdx.x * blockDim.x + threadIdx.x;
    if (row < rows) {
        float dot = 0.0f;
        int row_start = row_ptr[row], row_end = row_ptr[row + 1];
        if (row_end > row_start + line)
            row_end = row_start + line;
        for (int jj = row_start; jj < row_end; jj++)
            dot += values[jj] * x[col_idx[jj]];
        y[row] += dot;
    }
}

// ---- thread per element ---------------------------------------------------------------------

// Step 1: a 1 on the first nonzero of every row that has one (a segment head), 0 elsewhere
// (heads is zeroed first). A row that is empty owns no element and heads nothing.
__global__ void mark_heads_kernel(int rows, const int *row_ptr, int *heads)
{
    int row = blockIdx.x * blockDim.x + threadIdx.x;
    if (row < rows && row_ptr[row] < row_ptr[row + 1])
        heads[row_ptr[row]] = 1;
}

// Step 2: one multiply per nonzero, the partial products.
__global__ void multiply_kernel(int nnz, const int *col_idx, const float *values, const float *x, float *products)
{
    int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k < nnz)
        products[k] = values[k] * x[col_idx[k]];
}

// Step 3: the backward inclusive segmented sum scan of one block of `n` values, in shared memory
// (Hillis and Steele: log2(BLOCK_SIZE) steps, each a sum with the element d places on). After
// it, sums[k] holds sums[k] + ... up to the end of k's segment or of the block, whichever
// comes first, so a head holds its row's sum within the block. A segment ends at k when k + 1
// is a head (or k is the last element). Per block it also writes what the level above needs:
// its first element's sum (block_sums) and, as the head flag of the next block there, whether
// a segment ended inside it; and per element whether its segment runs on past the block (open),
// for the fix-up.
__global__ void segmented_scan_block_kernel(int n, float *sums, const int *heads, int *open, float *block_sums,
                                            int *block_heads)
{
    __shared__ float sum[BLOCK_SIZE];
    __shared__ int ended[BLOCK_SIZE];  // a segment ends between this element and the reach of its sum
    int t = threadIdx.x, k = blockIdx.x * BLOCK_SIZE + t;
    sum[t] = k < n ? sums[k] : 0.0f;
    ended[t] = k >= n - 1 || heads[k + 1];
    __syncthreads();
    for (int d = 1; d < BLOCK_SIZE; d *= 2) {
        float mine = sum[t], next = t + d < BLOCK_SIZE ? sum[t + d] : 0.0f;
        int mine_ended = ended[t], next_ended = t + d < BLOCK_SIZE ? ended[t + d] : 0;
        __syncthreads();
        sum[t] = mine_ended ? mine : mine + next;
        ended[t] = mine_ended | next_ended;
        __syncthreads();
    }
    if (k < n) {
        sums[k] = sum[t];
        open[k] = !ended[t];
    }
    if (t == 0 && block_sums) {
        block_sums[blockIdx.x] = sum[0];
        if (blockIdx.x + 1 < gridDim.x)
            block_heads[blockIdx.x + 1] = ended[0];
        if (blockIdx.x == 0)
            block_heads[0] = 1;
    }
}

// Step 4: the carry. An element whose segment runs past its block's end adds the sum that
// starts the next block, which the level above has scanned in full.
__global__ void add_carry_kernel(int n, float *sums, const int *open, const float *block_sums)
{
    int k = blockIdx.x * blockDim.x + threadIdx.x;
    int next_block = k / BLOCK_SIZE + 1;
    if (k < n && open[k] && next_block < (n + BLOCK_SIZE - 1) / BLOCK_SIZE)
        sums[k] += block_sums[next_block];
}

// Step 5: the gather. Each row with nonzeros takes its sum from its head.
__global__ void gather_kernel(int rows, const int *row_ptr, const float *sums, float *y)
{
    int row = blockIdx.x * blockDim.x + threadIdx.x;
    if (row < rows && row_ptr[row] < row_ptr[row + 1])
        y[row] += sums[row_ptr[row]];
}

// The per-element machinery for one CSR matrix: level 0 holds the products, level l + 1 one
// value per block of level l.
struct ElementWork {
    int levels;
    int size[MAX_LEVELS];
    float *sums[MAX_LEVELS];
    int *heads[MAX_LEVELS];
    int *open[MAX_LEVELS];
};

static int blocks_for(int n) { return (n + BLOCK_SIZE - 1) / BLOCK_SIZE; }

static void element_work_alloc(ElementWork *w, int nnz)
{
    w->levels = 0;
    for (int n = nnz; n > 0 && w->levels < MAX_LEVELS; n = n > BLOCK_SIZE ? blocks_for(n) : 0) {
        int l = w->levels++;
        w->size[l] = n;
        CUDA_CHECK(cudaMalloc((void **)&w->sums[l], (size_t)n * sizeof(float)));
        CUDA_CHECK(cudaMalloc((void **)&w->heads[l], (size_t)n * sizeof(int)));
        CUDA_CHECK(cudaMalloc((void **)&w->open[l], (size_t)n * sizeof(int)));
    }
}

static void element_work_free(ElementWork *w)
{
    for (int l = 0; l < w->levels; ++l) {
        CUDA_CHECK(cudaFree(w->sums[l]));
        CUDA_CHECK(cudaFree(w->heads[l]));
        CUDA_CHECK(cudaFree(w->open[l]));
    }
}

// y += A·x by thread per element, on a matrix whose arrays are on the device.
static void element_spmv(ElementWork *w, const Csr *A, const float *x, float *y)
{
    if (A->nnz == 0)
        return;  // nothing to add, and a launch of zero blocks is an error
    CUDA_CHECK(cudaMemset(w->heads[0], 0, (size_t)A->nnz * sizeof(int)));
    mark_heads_kernel<<<blocks_for(A->rows), BLOCK_SIZE>>>(A->rows, A->row_ptr, w->heads[0]);
    CUDA_CHECK_LAUNCH();
    multiply_kernel<<<blocks_for(A->nnz), BLOCK_SIZE>>>(A->nnz, A->col_idx, A->values, x, w->sums[0]);
    CUDA_CHECK_LAUNCH();
    for (int l = 0; l < w->levels; ++l) {
        int up = l + 1 < w->levels;
        segmented_scan_block_kernel<<<blocks_for(w->size[l]), BLOCK_SIZE>>>(
            w->size[l], w->sums[l], w->heads[l], w->open[l], up ? w->sums[l + 1] : NULL, up ? w->heads[l + 1] : NULL);
        CUDA_CHECK_LAUNCH();
    }
    for (int l = w->levels - 2; l >= 0; --l) {
        add_carry_kernel<<<blocks_for(w->size[l]), BLOCK_SIZE>>>(w->size[l], w->sums[l], w->open[l], w->sums[l + 1]);
        CUDA_CHECK_LAUNCH();
    }
    gather_kernel<<<blocks_for(A->rows), BLOCK_SIZE>>>(A->rows, A->row_ptr, w->sums[0], y);
    CUDA_CHECK_LAUNCH();
}

// ---- the hybrid -----------------------------------------------------------------------------

// Bell and Garland's rule: the largest K such that at least a third of the rows have K or more
// nonzeros. Thread per row is about three times as fast as thread per element on balanced rows,
// so the per-row part is worth it while a third of the rows still have work at that column.
static int hybrid_line(const Csr *host)
{
    int longest = 0;
    for (int r = 0; r < host->rows; ++r)
        if (host->row_ptr[r + 1] - host->row_ptr[r] > longest)
            longest = host->row_ptr[r + 1] - host->row_ptr[r];
    long long *rows_of_length = (long long *)calloc((size_t)longest + 1, sizeof(long long));
    for (int r = 0; r < host->rows; ++r)
        rows_of_length[host->row_ptr[r + 1] - host->row_ptr[r]]++;
    long long at_least = host->rows;  // rows with `line` or more nonzeros
    int line = 0;
    while (line < longest && 3 * (at_least - rows_of_length[line]) >= host->rows) {
        at_least -= rows_of_length[line];
        ++line;
    }
    free(rows_of_length);
    return line;
}

// The nonzeros past the line, as a CSR matrix of their own (same rows), copied to the device.
struct DeviceTail {
    Csr csr;  // device pointers
    int *row_ptr, *col_idx;
    float *values;
};

static void make_tail(const Csr *host, int line, DeviceTail *tail)
{
    int rows = host->rows;
    int *row_ptr = (int *)malloc(((size_t)rows + 1) * sizeof(int));
    row_ptr[0] = 0;
    for (int r = 0; r < rows; ++r) {
        int past = host->row_ptr[r + 1] - host->row_ptr[r] - line;
        row_ptr[r + 1] = row_ptr[r] + (past > 0 ? past : 0);
    }
    int nnz = row_ptr[rows];
    size_t room = nnz > 0 ? (size_t)nnz : 1;  // cudaMalloc of 0 bytes gives no pointer to free
    int *col_idx = (int *)malloc(room * sizeof(int));
    float *values = (float *)malloc(room * sizeof(float));
    for (int r = 0; r < rows; ++r)
        for (int k = host->row_ptr[r] + line, at = row_ptr[r]; k < host->row_ptr[r + 1]; ++k, ++at) {
            col_idx[at] = host->col_idx[k];
            values[at] = host->values[k];
        }
    CUDA_CHECK(cudaMalloc((void **)&tail->row_ptr, ((size_t)rows + 1) * sizeof(int)));
    CUDA_CHECK(cudaMalloc((void **)&tail->col_idx, room * sizeof(int)));
    CUDA_CHECK(cudaMalloc((void **)&tail->values, room * sizeof(float)));
    CUDA_CHECK(cudaMemcpy(tail->row_ptr, row_ptr, ((size_t)rows + 1) * sizeof(int), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(tail->col_idx, col_idx, (size_t)nnz * sizeof(int), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(tail->values, values, (size_t)nnz * sizeof(float), cudaMemcpyHostToDevice));
    Csr csr = {rows, host->cols, nnz, tail->row_ptr, tail->col_idx, tail->values};
    tail->csr = csr;
    free(row_ptr);
    free(col_idx);
    free(values);
}

// ---- the plan -------------------------------------------------------------------------------

struct SpmvPlan {
    SpmvKernel kernel;
    Csr A;           // device pointers (the harness's)
    int line;        // hybrid: each row's first `line` nonzeros go to the per-row part
    DeviceTail tail; // hybrid: the rest
    ElementWork work;
};

SpmvPlan *spmv_prepare(SpmvKernel kernel, const Csr *device, const Csr *host)
{
    SpmvPlan *plan = (SpmvPlan *)calloc(1, sizeof(SpmvPlan));
    plan->kernel = kernel;
    plan->A = *device;
    plan->line = -1;
    if (kernel == SPMV_ELEMENT)
        element_work_alloc(&plan->work, device->nnz);
    if (kernel == SPMV_HYBRID) {
        plan->line = hybrid_line(host);
        make_tail(host, plan->line, &plan->tail);
        element_work_alloc(&plan->work, plan->tail.csr.nnz);
    }
    return plan;
}

int spmv_line(const SpmvPlan *plan) { return plan->line; }

void spmv_run(SpmvPlan *plan, const float *x, float *y)
{
    const Csr *A = &plan->A;
    if (plan->kernel == SPMV_ROW) {
        spmv_row_kernel<<<blocks_for(A->rows), BLOCK_SIZE>>>(A->rows, A->row_ptr, A->col_idx, A->values, x, y);
        CUDA_CHECK_LAUNCH();
    } else if (plan->kernel == SPMV_ELEMENT) {
        element_spmv(&plan->work, A, x, y);
    } else {
        spmv_row_part_kernel<<<blocks_for(A->rows), BLOCK_SIZE>>>(A->rows, plan->line, A->row_ptr, A->col_idx,
                                                                   A->values, x, y);
        CUDA_CHECK_LAUNCH();
        element_spmv(&plan->work, &plan->tail.csr, x, y);
    }
}

void spmv_release(SpmvPlan *plan)
{
    element_work_free(&plan->work);
    if (plan->kernel == SPMV_HYBRID) {
        CUDA_CHECK(cudaFree(plan->tail.row_ptr));
        CUDA_CHECK(cudaFree(plan->tail.col_idx));
        CUDA_CHECK(cudaFree(plan->tail.values));
    }
    free(plan);
}
