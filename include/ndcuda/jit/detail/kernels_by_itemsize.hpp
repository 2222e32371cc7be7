// Raw kernels of one library source by element or key width: one per size of a template that only
// moves bytes (fill, the pad/roll/tile gather), and families instantiated by name on first use.
#pragma once
#pragma GCC visibility push(default)  // what the public headers declare is the ABI (docs/design.md)

#include <array>
#include <cstddef>
#include <map>
#include <mutex>
#include <ndcuda/core/error.hpp>
#include <ndcuda/jit/raw_kernel.hpp>
#include <string>

namespace ndcuda::jit::detail {

/// The unsigned type of `bytes` (1, 2, 4 or 8) bytes as generated CUDA source spells it.
[[nodiscard]] inline const char* unsigned_type_name(std::size_t bytes) {
  return bytes == 8   ? "unsigned long long"
         : bytes == 4 ? "unsigned int"
         : bytes == 2 ? "unsigned short"
                      : "unsigned char";
}

/// The kernels of one source, each made on first use from its name expression and kept for the
/// process (a raw_kernel compiles per device on its first launch).
class kernel_family {
 public:
  explicit kernel_family(std::string source) : source_(std::move(source)) {}

  [[nodiscard]] const raw_kernel& get(const std::string& name) const {
    const std::lock_guard lock(mutex_);
    auto it = kernels_.find(name);
    if (it == kernels_.end()) {
      it = kernels_.emplace(name, raw_kernel(source_, name)).first;
    }
    return it->second;
  }
  /// `template_name<unsigned type of bytes>`.
  [[nodiscard]] const raw_kernel& get(const char* template_name, std::size_t bytes) const {
    return get(std::string(template_name) + "<" + unsigned_type_name(bytes) + ">");
  }

 private:
  std::string source_;
  mutable std::mutex mutex_;
  mutable std::map<std::string, raw_kernel> kernels_;
};

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

#pragma GCC visibility pop
