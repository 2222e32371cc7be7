// The device algorithms compiled ahead with nvcc (src/ops/*.cu, CUB and Thrust), type-erased: a
// dtype or key width, contiguous buffers, a stream. Builds on core/ and device/stream.hpp only;
// ops/scans.hpp and ops/sorting.hpp plan views, axes and dtypes on top of these.
#pragma once
#pragma GCC visibility push(default)  // what the public headers declare is the ABI (docs/design.md)

#include <cstddef>
#include <cstdint>
#include <ndcuda/core/detail/internal.hpp>
#include <ndcuda/core/dtype.hpp>
#include <ndcuda/core/shape.hpp>
#include <ndcuda/device/stream.hpp>

namespace ndcuda::detail {

enum class scan_op : std::uint8_t { sum, prod };

/// The dtype a scan of `result` elements accumulates in, inside the kernel: every integer and bool
/// in uint64 (two's complement makes int64 sums and products the same bits, and wraps without
/// undefined behaviour), float16/bfloat16/float32 in float32, the others in themselves. Five
/// accumulators times two ops is all the scan code nvcc instantiates.
constexpr dtype scan_kernel_type(dtype result) noexcept {
  switch (kind(result)) {
    case dtype_kind::boolean:
    case dtype_kind::signed_integer:
    case dtype_kind::unsigned_integer:
      return dtype::uint64;
    case dtype_kind::floating:
      return result == dtype::float64 ? dtype::float64 : dtype::float32;
    case dtype_kind::complex:
      return result;
  }
  return result;
}

/// out[i] = in[first] op ... op in[i], where `first` starts i's run of `segment` consecutive
/// elements (segment == n: one scan over everything). `acc` is a scan_kernel_type; `in` may equal
/// `out`. One CUB call whatever the number of segments (a scan by key on the segment index).
NDCUDA_INTERNAL void inclusive_scan(dtype acc, scan_op op, const void* in, void* out, index_t n, index_t segment,
                                    const stream& s);

/// How elements become unsigned keys whose unsigned order is NumPy's sort order.
enum class key_mode : std::uint8_t {
  identity,         // bool, unsigned integers
  flip_sign,        // signed integers: two's complement with the sign bit flipped
  float_canonical,  // -0.0 -> +0.0 and every NaN -> one positive quiet NaN, then ordered: equal
                    // elements (as NumPy compares them) get equal keys; not reversible bit for bit
  float_total,      // ordered keys with every NaN after +inf whatever its sign, reversible bit for
                    // bit (-0.0 just before +0.0, NaNs by payload)
};

/// The unsigned key type (its width) and the transform for elements of one dtype.
struct key_format {
  std::size_t bytes = 0;
  key_mode mode = key_mode::identity;
  std::uint64_t inf_bits = 0;  // floats: the bit pattern of +inf
  std::uint64_t sign_bit = 0;  // the top bit of the key
};

/// The key format of `t`: `canonical` for argsort/unique/searchsorted (equal elements, equal
/// keys), otherwise the reversible one sort uses. Throws error for complex dtypes. Host only.
[[nodiscard]] key_format key_format_for(dtype t, bool canonical, const char* what);

/// keys[i] = key of in[i] (in may equal keys); when `row_index` is not null also
/// row_index[i] = i % segment (argsort's initial values).
void encode_keys(const key_format& f, const void* in, void* keys, std::int64_t* row_index, index_t n, index_t segment,
                 const stream& s);
/// out[i] = the element whose key is keys[i] (keys may equal out).
void decode_keys(const key_format& f, const void* keys, void* out, index_t n, const stream& s);

/// Stable ascending sort of unsigned keys of `key_bytes` bytes within each run of `segment`
/// elements (segment == n: one sort). `in` and `out` must not overlap.
void sort_keys(std::size_t key_bytes, const void* in, void* out, index_t n, index_t segment, const stream& s);
/// The same, carrying int64 values along (argsort).
NDCUDA_INTERNAL void sort_pairs(std::size_t key_bytes, const void* keys_in, void* keys_out,
                                const std::int64_t* values_in, std::int64_t* values_out, index_t n, index_t segment,
                                const stream& s);
/// Merges the sorted runs of unsigned keys a (na keys) and b (nb) into out (na + nb keys, apart from
/// both). Equal keys are equal bits, so which run an equal key came from cannot be seen.
void merge_keys(std::size_t key_bytes, const void* a, index_t na, const void* b, index_t nb, void* out,
                const stream& s);
/// The same, carrying int64 values that break ties between equal keys: with unique values (global
/// positions), smaller first, the merge is stable.
void merge_pairs(std::size_t key_bytes, const void* a, const std::int64_t* a_values, index_t na, const void* b,
                 const std::int64_t* b_values, index_t nb, void* out, std::int64_t* out_values, const stream& s);
/// out = the first of each run of equal keys of `sorted`; *count (device memory) = how many.
NDCUDA_INTERNAL void unique_keys(std::size_t key_bytes, const void* sorted, void* out, std::int64_t* count, index_t n,
                                 const stream& s);
/// out[i] = the first (right: one past the last) position in `sorted` (m keys) where values[i]
/// could be inserted keeping the order.
NDCUDA_INTERNAL void search_keys(std::size_t key_bytes, const void* sorted, index_t m, const void* values,
                                 std::int64_t* out, index_t n, bool right, const stream& s);

}  // namespace ndcuda::detail

#pragma GCC visibility pop
