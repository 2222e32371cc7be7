# pkg-config files for Make/Meson users, one per library as the CMake targets are, so a program that
# uses neither linalg nor dist never links the math libraries or NCCL:
#   g++ -std=c++20 app.cpp $(pkg-config --cflags --libs ndcuda)          # ndcuda::ndcuda
#   pkg-config ndcuda-linalg / ndcuda-dist                               # ndcuda::linalg / ndcuda::dist
# Included by cmake/install.cmake. Relocatable: prefix is found from the .pc file's own folder.
set(ndcuda_pc_dir ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
if(IS_ABSOLUTE "${CMAKE_INSTALL_LIBDIR}" OR IS_ABSOLUTE "${CMAKE_INSTALL_INCLUDEDIR}")
  set(ndcuda_pc_prefix "${CMAKE_INSTALL_PREFIX}")
else()
  file(RELATIVE_PATH ndcuda_pc_up "/root/${ndcuda_pc_dir}" "/root")
  string(REGEX REPLACE "/$" "" ndcuda_pc_up "${ndcuda_pc_up}")
  set(ndcuda_pc_prefix "\${pcfiledir}/${ndcuda_pc_up}")
endif()

# The libraries are static unless BUILD_SHARED_LIBS: then what they link privately must be on the
# user's link line too; a shared ndcuda needs it only for static linking (Libs.private).
# A static ndcuda comes as two archives, the nvcc-compiled ops' between two mentions of ndcuda's, as
# each calls into the other (src/CMakeLists.txt); the second is -l:libndcuda.a because pkg-config
# drops a repeated -lndcuda (keeping the last). A shared ndcuda carries both.
if(BUILD_SHARED_LIBS)
  set(ndcuda_pc_private "Libs.private:")
  set(ndcuda_pc_rpath_self " -Wl,-rpath,\${libdir}")
  set(ndcuda_pc_self "-lndcuda")
else()
  set(ndcuda_pc_private "")
  set(ndcuda_pc_rpath_self "")
  set(ndcuda_pc_self "-lndcuda -lndcuda_cub -l:libndcuda.a")
endif()
# The toolkit's folders, with an rpath: CUDA usually lives outside the loader's default path.
list(GET CUDAToolkit_INCLUDE_DIRS 0 ndcuda_pc_cuda_include)
set(ndcuda_pc_cuda_libs "-L\${cuda_libdir} -Wl,-rpath,\${cuda_libdir}")

set(ndcuda_pc_cflags "-I\${includedir}")
if(DLPACK_INCLUDE_DIR)
  string(APPEND ndcuda_pc_cflags " -I\${includedir}/ndcuda/third_party -DNDCUDA_HAS_DLPACK=1")
endif()
string(APPEND ndcuda_pc_cflags " -I\${cuda_includedir}")

# zlib, for .npz deflate (src/interop/npz*.cpp), when the build found it.
set(ndcuda_pc_zlib "")
if(ZLIB_FOUND)
  set(ndcuda_pc_zlib " -lz")
endif()

# ndcuda_write_pc(<name> <description> <Requires> <Cflags> <Libs> <private libs> [extra variable lines])
function(ndcuda_write_pc name description requires cflags libs private_libs)
  set(text "prefix=${ndcuda_pc_prefix}
includedir=\${prefix}/${CMAKE_INSTALL_INCLUDEDIR}
libdir=\${prefix}/${CMAKE_INSTALL_LIBDIR}
cuda_includedir=${ndcuda_pc_cuda_include}
cuda_libdir=${CUDAToolkit_LIBRARY_DIR}
${ARGN}
Name: ${name}
Description: ${description}
Version: ${PROJECT_VERSION}
")
  if(requires)
    string(APPEND text "Requires: ${requires}\n")
  endif()
  string(APPEND text "Cflags: ${cflags}\n")
  if(ndcuda_pc_private)
    string(APPEND text "Libs: ${libs}\nLibs.private: ${private_libs}\n")
  else()
    string(APPEND text "Libs: ${libs} ${private_libs}\n")
  endif()
  file(WRITE ${PROJECT_BINARY_DIR}/pkgconfig/${name}.pc "${text}")
  install(FILES ${PROJECT_BINARY_DIR}/pkgconfig/${name}.pc DESTINATION ${ndcuda_pc_dir})
endfunction()

# libcuda is never linked: ndcuda reaches the driver through cudart's entry-point query, so a
# program starts (and says "no CUDA device") on a machine without a driver.
ndcuda_write_pc(ndcuda "NumPy-like ndarray<T> on NVIDIA GPUs for C++20 (needs -std=c++20)" ""
  "${ndcuda_pc_cflags}"
  "-L\${libdir}${ndcuda_pc_rpath_self} ${ndcuda_pc_self} ${ndcuda_pc_cuda_libs} -lcudart"
  "-lnvrtc -ldl${ndcuda_pc_zlib}")
ndcuda_write_pc(ndcuda-linalg "ndcuda's linalg and fft (cuBLAS, cuBLASLt, cuSOLVER, cuFFT)" ndcuda
  "-DNDCUDA_HAS_LINALG=1" "-L\${libdir} -lndcuda_linalg"
  "${ndcuda_pc_cuda_libs} -lcusolver -lcublasLt -lcublas -lcufft")
if(NDCUDA_HAS_DIST)
  # -l:<file>: the library found may be libnccl.so.2 with no libnccl.so beside it.
  get_filename_component(ndcuda_pc_nccl_dir ${NCCL_LIBRARY} DIRECTORY)
  get_filename_component(ndcuda_pc_nccl_file ${NCCL_LIBRARY} NAME)
  ndcuda_write_pc(ndcuda-dist "ndcuda's distributed_array over several GPUs (NCCL)" ndcuda
    "-DNDCUDA_HAS_DIST=1" "-L\${libdir} -lndcuda_dist"
    "-L\${nccl_libdir} -Wl,-rpath,\${nccl_libdir} -l:${ndcuda_pc_nccl_file}" "nccl_libdir=${ndcuda_pc_nccl_dir}")
endif()
