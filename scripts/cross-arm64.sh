#!/usr/bin/env bash
# Cross-builds edgetwin for arm64 (aarch64 Linux, as on a Jetson) on an x86 Debian 12 machine and
# runs its unit tests under qemu-user-static (docs/how-to/cross-build-arm64.md). It installs Debian's cross compiler
# (crossbuild-essential-arm64), qemu-user-static and mmdebstrap, unpacks Debian's arm64 packages
# of edgetwin's dependencies into a sysroot cached outside the source tree (keyed by the package
# list: a second run reuses it), builds Release with cmake/arm64-toolchain.cmake, and runs the
# tests with qemu as CTest's emulator. Programs that tests start (edgetwin ..., through popen or
# posix_spawn) run under qemu too, through the scripts in <build>/emulated/.
#
#   default  no LibTorch: the simulator, the planner and calibrate's LibTorch-free parts; the unit
#            tests of config, sim (the simulator's own and its catalogue's), plan, calibrate
#            (datasets, the fake-sysfs Jetson and x86 hardware trees, the profile writer, the
#            importers) and validate's readers, each test in its own emulated process. The part
#            CI runs (.ci/run).
#   --full   (or EDGETWIN_SLOW_TESTS=1) LibTorch's arm64 sysroot and every program, and every test
#            labelled unit: also the LibTorch unit tests (training, census, validate, the federated
#            learner) and the unit tests that run the programs (cli, plan-round, shards, the
#            reliability checks). Too slow for CI (docs/how-to/cross-build-arm64.md has the times).
#   --package  also `cpack -G DEB` of the cross build: build-arm64*/edgetwin_<version>_arm64.deb,
#            its Depends read with the sysroot's symbols and shlibs files (cmake/cross-deb-depends.cmake).
#            With --full the package holds every program, else only edgetwin.
#
# Left out in both: the KillSafety tests (they kill a program at random points from 0.2 s on,
# assuming its signal handlers are in place by then; under qemu start-up alone takes longer, so a
# signal can land before them), and the labels e2e, scenario, slow and python.
#
# Environment: EDGETWIN_ARM64_CACHE, where sysroots live (default /var/cache/edgetwin as root, else
# ~/.cache/edgetwin); EDGETWIN_ARM64_BUILD, the build directory (default build-arm64, or
# build-arm64-full with --full). Prints the seconds of each part. Needs root or sudo for apt-get
# and mmdebstrap.
set -euo pipefail
cd "$(dirname "$0")/.."

full=0
package=0
[[ "${EDGETWIN_SLOW_TESTS:-0}" == "1" ]] && full=1
for arg in "$@"; do
  case "$arg" in
    --full) full=1 ;;
    --package) package=1 ;;
    *) echo "usage: scripts/cross-arm64.sh [--full] [--package]" >&2; exit 2 ;;
  esac
done

sudo=""
[[ $(id -u) -ne 0 ]] && sudo="sudo"
start=$SECONDS
times=()
lap() { times+=("$1 $((SECONDS - lap_start)) s"); lap_start=$SECONDS; }
lap_start=$SECONDS

# --- this machine's tools --------------------------------------------------------------------
tools=(crossbuild-essential-arm64 qemu-user-static mmdebstrap cmake make pkg-config help2man dpkg-dev)
missing=()
for p in "${tools[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [[ ${#missing[@]} -gt 0 ]]; then
  echo "installing: ${missing[*]}" >&2
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
fi
lap tools

# --- the sysroot -----------------------------------------------------------------------------
# Debian's arm64 -dev packages of what edgetwin links (scripts/install-deps.sh lists the amd64
# ones). libsimgrid-dev and libtorch-dev are not Multi-Arch: same, so they cannot be installed
# beside the amd64 ones on this machine; they are unpacked into a directory of their own instead,
# without running any package script (mmdebstrap's extract variant). MPI is left out (the cross
# build has no `edgetwin sweep --mpi`).
packages=(libsimgrid-dev libtomlplusplus-dev libcli11-dev libfmt-dev nlohmann-json3-dev libboost-dev libxxhash-dev
          libjemalloc-dev libjpeg62-turbo-dev zlib1g-dev libgtest-dev libgmock-dev)
[[ $full == 1 ]] && packages+=(libtorch-dev)
suite=bookworm
mirrors=("deb http://deb.debian.org/debian $suite main"
         "deb http://deb.debian.org/debian $suite-updates main"
         "deb http://deb.debian.org/debian-security $suite-security main")
# The recipe's version: bump it when the steps below change what a sysroot holds.
recipe=1
key=$(printf '%s\n' "recipe $recipe" "${mirrors[@]}" "${packages[@]}" | sha256sum | cut -c1-12)
cache=${EDGETWIN_ARM64_CACHE:-}
if [[ -z $cache ]]; then
  if [[ $(id -u) -eq 0 ]]; then cache=/var/cache/edgetwin; else cache=${XDG_CACHE_HOME:-$HOME/.cache}/edgetwin; fi
fi
sysroot=$cache/arm64-sysroot-$key
if [[ -f $sysroot/.edgetwin-sysroot ]]; then
  echo "sysroot: reusing $sysroot" >&2
else
  echo "sysroot: unpacking ${#packages[@]} packages and their dependencies into $sysroot" >&2
  $sudo mkdir -p "$cache"
  work=$($sudo mktemp -d "$cache/.arm64-sysroot-XXXXXX")
  trap '$sudo rm -rf "$work"' EXIT
  include=$(IFS=,; echo "${packages[*]}")
  # The downloaded .debs stay until their symbols and shlibs files are read below.
  $sudo mmdebstrap --quiet --variant=extract --architectures=arm64 --skip=cleanup/apt/cache --include="$include" \
    "$suite" "$work/root" "${mirrors[@]}"
  # Absolute symbolic links (libm.so -> /lib/aarch64-linux-gnu/libm.so.6) would name this
  # machine's files: made relative, inside the sysroot.
  $sudo find "$work/root" -path "$work/root/dev" -prune -o -type l -lname '/*' -print0 |
    while IFS= read -r -d '' link; do
      target=$(readlink "$link")
      $sudo ln -sfn "$(realpath -ms --relative-to="$(dirname "$link")" "$work/root$target")" "$link"
    done
  # From each package's control files: its symbols and shlibs files, which dpkg-shlibdeps reads to
  # name the packages a program needs (it looks for those of a package being built in DEBIAN/
  # above the library), and the libraries its postinst would have made alternatives of
  # (update-alternatives --install LINK NAME PATH PRIORITY: libblas.so.3 and liblapack.so.3,
  # which LibTorch needs).
  $sudo mkdir -p "$work/root/DEBIAN" "$work/control"
  for deb in "$work"/root/var/cache/apt/archives/*.deb; do
    $sudo rm -rf "$work/control"/*
    $sudo dpkg-deb --control "$deb" "$work/control"
    for f in symbols shlibs; do
      if [[ -f $work/control/$f ]]; then $sudo sh -c "cat '$work/control/$f' >> '$work/root/DEBIAN/$f'"; fi
    done
    if [[ -f $work/control/postinst ]]; then
      sed -e ':a' -e '/\\$/{N;s/\\\n//;ba' -e '}' "$work/control/postinst" |
        { grep -oE 'update-alternatives[[:space:]]+--install[[:space:]]+[^[:space:]]+[[:space:]]+[^[:space:]]+[[:space:]]+[^[:space:]]+[[:space:]]+[0-9]+' || true; } |
        awk '$3 ~ "^(/usr)?/lib/aarch64-linux-gnu/" {print $6, $3, $5}' | $sudo tee -a "$work/alternatives" > /dev/null
    fi
    dpkg-deb --show --showformat='${Package} ${Version}\n' "$deb"
  done | $sudo tee "$work/root/.edgetwin-sysroot" > /dev/null
  if [[ -s $work/alternatives ]]; then
    # The highest priority per link, as update-alternatives' automatic mode picks.
    sort -k2,2 -k1,1nr "$work/alternatives" | sort -s -u -k2,2 | while read -r priority link path; do
      $sudo ln -sfn "$(realpath -ms --relative-to="$(dirname "$work/root$link")" "$work/root$path")" "$work/root$link"
      echo "sysroot: $link -> $path (alternative of priority $priority)" >&2
    done
  fi
  $sudo rm -f "$work"/root/var/cache/apt/archives/*.deb
  test -s "$work/root/DEBIAN/symbols"
  $sudo mv "$work/root" "$sysroot"
  $sudo rm -rf "$work"
  trap - EXIT
fi
lap sysroot

# --- the cross build -------------------------------------------------------------------------
build=${EDGETWIN_ARM64_BUILD:-build-arm64}
[[ $full == 1 ]] && build=${EDGETWIN_ARM64_BUILD:-build-arm64-full}
calibrate=OFF
[[ $full == 1 ]] && calibrate=ON
cmake -S . -B "$build" -DCMAKE_TOOLCHAIN_FILE=cmake/arm64-toolchain.cmake -DEDGETWIN_ARM64_SYSROOT="$sysroot" \
  -DCMAKE_BUILD_TYPE=Release -DEDGETWIN_BUILD_CALIBRATE=$calibrate -DEDGETWIN_MPI=OFF >/dev/null
lap configure

# The test binaries whose tests run, each test in its own process (the unit tests that need no
# program started and no LibTorch); --full builds everything and runs every unit test.
binaries=(config_tests sim_tests catalogue_tests plan_tests calibrate_datasets_test calibrate_hardware_test
          calibrate_profile_writer_test calibrate_import_test validate_files_test)
if [[ $full == 1 ]]; then
  cmake --build "$build" -j"$(nproc)"
  selection=(-L '^unit$')
else
  # plan_tests runs edgetwin in two of its tests, so the program is built too.
  # The package holds edgetwin and its man page.
  extra=()
  [[ $package == 1 ]] && extra=(man_pages)
  cmake --build "$build" -j"$(nproc)" --target edgetwin "${extra[@]}" "${binaries[@]}"
  selection=(-L '^unit$' -R "^($(IFS='|'; echo "${binaries[*]}"))\.")
fi
lap build

ctest --test-dir "$build" --output-on-failure -j"$(nproc)" --timeout 600 "${selection[@]}" -E 'KillSafety'
lap "tests (qemu)"

if [[ $package == 1 ]]; then
  rm -f "$build"/edgetwin_*_arm64.deb
  (cd "$build" && cpack -G DEB >/dev/null)
  deb=$(ls "$build"/edgetwin_*_arm64.deb)
  dpkg-deb --field "$deb" Package Version Architecture Depends
  lap package
fi

echo "cross-arm64: $(IFS=,; echo "${times[*]}" | sed 's/,/, /g'); total $((SECONDS - start)) s" >&2
