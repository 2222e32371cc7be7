// The message of an exception a test expects: the one helper behind each test file's
// `shape_error_of`-style checks. Header-only, no ndcuda includes.
#pragma once

#include <string>
#include <utility>

namespace ndcuda::testing {

/// What message_of returns when nothing of the expected type was thrown.
inline constexpr const char* no_expected_exception = "<no exception of the expected type>";

/// The message of the `Error` that `f` throws, or a placeholder when it throws none (any other
/// exception propagates and fails the test).
template <class Error, class F>
std::string message_of(F&& f) {
  try {
    std::forward<F>(f)();
  } catch (const Error& e) {
    return e.what();
  }
  return no_expected_exception;
}

}  // namespace ndcuda::testing
