# ndcuda as a subproject leaves the parent's choices alone (CMakeLists.txt, "As a subproject"):
#   -D NDCUDA_SOURCE -D WORK -D CXX_COMPILER -D CUDA_COMPILER
# The parent (parent/) is configured with no build type; then: its build type is still empty, C is
# not enabled, MPI was not searched for, and `cmake --install` installs nothing of ndcuda's. The
# parent's program is configured against ndcuda::ndcuda but not built (building ndcuda again costs
# CI minutes; the install tests build against the same targets).
file(REMOVE_RECURSE ${WORK})
execute_process(COMMAND ${CMAKE_COMMAND} -S ${CMAKE_CURRENT_LIST_DIR}/parent -B ${WORK}/build
  -DNDCUDA_SOURCE=${NDCUDA_SOURCE} -DCMAKE_CXX_COMPILER=${CXX_COMPILER} -DCMAKE_CUDA_COMPILER=${CUDA_COMPILER}
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "the parent did not configure with ndcuda as a subproject:\n${out}${err}")
endif()
file(STRINGS ${WORK}/build/CMakeCache.txt build_type REGEX "^CMAKE_BUILD_TYPE:")
if(NOT build_type MATCHES "^CMAKE_BUILD_TYPE:[A-Z]*=$")
  message(FATAL_ERROR "ndcuda set the parent's build type: ${build_type}")
endif()
file(READ ${WORK}/build/facts.txt facts)
message(STATUS "${facts}")
if(facts MATCHES "languages=([^\n]*;)?C(;|\n)")
  message(FATAL_ERROR "ndcuda enabled the C language in the parent: ${facts}")
endif()
if(NOT facts MATCHES "mpi_searched=\n")
  message(FATAL_ERROR "ndcuda searched for MPI in the parent: ${facts}")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} --install ${WORK}/build --prefix ${WORK}/prefix RESULT_VARIABLE rc
  OUTPUT_VARIABLE out ERROR_VARIABLE err)
file(GLOB_RECURSE installed ${WORK}/prefix/*)
if(installed)
  message(FATAL_ERROR "cmake --install of the parent installed ndcuda's files: ${installed}")
endif()
file(REMOVE_RECURSE ${WORK})
