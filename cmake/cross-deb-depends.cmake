# The Depends of a cross-built .deb, read at cpack time (CPACK_PROJECT_CONFIG_FILE). dpkg-shlibdeps
# looks the libraries a program needs up in this machine's package database, which holds no arm64
# packages; the sysroot of scripts/cross-arm64.sh holds every package's symbols and shlibs files
# under DEBIAN/, where dpkg-shlibdeps looks for those of a package being built (-S), so it names
# the same packages and versions as on an arm64 machine with those packages installed.
#
# Set before including: EDGETWIN_CROSS_SYSROOT, EDGETWIN_CROSS_PROGRAMS (the programs' files),
# EDGETWIN_CROSS_DEB_ARCH (dpkg's name of the architecture), EDGETWIN_CROSS_WORK_DIR (a scratch
# directory).
if(NOT CPACK_GENERATOR STREQUAL "DEB")
  return()
endif()
if(NOT EXISTS "${EDGETWIN_CROSS_SYSROOT}/DEBIAN/symbols")
  message(FATAL_ERROR "${EDGETWIN_CROSS_SYSROOT}/DEBIAN/symbols is missing: the package's dependencies are read with "
                      "the symbols files that scripts/cross-arm64.sh keeps in its sysroots")
endif()
set(work "${EDGETWIN_CROSS_WORK_DIR}")
file(REMOVE_RECURSE "${work}")
file(MAKE_DIRECTORY "${work}/debian")
# dpkg-shlibdeps wants a source package's control file in the directory it runs in.
file(WRITE "${work}/debian/control" "Source: edgetwin\n\nPackage: edgetwin\nArchitecture: ${EDGETWIN_CROSS_DEB_ARCH}\n")
execute_process(
  COMMAND ${CMAKE_COMMAND} -E env DEB_HOST_ARCH=${EDGETWIN_CROSS_DEB_ARCH}
          dpkg-shlibdeps -O -S${EDGETWIN_CROSS_SYSROOT} -e ${EDGETWIN_CROSS_PROGRAMS}
  WORKING_DIRECTORY "${work}"
  OUTPUT_VARIABLE shlibdeps
  ERROR_VARIABLE shlibdeps_errors
  RESULT_VARIABLE shlibdeps_result)
if(NOT shlibdeps_result EQUAL 0 OR NOT shlibdeps MATCHES "shlibs:Depends=([^\n]+)")
  message(FATAL_ERROR "dpkg-shlibdeps on the cross-built programs failed (${shlibdeps_result}): ${shlibdeps_errors}")
endif()
set(CPACK_DEBIAN_PACKAGE_DEPENDS "${CMAKE_MATCH_1}")
message(STATUS "Depends of the ${EDGETWIN_CROSS_DEB_ARCH} package: ${CPACK_DEBIAN_PACKAGE_DEPENDS}")
