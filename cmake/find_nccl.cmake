# Finds NCCL the one way both the build (CMakeLists.txt) and an installed ndcudaConfig.cmake do, so a
# consumer of ndcuda::dist links the library the build found, or one found in the same places.
# Needs CUDAToolkit found first. Sets NCCL_LIBRARY, and NCCL_INCLUDE_DIR unless
# ndcuda_nccl_library_only is set (the installed package needs no nccl.h: dist/ headers never include it).
# ndcuda_nccl_extra_hints: folders searched first (the installed config passes the build's folder).
set(ndcuda_nccl_hints ${ndcuda_nccl_extra_hints} ${CUDAToolkit_LIBRARY_ROOT} ${CUDAToolkit_TARGET_DIR}
  /usr/local /usr/local/nccl /opt/nccl $ENV{NCCL_HOME} $ENV{NCCL_ROOT})
if(NOT ndcuda_nccl_library_only)
  find_path(NCCL_INCLUDE_DIR nccl.h HINTS ${CUDAToolkit_INCLUDE_DIRS} PATHS ${ndcuda_nccl_hints}
    PATH_SUFFIXES include DOC "Folder holding nccl.h")
endif()
find_library(NCCL_LIBRARY NAMES nccl libnccl.so.2 HINTS ${ndcuda_nccl_extra_hints} ${CUDAToolkit_LIBRARY_DIR}
  PATHS ${ndcuda_nccl_hints} PATH_SUFFIXES lib lib64 lib/x86_64-linux-gnu lib/aarch64-linux-gnu
  DOC "The NCCL library")
