#!/usr/bin/env bash
# The GPU suite, for a CUDA machine (nvcc, cmake, ninja, GoogleTest; no
# GIMP/GTK needed): build, GPU tests, compute-sanitizer, benchmark.
# Logs go to $OUT when set (the device tool), else to build-gpu/logs.
#
# EDGEWISE_GPU_STEPS picks steps (default tests,sanitizer,profile,bench,preview,nlm,fourier,pyramid).
# EDGEWISE_GPU_BASELINE=DIR (a source tree of an earlier version) adds the
# step "compare": that tree's bench_cuda and this one's, alternately, three
# times each, so a change is measured against what it replaces in one run.
set -uo pipefail
cd "$(dirname "$0")/../.."
LOGS=${OUT:-build-gpu/logs}
mkdir -p "$LOGS"
status=0
step() { echo "== $*"; }

step "device"
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv | tee "$LOGS/device.txt"

steps=${EDGEWISE_GPU_STEPS:-tests,sanitizer,profile,bench,preview,nlm,fourier,pyramid}
baseline=${EDGEWISE_GPU_BASELINE:-}

step "build"
if [[ -n $baseline ]]; then  # in the background, beside this tree's build
  (cmake -S "$baseline" -B build-baseline -G Ninja -DCMAKE_BUILD_TYPE=Release -DEDGEWISE_CUDA=ON \
     -DEDGEWISE_BUILD_TESTS=OFF > "$LOGS/baseline-build.log" 2>&1 &&
   cmake --build build-baseline -j 8 --target bench_cuda >> "$LOGS/baseline-build.log" 2>&1) &
  baseline_build=$!
fi
cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DEDGEWISE_CUDA=ON -DEDGEWISE_WERROR=ON \
  > "$LOGS/configure.log" 2>&1 || { tail -30 "$LOGS/configure.log"; exit 1; }
cmake --build build-gpu -j "$(nproc)" > "$LOGS/build.log" 2>&1 || { grep -E "error|Error" "$LOGS/build.log" | head -40; exit 1; }

if [[ $steps == *tests* ]]; then
  step "tests (GPU suite and the whole CPU suite on this machine)"
  ctest --test-dir build-gpu --output-on-failure -j 8 --timeout 900 > "$LOGS/ctest.log" 2>&1 || status=1
  grep -E "tests passed|tests failed|Failed|\*\*\*|SKIPPED|Total Test" "$LOGS/ctest.log" | tail -25
fi

if [[ $steps == *sanitizer* ]]; then
  for tool in memcheck racecheck; do
    step "compute-sanitizer $tool"
    compute-sanitizer --tool "$tool" --error-exitcode 9 \
      build-gpu/tests/gpu/test_cuda_backend --gtest_filter='CudaBackendShort.*' > "$LOGS/sanitizer-$tool.log" 2>&1 \
      || status=1
    tail -4 "$LOGS/sanitizer-$tool.log"
    compute-sanitizer --tool "$tool" --error-exitcode 9 \
      build-gpu/tests/gpu/test_cuda_nlm --gtest_filter='CudaNlmShort.*' > "$LOGS/sanitizer-nlm-$tool.log" 2>&1 \
      || status=1
    tail -4 "$LOGS/sanitizer-nlm-$tool.log"
    compute-sanitizer --tool "$tool" --error-exitcode 9 \
      build-gpu/tests/gpu/test_cuda_fourier --gtest_filter='CudaFourierShort.*' \
      > "$LOGS/sanitizer-fourier-$tool.log" 2>&1 || status=1
    tail -4 "$LOGS/sanitizer-fourier-$tool.log"
    compute-sanitizer --tool "$tool" --error-exitcode 9 \
      build-gpu/tests/gpu/test_cuda_pyramid --gtest_filter='CudaPyramidShort.*' \
      > "$LOGS/sanitizer-pyramid-$tool.log" 2>&1 || status=1
    tail -4 "$LOGS/sanitizer-pyramid-$tool.log"
    # The dialog's preview path on the GPU (8-bit output packed on the device).
    compute-sanitizer --tool "$tool" --error-exitcode 9 \
      build-gpu/tests/test_preview --gtest_filter='PreviewCuda.*' > "$LOGS/sanitizer-preview-$tool.log" 2>&1 \
      || status=1
    tail -4 "$LOGS/sanitizer-preview-$tool.log"
  done
fi

if [[ $steps == *profile* ]]; then
  step "profile: rgb r=7 filter kernel (ncu)"
  EDGEWISE_BENCH_ONLY=rgb:7 ncu --kernel-name regex:tiled --launch-skip 2 --launch-count 1 \
    --section SpeedOfLight --section ComputeWorkloadAnalysis --section WarpStateStats --section Occupancy \
    --section SchedulerStats --metrics sm__cycles_elapsed.avg.per_second,smsp__inst_executed.sum \
    build-gpu/bench/bench_cuda > "$LOGS/ncu-rgb7.txt" 2>&1 || status=1
  grep -E "SM Frequency|Duration|Compute \(SM\)|Issue Slots|Issued Ipc|Eligible|No Eligible|Warp Cycles Per Issued|Achieved Occupancy|Pipe|Registers|per_second|inst_executed" "$LOGS/ncu-rgb7.txt" | head -30
fi

if [[ $steps == *bench* ]]; then
  step "benchmark"
  build-gpu/bench/bench_cuda 2>&1 | tee "$LOGS/bench.txt" || status=1
fi

if [[ $steps == *nlm* ]]; then
  step "benchmark: non-local means"
  build-gpu/bench/bench_nlm_cuda 2>&1 | tee "$LOGS/bench-nlm.txt" || status=1
fi

if [[ $steps == *fourier* ]]; then
  step "benchmark: Fourier bilateral"
  build-gpu/bench/bench_fourier_cuda 2>&1 | tee "$LOGS/bench-fourier.txt" || status=1
fi

if [[ $steps == *pyramid* ]]; then
  step "benchmark: multiresolution bilateral"
  build-gpu/bench/bench_pyramid_cuda 2>&1 | tee "$LOGS/bench-pyramid.txt" || status=1
fi

if [[ -n $baseline ]]; then
  step "compare: bench_cuda of $baseline (before) and of this tree (after), alternately"
  wait "$baseline_build" || { tail -20 "$LOGS/baseline-build.log"; exit 1; }
  for round in $(seq 1 "${EDGEWISE_COMPARE_ROUNDS:-3}"); do
    for side in before after; do
      binary=build-gpu/bench/bench_cuda
      [[ $side == before ]] && binary=build-baseline/bench/bench_cuda
      echo "-- $side, round $round"
      "$binary" 2>&1 | tee -a "$LOGS/compare-$side.txt" | grep -E "^(per-channel|rgb|lab) |end to end" || status=1
    done
  done
fi

if [[ $steps == *preview* ]]; then
  step "preview latency (the dialog's path, bench_preview)"
  build-gpu/bench/bench_preview 2>&1 | tee "$LOGS/bench-preview.txt" || status=1
fi
exit $status
