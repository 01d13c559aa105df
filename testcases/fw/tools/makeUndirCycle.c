/* makeUndirCycle N: prints an undirected N-cycle in the fw lab's graph text format (Hochberg's
 * module, [Hochberg 2012], section 2.2.1, Figure 2.2 right): vertices 0..N-1, each
 * edge of the cycle written both ways, length 1. "An undirected cycle on n vertices is a good
 * test case for the Floyd-Warshall algorithm, since it takes a full n iterations of the
 * algorithm to find all shortest paths." Build with `make cycleProgs`; use as
 *     build/tools/fw/makeUndirCycle 10 > undircycle10.txt
 * testcases/fw/gen.py undircycle N prints the same text (tests/fw/test_fw_tools.py checks). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char *argv[])
{
    char *end = NULL;
    errno = 0;
    long n = argc == 2 ? strtol(argv[1], &end, 10) : 0;
    if (argc != 2 || *end != '\0' || errno == ERANGE || n < 1 || n > 46000) {
        fprintf(stderr, "usage: makeUndirCycle N   (N vertices, 1 to 46000; the graph goes to stdout)\n");
        return 2;
    }
    for (long i = 0; i < n; i++) {
        long next = (i + 1) % n;
        printf("%ld %ld 1\n%ld %ld 1\n", i, next, next, i);
    }
    printf("--END--\n");
    return fflush(stdout) == 0 ? 0 : 1;
}
