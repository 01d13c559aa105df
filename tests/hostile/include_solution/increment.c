// Hostile submission: Build-time theft: compiles the reference solution in (build/<flavor>/increment/increment.cu
// is three folders below the kit). Sandbox on: the build cannot see solutions/, so CE.
#include "../../../solutions/increment/increment.c"
