#!/usr/bin/env bash
# The .deb, as CI checks it on the clean machine: `cpack -G DEB` in the build directory that
# scripts/test.sh made, the package installed with apt-get (its declared dependencies must
# come from Debian), then, from another directory, every program's --version, `edgetwin
# predict`, `edgetwin plan-round`, `edgetwin-calibrate --help` and a prediction from Debian's python3
# through the installed package; the package is removed again.
# Needs root (sudo otherwise). Prints the seconds it took.
# Usage: scripts/package-test.sh [build dir]
set -euo pipefail
build=$(realpath "${1:-build}")
start=$SECONDS
sudo=""
[[ $(id -u) -ne 0 ]] && sudo="sudo"
rm -f "$build"/edgetwin_*.deb
(cd "$build" && cpack -G DEB >/dev/null)
deb=$(ls "$build"/edgetwin_*.deb)
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "$deb" >/dev/null
trap '$sudo apt-get remove -y -qq edgetwin >/dev/null' EXIT
cd /tmp
for program in edgetwin edgetwin-calibrate edgetwin-validate edgetwin-federate; do /usr/bin/$program --version; done
/usr/bin/edgetwin predict --device jetson-nano --workload lenet-mnist --epochs 1 > /dev/null
/usr/bin/edgetwin plan-round --fleet jetson-mixed-resnet18 --rounds 1 --frontier 1 > /dev/null
/usr/bin/edgetwin-calibrate --help > /dev/null
/usr/bin/python3 -c "import edgetwin; assert edgetwin.predict('jetson-nano', 'lenet-mnist').epochs[0].e2e_s > 0"
man -w edgetwin > /dev/null 2>&1 || test -s /usr/share/man/man1/edgetwin.1.gz || test -s /usr/share/man/man1/edgetwin.1
echo "package-test: $(basename "$deb") installed and used from /tmp in $((SECONDS - start)) s"
