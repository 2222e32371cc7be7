// Run-time discovery of the toolkit's include folders, so an installed ndcuda uses the headers
// that match the NVRTC it runs with, not whatever folder it was built against.
#include "jit/toolkit_headers.hpp"

#include <dlfcn.h>
#include <nvrtc.h>

#include <cstdlib>
#include <filesystem>
#include <mutex>
#include <ndcuda/core/error.hpp>
#include <set>
#include <string>
#include <system_error>

#include "core/untrusted_files.hpp"
#include "jit/embedded_headers.hpp"

namespace ndcuda::jit::detail {
namespace {

namespace fs = std::filesystem;

bool file_exists(const fs::path& p) {
  std::error_code ec;
  return fs::exists(p, ec);
}

bool is_cccl_header(std::string_view name) {
  for (std::string_view prefix : {"cuda/", "cub/", "thrust/", "nv/", "cuda\\", "cub\\", "thrust\\"}) {
    if (name.substr(0, prefix.size()) == prefix) {
      return true;
    }
  }
  return false;
}

std::vector<fs::path> split_path_list(std::string_view list) {
  std::vector<fs::path> parts;
  while (!list.empty()) {
    const auto colon = list.find(':');
    std::string_view part = list.substr(0, colon);
    if (!part.empty()) {
      parts.emplace_back(std::string(part));
    }
    if (colon == std::string_view::npos) {
      break;
    }
    list.remove_prefix(colon + 1);
  }
  return parts;
}

// Toolkit layouts NVRTC ships in: a toolkit (lib64/ or targets/<triple>/lib/ beside include/), a
// distribution package (/usr/lib/<triple>/ with /usr/include/), and the pip wheels (CUDA 12:
// nvidia/cuda_nvrtc/lib/ beside nvidia/cuda_runtime/include/ and nvidia/cuda_cccl/include/;
// CUDA 13: nvidia/cu13/lib/ beside nvidia/cu13/include/).
std::vector<fs::path> candidates_next_to(const fs::path& library) {
  const fs::path dir = library.parent_path();
  return {dir / ".." / "include", dir / ".." / ".." / "include", dir / ".." / ".." / "cuda_runtime" / "include",
          dir / ".." / ".." / "cuda_cccl" / "include"};
}

void inspect(const fs::path& folder, toolkit_headers& found) {
  std::error_code ec;
  fs::path normal = fs::weakly_canonical(folder, ec);
  if (ec) {
    normal = folder.lexically_normal();
  }
  found.searched.push_back(normal.string());
  if (found.cuda_include.empty() && file_exists(normal / "cuda_fp16.h")) {
    found.cuda_include = normal.string();
  }
  if (found.cccl_include.empty()) {
    if (file_exists(normal / "cccl" / "cuda" / "std" / "version")) {
      found.cccl_include = (normal / "cccl").string();  // CUDA 13 layout
    } else if (file_exists(normal / "cuda" / "std" / "version")) {
      found.cccl_include = normal.string();  // CUDA 12 layout
    }
  }
}

std::string joined(const std::vector<std::string>& items) {
  std::string text;
  for (const auto& item : items) {
    text += text.empty() ? "" : ", ";
    text += item;
  }
  return text.empty() ? "(nowhere)" : text;
}

}  // namespace

header_needs scan_includes(std::string_view source) {
  header_needs needs;
  std::size_t pos = 0;
  while (pos < source.size()) {
    std::size_t end = source.find('\n', pos);
    if (end == std::string_view::npos) {
      end = source.size();
    }
    std::string_view line = source.substr(pos, end - pos);
    pos = end + 1;
    const auto first = line.find_first_not_of(" \t");
    if (first == std::string_view::npos || line[first] != '#') {
      continue;
    }
    line.remove_prefix(first + 1);
    line.remove_prefix(std::min(line.size(), line.find_first_not_of(" \t")));
    if (line.substr(0, 7) != "include") {
      continue;
    }
    const auto open = line.find_first_of("<\"");
    if (open == std::string_view::npos) {
      continue;
    }
    const char close_char = line[open] == '<' ? '>' : '"';
    const auto close = line.find(close_char, open + 1);
    if (close == std::string_view::npos) {
      continue;
    }
    const std::string_view name = line.substr(open + 1, close - open - 1);
    if (is_embedded_header(name)) {
      continue;
    }
    if (is_cccl_header(name)) {
      if (!needs.cccl) {
        needs.first_cccl_include = std::string(name);
      }
      needs.cccl = true;
    } else {
      if (!needs.toolkit) {
        needs.first_toolkit_include = std::string(name);
      }
      needs.toolkit = true;
    }
  }
  return needs;
}

std::string nvrtc_library_path() {
  Dl_info info{};
  // Any NVRTC symbol will do: dladdr names the shared object it was loaded from.
  if (dladdr(reinterpret_cast<void*>(&nvrtcVersion), &info) == 0 || info.dli_fname == nullptr) {
    return {};
  }
  std::error_code ec;
  fs::path resolved = fs::canonical(info.dli_fname, ec);
  return ec ? std::string(info.dli_fname) : resolved.string();
}

namespace {

// NVRTC opens whatever an #include finds, so a FIFO, socket or device named like a header in a
// folder the environment names would block the compile forever: such a folder is refused. Each
// folder is scanned once per process (the toolkit's own folders, found next to NVRTC, are not).
void refuse_special_files(const std::string& folder, std::string_view kernel_name, std::string_view source) {
  if (folder.empty()) {
    return;
  }
  static std::mutex mutex;
  static std::set<std::string> clean;
  {
    const std::lock_guard lock(mutex);
    if (clean.contains(folder)) {
      return;
    }
  }
  if (const auto special = ndcuda::detail::first_special_file(folder)) {
    throw compile_error("cannot compile kernel '" + std::string(kernel_name) + "': the folder " + folder +
                            " that NDCUDA_CUDA_INCLUDE names holds " + ndcuda::detail::quote_input(special->string()) +
                            ", which is not a regular file (a FIFO, socket or device) and would block the compiler "
                            "reading it; point NDCUDA_CUDA_INCLUDE at the toolkit's include folder",
                        std::string(source), "");
  }
  const std::lock_guard lock(mutex);
  clean.insert(folder);
}

}  // namespace

toolkit_headers find_toolkit_headers() {
  toolkit_headers found;
  if (const char* overridden = std::getenv("NDCUDA_CUDA_INCLUDE"); overridden != nullptr && *overridden != '\0') {
    found.origin = "NDCUDA_CUDA_INCLUDE";
    for (const auto& folder : split_path_list(overridden)) {
      inspect(folder, found);
    }
    return found;
  }
  const std::string library = nvrtc_library_path();
  found.origin = "next to " + (library.empty() ? std::string("the NVRTC library (its path is unknown)") : library);
  if (!library.empty()) {
    for (const auto& folder : candidates_next_to(library)) {
      inspect(folder, found);
    }
  }
  return found;
}

std::vector<std::string> include_options(const header_needs& needs, std::string_view kernel_name,
                                         std::string_view source) {
  std::vector<std::string> options;
  if (!needs.toolkit && !needs.cccl) {
    return options;
  }
  const toolkit_headers found = find_toolkit_headers();
  const bool missing_cccl = needs.cccl && found.cccl_include.empty();
  const bool missing_toolkit = needs.toolkit && found.cuda_include.empty();
  if (missing_cccl || missing_toolkit) {
    const std::string what = missing_cccl
                                 ? "CCCL (it includes <" + needs.first_cccl_include + ">)"
                                 : "the CUDA toolkit headers (it includes <" + needs.first_toolkit_include + ">)";
    throw compile_error("cannot compile kernel '" + std::string(kernel_name) + "': it needs " + what +
                            ", and ndcuda found no such headers " + found.origin +
                            " (searched: " + joined(found.searched) +
                            "). Set NDCUDA_CUDA_INCLUDE to the toolkit's include folder (the one holding "
                            "cuda_fp16.h and cccl/ or cuda/std/), e.g. NDCUDA_CUDA_INCLUDE=/usr/local/cuda/include",
                        std::string(source), "");
  }
  if (found.origin == "NDCUDA_CUDA_INCLUDE") {
    refuse_special_files(found.cccl_include, kernel_name, source);
    refuse_special_files(found.cuda_include, kernel_name, source);
  }
  // CCCL first, so its headers win over any older copies left in the toolkit folder.
  if (!found.cccl_include.empty()) {
    options.push_back("--include-path=" + found.cccl_include);
  }
  if (!found.cuda_include.empty() && found.cuda_include != found.cccl_include) {
    options.push_back("--include-path=" + found.cuda_include);
  }
  return options;
}

}  // namespace ndcuda::jit::detail
