#include "csr.h"

#include <cstring>
#include <fstream>

#include "binfile.h"
#include "lab_error.h"
#include "matrix_market.h"

static std::string num(long long value) { return std::to_string(value); }

// Whether the file opens with the Matrix Market banner (an unreadable file is left to the
// binary reader, whose message says why).
static bool is_matrix_market(const std::string &path)
{
    std::ifstream in(path, std::ios::binary);
    std::string head(kMatrixMarketBanner.size(), '\0');
    return in.read(&head[0], static_cast<std::streamsize>(head.size())) && head == kMatrixMarketBanner;
}

static CsrMatrix read_csr(BinaryFile &file)
{
    const std::string name = "input file '" + file.path() + "'";
    if (file.size() < 12)
        throw LabError(name + " is truncated: it has " + num(file.size()) +
                       " bytes, but the binary CSR header alone (int32 rows, nnz, cols) needs 12 "
                       "(a Matrix Market file must open with %%MatrixMarket)");
    int32_t rows = file.next_i32("rows");
    int32_t nnz = file.next_i32("nnz (the nonzero count)");
    int32_t cols = file.next_i32("cols");
    if (rows < 1 || rows > kMaxRows || cols < 1 || cols > kMaxRows)
        throw LabError(name + ": rows = " + num(rows) + ", cols = " + num(cols) + "; each must be between 1 and " +
                       num(kMaxRows) + " (is this a binary CSR file? see handouts/spmv.md, \"Formats\")");
    if (nnz < 0 || nnz > kMaxNonzeros)
        throw LabError(name + ": nnz = " + num(nnz) + "; it must be between 0 and " + num(kMaxNonzeros));
    size_t need = 4 * (static_cast<size_t>(rows) + 1 + 2 * static_cast<size_t>(nnz));
    if (file.remaining() != need)
        throw LabError(name + " has " + num(file.remaining()) + " bytes after its header; rows = " + num(rows) +
                       " and nnz = " + num(nnz) + " need exactly " + num(need) +
                       " (row_ptr, col_idx, values): is the header right?");
    CsrMatrix matrix;
    matrix.rows = rows;
    matrix.cols = cols;
    matrix.row_ptr.resize(static_cast<size_t>(rows) + 1);
    std::memcpy(matrix.row_ptr.data(), file.next_i32_array(matrix.row_ptr.size(), "row_ptr"),
                4 * matrix.row_ptr.size());
    matrix.col_idx.resize(nnz);
    matrix.values.resize(nnz);
    if (nnz > 0) {
        std::memcpy(matrix.col_idx.data(), file.next_i32_array(nnz, "col_idx"), 4 * static_cast<size_t>(nnz));
        std::memcpy(matrix.values.data(), file.next_i32_array(nnz, "values"), 4 * static_cast<size_t>(nnz));
    }
    check_csr(matrix, name);
    return matrix;
}

CsrMatrix read_matrix(const std::string &path)
{
    if (is_matrix_market(path))
        return read_matrix_market(path);
    BinaryFile file(path);
    return read_csr(file);
}

void check_csr(const CsrMatrix &m, const std::string &where)
{
    if (m.row_ptr.size() != static_cast<size_t>(m.rows) + 1 || m.row_ptr[0] != 0)
        throw LabError(where + ": row_ptr[0] = " + num(m.row_ptr.empty() ? -1 : m.row_ptr[0]) +
                       "; the first row starts at nonzero 0");
    for (int32_t r = 0; r < m.rows; ++r)
        if (m.row_ptr[r + 1] < m.row_ptr[r])
            throw LabError(where + ": row_ptr[" + num(r + 1) + "] = " + num(m.row_ptr[r + 1]) + " is below row_ptr[" +
                           num(r) + "] = " + num(m.row_ptr[r]) + ": the offsets must not decrease");
    if (m.row_ptr[m.rows] != m.nnz())
        throw LabError(where + ": row_ptr[rows] = " + num(m.row_ptr[m.rows]) + ", but the matrix has nnz = " +
                       num(m.nnz()) + " nonzeros: the last offset is the count");
    for (int32_t k = 0; k < m.nnz(); ++k)
        if (m.col_idx[k] < 0 || m.col_idx[k] >= m.cols)
            throw LabError(where + ": nonzero " + num(k) + " is in column " + num(m.col_idx[k]) +
                           ", out of range: cols = " + num(m.cols) + ", so columns are 0.." + num(m.cols - 1));
}

void write_csr(const std::string &path, const CsrMatrix &m)
{
    std::vector<int32_t> words;
    words.reserve(3 + m.row_ptr.size() + 2 * m.col_idx.size());
    words.push_back(m.rows);
    words.push_back(m.nnz());
    words.push_back(m.cols);
    words.insert(words.end(), m.row_ptr.begin(), m.row_ptr.end());
    words.insert(words.end(), m.col_idx.begin(), m.col_idx.end());
    size_t at = words.size();
    words.resize(at + m.values.size());
    if (!m.values.empty())
        std::memcpy(words.data() + at, m.values.data(), 4 * m.values.size());
    write_binary_file(path, words.data(), words.size() * sizeof(int32_t));
}

CsrMatrix csr_from_triples(int32_t rows, int32_t cols, const std::vector<int32_t> &row_of,
                           const std::vector<int32_t> &col_of, const std::vector<float> &value_of)
{
    CsrMatrix m;
    m.rows = rows;
    m.cols = cols;
    m.row_ptr.assign(static_cast<size_t>(rows) + 1, 0);
    for (int32_t row : row_of)
        ++m.row_ptr[row + 1];
    for (int32_t r = 0; r < rows; ++r)
        m.row_ptr[r + 1] += m.row_ptr[r];
    std::vector<int32_t> next(m.row_ptr.begin(), m.row_ptr.end() - 1);
    m.col_idx.resize(row_of.size());
    m.values.resize(row_of.size());
    for (size_t e = 0; e < row_of.size(); ++e) {
        int32_t at = next[row_of[e]]++;
        m.col_idx[at] = col_of[e];
        m.values[at] = value_of[e];
    }
    return m;
}
