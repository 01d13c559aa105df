#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "binfile.h"
#include "lab_error.h"

namespace {

std::string temp_path(const char *name)
{
    const char *dir = std::getenv("TMPDIR");
    return std::string(dir ? dir : "/tmp") + "/labkit_binfile_test_" + name;
}

template <typename F>
std::string error_of(F f)
{
    try {
        f();
    } catch (const LabError &e) {
        return e.what();
    }
    return "";
}

TEST(BinaryFile, RoundTripsInt32Fields)
{
    std::string path = temp_path("roundtrip");
    std::vector<int32_t> values = {3, 2, 0, 1, 5, 1, 2, 7};
    write_binary_file(path, values.data(), values.size() * sizeof(int32_t));
    BinaryFile file(path);
    EXPECT_EQ(file.size(), values.size() * 4);
    EXPECT_EQ(file.next_i32("n"), 3);
    EXPECT_EQ(file.next_i32("m"), 2);
    const int32_t *edges = file.next_i32_array(6, "edges");
    EXPECT_EQ(edges[0], 0);
    EXPECT_EQ(edges[5], 7);
    EXPECT_EQ(file.remaining(), 0u);
    std::remove(path.c_str());
}

TEST(BinaryFile, MissingFileNamesFileAndReason)
{
    std::string message = error_of([] { BinaryFile file("/nonexistent/dir/input.bin"); });
    EXPECT_NE(message.find("cannot open input file '/nonexistent/dir/input.bin'"), std::string::npos);
    EXPECT_NE(message.find("No such file"), std::string::npos);
}

TEST(BinaryFile, TruncatedFileSaysWhatIsMissing)
{
    std::string path = temp_path("truncated");
    int32_t header[2] = {4, 10};
    write_binary_file(path, header, 6);  // cut inside the second field
    BinaryFile file(path);
    EXPECT_EQ(file.next_i32("n"), 4);
    std::string message = error_of([&] { file.next_i32("m"); });
    EXPECT_NE(message.find("is truncated: m needs 4 bytes at offset 4, but the file has 6 bytes"),
              std::string::npos);
    std::remove(path.c_str());
}

TEST(BinaryFile, EmptyFileIsTruncated)
{
    std::string path = temp_path("empty");
    write_binary_file(path, nullptr, 0);
    BinaryFile file(path);
    EXPECT_EQ(file.size(), 0u);
    EXPECT_NE(error_of([&] { file.next_i32("n"); }).find("truncated"), std::string::npos);
    std::remove(path.c_str());
}

TEST(BinaryFile, DirectoryIsNotReadable)
{
    EXPECT_NE(error_of([] { BinaryFile file("/"); }).find("'/'"), std::string::npos);
}

TEST(WriteBinaryFile, UnwritablePathNamesIt)
{
    std::string message = error_of([] { write_binary_file("/nonexistent/dir/out.bin", "x", 1); });
    EXPECT_NE(message.find("cannot create output file '/nonexistent/dir/out.bin'"), std::string::npos);
}

TEST(WriteBinaryFile, AFullDiskSaysHowMuchWasWritten)
{
    // /dev/full takes no byte: every write fails with ENOSPC.
    std::string message = error_of([] { write_binary_file("/dev/full", "xyz", 3); });
    EXPECT_NE(message.find("cannot write output file '/dev/full'"), std::string::npos);
    EXPECT_NE(message.find("(wrote 0 of 3 bytes)"), std::string::npos);
}

}  // namespace
