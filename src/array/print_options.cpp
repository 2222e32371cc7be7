// NumPy's print options (np.set_printoptions / np.printoptions) as a thread-local setting: the
// values the formatters in format.cpp read. Builds on array/format.hpp and core/error.hpp.
#include <ndcuda/array/format.hpp>
#include <ndcuda/core/error.hpp>
#include <string>

namespace ndcuda {
namespace {

print_options& thread_options() {
  thread_local print_options options;
  return options;
}

}  // namespace

print_options get_printoptions() {
  return thread_options();
}

void set_printoptions(const print_options& options) {
  if (options.sign != '-' && options.sign != '+' && options.sign != ' ') {
    throw value_error("set_printoptions: sign option must be one of ' ', '+', or '-' (got '" +
                      std::string(1, options.sign) + "')");
  }
  if (options.precision < 0) {
    throw value_error("set_printoptions: precision must be non-negative (got " + std::to_string(options.precision) +
                      ")");
  }
  if (options.edgeitems < 0) {
    throw value_error("set_printoptions: edgeitems must be non-negative (got " + std::to_string(options.edgeitems) +
                      ")");
  }
  if (options.linewidth < 1) {
    throw value_error("set_printoptions: linewidth must be at least 1 (got " + std::to_string(options.linewidth) + ")");
  }
  thread_options() = options;
}

printoptions_scope::printoptions_scope(const print_options& options) : previous_(thread_options()) {
  set_printoptions(options);
}

printoptions_scope::~printoptions_scope() {
  thread_options() = previous_;
}

}  // namespace ndcuda
