// The ufunc rows as the tests see them: every row of include/ndcuda/ops/ufuncs.hpp (the lists that
// tests/ops/ufunc_row_list.cmake generates from that header) and the names that NumPy's cases in
// tests/data/ufunc_row_cases.txt cover. Builds on the generated ufunc_row_list.hpp.
#pragma once

#include <fstream>
#include <set>
#include <string>
#include <vector>

#include "ufunc_row_list.hpp"

namespace ufunc_rows {

/// A row of the table: its name (nd::<name>) and how many operands it takes.
struct row_name {
  std::string name;
  int arity;
};

/// Every row of ops/ufuncs.hpp, in the table's order.
inline const std::vector<row_name>& all() {
#define NDCUDA_TEST_CALL_ROW(n, a, helper) row_name{#n, a},
#define NDCUDA_TEST_OPERATOR_ROW(n, a) row_name{#n, a},
  static const std::vector<row_name> rows = {NDCUDA_UFUNC_ROWS(NDCUDA_TEST_CALL_ROW, NDCUDA_TEST_OPERATOR_ROW)};
#undef NDCUDA_TEST_CALL_ROW
#undef NDCUDA_TEST_OPERATOR_ROW
  return rows;
}

/// The names tests/data/ufunc_row_cases.txt has NumPy's cases for (empty if the file is missing).
inline const std::set<std::string>& numpy_case_names() {
  static const std::set<std::string> names = [] {
    std::set<std::string> s;
    std::ifstream file(NDCUDA_TEST_DATA_DIR "/ufunc_row_cases.txt");
    std::string line;
    while (std::getline(file, line)) {
      if (!line.empty() && line[0] != '#') s.insert(line.substr(0, line.find(' ')));
    }
    return s;
  }();
  return names;
}

}  // namespace ufunc_rows
