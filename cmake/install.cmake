# Installs headers, the libraries, a relocatable CMake package (ndcudaConfig.cmake) and pkg-config
# files (ndcuda.pc, ndcuda-linalg.pc, ndcuda-dist.pc). Builds on the targets of src/.
include(CMakePackageConfigHelpers)

set(ndcuda_cmake_dir ${CMAKE_INSTALL_LIBDIR}/cmake/ndcuda)

# One export set per library: the config includes ndcuda::linalg's and ndcuda::dist's only when
# their dependencies (math libraries, NCCL) are found on the user's machine, so a program that
# uses neither configures without them.
# ndcuda's archive and the nvcc-compiled ops' (ndcuda_cub, see src/CMakeLists.txt): ndcuda::ndcuda
# links both.
install(TARGETS ndcuda ndcuda_cub EXPORT ndcudaTargets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR}
  INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(EXPORT ndcudaTargets NAMESPACE ndcuda:: DESTINATION ${ndcuda_cmake_dir})
install(TARGETS ndcuda_linalg EXPORT ndcudaLinalgTargets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(EXPORT ndcudaLinalgTargets NAMESPACE ndcuda:: DESTINATION ${ndcuda_cmake_dir})
if(NDCUDA_HAS_DIST)
  install(TARGETS ndcuda_dist EXPORT ndcudaDistTargets
    ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
    LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
    RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
  install(EXPORT ndcudaDistTargets NAMESPACE ndcuda:: DESTINATION ${ndcuda_cmake_dir})
  get_filename_component(ndcuda_nccl_library_dir ${NCCL_LIBRARY} DIRECTORY)
endif()
# The JIT's ahead-of-time tool (src/jit/precompile/): fills a deployment's kernel cache with no GPU.
install(TARGETS ndcuda_precompile RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/ndcuda DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(FILES ${PROJECT_BINARY_DIR}/include/ndcuda/version.hpp
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/ndcuda)
install(FILES ${PROJECT_SOURCE_DIR}/LICENSE DESTINATION ${CMAKE_INSTALL_DATADIR}/doc/ndcuda)

# DLPack: the header the library was compiled with, pinned beside ndcuda's own (DLPack is
# Apache-2.0 like ndcuda; the license text is installed above), so <ndcuda/interop/dlpack_array.hpp>
# works wherever the install goes, with or without a dlpack.h on the user's machine.
set(ndcuda_has_dlpack OFF)
if(DLPACK_INCLUDE_DIR)
  set(ndcuda_has_dlpack ON)
  install(FILES ${DLPACK_INCLUDE_DIR}/dlpack/dlpack.h
    DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/ndcuda/third_party/dlpack)
  file(WRITE ${PROJECT_BINARY_DIR}/dlpack_origin.txt
    "dlpack.h: a copy of ${DLPACK_INCLUDE_DIR}/dlpack/dlpack.h, the header ndcuda was built with.\n"
    "DLPack (https://github.com/dmlc/dlpack), Copyright 2017 DLPack Contributors, Apache License 2.0\n"
    "(the text is in share/doc/ndcuda/LICENSE). ndcuda's package puts this folder on the include path.\n")
  install(FILES ${PROJECT_BINARY_DIR}/dlpack_origin.txt
    DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/ndcuda/third_party/dlpack RENAME README)
endif()

# The config needs the CUDA major version the libraries link (libcudart.so.<major>): another major
# would put a second runtime into the user's process.
set(ndcuda_cuda_major ${CUDAToolkit_VERSION_MAJOR})
# A static ndcuda links zlib (.npz deflate) on the user's link line: the config finds it again.
set(ndcuda_has_zlib OFF)
if(ZLIB_FOUND)
  set(ndcuda_has_zlib ON)
endif()
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/ndcudaConfig.cmake.in
  ${PROJECT_BINARY_DIR}/ndcudaConfig.cmake INSTALL_DESTINATION ${ndcuda_cmake_dir}
  PATH_VARS CMAKE_INSTALL_INCLUDEDIR)
# While the major version is 0 every minor version may break the API: asking for 0.1 must not
# accept 0.2 (SameMajorVersion would). From 1.0 on, the major version decides.
if(PROJECT_VERSION_MAJOR EQUAL 0)
  set(ndcuda_compatibility SameMinorVersion)
else()
  set(ndcuda_compatibility SameMajorVersion)
endif()
write_basic_package_version_file(${PROJECT_BINARY_DIR}/ndcudaConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY ${ndcuda_compatibility})
install(FILES ${PROJECT_BINARY_DIR}/ndcudaConfig.cmake ${PROJECT_BINARY_DIR}/ndcudaConfigVersion.cmake
  ${PROJECT_SOURCE_DIR}/cmake/find_nccl.cmake DESTINATION ${ndcuda_cmake_dir})

include(${PROJECT_SOURCE_DIR}/cmake/pkg_config.cmake)

# Installed libraries and tools without debug info (libndcuda.a is ~94 MB with -g, a few MB
# without): users link them into optimised programs. NDCUDA_INSTALL_DEBUG_INFO=ON keeps it, for a
# debug package. The build tree keeps its own, so ndcuda's tests and debuggers still see it.
option(NDCUDA_INSTALL_DEBUG_INFO "Install ndcuda's libraries and tools with their debug info" OFF)
if(NOT NDCUDA_INSTALL_DEBUG_INFO AND CMAKE_STRIP)
  install(CODE "
    set(ndcuda_installed \$ENV{DESTDIR}\${CMAKE_INSTALL_PREFIX})
    file(GLOB ndcuda_binaries
      \${ndcuda_installed}/${CMAKE_INSTALL_LIBDIR}/libndcuda*.a
      \${ndcuda_installed}/${CMAKE_INSTALL_LIBDIR}/libndcuda*.so*
      \${ndcuda_installed}/${CMAKE_INSTALL_BINDIR}/ndcuda-precompile)
    foreach(binary \${ndcuda_binaries})
      if(NOT IS_SYMLINK \${binary})
        execute_process(COMMAND ${CMAKE_STRIP} --strip-debug \${binary} RESULT_VARIABLE rc)
        if(NOT rc EQUAL 0)
          message(FATAL_ERROR \"ndcuda: stripping the debug info of \${binary} failed\")
        endif()
      endif()
    endforeach()")
endif()
