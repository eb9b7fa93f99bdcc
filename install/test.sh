#!/usr/bin/env bash
# Builds everything with warnings as errors and runs every test. GPU tests
# report themselves skipped where no usable GPU exists (tests/gpu/run.sh
# runs them on a CUDA machine).
set -euo pipefail
cd "$(dirname "$0")/.."
install/deps.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DEDGEWISE_WERROR=ON
cmake --build build
ctest --test-dir build --output-on-failure -j "$(nproc)"
