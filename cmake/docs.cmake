# The `docs` target: the Doxygen API reference of include/ndcuda (docs/Doxyfile.in) in
# <build>/docs/html. Any warning (an undocumented public symbol, a doc error) fails the target.
find_package(Doxygen QUIET)
if(NOT DOXYGEN_FOUND)
  message(STATUS "ndcuda: doxygen not found: no `docs` target (apt-get install doxygen)")
  return()
endif()
set(NDCUDA_DOCS_OUTPUT_DIR ${PROJECT_BINARY_DIR}/docs)
configure_file(${PROJECT_SOURCE_DIR}/docs/Doxyfile.in ${NDCUDA_DOCS_OUTPUT_DIR}/Doxyfile @ONLY)
# Doxygen writes each warning as file:line: text on stderr and, with WARN_AS_ERROR =
# FAIL_ON_WARNINGS, exits non-zero after the whole run, so one build lists every warning.
add_custom_target(docs
  COMMAND ${CMAKE_COMMAND} -E make_directory ${NDCUDA_DOCS_OUTPUT_DIR}
  COMMAND Doxygen::doxygen ${NDCUDA_DOCS_OUTPUT_DIR}/Doxyfile
  WORKING_DIRECTORY ${PROJECT_SOURCE_DIR}
  COMMENT "ndcuda: the API reference (Doxygen) in ${NDCUDA_DOCS_OUTPUT_DIR}/html"
  VERBATIM)
