// The per-device default registry. Deliberately leaked: its resources outlive static destructors.
#include <map>
#include <mutex>
#include <ndcuda/core/error.hpp>
#include <ndcuda/device/detail/capture.hpp>
#include <ndcuda/device/device.hpp>
#include <ndcuda/memory/async_pool_resource.hpp>
#include <ndcuda/memory/default_resource.hpp>
#include <ndcuda/memory/device_pool_resource.hpp>

namespace ndcuda {
namespace {

struct registry {
  std::mutex mutex;
  std::map<int, std::shared_ptr<memory_resource>> resources;
  std::map<int, std::shared_ptr<memory_resource>> capture_resources;
};

registry& the_registry() {
  static auto* r = new registry();  // never destroyed, see default_resource.hpp
  return *r;
}

std::string device_text(int device) {
  return device == host_device ? std::string("the host") : "device " + std::to_string(device);
}

}  // namespace

std::shared_ptr<pinned_pool_resource> default_pinned_pool() {
  static auto* pool = new std::shared_ptr<pinned_pool_resource>(std::make_shared<pinned_pool_resource>());
  return *pool;
}

std::shared_ptr<memory_resource> default_resource(int device) {
  if (device < host_device) {
    throw device_error("default_resource(" + std::to_string(device) +
                       "): not a device; pass a device index, or nd::host_device for the host");
  }
  registry& r = the_registry();
  std::lock_guard lock(r.mutex);
  if (auto found = r.resources.find(device); found != r.resources.end()) {
    return found->second;
  }
  std::shared_ptr<memory_resource> made;
  if (device == host_device) {
    made = default_pinned_pool();
  } else {
    made = std::make_shared<device_pool_resource>(device);  // validates the index
  }
  r.resources.emplace(device, made);
  return made;
}

std::shared_ptr<memory_resource> capture_resource(int device) {
  if (device < 0) {
    throw device_error("capture_resource(" + std::to_string(device) + "): not a device; pass a device index");
  }
  registry& r = the_registry();
  std::lock_guard lock(r.mutex);
  if (auto found = r.capture_resources.find(device); found != r.capture_resources.end()) {
    return found->second;
  }
  // Usually created inside the first capture: creating a memory pool is setup work CUDA counts as
  // unsafe during capture, though it touches no stream.
  device_guard guard(device);
  detail::relaxed_capture_mode relaxed;
  auto made = std::make_shared<async_pool_resource>(device);
  r.capture_resources.emplace(device, made);
  return made;
}

std::shared_ptr<memory_resource> set_capture_resource(int device, std::shared_ptr<memory_resource> resource) {
  if (device < 0) {
    throw device_error("set_capture_resource(" + std::to_string(device) + ", ...): not a device");
  }
  if (resource && resource->device() != device) {
    throw error("set_capture_resource(" + std::to_string(device) + ", ...): the resource belongs to " +
                device_text(resource->device()) + "; create it for the device it will serve");
  }
  registry& r = the_registry();
  std::lock_guard lock(r.mutex);
  std::shared_ptr<memory_resource> previous;
  if (auto found = r.capture_resources.find(device); found != r.capture_resources.end()) {
    previous = std::move(found->second);
    r.capture_resources.erase(found);
  }
  if (resource) {
    r.capture_resources.emplace(device, std::move(resource));
  }
  return previous;
}

std::shared_ptr<memory_resource> default_resource() {
  return default_resource(current_device().index());
}

std::shared_ptr<memory_resource> set_default_resource(int device, std::shared_ptr<memory_resource> resource) {
  if (device < host_device) {
    throw device_error("set_default_resource(" + std::to_string(device) +
                       "): not a device; pass a device index, or nd::host_device for the host");
  }
  if (resource) {
    if (resource->device() != device) {
      throw error("set_default_resource(" + std::to_string(device) + ", ...): the resource belongs to " +
                  device_text(resource->device()) + ", not " + device_text(device) +
                  "; create it for the device it will serve");
    }
    if (device == host_device && resource->kind() == memory_kind::device) {
      throw error(
          "set_default_resource(nd::host_device, ...): the host's default must be host-accessible "
          "(pinned_host or managed), but this resource hands out device memory");
    }
  }
  registry& r = the_registry();
  std::lock_guard lock(r.mutex);
  std::shared_ptr<memory_resource> previous;
  if (auto found = r.resources.find(device); found != r.resources.end()) {
    previous = std::move(found->second);
    r.resources.erase(found);
  }
  if (resource) {
    r.resources.emplace(device, std::move(resource));
  }
  return previous;
}

}  // namespace ndcuda
