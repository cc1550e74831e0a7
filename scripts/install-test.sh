#!/usr/bin/env bash
# The installed layout, used from another directory (issue: an installable tool): `cmake
# --install` into a temporary prefix, then from / every program's --version, a prediction, a
# plan and edgetwin-calibrate --help. A device that only the installed catalogue holds proves
# that the programs read the catalogue beside themselves (sim/app/data_dir.hpp), not the source
# tree they were built from. ctest runs it as install_layout.
# Usage: scripts/install-test.sh [build dir]
set -euo pipefail
build=$(realpath "${1:-build}")
prefix=$(mktemp -d /tmp/edgetwin-install.XXXXXX)
trap 'rm -rf "$prefix"' EXIT
cmake --install "$build" --prefix "$prefix" >/dev/null
data=$prefix/share/edgetwin
sed 's/^name = "jetson-nano"/name = "installed-only-nano"/' "$data/devices/jetson-nano.toml" > "$data/devices/installed-only-nano.toml"
cd /
for program in "$prefix"/bin/edgetwin*; do "$program" --version; done
"$prefix/bin/edgetwin" predict --device installed-only-nano --workload lenet-mnist --epochs 1 --json > /dev/null
"$prefix/bin/edgetwin" plan-round --fleet jetson-mixed-resnet18 --rounds 1 --frontier 1 > /dev/null
if [[ -x $prefix/bin/edgetwin-calibrate ]]; then "$prefix/bin/edgetwin-calibrate" --help > /dev/null; fi
for program in "$prefix"/bin/edgetwin*; do test -s "$prefix/share/man/man1/$(basename "$program").1"; done
# The Python package, from the prefix, with the installed catalogue (the device only it has).
package=$(ls -d "$prefix"/lib/python3*/dist-packages 2>/dev/null | head -1)
if [[ -n $package && -f $(ls "$package"/edgetwin/_native*.so 2>/dev/null | head -1) ]]; then
  PYTHONPATH=$package /usr/bin/python3 -c "
import edgetwin
assert 'installed-only-nano' in edgetwin.devices(), edgetwin.devices()
assert edgetwin.predict('installed-only-nano', 'lenet-mnist').epochs[0].e2e_s > 0
import os
if os.path.exists('$prefix/bin/edgetwin-federate'):
    assert edgetwin.program('edgetwin-federate').startswith('$prefix/bin/')
print('install-test: the Python package from', '$package')"
fi
echo "install-test: $(ls "$prefix/bin" | wc -l) programs, the catalogue and man pages under $prefix work from /"
