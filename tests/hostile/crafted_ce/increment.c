// Hostile submission: a compile error whose file name, set by #line, holds a spreadsheet formula,
// terminal escapes and a forged verdict: the CE reason must reach every report as one line of
// text, and a class's batch must still write class.csv (issue 32: on a GPU node it did not).
#line 1 "=HYPERLINK(\"http://example.invalid\")\x1b[2J\x1b[32m AC 100/100"
#include "increment.h"

__global__ void increment_kernel(float *data, int n)
{
    data[threadIdx.x] = n  // a missing semicolon: the compiler names the file above
}
