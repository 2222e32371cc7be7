"""Conan 2 recipe for ndcuda: `conan create .` builds the libraries from this tree (no tests,
examples or benchmarks) and packages what `cmake --install` installs. Consumers use ndcuda's own
CMake package, which finds the CUDA Toolkit on their machine: the CUDA Toolkit is not a Conan
package here, as NVIDIA ships it outside Conan (docs/getting-started.md, "Packages")."""
import os
import re

from conan import ConanFile
from conan.tools.cmake import CMake, CMakeToolchain, cmake_layout
from conan.tools.files import load


class NdcudaConan(ConanFile):
    name = "ndcuda"
    license = "Apache-2.0"
    description = "NumPy-like arrays on NVIDIA GPUs for C++20 programs"
    topics = ("cuda", "gpu", "numpy", "ndarray", "nvrtc")
    package_type = "static-library"
    settings = "os", "compiler", "build_type", "arch"
    options = {"with_nccl": [True, False]}
    default_options = {"with_nccl": True}
    exports_sources = ("CMakeLists.txt", "CMakePresets.json", "LICENSE", "cmake/*", "include/*", "src/*",
                       "kernels/*", "docs/Doxyfile.in", "docs/namespaces.dox", "docs/*.md", "README.md")

    def set_version(self):
        text = load(self, os.path.join(self.recipe_folder, "CMakeLists.txt"))
        self.version = re.search(r"project\(ndcuda VERSION ([0-9.]+)", text).group(1)

    def layout(self):
        cmake_layout(self)
        # CI packages the tree it has just built and tested (conan export-pkg) instead of building it
        # a second time: NDCUDA_CONAN_PREBUILT names that build folder. Unset, conan builds as usual.
        prebuilt = os.environ.get("NDCUDA_CONAN_PREBUILT")
        if prebuilt:
            self.folders.build = prebuilt
            self.folders.generators = os.path.join(prebuilt, "_conan_generators")

    def generate(self):
        toolchain = CMakeToolchain(self)
        toolchain.user_presets_path = False  # no CMakeUserPresets.json in the source tree
        toolchain.cache_variables["NDCUDA_BUILD_TESTS"] = False
        toolchain.cache_variables["NDCUDA_BUILD_EXAMPLES"] = False
        toolchain.cache_variables["NDCUDA_BUILD_BENCHMARKS"] = False
        toolchain.cache_variables["NDCUDA_WITH_NCCL"] = bool(self.options.with_nccl)
        toolchain.generate()

    def build(self):
        cmake = CMake(self)
        cmake.configure()
        cmake.build()

    def package(self):
        CMake(self).install()

    def package_info(self):
        # find_package(ndcuda CONFIG) reads the package's own ndcudaConfig.cmake (components linalg
        # and dist, the CUDA Toolkit found on the consumer's machine), not a file Conan generates.
        self.cpp_info.set_property("cmake_find_mode", "none")
        self.cpp_info.builddirs = [os.path.join("lib", "cmake", "ndcuda")]
