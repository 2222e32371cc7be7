# cmake -P script: ndcuda built as shared libraries (BUILD_SHARED_LIBS=ON), installed, and the CMake
# consumer (examples/cmake_consumer) built and run against them, as a user of a shared ndcuda would.
#   -D NDCUDA_SOURCE -D WORK -D CXX_COMPILER -D CUDA_COMPILER -D CUDA_ROOT -D OBJDUMP -D NM -D VERSION
#   -D BUILD_CONSUMER (build_consumer.cmake)
# Checks: each installed library's SONAME is lib<name>.so.<major>.<minor> (minor-versioned while
# the major is 0, as the package's SameMinorVersion: docs/design.md, "The installed package"); the
# consumer's executable needs libndcuda.so.<major>.<minor>, so it linked the shared library and not
# an archive; it runs, printing its version line (without a GPU too); and, built with hidden
# visibility (NDCUDA_HIDDEN_VISIBILITY, on for such a build), libndcuda.so exports no symbol of CUB,
# Thrust or libcu++, whose instantiations by the sorts would otherwise meet a program's own; no
# more symbols naming detail:: than before; and every block of the docs links against it.
# The build leaves out what this check does not need (tests, examples, benchmarks, dist/, tier 0's
# CUBINs), which keeps it to about 3 minutes on two cores.
foreach(var NDCUDA_SOURCE WORK CXX_COMPILER CUDA_COMPILER OBJDUMP NM VERSION BUILD_CONSUMER)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "shared_library.cmake needs -D ${var}=...")
  endif()
endforeach()
file(REMOVE_RECURSE ${WORK})

function(run_step what)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  set(step_output "${out}${err}" PARENT_SCOPE)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "shared ndcuda: ${what} failed (${rc}):\n${out}${err}")
  endif()
endfunction()

run_step("configure" ${CMAKE_COMMAND} -S ${NDCUDA_SOURCE} -B ${WORK}/build -DBUILD_SHARED_LIBS=ON
  -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_COMPILER=${CXX_COMPILER} -DCMAKE_CUDA_COMPILER=${CUDA_COMPILER}
  -DNDCUDA_BUILD_TESTS=OFF -DNDCUDA_BUILD_EXAMPLES=OFF -DNDCUDA_BUILD_BENCHMARKS=OFF -DNDCUDA_WITH_NCCL=OFF
  -DNDCUDA_WITH_MPI=OFF -DNDCUDA_TIER0_ARCHITECTURES=)
cmake_host_system_information(RESULT cores QUERY NUMBER_OF_LOGICAL_CORES)
run_step("build" ${CMAKE_COMMAND} --build ${WORK}/build --parallel ${cores})
run_step("install" ${CMAKE_COMMAND} --install ${WORK}/build --prefix ${WORK}/prefix)

string(REGEX MATCH "^[0-9]+\\.[0-9]+" major_minor "${VERSION}")
string(REPLACE "." "\\." major_minor_pattern "${major_minor}")
file(GLOB libraries ${WORK}/prefix/lib*/libndcuda*.so.${VERSION})
if(NOT libraries)
  message(FATAL_ERROR "no libndcuda*.so.${VERSION} was installed under ${WORK}/prefix/lib*")
endif()
foreach(library ${libraries})
  get_filename_component(file_name ${library} NAME)
  string(REGEX REPLACE "\\.so\\..*$" ".so.${major_minor}" want "${file_name}")
  run_step("objdump -p ${file_name}" ${OBJDUMP} -p ${library})
  if(NOT step_output MATCHES "SONAME +([^\n]+)")
    message(FATAL_ERROR "${file_name} has no SONAME")
  endif()
  if(NOT CMAKE_MATCH_1 STREQUAL want)
    message(FATAL_ERROR "${file_name}'s SONAME is ${CMAKE_MATCH_1}, not ${want}")
  endif()
  message(STATUS "${file_name}: SONAME ${CMAKE_MATCH_1}")
endforeach()

# What libndcuda.so exports: counted, and none of it CUB's, Thrust's or libcu++'s.
file(GLOB core_library ${WORK}/prefix/lib*/libndcuda.so.${VERSION})
run_step("nm -D libndcuda.so" ${NM} -D -C --defined-only ${core_library})
string(REGEX MATCHALL "\n[0-9a-f]+ [A-Za-z] [^\n]*" exported "\n${step_output}")
list(LENGTH exported exported_count)
# ndcuda's own detail:: namespaces only: libstdc++'s std::__detail instantiations are the standard
# library's (their number changes with its version: 12 here, more on the GPU machines' compiler).
string(REGEX MATCHALL "[^\n]*ndcuda::([A-Za-z_0-9]+::)*detail::[^\n]*" in_detail "${step_output}")
list(LENGTH in_detail detail_count)
string(REGEX MATCHALL "[^\n]* (cub|thrust|cuda)::[^\n]*" foreign "${step_output}")
if(foreign)
  list(GET foreign 0 first_foreign)
  message(FATAL_ERROR "libndcuda.so exports symbols of CUB, Thrust or libcu++, first:${first_foreign}")
endif()
message(STATUS "libndcuda.so exports ${exported_count} symbols, ${detail_count} of them naming ndcuda's detail::")
# What still names detail:: is what the header templates call in the library, the types those
# calls take, and std:: instantiations over them (docs/design.md, "The installed package"). The
# number may only fall: lower the bound when it does.
set(max_detail_symbols 221)
if(detail_count GREATER max_detail_symbols)
  message(FATAL_ERROR "libndcuda.so exports ${detail_count} symbols naming detail::, more than the "
    "${max_detail_symbols} of before: mark what only src/ calls NDCUDA_INTERNAL (ndcuda/core/detail/internal.hpp)")
endif()

run_step("the consumer" ${CMAKE_COMMAND} -D SOURCE_DIR=${NDCUDA_SOURCE}/examples/cmake_consumer
  -D BINARY_DIR=${WORK}/consumer -D PREFIX=${WORK}/prefix -D CXX_COMPILER=${CXX_COMPILER} -D CUDA_ROOT=${CUDA_ROOT}
  -P ${BUILD_CONSUMER})
message(STATUS "${step_output}")
run_step("objdump -p cmake_consumer" ${OBJDUMP} -p ${WORK}/consumer/cmake_consumer)
if(NOT step_output MATCHES "NEEDED +libndcuda\\.so\\.${major_minor_pattern}\n")
  message(FATAL_ERROR "the consumer does not need libndcuda.so.${major_minor}: it did not link the shared "
    "library:\n${step_output}")
endif()
message(STATUS "the consumer needs libndcuda.so.${major_minor} and ran")

# Every C++ block of the docs, linked against the shared libraries with nothing left undefined: a
# function the header templates call that a hidden-visibility build failed to export stops here.
run_step("the docs' snippets, linked" ${CMAKE_COMMAND} -D SOURCE_DIR=${NDCUDA_SOURCE}/tests/install/doc_snippets
  -D BINARY_DIR=${WORK}/snippets -D PREFIX=${WORK}/prefix -D CXX_COMPILER=${CXX_COMPILER} -D CUDA_ROOT=${CUDA_ROOT}
  -D DOCS_ROOT=${NDCUDA_SOURCE} -D PROGRAM=NONE -D LINK_SHARED=ON -P ${BUILD_CONSUMER})
message(STATUS "the docs' snippets link against the shared libraries")
file(REMOVE_RECURSE ${WORK})
