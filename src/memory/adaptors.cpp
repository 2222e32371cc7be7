// statistics_adaptor, limiting_adaptor and logging_adaptor.
#include <cerrno>
#include <cstring>
#include <functional>
#include <ndcuda/core/error.hpp>
#include <ndcuda/memory/limiting_adaptor.hpp>
#include <ndcuda/memory/logging_adaptor.hpp>
#include <ndcuda/memory/statistics_adaptor.hpp>

#include "memory/format.hpp"

namespace ndcuda {
namespace {

// Both arguments of the base constructor check: their evaluation order is unspecified.
const memory_resource& require_upstream(const std::shared_ptr<memory_resource>& upstream, const char* adaptor) {
  if (!upstream) {
    throw error(std::string(adaptor) + " needs an upstream resource; pass a non-null std::shared_ptr<memory_resource>");
  }
  return *upstream;
}

void saturating_sub(std::atomic<std::size_t>& counter, std::size_t amount) noexcept {
  std::size_t current = counter.load(std::memory_order_relaxed);
  while (!counter.compare_exchange_weak(current, current > amount ? current - amount : 0, std::memory_order_relaxed)) {
  }
}

void saturating_dec(std::atomic<std::uint64_t>& counter) noexcept {
  std::uint64_t current = counter.load(std::memory_order_relaxed);
  while (current > 0 && !counter.compare_exchange_weak(current, current - 1, std::memory_order_relaxed)) {
  }
}

std::size_t rounded(std::size_t bytes) noexcept {
  const std::size_t a = allocation_alignment;
  return bytes > ~std::size_t{0} - a ? ~std::size_t{0} : (bytes + a - 1) / a * a;
}

}  // namespace

// ---- statistics_adaptor -----------------------------------------------------------------------

statistics_adaptor::statistics_adaptor(std::shared_ptr<memory_resource> upstream)
    : memory_resource(require_upstream(upstream, "statistics_adaptor").kind(),
                      require_upstream(upstream, "statistics_adaptor").device()),
      upstream_(std::move(upstream)) {}

memory_stats statistics_adaptor::stats() const noexcept {
  memory_stats st;
  st.used_bytes = used_.load(std::memory_order_relaxed);
  st.peak_used_bytes = peak_.load(std::memory_order_relaxed);
  st.reserved_bytes = st.used_bytes;
  st.peak_reserved_bytes = st.peak_used_bytes;
  st.allocation_count = allocations_.load(std::memory_order_relaxed);
  st.deallocation_count = deallocations_.load(std::memory_order_relaxed);
  st.live_allocations = live_.load(std::memory_order_relaxed);
  return st;
}

void statistics_adaptor::reset_peak() noexcept {
  peak_.store(used_.load(std::memory_order_relaxed), std::memory_order_relaxed);
}

void* statistics_adaptor::do_allocate(std::size_t bytes, const stream& s) {
  void* p = upstream_->allocate(bytes, s);
  if (p != nullptr) {
    const std::size_t now = used_.fetch_add(bytes, std::memory_order_relaxed) + bytes;
    std::size_t peak = peak_.load(std::memory_order_relaxed);
    while (now > peak && !peak_.compare_exchange_weak(peak, now, std::memory_order_relaxed)) {
    }
    allocations_.fetch_add(1, std::memory_order_relaxed);
    live_.fetch_add(1, std::memory_order_relaxed);
  }
  return p;
}

void statistics_adaptor::do_deallocate(void* p, std::size_t bytes, const stream& s) {
  upstream_->deallocate(p, bytes, s);  // count only what upstream accepted
  if (p != nullptr) {
    saturating_sub(used_, bytes);
    saturating_dec(live_);
    deallocations_.fetch_add(1, std::memory_order_relaxed);
  }
}

bool statistics_adaptor::do_is_equal(const memory_resource& other) const noexcept {
  const auto* o = dynamic_cast<const statistics_adaptor*>(&other);
  return this == &other || (o != nullptr && upstream_->is_equal(*o->upstream_));
}

// ---- limiting_adaptor -------------------------------------------------------------------------

limiting_adaptor::limiting_adaptor(std::shared_ptr<memory_resource> upstream, std::size_t limit)
    : memory_resource(require_upstream(upstream, "limiting_adaptor").kind(),
                      require_upstream(upstream, "limiting_adaptor").device()),
      upstream_(std::move(upstream)),
      limit_(limit) {}

void* limiting_adaptor::do_allocate(std::size_t bytes, const stream& s) {
  if (bytes == 0) {
    return upstream_->allocate(0, s);
  }
  const std::size_t charge = rounded(bytes);
  std::size_t current = used_.load();
  for (;;) {
    const std::size_t cap = limit_.load();
    if (charge > cap || current > cap - charge) {
      throw out_of_memory("out of memory on " +
                          std::string(device() == host_device ? "the host" : "device " + std::to_string(device())) +
                          ": allocate(" + std::to_string(bytes) + " bytes = " + format_bytes(bytes) +
                          ") would exceed the limiting_adaptor's limit of " + format_bytes(cap) + " with " +
                          format_bytes(current) +
                          " already allocated through it; free memory you no longer need or raise the limit with "
                          "set_limit()");
    }
    if (used_.compare_exchange_weak(current, current + charge)) {
      break;
    }
  }
  try {
    void* p = upstream_->allocate(bytes, s);
    if (p == nullptr) {
      saturating_sub(used_, charge);
    }
    return p;
  } catch (...) {
    saturating_sub(used_, charge);
    throw;
  }
}

void limiting_adaptor::do_deallocate(void* p, std::size_t bytes, const stream& s) {
  upstream_->deallocate(p, bytes, s);
  if (p != nullptr) {
    saturating_sub(used_, rounded(bytes));
  }
}

bool limiting_adaptor::do_is_equal(const memory_resource& other) const noexcept {
  return this == &other;
}

// ---- logging_adaptor --------------------------------------------------------------------------

const char* to_string(allocation_record::action what) noexcept {
  switch (what) {
    case allocation_record::action::allocate:
      return "allocate";
    case allocation_record::action::deallocate:
      return "deallocate";
    case allocation_record::action::allocate_failed:
      return "allocate_failed";
    case allocation_record::action::deallocate_failed:
      return "deallocate_failed";
  }
  return "unknown";
}

logging_adaptor::logging_adaptor(std::shared_ptr<memory_resource> upstream, callback on_record)
    : memory_resource(require_upstream(upstream, "logging_adaptor").kind(),
                      require_upstream(upstream, "logging_adaptor").device()),
      upstream_(std::move(upstream)),
      on_record_(std::move(on_record)) {
  if (!on_record_) {
    throw error("logging_adaptor needs a callback; pass a non-empty std::function, or a CSV file path");
  }
}

logging_adaptor::logging_adaptor(std::shared_ptr<memory_resource> upstream, const std::string& csv_path)
    : memory_resource(require_upstream(upstream, "logging_adaptor").kind(),
                      require_upstream(upstream, "logging_adaptor").device()),
      upstream_(std::move(upstream)) {
  file_ = std::fopen(csv_path.c_str(), "w");
  if (file_ == nullptr) {
    throw error("logging_adaptor could not open '" + csv_path + "' for writing: " + std::strerror(errno) +
                "; pass a path in a writable directory");
  }
  std::fputs("time_ns,thread,action,pointer,bytes,stream,device,error\n", file_);
  std::fflush(file_);
}

logging_adaptor::~logging_adaptor() {
  if (file_ != nullptr) {
    std::fclose(file_);
  }
}

std::size_t logging_adaptor::dropped_records() const {
  std::lock_guard lock(mutex_);
  return dropped_;
}

void logging_adaptor::write_csv(const allocation_record& r) {
  const auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(r.time.time_since_epoch()).count();
  std::string message = r.error;
  for (char& c : message) {
    if (c == '"') {
      c = '\'';  // keep the CSV one field per column without a quoting parser
    } else if (c == '\n' || c == '\r') {
      c = ' ';
    }
  }
  const int written =
      std::fprintf(file_, "%lld,%zu,%s,%s,%zu,%s,%d,\"%s\"\n", static_cast<long long>(ns),
                   std::hash<std::thread::id>{}(r.thread), to_string(r.what), detail::format_pointer(r.pointer).c_str(),
                   r.bytes, detail::format_pointer(r.stream).c_str(), r.device, message.c_str());
  if (written < 0 || std::fflush(file_) != 0) {
    throw error("write failed");
  }
}

void logging_adaptor::emit(const allocation_record& record) noexcept {
  std::lock_guard lock(mutex_);
  try {
    if (file_ != nullptr) {
      write_csv(record);
    } else {
      on_record_(record);
    }
  } catch (...) {
    ++dropped_;
  }
}

void* logging_adaptor::do_allocate(std::size_t bytes, const stream& s) {
  allocation_record r;
  r.bytes = bytes;
  r.stream = s.handle();
  r.device = device();
  r.thread = std::this_thread::get_id();
  try {
    r.pointer = upstream_->allocate(bytes, s);
  } catch (const std::exception& e) {
    r.what = allocation_record::action::allocate_failed;
    r.time = std::chrono::system_clock::now();
    r.error = e.what();
    emit(r);
    throw;
  }
  r.time = std::chrono::system_clock::now();
  void* p = r.pointer;
  emit(r);
  return p;
}

void logging_adaptor::do_deallocate(void* p, std::size_t bytes, const stream& s) {
  allocation_record r;
  r.what = allocation_record::action::deallocate;
  r.pointer = p;
  r.bytes = bytes;
  r.stream = s.handle();
  r.device = device();
  r.thread = std::this_thread::get_id();
  try {
    upstream_->deallocate(p, bytes, s);
  } catch (const std::exception& e) {
    r.what = allocation_record::action::deallocate_failed;
    r.time = std::chrono::system_clock::now();
    r.error = e.what();
    emit(r);
    throw;
  }
  r.time = std::chrono::system_clock::now();
  emit(r);
}

bool logging_adaptor::do_is_equal(const memory_resource& other) const noexcept {
  return this == &other;
}

}  // namespace ndcuda
