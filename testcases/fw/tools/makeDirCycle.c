/* makeDirCycle N: prints a directed N-cycle in the fw lab's graph text format (Hochberg's module,
 * [Hochberg 2012], section 2.2.1, Figure 2.2 left): vertices 0..N-1, an edge of length
 * 1 from each vertex to the next, the last back to 0. Build with `make cycleProgs`; use as
 *     build/tools/fw/makeDirCycle 10 > dircycle10.txt
 * testcases/fw/gen.py dircycle N prints the same text (tests/fw/test_fw_tools.py checks). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char *argv[])
{
    char *end = NULL;
    errno = 0;
    long n = argc == 2 ? strtol(argv[1], &end, 10) : 0;
    if (argc != 2 || *end != '\0' || errno == ERANGE || n < 1 || n > 46000) {
        fprintf(stderr, "usage: makeDirCycle N   (N vertices, 1 to 46000; the graph goes to stdout)\n");
        return 2;
    }
    for (long i = 0; i < n; i++)
        printf("%ld %ld 1\n", i, (i + 1) % n);
    printf("--END--\n");
    return fflush(stdout) == 0 ? 0 : 1;
}
