// AddressSanitizer under emulation (ASAN=1): each program in tests/emu/asan has a planted
// out-of-bounds access; built with ASan, it must stop with a report that names the kind of
// error and the source file and line of the access (through the rewriter's #line).
#include <fstream>
#include <string>

#include "emu_test_util.h"

namespace {
// The line of `path` that contains "PLANTED".
int planted_line(const std::string &path)
{
    std::ifstream source(path);
    std::string text;
    for (int line = 1; std::getline(source, text); ++line)
        if (text.find("PLANTED") != std::string::npos) return line;
    return -1;
}

void expect_report(const std::string &program, const std::string &kind)
{
    const std::string source = std::string(EMU_REPO_ROOT) + "/tests/emu/asan/" + program + ".cu";
    const int line = planted_line(source);
    ASSERT_GT(line, 0) << source;
    CommandResult run = run_command(std::string(EMU_TEST_PROGRAMS) + "/asan/" + program);
    EXPECT_NE(0, run.status) << run.output;
    EXPECT_NE(std::string::npos, run.output.find("ERROR: AddressSanitizer: " + kind)) << run.output;
    const std::string location = "tests/emu/asan/" + program + ".cu:" + std::to_string(line);
    EXPECT_NE(std::string::npos, run.output.find(location)) << "expected " << location << " in:\n" << run.output;
    EXPECT_EQ(std::string::npos, run.output.find("finished without a report"));
}
}  // namespace

TEST(AddressSanitizer, CatchesAWritePastACudaMallocArray)
{
    expect_report("global_overflow", "heap-buffer-overflow");
}

TEST(AddressSanitizer, CatchesAWritePastASharedArray)
{
    expect_report("shared_overflow", "use-after-poison");
}

TEST(AddressSanitizer, CatchesAReadPastDynamicSharedMemory)
{
    expect_report("dynamic_overflow", "use-after-poison");
}

TEST(AddressSanitizer, ThreadsOwnLocalsOnTheFakeStackAreNoRace)
{
    CommandResult run = run_command("ASAN_OPTIONS=detect_leaks=0:detect_stack_use_after_return=1 EMU_RACECHECK=1 " +
                                    std::string(EMU_TEST_PROGRAMS) + "/asan/locals_on_fake_stack");
    EXPECT_EQ(0, run.status) << run.output;
    EXPECT_NE(std::string::npos, run.output.find("finished without a report")) << run.output;
}

TEST(AddressSanitizer, CatchesAReadPastAnArrayOfHalf2)
{
    expect_report("half_overflow", "heap-buffer-overflow");
}
