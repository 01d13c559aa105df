#include <cstdio>

int check_vector_add(int n);

int main()
{
    const int wrong = check_vector_add(1000);
    std::printf("%s: %d wrong\n", wrong == 0 ? "PASSED" : "FAILED", wrong);
    return wrong == 0 ? 0 : 1;
}
