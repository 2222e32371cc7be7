/// @file
/// logging_adaptor: records every allocate and deallocate of any memory_resource (size, stream,
/// time) through a callback or into a CSV file. Builds on memory_resource.hpp.
#pragma once
#pragma GCC visibility push(default)  // what the public headers declare is the ABI (docs/design.md)

#include <chrono>
#include <cstddef>
#include <cstdio>
#include <functional>
#include <memory>
#include <mutex>
#include <ndcuda/memory/memory_resource.hpp>
#include <string>
#include <thread>

namespace ndcuda {

/// One line of the log.
struct allocation_record {
  /// What was done.
  enum class action { allocate, deallocate, allocate_failed, deallocate_failed };
  action what = action::allocate;              ///< what was done
  void* pointer = nullptr;                     ///< null for a failed allocation
  std::size_t bytes = 0;                       ///< the bytes asked for
  cudaStream_t stream = nullptr;               ///< the stream of the call
  int device = 0;                              ///< the resource's device (host_device for host resources)
  std::chrono::system_clock::time_point time;  ///< when the call completed
  std::thread::id thread;                      ///< the calling thread
  std::string error;                           ///< what() of the exception, for the *_failed actions
};

/// The action's name as the CSV log writes it.
[[nodiscard]] const char* to_string(allocation_record::action what) noexcept;

/// Forwards every call to `upstream` and records it, failures included (then rethrows). Records
/// are delivered one at a time, in the order the calls completed. A callback that throws loses its
/// record, never the allocation (see dropped_records()). Thread-safe.
class logging_adaptor final : public memory_resource {
 public:
  /// Receives each record.
  using callback = std::function<void(const allocation_record&)>;

  /// Calls `on_record` for every record. Throws error when `upstream` or `on_record` is empty.
  logging_adaptor(std::shared_ptr<memory_resource> upstream, callback on_record);
  /// Appends records to a CSV file, created or truncated, with the header
  /// `time_ns,thread,action,pointer,bytes,stream,device,error` (time_ns: since the Unix epoch).
  /// Each line is flushed as written, so the log survives a crash. Throws error when the file
  /// cannot be opened.
  logging_adaptor(std::shared_ptr<memory_resource> upstream, const std::string& csv_path);
  ~logging_adaptor() override;

  /// The resource allocations are forwarded to.
  [[nodiscard]] const std::shared_ptr<memory_resource>& upstream() const noexcept { return upstream_; }
  /// Records a throwing callback or a failing write lost.
  [[nodiscard]] std::size_t dropped_records() const;

 protected:
  void* do_allocate(std::size_t bytes, const stream& s) override;
  void do_deallocate(void* p, std::size_t bytes, const stream& s) override;
  bool do_is_equal(const memory_resource& other) const noexcept override;

 private:
  void emit(const allocation_record& record) noexcept;
  void write_csv(const allocation_record& record);

  std::shared_ptr<memory_resource> upstream_;
  callback on_record_;
  std::FILE* file_ = nullptr;
  mutable std::mutex mutex_;
  std::size_t dropped_ = 0;
};

}  // namespace ndcuda

#pragma GCC visibility pop
