// The device pool's diagnostics: out-of-memory and bad-free messages, and the consistency check
// the tests run after every step.
#include <ndcuda/core/error.hpp>
#include <ndcuda/memory/memory_resource.hpp>
#include <sstream>

#include "memory/block_pool.hpp"
#include "memory/format.hpp"
#include "memory/size_math.hpp"

namespace ndcuda::detail {

// ---- errors -----------------------------------------------------------------------------------

void block_pool::throw_out_of_memory(std::size_t bytes, const stream& s, std::size_t released, bool limit_blocked,
                                     const std::string& upstream_error) {
  const memory_stats st = ledger_.stats();
  std::string message = "out of memory on device " + std::to_string(device_) + ": allocate(" + std::to_string(bytes) +
                        " bytes = " + format_bytes(bytes) + ") on stream " + format_pointer(s.handle()) +
                        " failed; pool: " + to_string(st);
  if (bytes > largest_request) {
    message += "; the size is too large to be a real request (is it a negative number converted to size_t?)";
  } else if (limit_blocked && st.limit) {
    message += "; the request does not fit under the pool's limit of " + format_bytes(*st.limit) + " with " +
               format_bytes(st.reserved_bytes) + " already reserved";
  }
  std::string upstream;
  try {
    upstream = upstream_->describe();
  } catch (...) {
    upstream = "(the upstream could not describe itself)";
  }
  message += "; upstream: " + upstream;
  if (!upstream_error.empty()) {
    message += " (" + upstream_error + ")";
  }
  if (bytes <= largest_request) {
    message += ". The pool released " + format_bytes(released) +
               " of cached free chunks and retried once. Free arrays you no longer need, call free_all_blocks() on "
               "other pools of this device, work in smaller pieces";
    message += st.limit ? ", or raise the limit with set_limit()" : "";
  }
  throw out_of_memory(message);
}

void block_pool::throw_bad_deallocate(void* p, std::size_t bytes) const {
  const std::string call = "deallocate(" + format_pointer(p) + ", " + std::to_string(bytes) +
                           " bytes) on the device pool of device " + std::to_string(device_) + ": ";
  const auto address = reinterpret_cast<std::uintptr_t>(p);
  auto it = chunks_.upper_bound(address);
  if (it != chunks_.begin()) {
    --it;
    const chunk& c = *it->second;
    if (static_cast<char*>(p) < c.ptr + c.size) {
      for (const block* b = c.first; b != nullptr; b = b->next_addr) {
        if (static_cast<char*>(p) >= b->ptr && static_cast<char*>(p) < b->ptr + b->size) {
          if (b->free) {
            throw error(call +
                        "double free: this memory was already returned to the pool and not allocated again. "
                        "Deallocate each pointer from allocate() exactly once");
          }
          throw error(call + "the pointer lies inside the live allocation at " + format_pointer(b->ptr) + " (" +
                      std::to_string(b->requested) +
                      " bytes) but is not its start; pass the pointer that "
                      "allocate() returned");
        }
      }
    }
  }
  throw error(call +
              "the pointer was not allocated by this pool (or was freed twice and its chunk released since); "
              "return memory to the resource that allocated it");
}

// ---- validation (tests) -----------------------------------------------------------------------

std::string block_pool::validate() const {
  std::lock_guard lock(mutex_);
  std::ostringstream problems;
  std::size_t chunk_bytes = 0;
  std::size_t used = 0;
  std::size_t cached = 0;
  std::size_t in_use = 0;
  for (const auto& [address, c] : chunks_) {
    chunk_bytes += c->size;
    std::size_t covered = 0;
    const block* prev = nullptr;
    for (const block* b = c->first; b != nullptr; b = b->next_addr) {
      if (b->home != c.get()) {
        problems << "block " << format_pointer(b->ptr) << " has the wrong chunk; ";
      }
      if (b->prev_addr != prev) {
        problems << "block " << format_pointer(b->ptr) << " has a bad prev link; ";
      }
      if (b->ptr != c->ptr + covered) {
        problems << "block " << format_pointer(b->ptr) << " is not contiguous; ";
      }
      if (b->size == 0 || b->size % allocation_alignment != 0) {
        problems << "block size " << b->size << " is bad; ";
      }
      if (b->free) {
        cached += b->size;
        if (b->owner == nullptr) {
          problems << "free block " << format_pointer(b->ptr) << " is in no list; ";
        }
        if (prev != nullptr && prev->free && prev->owner == b->owner) {
          problems << "free neighbours " << format_pointer(prev->ptr) << " and " << format_pointer(b->ptr)
                   << " of one stream were not merged; ";
        }
      } else {
        used += b->size;
        ++in_use;
        if (live_.find(b->ptr) != b) {
          problems << "live block " << format_pointer(b->ptr) << " is not in the map; ";
        }
      }
      covered += b->size;
      prev = b;
    }
    if (covered != c->size) {
      problems << "chunk " << format_pointer(c->ptr) << " blocks cover " << covered << " of " << c->size << "; ";
    }
  }
  std::size_t listed_blocks = 0;
  std::size_t listed_bytes = 0;
  for (const auto& st : states_) {
    std::size_t blocks = 0;
    std::size_t bytes = 0;
    for (std::size_t bin = 0; bin < bin_count; ++bin) {
      const bool bit = (st->list.occupied[bin / 64] >> (bin % 64)) & 1U;
      if (bit != (st->list.heads[bin] != nullptr)) {
        problems << "bin " << bin << " occupancy bit is wrong; ";
      }
      for (const block* b = st->list.heads[bin]; b != nullptr; b = b->next_free) {
        if (!b->free || b->owner != st.get()) {
          problems << "listed block " << format_pointer(b->ptr) << " is not free here; ";
        }
        if (bin_of(b->size) != bin) {
          problems << "block in the wrong bin; ";
        }
        ++blocks;
        bytes += b->size;
      }
    }
    if (blocks != st->list.blocks || bytes != st->list.bytes) {
      problems << "a stream list miscounts; ";
    }
    listed_blocks += blocks;
    listed_bytes += bytes;
  }
  const memory_stats st = ledger_.stats();
  if (chunk_bytes != st.reserved_bytes) {
    problems << "reserved " << st.reserved_bytes << " but chunks hold " << chunk_bytes << "; ";
  }
  if (used != st.used_bytes) {
    problems << "used " << st.used_bytes << " but blocks in use hold " << used << "; ";
  }
  if (cached != st.cached_bytes || listed_bytes != st.cached_bytes) {
    problems << "cached " << st.cached_bytes << " but free blocks hold " << cached << " and lists " << listed_bytes
             << "; ";
  }
  if (in_use != live_.size()) {
    problems << in_use << " blocks in use but " << live_.size() << " in the map; ";
  }
  if (st.used_bytes + st.cached_bytes != st.reserved_bytes) {
    problems << "used + cached != reserved; ";
  }
  if (st.allocation_count - st.deallocation_count != live_.size() || st.live_allocations != live_.size()) {
    problems << "allocation counts disagree with live blocks; ";
  }
  (void)listed_blocks;
  return problems.str();
}

}  // namespace ndcuda::detail
