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
# ctest does not print why a test skipped; say why the GPU tests did.
if [ -x build/tests/gpu/test_cuda_backend ]; then
  build/tests/gpu/test_cuda_backend --gtest_filter='CudaBackendShort.*' 2>&1 | grep -m1 "no usable CUDA device" || true
fi
