#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "result.h"

namespace {

TEST(LabResult, JsonHoldsFiguresAndEscapedNotes)
{
    LabResult result("increment");
    result.set("kernel_ms", 1.5);
    result.set("bad", NAN);
    result.note("device", "GPU \"0\"\n");
    EXPECT_EQ(result.to_json(),
              "{\"lab\": \"increment\", \"bad\": null, \"kernel_ms\": 1.5, "
              "\"device\": \"GPU \\\"0\\\"\\u000a\"}\n");
}

TEST(LabResult, WritesOnlyWhenAsked)
{
    std::string path = "/tmp/labkit_result_test.json";
    std::remove(path.c_str());
    unsetenv("LABKIT_RESULT");
    LabResult result("x");
    result.set("total_ms", 2);
    result.write();
    EXPECT_FALSE(std::ifstream(path).good());

    setenv("LABKIT_RESULT", path.c_str(), 1);
    result.write();
    unsetenv("LABKIT_RESULT");
    std::ifstream file(path);
    std::stringstream text;
    text << file.rdbuf();
    EXPECT_EQ(text.str(), "{\"lab\": \"x\", \"total_ms\": 2}\n");
    std::remove(path.c_str());
}

TEST(LabResult, WithResultNotesTheDeviceAndWritesWhatTheRunSet)
{
    std::string path = "/tmp/labkit_with_result_test.json";
    std::remove(path.c_str());
    setenv("LABKIT_RESULT", path.c_str(), 1);
    int status = with_result("x", "GPU 0", [](LabResult &result) {
        result.set("kernel_ms", 3);
        return 7;
    });
    unsetenv("LABKIT_RESULT");
    EXPECT_EQ(status, 7);  // the run's exit status, passed on
    std::ifstream file(path);
    std::stringstream text;
    text << file.rdbuf();
    EXPECT_EQ(text.str(), "{\"lab\": \"x\", \"kernel_ms\": 3, \"device\": \"GPU 0\"}\n");
    std::remove(path.c_str());
}

}  // namespace
