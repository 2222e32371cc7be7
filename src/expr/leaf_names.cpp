// The names fused kernels give their inputs ("in0", "s1"): built here, out of line, so that no
// string concatenation is inlined into user code (g++ 12's -Wrestrict false positive). Builds on
// expr/detail/codegen.hpp.
#include <ndcuda/expr/detail/codegen.hpp>
#include <string>

namespace ndcuda::detail {

std::string input_name(int index) {
  std::string name = "in";
  name += std::to_string(index);
  return name;
}

std::string scalar_name(int index) {
  std::string name = "s";
  name += std::to_string(index);
  return name;
}

}  // namespace ndcuda::detail
