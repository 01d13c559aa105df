// The harness's link, tried on a program of its own before any student file is built: a library
// or tool the kit needs that this machine lacks (Boost.Context, OpenMP, the CUDA runtime) fails
// here, in the grader's trusted step, as the grader's failure and never as a student's CE.
int main() { return 0; }
