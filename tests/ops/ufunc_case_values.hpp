// NumPy's values as the ufunc case files write them (tests/data/ufunc_row_cases.txt and
// ufunc_cases_19b.txt) and the dtype a case names: what ufunc_row_cases_test and
// ufunc_table_19b_test share. Builds on ufunc_table_support.hpp.
#pragma once

#include <cstdlib>
#include <string>
#include <type_traits>

#include "ops/ufunc_table_support.hpp"

namespace ufunc_table {

/// A real number as the case files write it: C99 hex floats, inf and nan included.
inline real parse_real(const std::string& s) {
  return std::strtold(s.c_str(), nullptr);
}

/// The value of dtype T written as s (exact: NumPy wrote a value of that dtype); complex numbers
/// as "re:im".
template <class T>
T parse_input(const std::string& s) {
  if constexpr (std::is_same_v<T, bool>) {
    return s == "1";
  } else if constexpr (is_int<T> && std::is_signed_v<T>) {
    return static_cast<T>(std::stoll(s));
  } else if constexpr (is_int<T>) {
    return static_cast<T>(std::stoull(s));
  } else if constexpr (is_cplx<T>) {
    const auto colon = s.find(':');
    using P = typename T::value_type;
    return T(static_cast<P>(parse_real(s.substr(0, colon))), static_cast<P>(parse_real(s.substr(colon + 1))));
  } else {
    return round_to<T>(parse_real(s));
  }
}

/// Calls f(std::type_identity<T>{}) for the dtype named `name`; false if unknown.
template <class F>
bool visit_dtype(const std::string& name, F&& f) {
  bool found = false;
  const auto one = [&]<class T>(std::type_identity<T> t) {
    if (!found && name == nd::name(nd::dtype_of<T>)) {
      found = true;
      f(t);
    }
  };
  [&]<class... Ts>(types<Ts...>) { (one(std::type_identity<Ts>{}), ...); }(all_types{});
  return found;
}

}  // namespace ufunc_table
