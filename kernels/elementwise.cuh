// The elementwise kernel templates: an Op applied to every position of an iteration space, in a
// contiguous variant (aligned vector loads), an N-d strided one, and three 2-d ones (a grid of rows
// and columns, scalar or with aligned vectors along the rows; a shared-memory tile for transposed
// inputs). Builds on indexer.cuh, numeric.cuh and ufuncs.cuh (what fused expressions call); each
// variant is one small kernel, opening with dependent_launch.cuh's prologue.
#pragma once

#include "ndcuda/dependent_launch.cuh"
#include "ndcuda/indexer.cuh"
#include "ndcuda/numeric.cuh"
// A generated kernel whose body calls no ufunc (a copy, a cast, a comparison, most user bodies)
// defines NDCUDA_KERNEL_WITHOUT_UFUNCS and skips ufuncs.cuh, a fifth of NVRTC's parse time for
// such a kernel; one that calls only those of ufuncs_core.cuh (a * b + c) defines
// NDCUDA_KERNEL_CORE_UFUNCS and parses that small part alone.
#if defined(NDCUDA_KERNEL_CORE_UFUNCS)
#include "ndcuda/ufuncs_core.cuh"
#elif !defined(NDCUDA_KERNEL_WITHOUT_UFUNCS)
#include "ndcuda/ufuncs.cuh"
#endif

namespace ndcuda {

/// VEC elements read or written with one aligned load/store (16 bytes at most).
template <class T, int VEC>
struct alignas(sizeof(T) * VEC) aligned_vector {
  T v[VEC];
};

namespace detail {

template <int VEC, class T, class IndexT>
__forceinline__ aligned_vector<T, VEC> load_vector(const T* p, IndexT v) {
  return reinterpret_cast<const aligned_vector<T, VEC>*>(p)[v];
}

template <int VEC, class Op, class Out, class IndexT, class... V>
__forceinline__ void apply_vector(const Op& op, Out* out, IndexT v, const V&... in) {
  aligned_vector<Out, VEC> result;
#pragma unroll
  for (int k = 0; k < VEC; ++k) op(result.v[k], in.v[k]...);
  reinterpret_cast<aligned_vector<Out, VEC>*>(out)[v] = result;
}

template <class Op, class Out, class IndexT, int NARGS, int... I, class... In>
__forceinline__ void apply_strided(const Op& op, Out* out, const IndexT (&offset)[NARGS], index_list<I...>,
                                   const In... in) {
  op(out[offset[0]], in[offset[I + 1]]...);
}

// The tiled variant's tile edge (EDGE) and block rows (ROWS), and the 2-d variant's narrow-row
// threshold (NARROW), are template parameters: the generator passes the host's values
// (src/jit/elementwise_plan.hpp), so they are written in one place.

/// One staged input's tile in bytes: edge x (edge + 1) elements, rounded to 16 (host: tile_bytes).
template <int EDGE, class T>
constexpr unsigned tile_bytes = (EDGE * (EDGE + 1) * sizeof(T) + 15) / 16 * 16;

/// An input of the tiled variant: its accessor (a pointer, or a computed input that the host never
/// stages) and strides, and its tile when it is staged.
template <class A, class IndexT>
struct tiled_input {
  A data;
  typename element_of<A>::type* tile;  // nullptr: read directly
  IndexT outer;
  IndexT inner;
};

// Input I's tile sits after those of the staged inputs before it (the host sums the same sizes).
template <int EDGE, int I, class... In>
__forceinline__ unsigned tile_offset(unsigned staged) {
  const unsigned bytes[] = {0u,
                            tile_bytes<EDGE, typename element_of<In>::type>...};  // the leading 0: no zero-size array
  unsigned offset = 0;
#pragma unroll
  for (int j = 0; j < I; ++j) offset += (staged >> j & 1u) ? bytes[j + 1] : 0u;
  return offset;
}

// Loads a staged input's part of the tile at (r0, c0): consecutive threads take consecutive rows,
// along which a transposed input is dense, so the loads coalesce. Stored as tile[column][row].
template <int EDGE, int ROWS, class A, class IndexT>
__forceinline__ void stage(const tiled_input<A, IndexT>& in, IndexT r0, IndexT c0, IndexT rows, IndexT cols) {
  if (in.tile == nullptr) return;
  const IndexT r = r0 + IndexT(threadIdx.x);
#pragma unroll
  for (int k = 0; k < EDGE; k += ROWS) {
    const int column = int(threadIdx.y) + k;
    const IndexT c = c0 + IndexT(column);
    if (r < rows && c < cols) in.tile[column * (EDGE + 1) + int(threadIdx.x)] = in.data[r * in.outer + c * in.inner];
  }
}

template <int EDGE, class A, class IndexT>
__forceinline__ typename element_of<A>::type tiled_element(const tiled_input<A, IndexT>& in, IndexT r, IndexT c,
                                                           int row, int column) {
  return in.tile != nullptr ? in.tile[column * (EDGE + 1) + row] : in.data[r * in.outer + c * in.inner];
}

template <int EDGE, int ROWS, class IndexT, class Op, class Out, class... In>
__forceinline__ void tiled_loop(const Op& op, IndexT rows, IndexT cols, Out* out, IndexT out_outer, IndexT out_inner,
                                const tiled_input<In, IndexT>&... in) {
  const IndexT across = (cols + EDGE - 1) / EDGE;
  const IndexT tiles = across * ((rows + EDGE - 1) / EDGE);
  const int column = int(threadIdx.x);
  for (IndexT t = IndexT(blockIdx.x); t < tiles; t += IndexT(gridDim.x)) {
    const IndexT tile_row = t / across;
    const IndexT r0 = tile_row * EDGE;
    const IndexT c0 = (t - tile_row * across) * EDGE;
    (stage<EDGE, ROWS>(in, r0, c0, rows, cols), ...);
    __syncthreads();
    // Threads along x take consecutive columns: the output (inner stride 1) is written coalesced,
    // staged inputs are read across the tile's padded rows without bank conflicts.
    const IndexT c = c0 + IndexT(column);
#pragma unroll
    for (int k = 0; k < EDGE; k += ROWS) {
      const int row = int(threadIdx.y) + k;
      const IndexT r = r0 + IndexT(row);
      if (r < rows && c < cols) op(out[r * out_outer + c * out_inner], tiled_element<EDGE>(in, r, c, row, column)...);
    }
    __syncthreads();  // before the next tile overwrites this one
  }
}

template <int EDGE, int ROWS, class IndexT, class Op, class Out, int... I, class... In>
__forceinline__ void tiled(const Op& op, const strided_indexer<2, 1 + sizeof...(In), IndexT>& index, unsigned staged,
                           Out* out, index_list<I...>, const In... in) {
  extern __shared__ __align__(16) unsigned char tile_memory[];
  tiled_loop<EDGE, ROWS>(
      op, index.shape[0], index.shape[1], out, index.strides[0][0], index.strides[0][1],
      tiled_input<In, IndexT>{in,
                              (staged >> I & 1u) ? reinterpret_cast<typename element_of<In>::type*>(
                                                       tile_memory + tile_offset<EDGE, I, In...>(staged))
                                                 : nullptr,
                              index.strides[I + 1][0], index.strides[I + 1][1]}...);
}

template <int NARROW, class IndexT, class Op, class Out, int... I, class... In>
__forceinline__ void rows_and_columns(const Op& op, const strided_indexer<2, 1 + sizeof...(In), IndexT>& index,
                                      Out* out, index_list<I...>, const In... in) {
  constexpr int NARGS = 1 + sizeof...(In);
  if (index.shape[1] < NARROW) {
    // Rows narrower than a warp would idle most lanes: one flat loop, one div per element. The
    // host launches a 1-d grid here (same threshold).
    const IndexT step = IndexT(gridDim.x) * IndexT(blockDim.x);
    for (IndexT i = IndexT(blockIdx.x) * IndexT(blockDim.x) + IndexT(threadIdx.x); i < index.size; i += step) {
      const IndexT r = i / index.shape[1];
      const IndexT c = i - r * index.shape[1];
      op(out[r * index.strides[0][0] + c * index.strides[0][1]],
         in[r * index.strides[I + 1][0] + c * index.strides[I + 1][1]]...);
    }
    return;
  }
  const IndexT row_step = IndexT(gridDim.y) * IndexT(blockDim.y);
  const IndexT column_step = IndexT(gridDim.x) * IndexT(blockDim.x);
  const IndexT first_column = IndexT(blockIdx.x) * IndexT(blockDim.x) + IndexT(threadIdx.x);
  for (IndexT r = IndexT(blockIdx.y) * IndexT(blockDim.y) + IndexT(threadIdx.y); r < index.shape[0]; r += row_step) {
    IndexT base[NARGS];
#pragma unroll
    for (int a = 0; a < NARGS; ++a) base[a] = r * index.strides[a][0];
#pragma unroll 1
    for (IndexT c = first_column; c < index.shape[1]; c += column_step) {
      op(out[base[0] + c * index.strides[0][1]], in[base[I + 1] + c * index.strides[I + 1][1]]...);
    }
  }
}

// A row's VEC neighbours of an input of the vectorised 2-d variant: one aligned load where it is
// dense along the row (inner stride 1), its one value repeated where it is broadcast (0).
template <int VEC, class T, class IndexT>
__forceinline__ aligned_vector<T, VEC> row_vector(const T* p, IndexT inner) {
  if (inner != 0) return *reinterpret_cast<const aligned_vector<T, VEC>*>(p);
  aligned_vector<T, VEC> r;
#pragma unroll
  for (int k = 0; k < VEC; ++k) r.v[k] = *p;
  return r;
}

template <int VEC, class IndexT, class Op, class Out, int... I, class... In>
__forceinline__ void vector_rows(const Op& op, const strided_indexer<2, 1 + sizeof...(In), IndexT>& index, Out* out,
                                 index_list<I...>, const In... in) {
  constexpr int NARGS = 1 + sizeof...(In);
  const IndexT cols = index.shape[1];
  const IndexT vectors = cols / VEC;
  const IndexT row_step = IndexT(gridDim.y) * IndexT(blockDim.y);
  const IndexT column_step = IndexT(gridDim.x) * IndexT(blockDim.x);
  const IndexT first = IndexT(blockIdx.x) * IndexT(blockDim.x) + IndexT(threadIdx.x);
  for (IndexT r = IndexT(blockIdx.y) * IndexT(blockDim.y) + IndexT(threadIdx.y); r < index.shape[0]; r += row_step) {
    IndexT base[NARGS];
#pragma unroll
    for (int a = 0; a < NARGS; ++a) base[a] = r * index.strides[a][0];
    Out* row = out + base[0];  // aligned to a whole vector: the host checked base and row stride
#pragma unroll 1
    for (IndexT v = first; v < vectors; v += column_step) {
      const IndexT c = v * VEC;
      apply_vector<VEC>(op, row, v,
                        row_vector<VEC>(in + base[I + 1] + c * index.strides[I + 1][1], index.strides[I + 1][1])...);
    }
    // The tail, fewer than VEC columns, one per thread.
#pragma unroll 1
    for (IndexT c = vectors * VEC + first; c < cols; c += column_step) {
      op(row[c], in[base[I + 1] + c * index.strides[I + 1][1]]...);
    }
  }
}

}  // namespace detail

/// Every operand dense and laid out alike, n elements. With VEC > 1 each thread handles VEC
/// neighbours per step through aligned vectors: the host picks VEC > 1 only when every pointer is
/// aligned to VEC elements. A grid-stride loop, so any grid size is correct. TAIL = false (with
/// VEC > 1): the caller promises n is a multiple of VEC, so the scalar loop over the last
/// elements is left out (less code for NVRTC to compile on a first call).
template <int VEC, class IndexT, bool TAIL = true, class Op, class Out, class... In>
__forceinline__ void elementwise_contiguous(const Op& op, IndexT n, Out* out, const In... in) {
  const IndexT step = IndexT(gridDim.x) * IndexT(blockDim.x);
  IndexT first = IndexT(blockIdx.x) * IndexT(blockDim.x) + IndexT(threadIdx.x);
  if constexpr (VEC > 1) {
    const IndexT vectors = n / VEC;
#pragma unroll 1
    for (IndexT v = first; v < vectors; v += step) {
      detail::apply_vector<VEC>(op, out, v, detail::load_vector<VEC>(in, v)...);
    }
    first += vectors * VEC;  // the tail, fewer than VEC elements, one per thread
  }
  if constexpr (VEC == 1 || TAIL) {
#pragma unroll 1
    for (IndexT i = first; i < n; i += step) op(out[i], in[i]...);
  }
}

/// Any layout: broadcast inputs (stride 0), reversed or transposed views. The host has collapsed
/// dimensions that are contiguous across all operands, so NDIM is as small as it can be.
template <int NDIM, class IndexT, class Op, class Out, class... In>
__forceinline__ void elementwise_strided(const Op& op, const strided_indexer<NDIM, 1 + sizeof...(In), IndexT>& index,
                                         Out* out, const In... in) {
  const IndexT step = IndexT(gridDim.x) * IndexT(blockDim.x);
  for (IndexT i = IndexT(blockIdx.x) * IndexT(blockDim.x) + IndexT(threadIdx.x); i < index.size; i += step) {
    IndexT offset[1 + sizeof...(In)];
    index.offsets(i, offset);
    detail::apply_strided(op, out, offset, typename make_index_list<sizeof...(In)>::type(), in...);
  }
}

/// Two dimensions, any strides: blockIdx.y and threadIdx.y walk rows, x walks columns (both
/// grid-stride), so the per-element div/mod of the N-d indexer is gone. Outer broadcasts run here.
/// Rows narrower than NARROW run as one flat loop (the host launches a 1-d grid for them).
template <int NARROW, class IndexT, class Op, class Out, class... In>
__forceinline__ void elementwise_2d(const Op& op, const strided_indexer<2, 1 + sizeof...(In), IndexT>& index, Out* out,
                                    const In... in) {
  detail::rows_and_columns<NARROW>(op, index, out, typename make_index_list<sizeof...(In)>::type(), in...);
}

/// Two dimensions, the output dense along its rows (inner stride 1) and every input dense (1) or
/// broadcast (0) along them: each thread takes VEC neighbouring columns of a row per step, with
/// aligned vector loads and stores, and a scalar tail for cols % VEC. The host picks it only when
/// the output's and the dense inputs' row starts (base pointer and row stride) are all aligned to
/// a whole vector. Blocks, rows, columns and the grid-stride loops are those of elementwise_2d.
template <int VEC, class IndexT, class Op, class Out, class... In>
__forceinline__ void elementwise_2d_vector(const Op& op, const strided_indexer<2, 1 + sizeof...(In), IndexT>& index,
                                           Out* out, const In... in) {
  detail::vector_rows<VEC>(op, index, out, typename make_index_list<sizeof...(In)>::type(), in...);
}

/// Two dimensions, some inputs transposed relative to the output (bit i of `staged`: input i):
/// those pass through an EDGE-square shared-memory tile per block (dynamic shared memory, as the
/// host sized it), so both their reads and the output's writes coalesce. Blocks are EDGE x ROWS
/// threads and walk the tiles grid-stride along blockIdx.x.
template <int EDGE, int ROWS, class IndexT, class Op, class Out, class... In>
__forceinline__ void elementwise_tiled(const Op& op, const strided_indexer<2, 1 + sizeof...(In), IndexT>& index,
                                       unsigned staged, Out* out, const In... in) {
  detail::tiled<EDGE, ROWS>(op, index, staged, out, typename make_index_list<sizeof...(In)>::type(), in...);
}

}  // namespace ndcuda
