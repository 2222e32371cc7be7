/// @file
/// The class distributed_array<T>: a global shape laid over the ranks of a communicator by a
/// sharding spec, one ndarray<T> shard per local rank on that rank's stream. The movement members
/// (gather, to_host, reshard, replicate) are only declared here: dist/movement.hpp defines them,
/// and users include <ndcuda/dist/distributed_array.hpp>, which brings both. Builds on
/// array/ndarray.hpp and dist/{communicator,sharding}.hpp.
#pragma once
#pragma GCC visibility push(default)  // what the public headers declare is the ABI (docs/design.md)

#include <ndcuda/array/creation.hpp>
#include <ndcuda/array/ndarray.hpp>
#include <ndcuda/core/error.hpp>
#include <ndcuda/dist/communicator.hpp>
#include <ndcuda/dist/sharding.hpp>
#include <string>
#include <utility>
#include <vector>

namespace ndcuda::dist {

/// An elementwise expression over distributed arrays (dist/expression.hpp): what a
/// distributed_array can be constructed from or assigned.
template <class X>
concept distributed_expression = requires {
  typename std::remove_cvref_t<X>::is_ndcuda_distributed_expression;
};

namespace detail {

/// The view of `a` holding elements [r.begin, r.end) of `axis` (all of every other axis).
template <array_element T>
ndarray<T> slab(const ndarray<T>& a, int axis, block_range r) {
  std::vector<index_item> items(static_cast<std::size_t>(axis), index_item(all));
  items.emplace_back(slice(r.begin, r.end));
  return a.index(items);
}

/// The view of `a` holding box `b` (in a's own coordinates).
template <array_element T>
ndarray<T> view_of(const ndarray<T>& a, const block_box& b) {
  std::vector<index_item> items;
  items.reserve(b.size());
  for (const block_range& r : b) {
    items.emplace_back(slice(r.begin, r.end));
  }
  return a.index(items);
}

}  // namespace detail

/// An array of global shape shape() spread over the ranks of comm() as spec() says. Copies
/// share the shards (reference semantics, like ndarray). Each local shard is a C-contiguous
/// ndarray on its rank's device, ordered on comm().stream(local): work on different GPUs runs in
/// parallel, and cross-device ordering goes through events and NCCL, never host waits.
template <array_element T>
class distributed_array;
/// Whether T is a distributed_array.
template <class T>
inline constexpr bool is_distributed_array = false;
/// A distributed_array is one.
template <class T>
inline constexpr bool is_distributed_array<distributed_array<T>> = true;

template <array_element T>
class distributed_array {
 public:
  /// The element type.
  using value_type = T;

  /// The low-level constructor: `shards[local]` must have shard_shape(...) of rank comm.rank(local)
  /// and live on comm.device(local). Throws shape_error or device_error otherwise.
  distributed_array(communicator comm, shape_t shape, const sharding& spec, std::vector<ndarray<T>> shards)
      : comm_(std::move(comm)),
        shape_(std::move(shape)),
        spec_(normalize(spec, static_cast<int>(shape_.size()), comm_.size())),
        shards_(std::move(shards)) {
    if (static_cast<int>(shards_.size()) != comm_.local_size()) {
      throw shape_error("distributed_array: " + std::to_string(shards_.size()) + " shards for " +
                        std::to_string(comm_.local_size()) + " local ranks");
    }
    for (int l = 0; l < comm_.local_size(); ++l) {
      const auto& s = shards_[static_cast<std::size_t>(l)];
      const shape_t expected = shard_shape(shape_, spec_, comm_.size(), comm_.rank(l));
      if (s.shape() != expected || !s.is_contiguous()) {
        throw shape_error("distributed_array: the shard of rank " + std::to_string(comm_.rank(l)) + " has shape " +
                          format_shape(s.shape()) + (s.is_contiguous() ? "" : " (not contiguous)") + ", expected " +
                          format_shape(expected) + " for global shape " + format_shape(shape_) + " sharded " +
                          describe(spec_));
      }
      if (s.device() != comm_.device(l)) {
        throw device_error("distributed_array: the shard of rank " + std::to_string(comm_.rank(l)) + " is on device " +
                           std::to_string(s.device()) + ", its rank is on device " + std::to_string(comm_.device(l)));
      }
    }
  }

  /// Evaluates an elementwise expression over distributed arrays (dist/expression.hpp).
  template <distributed_expression X>
  distributed_array(const X& x)  // NOLINT: implicit, as `distributed_array<float> c = a + b;`
      : distributed_array(x.template evaluate<T>()) {}

  /// Shares the shards (reference semantics, as ndarray).
  distributed_array(const distributed_array&) = default;
  /// Takes the shards of `other`.
  distributed_array(distributed_array&&) noexcept = default;
  /// Assignment rebinds the handle, as for ndarray (NumPy's `d = x`): `d = a + b;` evaluates into
  /// new shards. Writes into the existing shards are spelled d.assign(x) and `d += x`.
  distributed_array& operator=(const distributed_array&) = default;
  /// Rebinds the handle to `other`'s shards.
  distributed_array& operator=(distributed_array&&) noexcept = default;
  ~distributed_array() = default;

  /// Writes into the existing shards, no allocation: an expression (one fused kernel per shard),
  /// a weak scalar (every element), a distributed array of the same shape, sharding and
  /// communicator (shard by shard; reshard() it first otherwise), or a random draw of the same
  /// global shape (dist/random.hpp: equals the single-GPU draw bit for bit).
  template <class X>
  const distributed_array& assign(const X& x) const {
    if constexpr (distributed_expression<X>) {
      x.assign_to(*this);
    } else if constexpr (is_distributed_array<X>) {
      if (x.shape() != shape_ || x.spec() != spec_ || !(x.comm() == comm_)) {
        throw shape_error("distributed assign: the source has shape " + format_shape(x.shape()) + " sharded " +
                          describe(x.spec()) + ", the target " + format_shape(shape_) + " sharded " + describe(spec_) +
                          "; reshard() the source to the target's sharding first");
      }
      for (std::size_t l = 0; l < shards_.size(); ++l) {
        shards_[l].assign(x.local_shards()[l]);
      }
    } else if constexpr (requires { assign_from_draw(*this, x); }) {
      assign_from_draw(*this, x);  // a random draw over the global shape (dist/random.hpp)
    } else {
      static_assert(weak_scalar<X>,
                    "distributed_array::assign takes an expression, a distributed array, a scalar or a random draw "
                    "(include <ndcuda/dist/random.hpp>)");
      for (const auto& s : shards_) {
        s.assign(x);
      }
    }
    return *this;
  }

  /// The global shape.
  [[nodiscard]] const shape_t& shape() const noexcept { return shape_; }
  /// The number of axes.
  [[nodiscard]] int ndim() const noexcept { return static_cast<int>(shape_.size()); }
  /// The number of elements of the global array.
  [[nodiscard]] index_t size() const { return shape_size(shape_); }
  /// The bytes of the global array (over all ranks).
  [[nodiscard]] std::size_t nbytes() const { return static_cast<std::size_t>(size()) * sizeof(T); }
  /// The dtype of T.
  [[nodiscard]] static constexpr dtype type() noexcept { return dtype_of<T>; }
  /// How the array is cut over the ranks.
  [[nodiscard]] const sharding& spec() const noexcept { return spec_; }
  /// Whether every rank holds the whole array.
  [[nodiscard]] bool is_replicated() const noexcept { return spec_.is_replicated(); }
  /// The sharded axis, -1 when replicated (the first cut axis of a grid: see is_grid()).
  [[nodiscard]] int axis() const noexcept { return spec_.axis(); }
  /// Whether more than one axis is cut (a 2-D or larger grid of blocks).
  [[nodiscard]] bool is_grid() const noexcept { return spec_.is_grid(); }
  /// The communicator of the ranks that hold the shards.
  [[nodiscard]] const communicator& comm() const noexcept { return comm_; }
  /// The shards held by this process, by local rank.
  [[nodiscard]] const std::vector<ndarray<T>>& local_shards() const noexcept { return shards_; }
  /// The shard of local rank `local`.
  [[nodiscard]] const ndarray<T>& local_shard(int local) const { return shards_.at(static_cast<std::size_t>(local)); }
  /// The elements of the sharded axis that group rank `rank` holds (the whole axis when replicated;
  /// the first cut axis of a grid).
  [[nodiscard]] block_range range(int rank) const {
    if (spec_.is_replicated()) {
      return {0, shape_.empty() ? 1 : shape_[0]};
    }
    return box(rank)[static_cast<std::size_t>(axis())];
  }
  /// The part of the global array that group rank `rank` holds, one range per axis.
  [[nodiscard]] block_box box(int rank) const { return shard_box(shape_, spec_, comm_.size(), rank); }

  // ---- movement (defined in dist/movement.hpp) -------------------------------------------------

  /// The whole array on `device` (which need not be one of the ranks'), C-contiguous, ordered on
  /// that device's default stream after every shard. Single-process communicators only; in
  /// multi-process mode use replicate() or to_host().
  [[nodiscard]] ndarray<T> gather(int device) const;
  /// The elements in C order on the host. Shards are copied straight into place (the array need
  /// not fit on one GPU). Multi-process: a collective, every process receives the whole array.
  /// Waits for the data (with the communicator's timeout).
  [[nodiscard]] std::vector<T> to_host() const;
  /// The same values sharded along `axis` (negative counts from the end): each rank sends each
  /// other rank exactly the overlap of their blocks, all messages in one NCCL group.
  [[nodiscard]] distributed_array reshard(int axis) const;
  /// The same values resharded as `spec` (replicated or block).
  [[nodiscard]] distributed_array reshard(const sharding& spec) const;
  /// Every rank holds the whole array (an all-gather through NCCL send/recv).
  [[nodiscard]] distributed_array replicate() const;
  /// A deep copy with the same sharding.
  [[nodiscard]] distributed_array copy() const {
    std::vector<ndarray<T>> shards;
    for (const auto& s : shards_) {
      shards.push_back(s.copy());
    }
    return distributed_array(comm_, shape_, spec_, std::move(shards));
  }
  /// Converted elementwise as ndarray::astype, shard by shard.
  template <array_element U>
  [[nodiscard]] distributed_array<U> astype() const {
    std::vector<ndarray<U>> shards;
    for (const auto& s : shards_) {
      shards.push_back(s.template astype<U>());
    }
    return distributed_array<U>(comm_, shape_, spec_, std::move(shards));
  }

 private:
  communicator comm_;
  shape_t shape_;
  sharding spec_;
  std::vector<ndarray<T>> shards_;
};

}  // namespace ndcuda::dist

#pragma GCC visibility pop
