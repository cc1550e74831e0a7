# Cross-compiling edgetwin for arm64 (aarch64 Linux: the Jetsons) from an x86 Debian 12 machine,
# with Debian's cross compiler (crossbuild-essential-arm64) against a sysroot of Debian's arm64
# packages that scripts/cross-arm64.sh unpacks (docs/how-to/cross-build-arm64.md). The programs and test binaries it
# builds run on x86 under qemu-user-static, which CMake and CTest use as the emulator (test
# discovery, ctest, help2man's man pages).
#
#   cmake -S . -B build-arm64 -DCMAKE_TOOLCHAIN_FILE=cmake/arm64-toolchain.cmake \
#         -DEDGETWIN_ARM64_SYSROOT=/var/cache/edgetwin/arm64-sysroot-<key>
#
# The sysroot also comes from the environment (EDGETWIN_ARM64_SYSROOT), since CMake reads this
# file again for every try_compile.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CMAKE_LIBRARY_ARCHITECTURE aarch64-linux-gnu)

set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
set(CMAKE_CXX_COMPILER aarch64-linux-gnu-g++)

if(NOT EDGETWIN_ARM64_SYSROOT)
  set(EDGETWIN_ARM64_SYSROOT "$ENV{EDGETWIN_ARM64_SYSROOT}")
endif()
if(NOT EDGETWIN_ARM64_SYSROOT OR NOT IS_DIRECTORY "${EDGETWIN_ARM64_SYSROOT}/usr/include")
  message(FATAL_ERROR "EDGETWIN_ARM64_SYSROOT must name an arm64 sysroot (scripts/cross-arm64.sh makes one), "
                      "got \"${EDGETWIN_ARM64_SYSROOT}\"")
endif()
set(EDGETWIN_ARM64_SYSROOT "${EDGETWIN_ARM64_SYSROOT}" CACHE PATH "arm64 sysroot of Debian packages")
list(APPEND CMAKE_TRY_COMPILE_PLATFORM_VARIABLES EDGETWIN_ARM64_SYSROOT)

set(CMAKE_SYSROOT "${EDGETWIN_ARM64_SYSROOT}")
set(CMAKE_FIND_ROOT_PATH "${EDGETWIN_ARM64_SYSROOT}")
# Programs (help2man, python3, qemu) are the build machine's; everything linked or included is
# the sysroot's.
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)

# SimGrid and xxHash come through pkg-config: the sysroot's .pc files, with their paths under it.
set(ENV{PKG_CONFIG_SYSROOT_DIR} "${EDGETWIN_ARM64_SYSROOT}")
set(ENV{PKG_CONFIG_LIBDIR}
    "${EDGETWIN_ARM64_SYSROOT}/usr/lib/aarch64-linux-gnu/pkgconfig:${EDGETWIN_ARM64_SYSROOT}/usr/lib/pkgconfig:${EDGETWIN_ARM64_SYSROOT}/usr/share/pkgconfig")
set(ENV{PKG_CONFIG_PATH} "")

find_program(EDGETWIN_QEMU_AARCH64 qemu-aarch64-static)
if(EDGETWIN_QEMU_AARCH64)
  # -L: the guest's dynamic loader and libraries are the sysroot's; paths not in the sysroot
  # (the source tree, /tmp, /proc) are the build machine's.
  set(CMAKE_CROSSCOMPILING_EMULATOR "${EDGETWIN_QEMU_AARCH64};-L;${EDGETWIN_ARM64_SYSROOT}")
endif()
