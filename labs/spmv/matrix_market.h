// The Matrix Market coordinate format, as the SuiteSparse collection ships matrices: the reader
// the spmv lab's programs use (csr.h says which variants it takes).
#pragma once

#include <string>

#include "csr.h"

inline const std::string kMatrixMarketBanner = "%%MatrixMarket";

// Reads a coordinate real, integer or pattern matrix, general or symmetric, into CSR (rows in
// order, each row's entries in file order, a symmetric entry's mirror after all listed ones).
// Throws LabError naming the file, the line and what is wrong (an array-format file, a complex
// field, an index out of range, too few or too many entries).
CsrMatrix read_matrix_market(const std::string &path);
