# cmake -P script: the installed ndcudaConfigVersion.cmake accepts what ndcuda's versioning promises.
# While the major version is 0 every minor version may break the API, so only the same major.minor
# (at this patch level or below) is compatible; from 1.0 on, the same major version.
#   -D PREFIX=<install prefix> -D VERSION=<the project's version>
file(GLOB_RECURSE version_file ${PREFIX}/*/ndcudaConfigVersion.cmake)
if(NOT version_file)
  message(FATAL_ERROR "no ndcudaConfigVersion.cmake under ${PREFIX}")
endif()
string(REPLACE "." ";" parts ${VERSION})
list(GET parts 0 major)
list(GET parts 1 minor)

function(expect_compatible asked expected)
  set(PACKAGE_FIND_VERSION ${asked})
  string(REPLACE "." ";" asked_parts ${asked})
  list(GET asked_parts 0 PACKAGE_FIND_VERSION_MAJOR)
  list(GET asked_parts 1 PACKAGE_FIND_VERSION_MINOR)
  list(GET asked_parts 2 PACKAGE_FIND_VERSION_PATCH)
  set(PACKAGE_FIND_VERSION_COUNT 3)
  include(${version_file})
  if(NOT "${PACKAGE_VERSION_COMPATIBLE}" STREQUAL "${expected}")
    message(FATAL_ERROR "find_package(ndcuda ${asked}) against the installed ${VERSION}: compatible is "
      "'${PACKAGE_VERSION_COMPATIBLE}', expected '${expected}'")
  endif()
  message(STATUS "find_package(ndcuda ${asked}) against ${VERSION}: compatible ${expected}, as promised")
endfunction()

expect_compatible(${major}.${minor}.0 TRUE)
math(EXPR next_minor "${minor} + 1")
expect_compatible(${major}.${next_minor}.0 FALSE)
math(EXPR next_major "${major} + 1")
expect_compatible(${next_major}.0.0 FALSE)
if(major EQUAL 0 AND minor GREATER 0)
  math(EXPR previous_minor "${minor} - 1")
  expect_compatible(0.${previous_minor}.0 FALSE)  # 0.x: another minor version is another API
endif()
