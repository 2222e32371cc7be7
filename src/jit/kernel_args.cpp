// Generated kernels' parameter lists: spelled once for the source, packed per launch and checked.
// Builds on jit/module.hpp (check_arguments, launch).
#include "jit/kernel_args.hpp"

#include <cstring>
#include <ndcuda/core/error.hpp>

namespace ndcuda::jit::detail {
namespace {

std::size_t indexer_words(int ndim, int operands) {
  return 1 + static_cast<std::size_t>(ndim) + static_cast<std::size_t>(ndim) * static_cast<std::size_t>(operands);
}

// size, shape, strides per operand, each as an IndexT (narrow values were checked by the plan).
template <class IndexT>
void put_words(std::byte* at, index_t size, std::span<const index_t> shape, std::span<const strides_t> strides) {
  const auto put = [&at](index_t v) {
    const auto w = static_cast<IndexT>(v);
    std::memcpy(at, &w, sizeof w);
    at += sizeof w;
  };
  put(size);
  for (index_t e : shape) {
    put(e);
  }
  for (const strides_t& operand : strides) {
    for (index_t st : operand) {
      put(st);
    }
  }
}

const char* kind_name(kernel_args::kind k) {
  switch (k) {
    case kernel_args::kind::pointer:
      return "pointer";
    case kernel_args::kind::source:
      return "computed input";
    case kernel_args::kind::scalar:
      return "scalar";
    case kernel_args::kind::indexer:
      return "indexer";
    case kernel_args::kind::index:
      return "index";
    case kernel_args::kind::value:
      return "value";
  }
  return "?";
}

}  // namespace

kernel_args& kernel_args::add(kind what, std::string type, std::string name, std::size_t bytes) {
  if (params_.size() == max_params) {
    throw error("a generated kernel would take more than " + std::to_string(max_params) +
                " parameters; fuse fewer arrays and scalars into one expression");
  }
  params_.push_back(param{what, std::move(type), std::move(name), bytes});
  return *this;
}

kernel_args& kernel_args::pointer(std::string type, std::string name) {
  return add(kind::pointer, std::move(type), std::move(name), sizeof(void*));
}

kernel_args& kernel_args::inputs(std::span<const dtype> in, std::span<const std::string> sources) {
  for (std::size_t i = 0; i < in.size(); ++i) {
    const std::string name = "in" + std::to_string(i);
    if (i < sources.size() && !sources[i].empty()) {
      add(kind::source, sources[i], name, source_param_bytes);
    } else {
      add(kind::pointer, "const " + std::string(cuda_type_name(in[i])) + "*", name, sizeof(void*));
    }
  }
  return *this;
}

kernel_args& kernel_args::scalars(std::span<const dtype> types) {
  for (std::size_t i = 0; i < types.size(); ++i) {
    add(kind::scalar, std::string(cuda_type_name(types[i])), "s" + std::to_string(i), itemsize(types[i]));
  }
  return *this;
}

kernel_args& kernel_args::indexer(std::string name, int ndim, int operands) {
  return add(kind::indexer, indexer_type(ndim, operands), std::move(name),
             indexer_words(ndim, operands) * (index64_ ? 8 : 4));
}

kernel_args& kernel_args::index(std::string name) {
  return add(kind::index, std::string(index_type()), std::move(name), index64_ ? 8 : 4);
}

kernel_args& kernel_args::value(std::string type, std::string name, std::size_t bytes) {
  return add(kind::value, std::move(type), std::move(name), bytes);
}

std::string kernel_args::declaration() const {
  std::string s;
  for (const param& p : params_) {
    if (!s.empty()) {
      s += ", ";
    }
    s += p.type;
    s += ' ';
    s += p.name;
  }
  return s;
}

std::string_view kernel_args::index_type() const noexcept {
  return cuda_type_name(index64_ ? dtype::int64 : dtype::int32);
}

std::string kernel_args::indexer_type(int ndim, int operands) const {
  return "ndcuda::strided_indexer<" + std::to_string(ndim) + ", " + std::to_string(operands) + ", " +
         std::string(index_type()) + ">";
}

void kernel_args::packer::mismatch(kind what, std::size_t bytes) const {
  const std::string expected = count_ < total_
                                   ? std::string(kind_name(params_[count_].what)) + " '" + params_[count_].name +
                                         "' of " + std::to_string(params_[count_].bytes) + " bytes"
                                   : std::string("no further argument");
  throw error("internal: argument " + std::to_string(count_) + " of a generated kernel is a " + kind_name(what) +
              " of " + std::to_string(bytes) + " bytes, but its parameter list expects " + expected +
              "; please report this");
}

void kernel_args::packer::grow(std::size_t needed) {
  const bool first = heap_.empty();
  heap_.resize(2 * needed);
  if (first) {
    std::memcpy(heap_.data(), inline_.data(), used_);
  }
  data_ = heap_.data();
  capacity_ = heap_.size();
}

kernel_args::packer& kernel_args::packer::indexer(index_t size, std::span<const index_t> shape,
                                                  std::span<const strides_t> strides) {
  for (const strides_t& operand : strides) {
    if (operand.size() != shape.size()) {
      throw error("internal: an indexer operand has " + std::to_string(operand.size()) + " strides for " +
                  std::to_string(shape.size()) + " dimensions; please report this");
    }
  }
  const std::size_t words = indexer_words(static_cast<int>(shape.size()), static_cast<int>(strides.size()));
  if (index64_) {
    put_words<std::int64_t>(reserve(next(kind::indexer, words * 8)), size, shape, strides);
  } else {
    put_words<std::int32_t>(reserve(next(kind::indexer, words * 4)), size, shape, strides);
  }
  return *this;
}

void kernel_args::packer::launch(const loaded_kernel& k, dim3 grid, dim3 block, std::size_t shared_bytes,
                                 CUstream stream, bool waits_first) {
  if (count_ != total_) {
    throw error("internal: a generated kernel takes " + std::to_string(total_) + " arguments, " +
                std::to_string(count_) + " were packed; please report this");
  }
  check_arguments(k, sizes_.data(), count_);
  // The first count_ are set and only those are read: no zeroing per launch.
  std::array<void*, max_params> pointers;  // NOLINT(cppcoreguidelines-pro-type-member-init): see above
  for (std::size_t i = 0; i < count_; ++i) {
    pointers[i] = data_ + offsets_[i];
  }
  detail::launch(k, grid, block, shared_bytes, stream, pointers.data(), waits_first);
}

}  // namespace ndcuda::jit::detail
