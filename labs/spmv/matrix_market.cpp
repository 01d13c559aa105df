#include "matrix_market.h"

#include <algorithm>
#include <cctype>
#include <fstream>
#include <sstream>
#include <vector>

#include "lab_error.h"

static std::string lower(std::string text)
{
    std::transform(text.begin(), text.end(), text.begin(), [](unsigned char c) { return std::tolower(c); });
    return text;
}

namespace {
struct Banner {
    bool pattern = false, symmetric = false;
};
}

static Banner read_banner(const std::string &line, const std::string &where)
{
    std::istringstream words(line);
    std::string banner, object, format, field, symmetry;
    words >> banner >> object >> format >> field >> symmetry;
    object = lower(object), format = lower(format), field = lower(field), symmetry = lower(symmetry);
    if (object != "matrix" || format != "coordinate")
        throw LabError(where + ": line 1 says '" + object + " " + format +
                       "'; the lab reads sparse matrices, 'matrix coordinate' (an 'array' file is dense)");
    if (field != "real" && field != "integer" && field != "pattern")
        throw LabError(where + ": line 1 gives the field '" + field +
                       "'; the lab reads real, integer or pattern values (float32), not complex");
    if (symmetry != "general" && symmetry != "symmetric")
        throw LabError(where + ": line 1 gives the symmetry '" + symmetry +
                       "'; the lab reads general or symmetric matrices");
    return Banner{field == "pattern", symmetry == "symmetric"};
}

CsrMatrix read_matrix_market(const std::string &path)
{
    const std::string where = "input file '" + path + "'";
    std::ifstream in(path);
    if (!in)
        throw LabError("cannot open " + where);
    std::string line;
    std::getline(in, line);
    Banner banner = read_banner(line, where);
    long long line_number = 1;
    while (std::getline(in, line)) {  // comments, then the size line
        ++line_number;
        if (!line.empty() && line[0] != '%' && line.find_first_not_of(" \t\r") != std::string::npos)
            break;
    }
    long long rows = 0, cols = 0, entries = -1;
    {
        std::istringstream size_line(line);
        size_line >> rows >> cols >> entries;
        if (!size_line || rows < 1 || cols < 1 || rows > kMaxRows || cols > kMaxRows || entries < 0)
            throw LabError(where + ": line " + std::to_string(line_number) + " should give 'rows cols entries' (each at least 1, "
                           "rows and cols at most " + std::to_string(kMaxRows) + "), got '" + line + "'");
        if (banner.symmetric && rows != cols)
            throw LabError(where + ": a symmetric matrix is square, but line " + std::to_string(line_number) + " gives " +
                           std::to_string(rows) + " x " + std::to_string(cols));
        if ((banner.symmetric ? 2 : 1) * entries > kMaxNonzeros)
            throw LabError(where + ": " + std::to_string(entries) + " entries make more than " +
                           std::to_string(kMaxNonzeros) + " nonzeros, the lab's limit");
    }
    std::vector<int32_t> row_of, col_of;
    std::vector<float> value_of;
    row_of.reserve(entries), col_of.reserve(entries), value_of.reserve(entries);
    while (static_cast<long long>(row_of.size()) < entries && std::getline(in, line)) {
        ++line_number;
        if (line.empty() || line[0] == '%' || line.find_first_not_of(" \t\r") == std::string::npos)
            continue;
        std::istringstream entry(line);
        long long i = 0, j = 0;
        double value = 1.0;
        entry >> i >> j;
        if (!banner.pattern)
            entry >> value;
        if (!entry)
            throw LabError(where + ": line " + std::to_string(line_number) + " should give 'row column" +
                           (banner.pattern ? "" : " value") + "', got '" + line + "'");
        if (i < 1 || i > rows || j < 1 || j > cols)
            throw LabError(where + ": line " + std::to_string(line_number) + " names entry (" + std::to_string(i) + ", " +
                           std::to_string(j) + "), outside the " + std::to_string(rows) + " x " + std::to_string(cols) +
                           " matrix (indices start at 1)");
        row_of.push_back(static_cast<int32_t>(i - 1));
        col_of.push_back(static_cast<int32_t>(j - 1));
        value_of.push_back(static_cast<float>(value));
    }
    if (static_cast<long long>(row_of.size()) < entries)
        throw LabError(where + " ends after " + std::to_string(row_of.size()) + " entries; its size line announces " +
                       std::to_string(entries));
    while (std::getline(in, line)) {
        ++line_number;
        if (line.find_first_not_of(" \t\r") != std::string::npos && line[0] != '%')
            throw LabError(where + ": line " + std::to_string(line_number) + " is past the " + std::to_string(entries) +
                           " entries the size line announces: is that count right?");
    }
    if (banner.symmetric) {
        size_t listed = row_of.size();
        for (size_t e = 0; e < listed; ++e)
            if (row_of[e] != col_of[e]) {
                row_of.push_back(col_of[e]);
                col_of.push_back(row_of[e]);
                value_of.push_back(value_of[e]);
            }
    }
    return csr_from_triples(static_cast<int32_t>(rows), static_cast<int32_t>(cols), row_of, col_of, value_of);
}
