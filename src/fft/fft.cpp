// nd::fft on cuFFT: operands are brought into one contiguous buffer with the transformed axes
// last (cropped, zero-padded and converted in the same copy), transformed by a cached batched
// plan, and handed back as a view in the caller's axis order.
#include <cufft.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <climits>
#include <list>
#include <memory>
#include <mutex>
#include <ndcuda/device/detail/capture.hpp>
#include <ndcuda/device/device.hpp>
#include <ndcuda/fft/detail/entry_points.hpp>
#include <ndcuda/memory/detail/buffer.hpp>
#include <numeric>
#include <string>
#include <vector>

#include "linalg/erased_ops.hpp"
#include "linalg/library_check.hpp"

namespace ndcuda::fft {

namespace detail {
namespace {

using namespace ndcuda::linalg::detail;  // NOLINT: erased_array helpers

struct plan_key {
  int device = 0;
  cufftType type{};
  std::vector<long long> n;
  long long batch = 0;
  friend bool operator==(const plan_key&, const plan_key&) = default;
};

struct plan_entry {
  plan_key key;
  cufftHandle handle = 0;
  std::size_t work_bytes = 0;
  std::mutex mutex;
  ~plan_entry() {
    if (handle != 0) {
      (void)cufftDestroy(handle);
    }
  }
};

struct plan_cache {
  std::mutex mutex;
  std::list<std::shared_ptr<plan_entry>> lru;  // front: most recent
  std::size_t capacity = 16;
  std::vector<std::shared_ptr<plan_entry>> captured;  // kept for the process' lifetime
};

plan_cache& cache() {
  static auto* c = new plan_cache();  // never destroyed: plans may outlive static destruction order
  return *c;
}

std::atomic<unsigned long long> devices_with_plans{0};

std::shared_ptr<plan_entry> get_plan(const plan_key& key, bool capturing) {
  plan_cache& c = cache();
  std::shared_ptr<plan_entry> entry;
  {
    std::lock_guard lock(c.mutex);
    for (auto it = c.lru.begin(); it != c.lru.end(); ++it) {
      if ((*it)->key == key) {
        entry = *it;
        c.lru.splice(c.lru.begin(), c.lru, it);
        break;
      }
    }
  }
  if (!entry) {
    entry = std::make_shared<plan_entry>();
    entry->key = key;
    device_guard guard(key.device);
    ndcuda::detail::relaxed_capture_mode relaxed;  // plan creation allocates its tables
    NDCUDA_LIB_CHECK(cufftCreate(&entry->handle));
    NDCUDA_LIB_CHECK(cufftSetAutoAllocation(entry->handle, 0));
    std::vector<long long> n = key.n;
    std::size_t work = 0;
    NDCUDA_LIB_CHECK(cufftMakePlanMany64(entry->handle, static_cast<int>(n.size()), n.data(), nullptr, 1, 0, nullptr, 1,
                                         0, key.type, key.batch, &work));
    entry->work_bytes = work;
    devices_with_plans.fetch_or(1ull << key.device);
    std::lock_guard lock(c.mutex);
    c.lru.push_front(entry);
    while (c.lru.size() > c.capacity) {
      c.lru.pop_back();  // destroyed when its last user is done with it
    }
  }
  if (capturing) {
    std::lock_guard lock(c.mutex);
    if (std::find(c.captured.begin(), c.captured.end(), entry) == c.captured.end()) {
      c.captured.push_back(entry);
    }
  }
  return entry;
}

/// Runs one transform of the trailing rank dims of contiguous `in` into contiguous `out`.
void execute(cufftType type, const std::vector<long long>& n, long long batch, const erased_array& in,
             const erased_array& out, int direction) {
  if (batch == 0) {
    return;
  }
  const stream& s = out.s;
  const auto entry = get_plan(plan_key{s.device(), type, n, batch}, s.is_capturing());
  std::lock_guard lock(entry->mutex);
  device_guard guard(s.device());
  NDCUDA_LIB_CHECK(cufftSetStream(entry->handle, s.handle()));
  void* work = nullptr;
  const auto work_owner = ndcuda::detail::allocate_buffer(std::max<std::size_t>(entry->work_bytes, 1), s, &work);
  NDCUDA_LIB_CHECK(cufftSetWorkArea(entry->handle, work));
  void* i = in.data();
  void* o = out.data();
  switch (type) {
    case CUFFT_C2C:
      NDCUDA_LIB_CHECK(
          cufftExecC2C(entry->handle, static_cast<cufftComplex*>(i), static_cast<cufftComplex*>(o), direction));
      break;
    case CUFFT_Z2Z:
      NDCUDA_LIB_CHECK(cufftExecZ2Z(entry->handle, static_cast<cufftDoubleComplex*>(i),
                                    static_cast<cufftDoubleComplex*>(o), direction));
      break;
    case CUFFT_R2C:
      NDCUDA_LIB_CHECK(cufftExecR2C(entry->handle, static_cast<cufftReal*>(i), static_cast<cufftComplex*>(o)));
      break;
    case CUFFT_D2Z:
      NDCUDA_LIB_CHECK(
          cufftExecD2Z(entry->handle, static_cast<cufftDoubleReal*>(i), static_cast<cufftDoubleComplex*>(o)));
      break;
    case CUFFT_C2R:
      NDCUDA_LIB_CHECK(cufftExecC2R(entry->handle, static_cast<cufftComplex*>(i), static_cast<cufftReal*>(o)));
      break;
    case CUFFT_Z2D:
      NDCUDA_LIB_CHECK(
          cufftExecZ2D(entry->handle, static_cast<cufftDoubleComplex*>(i), static_cast<cufftDoubleReal*>(o)));
      break;
  }
}

/// x's axes reordered so that `axes` come last (in their order): the permutation.
std::vector<index_t> axes_last(int nd, const std::vector<int>& axes) {
  std::vector<index_t> perm;
  for (int i = 0; i < nd; ++i) {
    if (std::find(axes.begin(), axes.end(), i) == axes.end()) {
      perm.push_back(i);
    }
  }
  perm.insert(perm.end(), axes.begin(), axes.end());
  return perm;
}

/// A contiguous buffer of `type` holding x permuted by `perm`, each axis cropped or zero-padded to
/// `target` (in permuted order). x itself when nothing needs to change and `reuse` allows it.
erased_array prepared(const erased_array& x, dtype type, const std::vector<index_t>& perm, const shape_t& target,
                      bool reuse) {
  const view_layout permuted = transpose_layout(x.layout, perm);
  bool pad = false, crop = false;
  for (std::size_t i = 0; i < target.size(); ++i) {
    pad = pad || target[i] > permuted.shape[i];
    crop = crop || target[i] < permuted.shape[i];
  }
  if (reuse && !pad && !crop && x.type == type && is_c_contiguous(permuted.shape, permuted.strides)) {
    return with_layout(x, permuted);
  }
  erased_array buf = pad ? zeros_array(type, target, x.s) : empty_array(type, target, x.s);
  // The overlap of x and the target, in both.
  view_layout src = permuted;
  view_layout dst = buf.layout;
  for (std::size_t i = 0; i < target.size(); ++i) {
    const index_t common = std::min(target[i], permuted.shape[i]);
    src.shape[i] = common;
    dst.shape[i] = common;
  }
  copy_into(with_layout(buf, dst), with_layout(x, src));
  return buf;
}

/// The permuted result viewed back in x's axis order.
erased_array unpermuted(erased_array r, const std::vector<index_t>& perm) {
  std::vector<index_t> inverse(perm.size());
  for (std::size_t i = 0; i < perm.size(); ++i) {
    inverse[static_cast<std::size_t>(perm[i])] = static_cast<index_t>(i);
  }
  r.layout = transpose_layout(r.layout, inverse);
  return r;
}

long long product(const shape_t& s, std::size_t from, std::size_t to) {
  long long p = 1;
  for (std::size_t i = from; i < to; ++i) {
    p *= s[i];
  }
  return p;
}

bool is_double(dtype t) {
  return t == dtype::float64 || t == dtype::complex128;
}

}  // namespace

erased_array c2c(const erased_array& x, dtype type, const std::vector<int>& axes, const shape_t& lengths,
                 bool inverse) {
  if (axes.empty()) {
    return contiguous_copy(x, type);
  }
  if (axes.size() > 3) {
    // cuFFT transforms at most 3 dimensions at a time: the last three first, then the rest.
    const std::vector<int> tail(axes.end() - 3, axes.end()), head(axes.begin(), axes.end() - 3);
    const shape_t tail_n(lengths.end() - 3, lengths.end()), head_n(lengths.begin(), lengths.end() - 3);
    return c2c(c2c(x, type, tail, tail_n, inverse), type, head, head_n, inverse);
  }
  const int nd = x.ndim();
  const std::vector<index_t> perm = axes_last(nd, axes);
  shape_t target = transpose_layout(x.layout, perm).shape;
  const std::size_t rank = axes.size();
  for (std::size_t i = 0; i < rank; ++i) {
    target[static_cast<std::size_t>(nd) - rank + i] = lengths[i];
  }
  // An out-of-place C2C leaves its input alone, so an already suitable x is read in place.
  const erased_array in = prepared(x, type, perm, target, true);
  erased_array out = empty_array(type, target, x.s);
  if (out.size() > 0) {
    std::vector<long long> n(lengths.begin(), lengths.end());
    execute(is_double(type) ? CUFFT_Z2Z : CUFFT_C2C, n, product(target, 0, static_cast<std::size_t>(nd) - rank), in,
            out, inverse ? CUFFT_INVERSE : CUFFT_FORWARD);
  }
  return unpermuted(out, perm);
}

erased_array r2c(const erased_array& x, dtype type, const std::vector<int>& axes, const shape_t& lengths) {
  const dtype ct = is_double(type) ? dtype::complex128 : dtype::complex64;
  if (axes.size() > 3) {
    // rfftn: the real transform over the last three axes, then complex ones over the rest.
    const std::vector<int> tail(axes.end() - 3, axes.end()), head(axes.begin(), axes.end() - 3);
    const shape_t tail_n(lengths.end() - 3, lengths.end()), head_n(lengths.begin(), lengths.end() - 3);
    return c2c(r2c(x, type, tail, tail_n), ct, head, head_n, false);
  }
  const int nd = x.ndim();
  const std::vector<index_t> perm = axes_last(nd, axes);
  shape_t target = transpose_layout(x.layout, perm).shape;
  const std::size_t rank = axes.size();
  for (std::size_t i = 0; i < rank; ++i) {
    target[static_cast<std::size_t>(nd) - rank + i] = lengths[i];
  }
  const erased_array in = prepared(x, type, perm, target, true);
  shape_t out_shape = target;
  out_shape.back() = target.back() / 2 + 1;
  erased_array out = empty_array(ct, out_shape, x.s);
  if (out.size() > 0) {
    std::vector<long long> n(lengths.begin(), lengths.end());
    execute(is_double(type) ? CUFFT_D2Z : CUFFT_R2C, n, product(target, 0, static_cast<std::size_t>(nd) - rank), in,
            out, 0);
  }
  return unpermuted(out, perm);
}

erased_array c2r(const erased_array& x, dtype type, const std::vector<int>& axes, const shape_t& lengths) {
  const dtype rt = is_double(type) ? dtype::float64 : dtype::float32;
  if (axes.size() > 3) {
    // irfftn: inverse complex transforms over the leading axes, the real one over the last three.
    const std::vector<int> tail(axes.end() - 3, axes.end()), head(axes.begin(), axes.end() - 3);
    const shape_t tail_n(lengths.end() - 3, lengths.end()), head_n(lengths.begin(), lengths.end() - 3);
    return c2r(c2c(x, type, head, head_n, true), type, tail, tail_n);
  }
  const int nd = x.ndim();
  const std::vector<index_t> perm = axes_last(nd, axes);
  shape_t target = transpose_layout(x.layout, perm).shape;
  const std::size_t rank = axes.size();
  for (std::size_t i = 0; i < rank; ++i) {
    target[static_cast<std::size_t>(nd) - rank + i] = lengths[i];
  }
  shape_t in_shape = target;
  in_shape.back() = target.back() / 2 + 1;
  // C2R overwrites its input: always a fresh buffer.
  const erased_array in = prepared(x, type, perm, in_shape, false);
  erased_array out = empty_array(rt, target, x.s);
  if (out.size() > 0) {
    std::vector<long long> n(lengths.begin(), lengths.end());
    execute(is_double(type) ? CUFFT_Z2D : CUFFT_C2R, n, product(target, 0, static_cast<std::size_t>(nd) - rank), in,
            out, 0);
  }
  return unpermuted(out, perm);
}

std::size_t cached_plans(int device) {
  plan_cache& c = cache();
  std::lock_guard lock(c.mutex);
  return static_cast<std::size_t>(
      std::count_if(c.lru.begin(), c.lru.end(), [&](const auto& e) { return e->key.device == device; }));
}

unsigned long long plan_devices() noexcept {
  return devices_with_plans.load();
}

}  // namespace detail

void set_plan_cache_size(std::size_t plans) {
  detail::plan_cache& c = detail::cache();
  std::lock_guard lock(c.mutex);
  c.capacity = plans;
  while (c.lru.size() > c.capacity) {
    c.lru.pop_back();
  }
}

std::size_t plan_cache_size() noexcept {
  detail::plan_cache& c = detail::cache();
  std::lock_guard lock(c.mutex);
  return c.capacity;
}

void clear_plan_cache() {
  detail::plan_cache& c = detail::cache();
  std::lock_guard lock(c.mutex);
  c.lru.clear();
}

}  // namespace ndcuda::fft
