#!/usr/bin/env bash
# The GPU suite, for a CUDA machine (nvcc, cmake, ninja, GoogleTest; no
# GIMP/GTK needed): build, GPU tests, compute-sanitizer, benchmark.
# Logs go to $OUT when set (the device tool), else to build-gpu/logs.
#
# EDGEWISE_GPU_STEPS picks steps (default tests,sanitizer,profile,bench,preview,nlm,fourier,pyramid,nlbayes;
# also nlbayes-all: test_cuda_nlbayes, memcheck and racecheck on its short set, its benchmark and ncu on
# its group kernel (issue 27, in one call), nlbayes-tests: the same without the benchmark and ncu, bm3d-peer: DawyD/bm3d-gpu against nlbayes and nlm on one
# noisy photo (issue 27; needs bench/peers/.inputs carried and the target bench_nlbayes_peer),
# fourier-tests: test_cuda_fourier alone, fourier-sanitizer: memcheck and racecheck on its short set,
# denoise: the learned denoiser's GPU tests, sanitizers, benchmark and PyTorch peer (issue 36),
# learned: the learned filter's GPU tests, sanitizers and benchmark (issue 36),
# half-sass: the moonshot's MUFU instructions, fourier-profile: ncu on the Fourier kernels at sigma-s 2
# and 16, half-weights: issue 17's moonshot, sass: see below).
# EDGEWISE_GPU_TARGETS builds only those targets (default: everything).
# EDGEWISE_GPU_BASELINE=DIR (a source tree of an earlier version) adds the
# step "compare": that tree's bench_cuda and this one's, alternately, three
# times each, so a change is measured against what it replaces in one run;
# EDGEWISE_COMPARE_BENCH names another bench and its arguments
# (e.g. "bench_fourier_cuda --kernel").
# EDGEWISE_CMAKE_ARGS adds arguments to the configure step (e.g.
# -DCMAKE_CUDA_FLAGS=-lineinfo, for the sass step's source lines).
# EDGEWISE_GPU_BUILD=DIR uses that build instead of configuring and building
# build-gpu (for checking this script's verdicts on a machine without a
# GPU, where every GPU test skips and the run must fail).
#
# The run fails (exit 1) when a step's test program is missing, when every
# test of a GPU program skipped or none passed (tests/gpu/gtest_verdict.sh),
# and when any GPU test skipped in the ctest step: on a GPU machine a skip
# means the GPU was not used.
set -uo pipefail
cd "$(dirname "$0")/../.."
# The device tool brings back at most 8 files: logs go to $OUT/logs and
# leave as one archive (logs.tgz) at the end.
LOGS=${OUT:+$OUT/logs}
LOGS=${LOGS:-build-gpu/logs}
mkdir -p "$LOGS"
pack_logs() { [[ -n ${OUT:-} ]] && tar czf "$OUT/logs.tgz" -C "$OUT" logs && rm -rf "$OUT/logs"; }
trap pack_logs EXIT
status=0
step() { echo "== $*"; }

step "device"
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv | tee "$LOGS/device.txt"

steps=${EDGEWISE_GPU_STEPS:-tests,sanitizer,profile,bench,preview,nlm,fourier,pyramid,nlbayes}
baseline=${EDGEWISE_GPU_BASELINE:-}
compare=(${EDGEWISE_COMPARE_BENCH:-bench_cuda})
has_step() { [[ ",$steps," == *",$1,"* ]]; }
targets=()
[[ -n ${EDGEWISE_GPU_TARGETS:-} ]] && targets=(--target ${EDGEWISE_GPU_TARGETS})

gpu_build=${EDGEWISE_GPU_BUILD:-build-gpu}
verdict() { tests/gpu/gtest_verdict.sh "$@" || status=1; }

step "build"
if [[ -n ${EDGEWISE_GPU_BUILD:-} ]]; then
  echo "using $gpu_build as it is (EDGEWISE_GPU_BUILD)"
elif [[ -n $baseline ]]; then  # in the background, beside this tree's build
  (cmake -S "$baseline" -B build-baseline -G Ninja -DCMAKE_BUILD_TYPE=Release -DEDGEWISE_CUDA=ON \
     -DEDGEWISE_BUILD_TESTS=OFF > "$LOGS/baseline-build.log" 2>&1 &&
   cmake --build build-baseline -j 8 --target "${compare[0]}" >> "$LOGS/baseline-build.log" 2>&1) &
  baseline_build=$!
fi
# No GIMP, GTK or babl on the GPU machine: their suites are left out.
if [[ -z ${EDGEWISE_GPU_BUILD:-} ]]; then
  cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DEDGEWISE_CUDA=ON -DEDGEWISE_WERROR=ON \
    -DEDGEWISE_ALLOW_MISSING_SUITES=ON ${EDGEWISE_CMAKE_ARGS:-} > "$LOGS/configure.log" 2>&1 || { tail -30 "$LOGS/configure.log"; exit 1; }
  cmake --build build-gpu -j "$(nproc)" "${targets[@]}" > "$LOGS/build.log" 2>&1 || { grep -E "error|Error" "$LOGS/build.log" | head -40; exit 1; }
fi

if has_step tests; then
  step "tests (GPU suite and the whole CPU suite on this machine)"
  # EDGEWISE_CTEST_REGEX runs the matching tests only (e.g. "Cuda|Gpu|Preview").
  ctest --test-dir "$gpu_build" --output-on-failure -j 8 --timeout 900 ${EDGEWISE_CTEST_REGEX:+-R "$EDGEWISE_CTEST_REGEX"} \
    > "$LOGS/ctest.log" 2>&1 || status=1
  grep -E "tests passed|tests failed|Failed|\*\*\*|SKIPPED|Total Test" "$LOGS/ctest.log" | tail -25
  # Every label but gpu may skip here (the CLI's "a GPU is usable here").
  tests/suites.sh skips "$gpu_build" "$LOGS/ctest.log" cpu cli gimp dialog quality fuzz || status=1
  [[ -n ${EDGEWISE_CTEST_REGEX:-} ]] || [ "$(ctest --test-dir "$gpu_build" -N -L '^gpu$' | sed -n 's/^Total Tests: //p')" -gt 0 ] ||
    { echo "FAIL: no GPU test registered in $gpu_build"; status=1; }
fi

if has_step fourier-tests; then
  step "test_cuda_fourier"
  "$gpu_build"/tests/gpu/test_cuda_fourier > "$LOGS/test-fourier.log" 2>&1 || status=1
  grep -E "^\[  (PASSED|FAILED|  SKIPPED|       OK) |Expected|Which is|max_abs|seed" "$LOGS/test-fourier.log" | head -40
  verdict test_cuda_fourier "$LOGS/test-fourier.log" "$gpu_build"/tests/gpu/test_cuda_fourier
fi

# compute-sanitizer on a test program's GPU tests, with the verdict on them.
sanitize() {  # sanitize TOOL PROGRAM FILTER LOG
  compute-sanitizer --tool "$1" --error-exitcode 9 "$gpu_build/$2" --gtest_filter="$3" > "$4" 2>&1 || status=1
  tail -4 "$4"
  verdict "$(basename "$2") under $1" "$4" "$gpu_build/$2"
}

if has_step nlbayes-all || has_step nlbayes-tests; then
  step "test_cuda_nlbayes"
  "$gpu_build"/tests/gpu/test_cuda_nlbayes > "$LOGS/test-nlbayes.log" 2>&1 || status=1
  grep -E "^\[  (PASSED|FAILED|  SKIPPED|       OK) |Expected|Which is|difference|percentile|seed|nlbayes GPU" "$LOGS/test-nlbayes.log" | head -60
  verdict test_cuda_nlbayes "$LOGS/test-nlbayes.log" "$gpu_build"/tests/gpu/test_cuda_nlbayes
  # The GPU fallback cases of the backend's tests (nlbayes on the GPU, large groups on the CPU).
  "$gpu_build"/tests/gpu/test_cuda_backend --gtest_filter='GpuFallback.*' > "$LOGS/test-backend-fallback.log" 2>&1 || status=1
  grep -E "^\[  (PASSED|FAILED|  SKIPPED) |Expected|Which is" "$LOGS/test-backend-fallback.log" | head -20
  for tool in memcheck racecheck; do
    step "compute-sanitizer $tool: CudaNlBayesShort"
    sanitize "$tool" tests/gpu/test_cuda_nlbayes 'CudaNlBayesShort.*' "$LOGS/sanitizer-nlbayes-$tool.log"
  done
fi
if has_step nlbayes-all; then
  step "benchmark: Non-Local Bayes"
  "$gpu_build"/bench/bench_nlbayes_cuda 2>&1 | tee "$LOGS/bench-nlbayes.txt" || status=1
  step "profile: nlbayes group kernels at 800x600 (ncu)"
  ncu --kernel-name regex:nlbayes_group --launch-count 4 \
    --section SpeedOfLight --section Occupancy --section LaunchStats --section WarpStateStats \
    "$gpu_build"/bench/bench_nlbayes_cuda --kernel > "$LOGS/ncu-nlbayes.txt" 2>&1 || status=1
  grep -E "nlbayes_group|Duration|Compute \(SM\)|Memory Throughput|Achieved Occupancy|Registers Per|Dynamic Shared|Warp Cycles Per Issued|Stall" \
    "$LOGS/ncu-nlbayes.txt" | head -60
fi

if has_step fourier-profile; then
  for sigma in 2 16; do
    step "profile: Fourier kernels at sigma-s $sigma (ncu)"
    ncu --kernel-name regex:fourier --launch-skip 6 --launch-count 3 \
      --section SpeedOfLight --section WarpStateStats --section Occupancy --section LaunchStats \
      --metrics smsp__inst_executed.sum,sm__cycles_elapsed.avg.per_second \
      build-gpu/bench/bench_fourier_cuda --kernel "$sigma" > "$LOGS/ncu-fourier-$sigma.txt" 2>&1 || status=1
    grep -E "fourier_|Duration|Compute \(SM\)|Memory Throughput|Achieved Occupancy|Registers Per|Warp Cycles Per Issued|inst_executed|Stall" \
      "$LOGS/ncu-fourier-$sigma.txt" | head -60
  done
fi

# Per SASS instruction (executed counts and stall samples, CSV), for reading
# offline: EDGEWISE_SASS="KERNEL_REGEX SKIP COUNT BENCH [ARGS...]"; the
# default is the Fourier kernels at sigma-s 16.
if has_step sass; then
  read -r -a sass <<< "${EDGEWISE_SASS:-fourier_(rows|columns) 4 2 bench_fourier_cuda --kernel 16}"
  step "profile per SASS instruction: ${sass[*]}"
  # EDGEWISE_SASS_SOURCE: the views, each its own CSV (cuda needs -lineinfo: EDGEWISE_CMAKE_ARGS).
  for view in ${EDGEWISE_SASS_SOURCE:-sass}; do
    ncu --kernel-name regex:"${sass[0]}" --launch-skip "${sass[1]}" --launch-count "${sass[2]}" --set full \
      --page source --print-source "$view" --csv "build-gpu/bench/${sass[3]}" "${sass[@]:4}" \
      > "$LOGS/ncu-${view/,/-}.csv" 2>&1 || status=1
  done
fi


# compute-sanitizer on the Fourier filter's short set alone (after a change there).
if has_step fourier-sanitizer; then
  for tool in memcheck racecheck; do
    step "compute-sanitizer $tool: CudaFourierShort"
    sanitize "$tool" tests/gpu/test_cuda_fourier 'CudaFourierShort.*' "$LOGS/sanitizer-fourier-$tool.log"
  done
fi

# The learned filter on the GPU (issue 36): its tests against the CPU, both
# networks' against the double reference, memcheck and racecheck on their
# short sets, its benchmark (24 MP, 800x600),
# and the noise network's instruction sets agreeing under this machine's
# compiler (NoiseNetForward). A GPU the backend refuses the learned plans
# on (below compute capability 8.0) skips its tests, and this step fails.
if has_step learned; then
  step "test_cuda_learned"
  # This machine has no PNG library: the test photos go in as PNM.
  python3 tests/gpu/png_to_pnm.py "$gpu_build/photos" tests/data/astronaut.png tests/data/camera.png || status=1
  EDGEWISE_TEST_PNM=$gpu_build/photos "$gpu_build"/tests/gpu/test_cuda_learned > "$LOGS/test-learned.log" 2>&1 || status=1
  grep -E "^\[  (PASSED|FAILED|  SKIPPED|       OK) |learned GPU|Expected|Which is|seed" "$LOGS/test-learned.log" | head -60
  verdict test_cuda_learned "$LOGS/test-learned.log" "$gpu_build"/tests/gpu/test_cuda_learned
  # Both networks' forward passes against the double reference (their
  # convolutions are one kernel, cuda/mma_conv.cu).
  for net in noise_net denoise_net; do
    step "test_cuda_$net"
    "$gpu_build"/tests/gpu/test_cuda_$net > "$LOGS/test-cuda-$net.log" 2>&1 || status=1
    grep -E "^\[  (PASSED|FAILED|  SKIPPED|       OK) |INFO|Expected|Which is|seed" "$LOGS/test-cuda-$net.log" | head -40
    verdict test_cuda_$net "$LOGS/test-cuda-$net.log" "$gpu_build"/tests/gpu/test_cuda_$net
  done
  step "test_noise_net (this machine's compiler), test_learned where the PNG reader is built"
  "$gpu_build"/tests/test_noise_net > "$LOGS/test-noise-net.log" 2>&1 || status=1
  [[ ! -x "$gpu_build"/tests/test_learned ]] || "$gpu_build"/tests/test_learned > "$LOGS/test-learned-cpu.log" 2>&1 || status=1
  grep -E "^\[  (PASSED|FAILED) |Expected|Which is|seed|differ" "$LOGS"/test-noise-net.log "$LOGS"/test-learned-cpu.log 2>/dev/null | head -20
  # Whether this compiler contracted the kernels' sums into FMAs: separate
  # multiplies in conv_avx2 or conv_avx512 round each product on its own.
  objdump -d --no-show-raw-insn -C "$gpu_build"/core/CMakeFiles/edgewise_core.dir/noise_net_forward.cpp.o |
    awk '/^[0-9a-f]+ <.*>:$/ { f = $0 } /\t(v?fmadd|v?mulps|v?addps)/ { split($0, a, "\t"); split(a[2], b, " "); n[f " " b[1]]++ }
         END { for (k in n) print "  " n[k], k }' | grep -E "conv_(avx2|avx512|generic)" | sort -k2
  step "benchmark: the learned filter, 24 MP and 800x600"
  "$gpu_build"/bench/bench_learned_cuda 2>&1 | tee "$LOGS/bench-learned.txt" || status=1
  # The sanitizers last: the slowest part of the step.
  for tool in memcheck racecheck; do
    step "compute-sanitizer $tool: CudaLearnedShort.AgreesWithCpuAtAwkwardSizes"
    sanitize "$tool" tests/gpu/test_cuda_learned 'CudaLearnedShort.AgreesWithCpuAtAwkwardSizes' "$LOGS/sanitizer-learned-$tool.log"
    step "compute-sanitizer $tool: CudaNoiseNet.BatchesGiveEachTilesBits, CudaDenoiseNet.RunsAgainToTheBit"
    sanitize "$tool" tests/gpu/test_cuda_noise_net 'CudaNoiseNet.BatchesGiveEachTilesBits' "$LOGS/sanitizer-noise-net-$tool.log"
    sanitize "$tool" tests/gpu/test_cuda_denoise_net 'CudaDenoiseNet.RunsAgainToTheBit' "$LOGS/sanitizer-denoise-net-$tool.log"
  done
fi

# The learned denoiser (issue 36): its tests, memcheck and racecheck on
# them, its kernel time on 24 MP, and PyTorch on the same weights (untrained
# ones: the time does not depend on them) as the peer.
if has_step denoise; then
  step "test_cuda_denoise_net"
  "$gpu_build"/tests/gpu/test_cuda_denoise_net > "$LOGS/test-denoise.log" 2>&1 || status=1
  grep -E "^\[  (PASSED|FAILED|  SKIPPED|       OK) |INFO|Expected|Which is|seed" "$LOGS/test-denoise.log" | head -40
  verdict test_cuda_denoise_net "$LOGS/test-denoise.log" "$gpu_build"/tests/gpu/test_cuda_denoise_net
  for tool in memcheck racecheck; do
    step "compute-sanitizer $tool: CudaDenoiseNet"
    sanitize "$tool" tests/gpu/test_cuda_denoise_net 'CudaDenoiseNet.RunsAgainToTheBit' "$LOGS/sanitizer-denoise-$tool.log"
  done
  step "benchmark: learned denoiser, 24 MP, against PyTorch"
  weights=${EDGEWISE_DENOISER:-}
  if [[ -z $weights ]]; then
    weights=$gpu_build/untrained-denoiser.ewnn
    python3 training/export_denoiser.py --untrained 1 --to "$weights" || status=1
  fi
  "$gpu_build"/bench/bench_denoise_net_cuda "$weights" 2>&1 | tee "$LOGS/bench-denoise.txt" || status=1
  python3 bench/peers/torch_denoiser.py "$weights" ${EDGEWISE_TORCH_COMPILE:+--compile} 2>&1 |
    tee "$LOGS/bench-denoise-torch.txt" || status=1
fi

if has_step sanitizer; then
  for tool in memcheck racecheck; do
    step "compute-sanitizer $tool"
    sanitize "$tool" tests/gpu/test_cuda_backend 'CudaBackendShort.*' "$LOGS/sanitizer-$tool.log"
    sanitize "$tool" tests/gpu/test_cuda_nlm 'CudaNlmShort.*' "$LOGS/sanitizer-nlm-$tool.log"
    sanitize "$tool" tests/gpu/test_cuda_fourier 'CudaFourierShort.*' "$LOGS/sanitizer-fourier-$tool.log"
    sanitize "$tool" tests/gpu/test_cuda_pyramid 'CudaPyramidShort.*' "$LOGS/sanitizer-pyramid-$tool.log"
    sanitize "$tool" tests/gpu/test_cuda_nlbayes 'CudaNlBayesShort.*' "$LOGS/sanitizer-nlbayes-$tool.log"
    # The dialog's preview path on the GPU (8-bit output packed on the device).
    sanitize "$tool" tests/test_preview 'PreviewCuda.*' "$LOGS/sanitizer-preview-$tool.log"
    # Parts of images (the GEGL operation's path) on the GPU: tiles of every
    # filter (the injected-failure test is left out: its failed launch is
    # what memcheck reports).
    sanitize "$tool" tests/gpu/test_cuda_region_job 'CudaRegionJob.TilesAssembleTheWholeImage' \
      "$LOGS/sanitizer-region-$tool.log"
  done
fi

# EDGEWISE_PROFILE_MODES: the bench_cuda cases to profile (default rgb:7).
if has_step profile; then
  for only in ${EDGEWISE_PROFILE_MODES:-rgb:7}; do
    name=${only//:/}
    step "profile: $only filter kernel (ncu)"
    EDGEWISE_BENCH_ONLY=$only ncu --kernel-name regex:tiled --launch-skip 2 --launch-count 1 \
      --section SpeedOfLight --section ComputeWorkloadAnalysis --section WarpStateStats --section Occupancy \
      --section SchedulerStats --metrics sm__cycles_elapsed.avg.per_second,smsp__inst_executed.sum \
      build-gpu/bench/bench_cuda > "$LOGS/ncu-$name.txt" 2>&1 || status=1
    grep -E "SM Frequency|Duration|Compute \(SM\)|Issue Slots|Issued Ipc|Eligible|No Eligible|Warp Cycles Per Issued|Achieved Occupancy|Pipe|pipeline|Registers|per_second|inst_executed" "$LOGS/ncu-$name.txt" | head -30
  done
fi

if has_step bench; then
  step "benchmark"
  build-gpu/bench/bench_cuda 2>&1 | tee "$LOGS/bench.txt" || status=1
fi

if has_step nlm; then
  step "benchmark: non-local means"
  build-gpu/bench/bench_nlm_cuda 2>&1 | tee "$LOGS/bench-nlm.txt" || status=1
fi

if has_step fourier; then
  step "benchmark: Fourier bilateral"
  build-gpu/bench/bench_fourier_cuda 2>&1 | tee "$LOGS/bench-fourier.txt" || status=1
fi

if has_step pyramid; then
  step "benchmark: multiresolution bilateral"
  build-gpu/bench/bench_pyramid_cuda 2>&1 | tee "$LOGS/bench-pyramid.txt" || status=1
fi

# Which special-function instructions the moonshot's kernels compile to
# (is ex2.approx.f16x2 one MUFU for two exponentials?).
if has_step half-sass; then
  step "SASS: MUFU instructions of bench_half_weights"
  cuobjdump -sass build-gpu/bench/bench_half_weights > "$LOGS/half-weights.sass" 2>&1 || status=1
  grep -oE "MUFU\.[A-Z0-9_.]+" "$LOGS/half-weights.sass" | sort | uniq -c
  grep -E "Function :|MUFU" "$LOGS/half-weights.sass" | grep -B1 "F16" | head -12
fi

# Issue 17's moonshot (bench/bench_half_weights.cu): speed and error of
# half-precision tap weights beside the filter's kernel, then their
# instruction counts and issue rates (ncu).
if has_step half-weights; then
  step "benchmark: half-precision weights"
  build-gpu/bench/bench_half_weights 2>&1 | tee "$LOGS/bench-half-weights.txt" || status=1
  step "profile: half-precision weights against the filter's kernel (ncu)"
  ncu --kernel-name regex:"half_weights|tiled" \
    --section SpeedOfLight --section SchedulerStats --section WarpStateStats --section ComputeWorkloadAnalysis \
    --metrics smsp__inst_executed.sum,sm__cycles_elapsed.avg.per_second \
    build-gpu/bench/bench_half_weights --once 30 > "$LOGS/ncu-half-weights.txt" 2>&1 || status=1
  grep -E "half_weights|tiled|Duration|Issue Slots Busy|Issued Ipc|No Eligible|inst_executed|XU|Registers" \
    "$LOGS/ncu-half-weights.txt" | head -80
fi

if [[ -n $baseline ]]; then
  step "compare: ${compare[*]} of $baseline (before) and of this tree (after), alternately"
  wait "$baseline_build" || { tail -20 "$LOGS/baseline-build.log"; exit 1; }
  for round in $(seq 1 "${EDGEWISE_COMPARE_ROUNDS:-3}"); do
    for side in before after; do
      binary=build-gpu/bench/${compare[0]}
      [[ $side == before ]] && binary=build-baseline/bench/${compare[0]}
      echo "-- $side, round $round"
      "$binary" "${compare[@]:1}" 2>&1 | tee -a "$LOGS/compare-$side.txt" | grep -E "^(per-channel|rgb|lab) |end to end|^\| [0-9]" || status=1
    done
  done
fi

if has_step nlbayes; then
  step "benchmark: Non-Local Bayes"
  build-gpu/bench/bench_nlbayes_cuda 2>&1 | tee "$LOGS/bench-nlbayes.txt" || status=1
fi

# Issue 27's GPU peer (bench/peers/README.md): the inputs come from
# bench/peers/prepare.sh on the host, carried; without them the step says
# so and skips.
if has_step bm3d-peer; then
  step "peers: DawyD/bm3d-gpu against nlbayes and nlm on one noisy photo"
  bench/peers/run_peers.sh "$gpu_build" "$LOGS" || status=1
fi

if has_step preview; then
  step "preview latency (the dialog's path, bench_preview)"
  build-gpu/bench/bench_preview 2>&1 | tee "$LOGS/bench-preview.txt" || status=1
fi
exit $status
