/// @file
/// NumPy's file functions for ndarrays: save/load (.npy), savez/savez_compressed/load_npz (.npz), with
/// a type-erased stored_array for archives of mixed dtypes. Builds on interop/npz.hpp and npy_array.hpp.
#pragma once
#pragma GCC visibility push(default)  // what the public headers declare is the ABI (docs/design.md)

#include <algorithm>
#include <filesystem>
#include <initializer_list>
#include <ndcuda/array/view_functions.hpp>
#include <ndcuda/interop/npy_array.hpp>
#include <ndcuda/interop/npz.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace ndcuda {

/// An array read from a file, held on the host with whatever dtype the file has (an np.load result
/// before it reaches the GPU). `as<T>()` copies it into an ndarray<T>; T must be its dtype.
class stored_array {
 public:
  stored_array() = default;
  /// Takes what read_npy or read_npz gave; `source` names it in error messages.
  stored_array(npy_file file, std::string source) : file_(std::move(file)), source_(std::move(source)) {}

  [[nodiscard]] dtype type() const noexcept { return file_.header.type; }             ///< the element type
  [[nodiscard]] const shape_t& shape() const noexcept { return file_.header.shape; }  ///< the extents
  /// The number of dimensions.
  [[nodiscard]] int ndim() const noexcept { return static_cast<int>(file_.header.shape.size()); }
  [[nodiscard]] index_t size() const noexcept { return shape_size(file_.header.shape); }  ///< element count
  /// The header and the little-endian bytes, in the header's order (Fortran order stays Fortran).
  [[nodiscard]] const npy_file& file() const noexcept { return file_; }

  /// A new ndarray<T> on `s` (or the default stream) with these values, always C-ordered. Throws
  /// type_error when T is not the stored dtype: no silent conversion (check type(), or convert on
  /// the device with `.as<held>().astype<T>()`).
  template <array_element T>
  [[nodiscard]] ndarray<std::remove_cv_t<T>> as(std::optional<stream> s = {}) const {
    if (type() != dtype_of<T>) {
      throw type_error(source_ + " holds " + std::string(name(type())) + ", as<" +
                       std::string(cpp_type_name(dtype_of<T>)) + "> asked for " + std::string(name(dtype_of<T>)) +
                       "; call as<" + std::string(cpp_type_name(type())) +
                       ">() (check type() first), then astype to convert");
    }
    return detail::ndarray_from_npy<T>(file_, source_, std::move(s));
  }

 private:
  npy_file file_;
  std::string source_ = "stored_array";
};

/// What nd::load_npz returns, like np.load's NpzFile: the arrays of an archive by key, in archive order.
class npz_file {
 public:
  npz_file() = default;
  /// Wraps what read_npz gave; `path` names the archive in messages.
  npz_file(std::vector<npz_member> members, const std::filesystem::path& path) : path_(path.string()) {
    for (npz_member& m : members) {
      files_.push_back(m.name);
      std::string source = "'" + path_ + "' member '" + m.name + "'";
      arrays_.emplace_back(std::move(m.name), stored_array(std::move(m.array), std::move(source)));
    }
  }
  /// The keys, in archive order (NpzFile.files): "arr_0", ... for positional arrays.
  [[nodiscard]] const std::vector<std::string>& files() const noexcept { return files_; }
  [[nodiscard]] std::size_t size() const noexcept { return arrays_.size(); }  ///< the number of arrays
  /// True when the archive has an array named `key`.
  [[nodiscard]] bool contains(std::string_view key) const noexcept { return find(key) != nullptr; }
  /// The array named `key`; io_error naming the keys there are when it is absent (NumPy's KeyError).
  [[nodiscard]] const stored_array& operator[](std::string_view key) const {
    if (const stored_array* a = find(key)) {
      return *a;
    }
    std::string keys;
    for (const std::string& f : files_) {
      keys += (keys.empty() ? "" : ", ") + f;
    }
    throw io_error(std::string(key) + " is not a file in the archive '" + path_ +
                   "' (it holds: " + (keys.empty() ? std::string("nothing") : keys) + ")");
  }
  /// Iterates (key, stored_array) pairs in archive order.
  [[nodiscard]] auto begin() const noexcept { return arrays_.begin(); }
  /// The end of the (key, stored_array) pairs.
  [[nodiscard]] auto end() const noexcept { return arrays_.end(); }

 private:
  [[nodiscard]] const stored_array* find(std::string_view key) const noexcept {
    const auto it = std::find_if(arrays_.begin(), arrays_.end(), [&](const auto& p) { return p.first == key; });
    return it == arrays_.end() ? nullptr : &it->second;
  }
  std::string path_;
  std::vector<std::string> files_;
  std::vector<std::pair<std::string, stored_array>> arrays_;
};

/// One array handed to savez: `{"name", a}` for a keyword array, plain `a` for a positional one
/// (named arr_0, arr_1, ... as np.savez names *args). Copies the array to the host when built.
class npz_entry {
 public:
  /// A positional array (np.savez(file, a)).
  template <array_element T>
  npz_entry(const ndarray<T>& a) : file_(detail::npy_file_of(a)) {}  // NOLINT(google-explicit-constructor)
  /// A keyword array (np.savez(file, name=a)).
  template <array_element T>
  npz_entry(std::string name, const ndarray<T>& a) : name_(std::move(name)), file_(detail::npy_file_of(a)) {}
  /// A lazy value (expression, reduction, product), computed first, as a positional array.
  template <array_expression X>
  npz_entry(const X& x) : npz_entry(detail::computed(x)) {}  // NOLINT(google-explicit-constructor)
  /// A lazy value, computed first, as a keyword array.
  template <array_expression X>
  npz_entry(std::string name, const X& x) : npz_entry(std::move(name), detail::computed(x)) {}
  /// A loaded array saved again as a positional array.
  npz_entry(const stored_array& a) : file_(a.file()) {}  // NOLINT(google-explicit-constructor)
  /// A loaded array saved again under `name`.
  npz_entry(std::string name, const stored_array& a) : name_(std::move(name)), file_(a.file()) {}

  [[nodiscard]] const std::optional<std::string>& name() const noexcept { return name_; }  ///< none: positional
  [[nodiscard]] const npy_file& file() const noexcept { return file_; }                    ///< the host copy

 private:
  std::optional<std::string> name_;
  npy_file file_;
};

namespace detail {

// NumPy's np.save/np.savez add the extension when the path has another (or none).
inline std::filesystem::path with_extension(std::filesystem::path path, std::string_view ext) {
  if (path.extension() != ext) {
    path += ext;
  }
  return path;
}

// np.savez's member order: keyword arrays first, in order, then the positional ones as arr_<i>.
inline std::vector<npz_member> npz_members(const std::vector<npz_entry>& entries, const std::filesystem::path& path) {
  std::vector<npz_member> members;
  for (const npz_entry& e : entries) {
    if (e.name()) {
      members.push_back({*e.name(), e.file()});
    }
  }
  std::size_t positional = 0;
  for (const npz_entry& e : entries) {
    if (!e.name()) {
      std::string key = npz_positional_name(positional++);
      for (const npz_member& m : members) {
        if (m.name == key) {
          throw io_error("savez('" + path.string() + "'): Cannot use un-named variables and keyword " + key +
                         " (rename the keyword array)");
        }
      }
      members.push_back({std::move(key), e.file()});
    }
  }
  return members;
}

}  // namespace detail

/// np.save: writes `a` to `path` as .npy (".npy" is appended when the path ends otherwise, as NumPy
/// does). C order, little-endian, format 1.0, byte-identical to np.save. io_error for bfloat16.
template <array_element T>
void save(const std::filesystem::path& path, const ndarray<T>& a) {
  save_npy(detail::with_extension(path, ".npy"), a);
}

/// np.save of a lazy value: computed first, in its own dtype (`nd::save("m", nd::mean(x, 0))`).
template <array_expression X>
void save(const std::filesystem::path& path, const X& x) {
  save(path, detail::computed(x));
}

/// np.load for a .npy file: a new ndarray<T> (T must be the file's dtype; see load_npy). An .npz
/// archive is refused with a pointer to load_npz.
template <array_element T>
[[nodiscard]] ndarray<std::remove_cv_t<T>> load(const std::filesystem::path& path, std::optional<stream> s = {}) {
  return load_npy<T>(path, std::move(s));
}

/// np.savez: the arrays in one uncompressed .npz archive (".npz" is appended when the path ends
/// otherwise): `nd::savez(path, {a, b})` names them arr_0 and arr_1, `nd::savez(path, {{"x", x}, {"y", y}})`
/// x and y. Byte-identical to NumPy's archive. Synchronises each array's stream.
inline void savez(const std::filesystem::path& path, const std::vector<npz_entry>& arrays) {
  const std::filesystem::path file = detail::with_extension(path, ".npz");
  write_npz(file, detail::npz_members(arrays, file), false);
}

/// np.savez_compressed: as savez, with every member deflated through zlib (io_error in a build without zlib).
inline void savez_compressed(const std::filesystem::path& path, const std::vector<npz_entry>& arrays) {
  const std::filesystem::path file = detail::with_extension(path, ".npz");
  write_npz(file, detail::npz_members(arrays, file), true);
}

/// np.load for an .npz archive: every array, held on the host by key until `as<T>()` moves it to the GPU.
[[nodiscard]] inline npz_file load_npz(const std::filesystem::path& path) {
  return npz_file(read_npz(path), path);
}

}  // namespace ndcuda

#pragma GCC visibility pop
