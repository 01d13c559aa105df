// The build path itself: compiler errors and crashes point at the student's file and line,
// and the rewriter refuses malformed launches with a message in the compiler's format.
#include <csignal>
#include <fstream>

#include "emu_test_util.h"

namespace {
std::string repo(const std::string &path) { return std::string(EMU_REPO_ROOT) + "/" + path; }

// Writes `source` to a temporary .cu file, rewrites and compiles it (syntax only, unless
// `compile` says otherwise); returns what the rewriter and g++ printed.
CommandResult rewrite_and_compile(const std::string &name, const std::string &source, const std::string &extra = "",
                                  const std::string &compile = "-fsyntax-only")
{
    const std::string dir = std::string(EMU_TEST_PROGRAMS) + "/scratch";
    run_command("mkdir -p " + dir);
    const std::string cu = dir + "/" + name + ".cu", cpp = dir + "/" + name + ".cpp";
    std::ofstream(cu) << source;
    return run_command("python3 " + repo("labs/emu/rewriter") + " " + cu + " " + cpp + " " + extra + " && g++ -std=c++17 "
                       + compile + " -I" + repo("labs/emu/include") + " " + cpp);
}
}  // namespace

TEST(Rewriter, CompilerErrorsNameTheSourceLine)
{
    CommandResult result = rewrite_and_compile("typo", "__global__ void k(int *a)\n{\n    a[0] = undefined_name;\n}\n");
    EXPECT_NE(0, result.status);
    EXPECT_NE(std::string::npos, result.output.find("typo.cu:3")) << result.output;
}

TEST(Rewriter, SourceNameOptionNamesTheStudentsFile)
{
    CommandResult result = rewrite_and_compile("named", "int main()\n{\n  return nope;\n}\n",
                                               "--source-name starter/lab/student.c");
    EXPECT_NE(std::string::npos, result.output.find("starter/lab/student.c:3")) << result.output;
}

TEST(Rewriter, ErrorsInsideALaunchKeepTheirLine)
{
    CommandResult result = rewrite_and_compile("launch_error", "__global__ void k(int *a) {}\nint main()\n{\n"
                                               "    k<<<1,\n       32>>>(\"not a pointer\");\n}\n");
    EXPECT_NE(0, result.status);
    EXPECT_NE(std::string::npos, result.output.find("launch_error.cu:")) << result.output;
}

TEST(Rewriter, UnterminatedLaunchIsReportedAtItsLine)
{
    CommandResult result = rewrite_and_compile("unterminated", "__global__ void k() {}\nint main()\n{\n    k<<<1, 1(;\n}\n");
    EXPECT_NE(0, result.status);
    EXPECT_NE(std::string::npos, result.output.find("unterminated.cu:4: error:")) << result.output;
}

TEST(Rewriter, InitializedSharedVariableIsAnError)
{
    CommandResult result = rewrite_and_compile("shared_init", "__global__ void k()\n{\n    __shared__ int x = 0;\n}\n");
    EXPECT_NE(0, result.status);
    EXPECT_NE(std::string::npos, result.output.find("cannot have an initializer")) << result.output;
}

// nvcc 13 does not declare cudaThreadSynchronize and kin; under EMU a call is an error at the
// student's line that names the replacement (g++ reports it when it compiles the call: -c).
TEST(Rewriter, RemovedRuntimeFunctionsAreErrorsNamingTheReplacement)
{
    CommandResult result = rewrite_and_compile(
        "removed", "int main()\n{\n    cudaThreadSynchronize();\n    return cudaThreadExit() != cudaSuccess;\n}\n",
        "--source-name student.c", "-c -o /dev/null");
    EXPECT_NE(0, result.status);
    EXPECT_NE(std::string::npos, result.output.find("student.c:3:")) << result.output;
    EXPECT_NE(std::string::npos, result.output.find("cudaThreadSynchronize was removed from CUDA (nvcc 13 does not "
                                                    "declare it); use cudaDeviceSynchronize"))
        << result.output;
    EXPECT_NE(std::string::npos, result.output.find("use cudaDeviceReset")) << result.output;
}

// The race detector's access wrappers (rewriter/accesses.py) must leave every form of device
// code compiling as it did: members, volatile and dynamic shared memory, lambdas, templates,
// declarations with several declarators, conditional stores, atomics, sizeof.
TEST(Rewriter, AccessWrappersKeepDeviceCodeCompiling)
{
    CommandResult result = rewrite_and_compile("accesses", R"(
struct Pair { int a, b; };
struct Counter {
    int n;
    __device__ Counter &operator=(int v) { n = v; return *this; }
};
extern __shared__ float dynamic_buffer[];
__device__ void store(float *where, float v) { where[0] = v; }
template <class T, int N>
__global__ void k(T *out, const T *in, int n)
{
    __shared__ Pair pairs[N];
    volatile __shared__ int flags[N];
    __shared__ T tile[N][N + 1], total;
    __shared__ unsigned count, *pointer;
    __shared__ Counter counters[N];
    counters[threadIdx.x] = 3;
    pairs[0] = {1, 2};
    int local[4] = {1, 2}, other[2] = {3};
    local[0] = 5, other[1] = 2;
    pairs[threadIdx.x].a = 1;
    flags[threadIdx.x] = pairs[threadIdx.x].b;
    tile[threadIdx.y][threadIdx.x] = in[threadIdx.x];
    dynamic_buffer[threadIdx.x] += (float)tile[0][0];
    ++total; total--; total *= 2; count = 0; count <<= 1; pointer = &count;
    atomicAdd(&count, 1u);
    auto add = [&total, n](T x) { return x + total + (T)n; };
    out[threadIdx.x] = threadIdx.x > 0 ? add(tile[0][threadIdx.x]) : (T)sizeof(tile[0][0]);
    out[1] = out[2] = (T)flags[0];
    if (tile[0][0] <= total && tile[1][1] >= total) out[3] = (T)(local[0] < other[1]);
    store(&tile[0][0], 1.0f);
    __syncthreads();
}
template __global__ void k<float, 4>(float *, const float *, int);
)", "", "-c -o /dev/null");
    EXPECT_EQ(0, result.status) << result.output;
}

__global__ void read_far_away(const int *data, int *out) { out[0] = data[1L << 40]; }

TEST(RewriterDeathTest, ACrashInAKernelSaysWhichThread)
{
    GTEST_FLAG_SET(death_test_style, "threadsafe");
    DeviceArray<int> out(1);
    EXPECT_DEATH(read_far_away<<<dim3(1, 2), 3>>>(out.get(), out.get()),
                 "kernel read_far_away \\(launched at .*rewriter_test.cu:[0-9]+\\) crashed in thread \\(0,0,0\\) of block "
                 "\\(0,0,0\\): invalid memory access");
}
