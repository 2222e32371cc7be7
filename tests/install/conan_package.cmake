# The Conan 2 recipe (conanfile.py, test_package/) against this build tree, in a Conan home of its
# own under WORK (the user's ~/.conan2 is never touched):
#   -D CONAN -D SOURCE -D BUILD_DIR -D BUILD_TYPE -D WORK
# 1. `conan export-pkg` packages the tree already built here (NDCUDA_CONAN_PREBUILT: the recipe's
#    package() runs `cmake --install` on it) instead of building the library a second time.
# 2. `conan test test_package` builds the recipe's consumer against that package and runs it.
# `conan create .` (the recipe's own build) is the same package() after a library-only build.
if(NOT CONAN)
  message(STATUS "conan not found (pip install conan): the recipe was not checked (NDCUDA_SKIP)")
  return()
endif()
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK})
set(ENV{CONAN_HOME} ${WORK}/home)
set(ENV{NDCUDA_CONAN_PREBUILT} ${BUILD_DIR})
function(conan what)
  execute_process(COMMAND ${CONAN} ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  message(STATUS "conan ${what}:\n${out}${err}")
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "conan ${what} failed (${rc})")
  endif()
  set(out "${out}${err}" PARENT_SCOPE)
endfunction()
conan("profile detect" profile detect --force)
conan("export-pkg" export-pkg ${SOURCE} -s build_type=${BUILD_TYPE} --test-folder=)  # tested below, from a copy
unset(ENV{NDCUDA_CONAN_PREBUILT})
# A copy, so that its build folder is made under WORK rather than in the source tree.
file(COPY ${SOURCE}/test_package DESTINATION ${WORK})
conan("test" test ${WORK}/test_package ndcuda/${VERSION} -s build_type=${BUILD_TYPE})
if(NOT out MATCHES "test_package: ndcuda ${VERSION}")
  message(FATAL_ERROR "the test_package program did not print its version line")
endif()
file(REMOVE_RECURSE ${WORK})
