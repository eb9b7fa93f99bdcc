#!/usr/bin/env bash
# Here (no GPU needed): the GPU suite's binaries, built in BUILD (a CUDA
# build of this tree), packed with their shared libraries and loader into
# BUILD/device/suite.tar.xz, for a GPU machine that has no development
# files (the device tool's: no GIMP, GTK, OpenCV). Building there takes
# longer than a device call may run; the bundle is about 50 MB.
#
#   cmake -S . -B build-dev -G Ninja -DCMAKE_BUILD_TYPE=Release -DEDGEWISE_CUDA=ON
#   cmake --build build-dev --target test_cuda_backend test_cuda_nlm test_cuda_fourier test_cuda_pyramid test_cuda_nlbayes \
#       test_preview bench_cuda bench_nlm_cuda bench_fourier_cuda bench_pyramid_cuda bench_nlbayes_cuda bench_preview
#   tests/gpu/pack_bundle.sh build-dev
# then, on the GPU machine, with BUILD/device carried along:
#   PART=tests,sanitizer,bench tests/gpu/run_bundle.sh build-dev/device
# ONLY="test_cuda_fourier bench_fourier_cuda ..." packs just those: the whole
# suite nears the device tool's 64 MiB a call (each binary links the
# project's libraries statically).
set -euo pipefail
build=${1:?usage: pack_bundle.sh BUILD}
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage/suite"
for binary in tests/gpu/test_cuda_backend tests/gpu/test_cuda_nlm tests/gpu/test_cuda_fourier \
              tests/gpu/test_cuda_pyramid tests/gpu/test_cuda_nlbayes tests/test_preview \
              bench/bench_cuda bench/bench_nlm_cuda bench/bench_fourier_cuda bench/bench_pyramid_cuda bench/bench_nlbayes_cuda \
              bench/bench_preview \
              bench/bench_host_memory cli/edgewise; do
  [[ -z ${ONLY:-} || " $ONLY " == *" $(basename "$binary") "* ]] || continue
  [ -x "$build/$binary" ] || { echo "skipped (not built): $binary"; continue; }
  cp "$build/$binary" "$stage/suite/"
  # Every library it loads, and the loader that will load them there.
  ldd "$build/$binary" | awk '/=> \//{print $3} /ld-linux/{print $1}' |
    while read -r library; do cp -Ln "$library" "$stage/suite/" 2>/dev/null || true; done
done
strip "$stage"/suite/test_* "$stage"/suite/bench_* "$stage"/suite/edgewise 2>/dev/null || true
mkdir -p "$build/device"
tar -C "$stage" -cJf "$build/device/suite.tar.xz" suite
cp tests/gpu/run_bundle.sh tests/gpu/gtest_verdict.sh "$build/device/"
ls -la "$build/device"
