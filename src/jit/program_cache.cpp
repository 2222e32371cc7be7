// The in-memory program cache: a map from full keys to shared futures, so concurrent askers of
// one key wait for a single compile while the lock stays free for everyone else.
#include "jit/program_cache.hpp"

#include <chrono>

#include "jit/module.hpp"

namespace ndcuda::jit::detail {

program::program(kernel_key key, compiled_program compiled, bool from_disk)
    : key_(std::move(key)), compiled_(std::move(compiled)), from_disk_(from_disk) {}

program_cache::program_cache(compiler compile, std::shared_ptr<disk_cache> disk, hasher hash)
    : compile_(std::move(compile)),
      disk_(std::move(disk)),
      programs_(64, bucket_hash{hash != nullptr ? hash : +[](std::string_view s) { return hash64(s); }}) {}

std::shared_ptr<const program> program_cache::get(const kernel_key& key, program_origin* origin) {
  return obtain(key, nullptr, origin);
}

std::shared_ptr<const program> program_cache::replace_stale(const kernel_key& key, const program* stale) {
  return obtain(key, stale, nullptr);
}

std::shared_ptr<const program> program_cache::obtain(const kernel_key& key, const program* stale,
                                                     program_origin* origin) {
  program_origin found_in = program_origin::memory;
  std::string canonical = key.canonical();
  std::promise<std::shared_ptr<const program>> promise;
  result future;
  std::uint64_t id = 0;
  {
    std::lock_guard lock(mutex_);
    auto found = programs_.find(canonical);
    bool join = found != programs_.end();
    if (join && stale != nullptr) {
      // Replace the stale program itself; a replacement that is ready or in flight is joined.
      // Slots in the map never hold an exception: a failed compile removes its slot first.
      const auto& existing = found->second.future;
      join = existing.wait_for(std::chrono::seconds(0)) != std::future_status::ready || existing.get().get() != stale;
    }
    if (join) {
      ++counters_.memory_hits;
      future = found->second.future;
    } else {
      future = promise.get_future().share();
      id = ++next_id_;
      programs_.insert_or_assign(std::move(canonical), slot{future, id});
    }
  }
  if (id == 0) {
    auto joined = future.get();  // rethrows the compile_error of the compile it waited for
    if (origin != nullptr) {
      *origin = found_in;
    }
    return joined;
  }
  try {
    auto made = produce(key, stale == nullptr, found_in);
    promise.set_value(made);
    if (origin != nullptr) {
      *origin = found_in;
    }
    return made;
  } catch (...) {
    {
      std::lock_guard lock(mutex_);
      ++counters_.failures;
      // A failure is not cached: the next request compiles again. Only this compile's slot goes.
      auto found = programs_.find(key.canonical());
      if (found != programs_.end() && found->second.id == id) {
        programs_.erase(found);
      }
    }
    promise.set_exception(std::current_exception());
    throw;
  }
}

std::shared_ptr<const program> program_cache::produce(const kernel_key& key, bool use_disk, program_origin& origin) {
  const std::shared_ptr<disk_cache> disk_now = disk();
  if (use_disk && disk_now != nullptr) {
    if (auto stored = disk_now->load(key)) {
      std::lock_guard lock(mutex_);
      ++counters_.disk_hits;
      origin = program_origin::disk;
      return std::make_shared<const program>(key, std::move(*stored), true);
    }
  }
  {
    std::lock_guard lock(mutex_);
    ++counters_.compiles;
  }
  compiled_program compiled = compile_(key);
  origin = program_origin::compiled;
  if (disk_now != nullptr) {
    disk_now->store(key, compiled);
  }
  return std::make_shared<const program>(key, std::move(compiled), false);
}

bool program_cache::available(const kernel_key& key) {
  {
    std::lock_guard lock(mutex_);
    if (auto found = programs_.find(key.canonical()); found != programs_.end()) {
      return found->second.future.wait_for(std::chrono::seconds(0)) == std::future_status::ready;
    }
  }
  const std::shared_ptr<disk_cache> disk_now = disk();
  std::error_code ignored;
  return disk_now != nullptr && disk_now->enabled() && disk_now->folder_trusted() &&
         std::filesystem::is_regular_file(disk_now->entry_path(key), ignored);
}

std::shared_ptr<disk_cache> program_cache::disk() const {
  std::lock_guard lock(mutex_);
  return disk_;
}

void program_cache::set_disk(std::shared_ptr<disk_cache> disk) {
  std::lock_guard lock(mutex_);
  disk_ = std::move(disk);
}

void program_cache::clear() {
  std::lock_guard lock(mutex_);
  programs_.clear();
}

program_cache_counters program_cache::counters() const {
  std::lock_guard lock(mutex_);
  return counters_;
}

std::size_t program_cache::size() const {
  std::lock_guard lock(mutex_);
  return programs_.size();
}

program_cache& global_program_cache() {
  // Leaked on purpose: programs unload their modules when destroyed, which must not happen from
  // a static destructor racing the CUDA driver's own teardown at exit.
  static auto* cache =
      new program_cache(nvrtc_compile, std::make_shared<disk_cache>(disk_cache_config_from_environment()));
  return *cache;
}

}  // namespace ndcuda::jit::detail
