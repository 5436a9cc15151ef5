# Installs the library, its headers and a package config so that another project can
#   find_package(ringcomm REQUIRED)   target_link_libraries(app PRIVATE ringcomm::ringcomm [ringcomm::gt])
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(RINGCOMM_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/ringcomm)

install(TARGETS ringcomm ringcomm_gt ringcomm_c EXPORT ringcommTargets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
# The user API and the backend kit (core/src/internal/ stays behind), and the G_t kernels.
install(DIRECTORY core/include/ kernels/include/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/include/ringcomm/version.hpp
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/ringcomm)
install(EXPORT ringcommTargets NAMESPACE ringcomm:: DESTINATION ${RINGCOMM_CMAKE_DIR})

get_property(RINGCOMM_INSTALLED_BACKENDS GLOBAL PROPERTY RINGCOMM_BACKEND_LIST)
# What a consumer needs before the exported targets can be read: the backends' imported libraries
# (see ringcomm_add_backend), and by default the Kokkos this ringcomm was built with.
get_property(_ringcomm_config_dependencies GLOBAL PROPERTY RINGCOMM_CONFIG_DEPENDENCIES)
list(REMOVE_DUPLICATES _ringcomm_config_dependencies)
list(JOIN _ringcomm_config_dependencies "\n" RINGCOMM_CONFIG_EXTRA_DEPENDENCIES)
unset(_ringcomm_config_dependencies)
set(RINGCOMM_BUILT_KOKKOS_DIR "${Kokkos_DIR}")
configure_package_config_file(cmake/ringcommConfig.cmake.in
  ${CMAKE_CURRENT_BINARY_DIR}/ringcommConfig.cmake
  INSTALL_DESTINATION ${RINGCOMM_CMAKE_DIR})
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/ringcommConfigVersion.cmake
  COMPATIBILITY SameMajorVersion)
install(FILES
  ${CMAKE_CURRENT_BINARY_DIR}/ringcommConfig.cmake
  ${CMAKE_CURRENT_BINARY_DIR}/ringcommConfigVersion.cmake
  cmake/ringcommKokkos.cmake
  DESTINATION ${RINGCOMM_CMAKE_DIR})
