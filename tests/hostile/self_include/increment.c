// Hostile submission: A file that includes itself without end (the Makefile copies it to
// increment.cu): the compiler's own depth limit, a CE.
#include "increment.cu"
