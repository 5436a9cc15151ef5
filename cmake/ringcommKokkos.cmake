# Finds Kokkos and makes Kokkos::kokkos usable.
#
# Debian's libtrilinos-kokkos-dev (Kokkos 3.4) ships a package config whose Kokkos::kokkos target
# names a folder that does not exist while the headers live in <prefix>/include/trilinos. When the target's
# include directories do not hold Kokkos_Core.hpp we add the directory that does.
find_package(Kokkos REQUIRED)

if(NOT TARGET Kokkos::kokkos)
  message(FATAL_ERROR "Kokkos was found but defines no Kokkos::kokkos target")
endif()

get_target_property(_ringcomm_kokkos_includes Kokkos::kokkos INTERFACE_INCLUDE_DIRECTORIES)
if(NOT _ringcomm_kokkos_includes)
  set(_ringcomm_kokkos_includes "")
endif()
set(_ringcomm_kokkos_header_found FALSE)
foreach(dir IN LISTS _ringcomm_kokkos_includes)
  if(EXISTS "${dir}/Kokkos_Core.hpp")
    set(_ringcomm_kokkos_header_found TRUE)
  endif()
endforeach()

if(NOT _ringcomm_kokkos_header_found)
  find_path(RINGCOMM_KOKKOS_INCLUDE_DIR Kokkos_Core.hpp
    HINTS ${Kokkos_INCLUDE_DIRS} ${_ringcomm_kokkos_includes}
    PATH_SUFFIXES trilinos kokkos
    NO_CACHE)
  if(NOT RINGCOMM_KOKKOS_INCLUDE_DIR)
    message(FATAL_ERROR "Kokkos ${Kokkos_VERSION} was found but Kokkos_Core.hpp was not; "
                        "set RINGCOMM_KOKKOS_INCLUDE_DIR to the folder that holds it")
  endif()
  message(STATUS "ringcomm: Kokkos::kokkos lacks its headers; using ${RINGCOMM_KOKKOS_INCLUDE_DIR}")
  # Directories that do not exist make CMake reject every target linking Kokkos::kokkos.
  set(_ringcomm_kokkos_existing "")
  foreach(dir IN LISTS _ringcomm_kokkos_includes)
    if(IS_DIRECTORY "${dir}")
      list(APPEND _ringcomm_kokkos_existing "${dir}")
    endif()
  endforeach()
  set_property(TARGET Kokkos::kokkos PROPERTY INTERFACE_INCLUDE_DIRECTORIES
    ${_ringcomm_kokkos_existing} "${RINGCOMM_KOKKOS_INCLUDE_DIR}")
  unset(_ringcomm_kokkos_existing)
endif()
unset(_ringcomm_kokkos_includes)
unset(_ringcomm_kokkos_header_found)

if(Kokkos_VERSION VERSION_LESS 3.4)
  message(FATAL_ERROR "ringcomm needs Kokkos 3.4 or newer (found ${Kokkos_VERSION})")
endif()
