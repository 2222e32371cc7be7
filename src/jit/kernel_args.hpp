// Internal: a generated kernel's parameter list, declared once: it spells the parameters in the
// generated source and packs each launch's arguments in that order and size. Builds on jit/module.hpp.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <ndcuda/core/dtype.hpp>
#include <ndcuda/core/shape.hpp>
#include <span>
#include <string>
#include <vector>

#include "jit/kernel_state.hpp"
#include "jit/module.hpp"

namespace ndcuda::jit::detail {

/// Bytes of a computed input's kernel parameter (key, offset pointer, shift: random_source_param).
inline constexpr std::size_t source_param_bytes = 24;

/// The parameters of one generated kernel, in order (ArrayFire's Node::genParams and setArgs in
/// one place): the generators spell them with declaration(), the launch paths fill a packer that
/// checks every value against its parameter. Index-typed parameters (indexers, counts) take the
/// variant's index width: int, or long long for 64-bit indexing.
class kernel_args {
 public:
  /// The most parameters a generated kernel takes. An elementwise kernel's output, 31 inputs, 32
  /// scalars, its indexer and tile mask are 66 (a reduction's first pass: 69); a row program's
  /// output and 31 inputs with their row and column strides, 32 scalars, rows and columns are 130,
  /// and each of its stages adds its parameter (row_program_fits: past that, a tree computes its
  /// reductions first). Sizes the packer's per-argument arrays, which are never cleared.
  static constexpr std::size_t max_params = 160;

  enum class kind : std::uint8_t {
    pointer,  ///< a device pointer: "float* out", "const void* partials"
    source,   ///< a computed input, by value (source_param_bytes)
    scalar,   ///< a value of a dtype, copied from the host per launch: "float s0"
    indexer,  ///< ndcuda::strided_indexer<NDIM, OPERANDS, IndexT> (kernels/indexer.cuh)
    index,    ///< one IndexT: "int n", "long long chunk"
    value,    ///< a fixed host type: "double param", "unsigned staged"
  };
  struct param {
    kind what;
    std::string type;  ///< as the source spells it
    std::string name;
    std::size_t bytes;  ///< what each launch passes
  };

  explicit kernel_args(bool index64) : index64_(index64) {}

  /// `type` is the pointer's full spelling ("float*", "const void*").
  kernel_args& pointer(std::string type, std::string name);
  /// in0, in1, ...: `const T*` for arrays, by value for computed inputs (sources[i] not empty).
  kernel_args& inputs(std::span<const dtype> in, std::span<const std::string> sources);
  /// s0, s1, ...
  kernel_args& scalars(std::span<const dtype> types);
  kernel_args& indexer(std::string name, int ndim, int operands);
  kernel_args& index(std::string name);
  kernel_args& value(std::string type, std::string name, std::size_t bytes);

  /// "float* out, const float* in0, int n": the kernel's parameter list.
  [[nodiscard]] std::string declaration() const;
  /// "int" or "long long".
  [[nodiscard]] std::string_view index_type() const noexcept;
  /// "ndcuda::strided_indexer<2, 3, int>".
  [[nodiscard]] std::string indexer_type(int ndim, int operands) const;
  [[nodiscard]] bool index64() const noexcept { return index64_; }
  [[nodiscard]] std::size_t size() const noexcept { return params_.size(); }
  [[nodiscard]] const param& operator[](std::size_t i) const { return params_[i]; }

  class packer;

 private:
  kernel_args& add(kind what, std::string type, std::string name, std::size_t bytes);
  bool index64_;
  std::vector<param> params_;
};

/// One launch's arguments for a kernel_args, given in declaration order. Each call checks that
/// the next parameter is of that kind and size (an internal error otherwise), and launch() checks
/// that all were given and that the loaded kernel agrees (cuFuncGetParamInfo). The values live
/// in the packer: no heap allocation unless they outgrow its inline buffer (large indexers).
class kernel_args::packer {
 public:
  explicit packer(const kernel_args& args) noexcept
      : params_(args.params_.data()), total_(args.params_.size()), index64_(args.index64_) {}
  packer(const packer&) = delete;
  packer& operator=(const packer&) = delete;

  packer& pointer(const void* p) {
    write(next(kind::pointer, sizeof p), &p);
    return *this;
  }
  /// An input: its device pointer, or for a computed input its host parameter block.
  packer& input(const void* p) {
    if (count_ < total_ && params_[count_].what == kind::source) {
      write(next(kind::source, source_param_bytes), p);  // the parameter's bytes, copied
      return *this;
    }
    return pointer(p);
  }
  packer& inputs(const void* const* in, std::size_t count) {
    for (std::size_t i = 0; i < count; ++i) {
      input(in[i]);
    }
    return *this;
  }
  /// Scalars: `values[i]` points at a host value of the parameter's dtype.
  packer& scalars(const void* const* values, std::size_t count) {
    for (std::size_t i = 0; i < count; ++i) {
      write(next(kind::scalar, count_ < total_ ? params_[count_].bytes : 0), values[i]);
    }
    return *this;
  }
  /// size, shape, then each operand's strides, as kernels/indexer.cuh lays them out. The values
  /// fit 32 bits where the variant is narrow (its plan checked them).
  packer& indexer(index_t size, std::span<const index_t> shape, std::span<const strides_t> strides);
  packer& index(index_t v) {
    if (index64_) {
      const auto w = static_cast<std::int64_t>(v);
      write(next(kind::index, sizeof w), &w);
    } else {
      const auto w = static_cast<std::int32_t>(v);
      write(next(kind::index, sizeof w), &w);
    }
    return *this;
  }
  template <class T>
  packer& value(const T& v) {
    write(next(kind::value, sizeof(T)), &v);
    return *this;
  }

  /// The arguments packed so far, and argument i's bytes (for tests).
  [[nodiscard]] std::size_t count() const noexcept { return count_; }
  [[nodiscard]] const std::byte* argument(std::size_t i) const noexcept { return data_ + offsets_[i]; }
  [[nodiscard]] std::size_t argument_bytes(std::size_t i) const noexcept { return sizes_[i]; }

  /// Checks the arguments against `k` and launches it (jit::detail::launch).
  void launch(const loaded_kernel& k, dim3 grid, dim3 block, std::size_t shared_bytes, CUstream stream,
              bool waits_first);

 private:
  static constexpr std::size_t inline_bytes = 2048;

  // The per-argument path is inline and branch-light (a launch packs a handful); the rare cases
  // (a mismatch, an indexer past the inline buffer) are out of line.
  std::size_t next(kind what, std::size_t bytes) {
    if (count_ >= total_ || params_[count_].what != what || params_[count_].bytes != bytes) [[unlikely]] {
      mismatch(what, bytes);
    }
    return bytes;
  }
  /// Room for the next argument (8- or 16-byte aligned), recorded as given.
  std::byte* reserve(std::size_t bytes) {
    const std::size_t align = bytes >= 16 ? 16 : 8;
    const std::size_t offset = (used_ + align - 1) & ~(align - 1);
    if (offset + bytes > capacity_) [[unlikely]] {
      grow(offset + bytes);
    }
    offsets_[count_] = offset;
    sizes_[count_] = bytes;
    used_ = offset + bytes;
    ++count_;
    return data_ + offset;
  }
  void write(std::size_t bytes, const void* from) { std::memcpy(reserve(bytes), from, bytes); }
  [[noreturn]] void mismatch(kind what, std::size_t bytes) const;
  void grow(std::size_t needed);

  const param* params_;
  std::size_t total_;
  bool index64_;
  std::size_t count_ = 0;
  std::size_t used_ = 0;
  std::size_t capacity_ = inline_bytes;
  std::byte* data_ = inline_.data();
  std::array<std::size_t, max_params> offsets_;  // written before read: no memset per launch
  std::array<std::size_t, max_params> sizes_;
  alignas(16) std::array<std::byte, inline_bytes> inline_;
  std::vector<std::byte> heap_;  // only past inline_bytes
};

/// A generated kernel with its parameter list: what a variant of an elementwise or reduction
/// state holds.
struct generated_kernel {
  kernel_args args;
  kernel_state kernel;
};

}  // namespace ndcuda::jit::detail
