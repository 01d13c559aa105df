#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "cli.h"
#include "lab_error.h"

namespace {

// Builds an argv from strings (argv[0] is the program name).
struct Argv {
    explicit Argv(std::vector<std::string> args) : storage(std::move(args))
    {
        storage.insert(storage.begin(), "prog");
        for (auto &s : storage)
            pointers.push_back(&s[0]);
    }
    int argc() { return static_cast<int>(pointers.size()); }
    char **argv() { return pointers.data(); }
    std::vector<std::string> storage;
    std::vector<char *> pointers;
};

std::string error_of(std::vector<std::string> args, long long min = 1, long long max = 100)
{
    Argv a(std::move(args));
    try {
        Cli cli(a.argc(), a.argv(), {"flag"}, "prog --n N");
        cli.allow_only({"n", "flag"});
        cli.integer("n", 1, min, max);
    } catch (const LabError &e) {
        return e.what();
    }
    return "";
}

TEST(Cli, ReadsOptionsFlagsAndPositionals)
{
    Argv a({"--n", "42", "input.bin", "--flag", "out.bin"});
    Cli cli(a.argc(), a.argv(), {"flag"}, "usage");
    EXPECT_EQ(cli.integer("n", 0, 0, 100), 42);
    EXPECT_TRUE(cli.has("flag"));
    EXPECT_FALSE(cli.has("other"));
    EXPECT_EQ(cli.str("other", "fallback"), "fallback");
    ASSERT_EQ(cli.positional().size(), 2u);
    EXPECT_EQ(cli.positional()[0], "input.bin");
    EXPECT_EQ(cli.positional()[1], "out.bin");
}

TEST(Cli, FallbackWhenAbsent)
{
    Argv a({});
    Cli cli(a.argc(), a.argv(), {}, "usage");
    EXPECT_EQ(cli.integer("n", 7, 0, 100), 7);
}

TEST(Cli, RejectsBadIntegers)
{
    EXPECT_NE(error_of({"--n", "abc"}).find("--n must be a whole number, got 'abc'"), std::string::npos);
    EXPECT_NE(error_of({"--n", "12x"}).find("whole number"), std::string::npos);
    EXPECT_NE(error_of({"--n", ""}).find("whole number"), std::string::npos);
    EXPECT_NE(error_of({"--n", "99999999999999999999999"}).find("whole number"), std::string::npos);
    EXPECT_NE(error_of({"--n", "0"}).find("between 1 and 100, got 0"), std::string::npos);
    EXPECT_NE(error_of({"--n", "101"}).find("between 1 and 100"), std::string::npos);
}

TEST(Cli, RejectsMissingValueAndUnknownOption)
{
    EXPECT_NE(error_of({"--n"}).find("option --n needs a value"), std::string::npos);
    EXPECT_NE(error_of({"--rep", "3"}).find("unknown option --rep"), std::string::npos);
}

TEST(Cli, HelpPrintsUsage)
{
    EXPECT_NE(error_of({"--help"}).find("usage: prog --n N"), std::string::npos);
}

}  // namespace
