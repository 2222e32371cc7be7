# CPack: a .tar.gz and a .deb of what `cmake --install` installs (run `cpack -G TGZ` or `cpack -G DEB`
# in the build folder after building everything). Both are relocatable: the CMake package and the
# pkg-config files find their folders from where they lie. Libraries are stripped of debug info as
# by cmake --install (NDCUDA_INSTALL_DEBUG_INFO). The CUDA Toolkit is not a Debian package on most
# machines (NVIDIA ships it as cuda-toolkit-<major>-<minor>), so the .deb names it in its description
# rather than in Depends; find_package(ndcuda) then finds it as when built from source.
set(CPACK_PACKAGE_NAME ndcuda)
set(CPACK_PACKAGE_VENDOR "ndcuda")
set(CPACK_PACKAGE_CONTACT "ndcuda developers")
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "NumPy-like arrays on NVIDIA GPUs for C++20 programs")
set(CPACK_PACKAGE_DESCRIPTION
  "Headers, static libraries, CMake and pkg-config files and the ndcuda-precompile tool. Needs the CUDA Toolkit ${CUDAToolkit_VERSION_MAJOR}.x (cudart, NVRTC) at build and run time of programs that use it.")
set(CPACK_RESOURCE_FILE_LICENSE ${PROJECT_SOURCE_DIR}/LICENSE)
set(CPACK_GENERATOR "TGZ;DEB")
set(CPACK_PACKAGE_FILE_NAME "ndcuda-${PROJECT_VERSION}-cuda${CUDAToolkit_VERSION_MAJOR}-${CMAKE_SYSTEM_PROCESSOR}")
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION libdevel)
set(CPACK_DEBIAN_PACKAGE_RELEASE 1)
set(CPACK_SOURCE_GENERATOR TGZ)
set(CPACK_SOURCE_IGNORE_FILES "/build/;/\\\\.git/;/\\\\.cache/;/out/;__pycache__")
include(CPack)
