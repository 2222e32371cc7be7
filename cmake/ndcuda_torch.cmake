# Finds libtorch for the optional libtorch interop example and test (include/ndcuda/interop/torch.hpp). Included by
# the directories that build them, so Torch's variables and CUDA settings stay in their scope, out of the rest of
# the build. Sets ndcuda_torch_found; says once why not when it is OFF. Point CMake at PyTorch with
#   -D CMAKE_PREFIX_PATH="$(python3 -c 'import torch; print(torch.utils.cmake_prefix_path)')"
option(NDCUDA_WITH_TORCH "Build the libtorch interop example and test when Torch (libtorch) is found" ON)
set(ndcuda_torch_found OFF)
set(ndcuda_torch_why "")
if(NOT NDCUDA_WITH_TORCH)
  set(ndcuda_torch_why "NDCUDA_WITH_TORCH is OFF")
elseif(NOT DLPACK_INCLUDE_DIR)
  set(ndcuda_torch_why "the interop goes through DLPack, which is disabled (see DLPACK_INCLUDE_DIR above)")
else()
  # Torch's package try-compiles CUDA code (to find the GPUs' architectures). With CMake < 3.26 such a test project
  # does not know nvcc's C++20 flag, which the top level teaches CMake, so it asks for C++17 here; nothing in the
  # folders that include this file compiles CUDA.
  set(CMAKE_CUDA_STANDARD 17)
  find_package(Torch QUIET)
  if(NOT Torch_FOUND)
    set(ndcuda_torch_why
      "Torch not found (point CMAKE_PREFIX_PATH at python3 -c 'import torch; print(torch.utils.cmake_prefix_path)')")
  elseif(NOT TARGET c10_cuda)
    set(ndcuda_torch_why "Torch at ${Torch_DIR} is a CPU-only build; the interop needs its CUDA build")
  elseif(TORCH_CXX_FLAGS MATCHES "_GLIBCXX_USE_CXX11_ABI=0" AND NOT CMAKE_CXX_FLAGS MATCHES "_GLIBCXX_USE_CXX11_ABI=0")
    # std::string crosses between ndcuda and torch (error messages): both sides need the same libstdc++ ABI.
    string(CONCAT ndcuda_torch_why "Torch was built with the pre-C++11 libstdc++ ABI (-D_GLIBCXX_USE_CXX11_ABI=0) "
      "and ndcuda with the default one; configure ndcuda with -D CMAKE_CXX_FLAGS=-D_GLIBCXX_USE_CXX11_ABI=0 to use it")
  else()
    set(ndcuda_torch_found ON)
  endif()
endif()
get_property(ndcuda_torch_reported GLOBAL PROPERTY NDCUDA_TORCH_REPORTED)
if(NOT ndcuda_torch_reported)
  set_property(GLOBAL PROPERTY NDCUDA_TORCH_REPORTED ON)
  if(ndcuda_torch_found)
    message(STATUS "ndcuda: Torch ${Torch_VERSION} found (${Torch_DIR}): libtorch interop example and test enabled")
  else()
    message(STATUS "ndcuda: libtorch interop example and test not built: ${ndcuda_torch_why}")
  endif()
endif()
