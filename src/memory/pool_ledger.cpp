// The pools' shared accounts (pool_ledger.hpp): block and chunk book-keeping, and the upstream
// trips made outside the lock. Builds on chunk_upstream and size_math.hpp.
#include "memory/pool_ledger.hpp"

#include <algorithm>
#include <exception>

#include "memory/size_math.hpp"

namespace ndcuda::detail {

void pool_ledger::hand_out(std::size_t bytes) noexcept {
  used_ += bytes;
  peak_used_ = std::max(peak_used_, used_);
  ++allocations_;
  ++live_;
}

void pool_ledger::take_back(std::size_t bytes) noexcept {
  used_ = saturating_sub(used_, bytes);
  ++deallocations_;
  live_ = live_ > 0 ? live_ - 1 : 0;
}

void pool_ledger::uncache(std::size_t bytes) noexcept {
  cached_ = saturating_sub(cached_, bytes);
}

std::size_t pool_ledger::room() const noexcept {
  return limit_ ? saturating_sub(*limit_, reserved_ + in_flight_) : max_size;
}

void* pool_ledger::obtain_chunk(std::unique_lock<std::mutex>& lock, chunk_upstream& upstream, std::size_t bytes,
                                const stream& s) {
  in_flight_ += bytes;  // given back whatever happens
  lock.unlock();
  void* p = nullptr;
  try {
    p = upstream.allocate_chunk(bytes, s);
  } catch (...) {
    lock.lock();
    in_flight_ -= bytes;
    throw;
  }
  lock.lock();
  in_flight_ -= bytes;
  return p;
}

void pool_ledger::add_chunk(std::size_t bytes) noexcept {
  reserved_ += bytes;
  peak_reserved_ = std::max(peak_reserved_, reserved_);
  ++upstream_allocations_;
}

std::size_t pool_ledger::return_chunks(std::unique_lock<std::mutex>& lock, chunk_upstream& upstream,
                                       const std::vector<returned_chunk>& chunks) {
  if (chunks.empty()) {
    return 0;
  }
  std::size_t total = 0;
  for (const returned_chunk& c : chunks) {
    reserved_ -= c.size;
    in_flight_ += c.size;  // still counts toward the limit until upstream has it back
    total += c.size;
  }
  lock.unlock();
  std::exception_ptr failure;
  std::size_t released = 0;
  for (const returned_chunk& c : chunks) {
    try {
      upstream.free_chunk(c.ptr, c.size);
      released += c.size;
    } catch (...) {
      if (!failure) {
        failure = std::current_exception();
      }
    }
  }
  lock.lock();
  in_flight_ -= total;
  upstream_frees_ += chunks.size();
  if (failure) {
    std::rethrow_exception(failure);
  }
  return released;
}

memory_stats pool_ledger::stats() const noexcept {
  memory_stats st;
  st.used_bytes = used_;
  st.peak_used_bytes = peak_used_;
  st.cached_bytes = cached_;
  st.reserved_bytes = reserved_;
  st.peak_reserved_bytes = peak_reserved_;
  st.allocation_count = allocations_;
  st.deallocation_count = deallocations_;
  st.live_allocations = live_;
  st.upstream_allocations = upstream_allocations_;
  st.upstream_frees = upstream_frees_;
  st.limit = limit_;
  return st;
}

void pool_ledger::reset_peak() noexcept {
  peak_used_ = used_;
  peak_reserved_ = reserved_;
}

}  // namespace ndcuda::detail
