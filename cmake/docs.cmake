# The documentation site: Doxygen renders the guides (README.md and docs/*.md, as pages) and the
# API reference of include/ndcuda (docs/Doxyfile.in) into one HTML tree, <build>/docs/html. Any
# warning (an undocumented public symbol, a doc error, a broken link in a guide) fails the target.
# The target is `docs` at top level and `ndcuda_docs` as a subproject (a parent may have its own
# `docs`). An install made after it carries the tree in share/doc/ndcuda/html.
find_package(Doxygen QUIET)
if(NOT DOXYGEN_FOUND)
  message(STATUS "ndcuda: doxygen not found: no `docs` target (apt-get install doxygen)")
  return()
endif()
set(NDCUDA_DOCS_OUTPUT_DIR ${PROJECT_BINARY_DIR}/docs)
configure_file(${PROJECT_SOURCE_DIR}/docs/Doxyfile.in ${NDCUDA_DOCS_OUTPUT_DIR}/Doxyfile @ONLY)
set(ndcuda_docs_target docs)
if(NOT ndcuda_top_level)
  set(ndcuda_docs_target ndcuda_docs)
endif()
# Doxygen writes each warning as file:line: text on stderr and, with WARN_AS_ERROR =
# FAIL_ON_WARNINGS, exits non-zero after the whole run, so one build lists every warning.
add_custom_target(${ndcuda_docs_target}
  COMMAND ${CMAKE_COMMAND} -E make_directory ${NDCUDA_DOCS_OUTPUT_DIR}
  COMMAND Doxygen::doxygen ${NDCUDA_DOCS_OUTPUT_DIR}/Doxyfile
  WORKING_DIRECTORY ${PROJECT_SOURCE_DIR}
  COMMENT "ndcuda: the guides and the API reference (Doxygen) in ${NDCUDA_DOCS_OUTPUT_DIR}/html"
  VERBATIM)
if(NDCUDA_INSTALL)
  install(DIRECTORY ${NDCUDA_DOCS_OUTPUT_DIR}/html DESTINATION ${CMAKE_INSTALL_DOCDIR} OPTIONAL)
endif()
