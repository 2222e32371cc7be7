// One raw kernel per element size (1, 2, 4, 8 and 16 bytes) of a template that only moves bytes:
// the data movers (fill, the pad/roll/tile gather) instantiate it on an unsigned type of that size.
#pragma once

#include <array>
#include <cstddef>
#include <ndcuda/core/error.hpp>
#include <ndcuda/jit/raw_kernel.hpp>
#include <string>

namespace ndcuda::jit::detail {

class kernels_by_itemsize {
 public:
  /// `name_template` is the kernel's name expression with "{T}" where the element type goes;
  /// `bytes16` names the source's 16-byte type.
  kernels_by_itemsize(const std::string& source, const std::string& name_template, const std::string& bytes16)
      : kernels_{instance(source, name_template, "unsigned char"), instance(source, name_template, "unsigned short"),
                 instance(source, name_template, "unsigned int"), instance(source, name_template, "unsigned long long"),
                 instance(source, name_template, bytes16)} {}

  /// The kernel for `itemsize`; `what` names the operation in the error for another size.
  [[nodiscard]] const raw_kernel& get(std::size_t itemsize, const char* what) const {
    switch (itemsize) {
      case 1:
        return kernels_[0];
      case 2:
        return kernels_[1];
      case 4:
        return kernels_[2];
      case 8:
        return kernels_[3];
      case 16:
        return kernels_[4];
      default:
        throw error(std::string(what) + ": unsupported element size " + std::to_string(itemsize));
    }
  }

 private:
  static raw_kernel instance(const std::string& source, std::string name, const std::string& type) {
    name.replace(name.find("{T}"), 3, type);
    return raw_kernel(source, std::move(name));
  }
  std::array<raw_kernel, 5> kernels_;
};

}  // namespace ndcuda::jit::detail
