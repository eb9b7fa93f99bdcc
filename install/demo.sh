#!/usr/bin/env bash
# The main job: build Edgewise and denoise the bundled sample photo; then
# install the GIMP plug-in and the GEGL module for this user.
set -euo pipefail
cd "$(dirname "$0")/.."
install/deps.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release > build.log 2>&1 || { cat build.log; exit 1; }
cmake --build build >> build.log 2>&1 || { tail -40 build.log; exit 1; }
out="$PWD/build/astronaut_denoised.png"
build/cli/edgewise --mode lab --sigma-s 2 --sigma-r 12 tests/data/astronaut_noisy.png -o "$out"
echo "Denoised tests/data/astronaut_noisy.png -> $out"
if [ -x build/plugin/edgewise ]; then
  install/install-plugin.sh --build build  # and the GEGL module beside it, when built
fi
