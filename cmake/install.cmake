# Installs headers, the library and a relocatable CMake package (ndcudaConfig.cmake).
include(CMakePackageConfigHelpers)

set(ndcuda_cmake_dir ${CMAKE_INSTALL_LIBDIR}/cmake/ndcuda)

install(TARGETS ndcuda ndcuda_linalg EXPORT ndcudaTargets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR}
  INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
if(NDCUDA_HAS_DIST)
  install(TARGETS ndcuda_dist EXPORT ndcudaTargets
    ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
    LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
    RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR}
    INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
endif()
install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/ndcuda DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(FILES ${PROJECT_BINARY_DIR}/include/ndcuda/version.hpp
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/ndcuda)
install(EXPORT ndcudaTargets NAMESPACE ndcuda:: DESTINATION ${ndcuda_cmake_dir})

configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/ndcudaConfig.cmake.in
  ${PROJECT_BINARY_DIR}/ndcudaConfig.cmake INSTALL_DESTINATION ${ndcuda_cmake_dir})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/ndcudaConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMajorVersion)
install(FILES ${PROJECT_BINARY_DIR}/ndcudaConfig.cmake
  ${PROJECT_BINARY_DIR}/ndcudaConfigVersion.cmake DESTINATION ${ndcuda_cmake_dir})
