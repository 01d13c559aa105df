// Lab 4, program 1: Floyd-Warshall on the CPU with OpenMP.
#include <omp.h>

#include "apsp.h"

void apsp_solve(int *dist, int n, ApspTimes *times)
{
    HostTimer timer;
    for (int k = 0; k < n; k++) {
        const int *row_k = dist + (size_t)k * n;
        #pragma omp parallel for
        for (int i = 0; i < n; i++) {
            int *row_i = dist + (size_t)i * n;
            int dik = row_i[k];
            for (int j = 0; j < n; j++)
                if (dik + row_k[j] < row_i[j])
                    row_i[j] = dik + row_k[j];
        }
    }
    times->compute_ms = timer.ms();
}
