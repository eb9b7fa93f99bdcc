#!/usr/bin/env bash
# tests/gpu/run.sh's bm3d-peer step (issue 27; bench/peers/README.md), on
# the device: builds DawyD/bm3d-gpu from the carried source, runs it on the
# carried noisy photo (its own program three times, timed as it times
# itself; warm by CUDA events through bm3d_gpu_timed.cpp; its kernels'
# durations under ncu where ncu exists), then bench_nlbayes_peer, which runs
# Edgewise's nlbayes and nlm on the same photo and prints one table with
# every output scored against the clean photo by the same code.
#
# Usage: bench/peers/run_peers.sh GPU_BUILD LOGS
#   GPU_BUILD holds bench/bench_nlbayes_peer; logs go to LOGS, the peer's
#   build and every output image to build-peer/ (kept out of the logs'
#   archive: 12 MB each). Exits 0 with a SKIP line when bench/peers/.inputs is missing
#   (bench/peers/prepare.sh makes it on the host; the device call carries
#   it), 1 when anything else failed (the table still shows what ran).
#   EDGEWISE_PEER_NCU=0 leaves out the ncu run; EDGEWISE_PEER_BACKEND=cpu
#   runs Edgewise's rows end to end on the CPU, to check this script on a
#   machine without a GPU (where the peer builds but cannot run).
set -uo pipefail
cd "$(dirname "$0")/../.."
gpu_build=$1
logs=$2
inputs=bench/peers/.inputs
peer=$inputs/bm3d-gpu
sigma=20
for needed in "$peer/src/main_nodisplay.cpp" "$peer/include/bm3d.hpp" "$inputs/clean.ppm" "$inputs/noisy.ppm"; do
  if [[ ! -f $needed ]]; then
    echo "SKIP: bm3d-peer: $needed is missing (run bench/peers/prepare.sh on the host and carry bench/peers/.inputs)"
    exit 0
  fi
done
bench=$gpu_build/bench/bench_nlbayes_peer
if [[ ! -x $bench ]]; then
  echo "FAIL: bm3d-peer: $bench was not built (EDGEWISE_GPU_TARGETS must name bench_nlbayes_peer)"
  exit 1
fi
status=0
build=build-peer
out=$build/out
rm -rf "$build" "$out"
mkdir -p "$build" "$out"
cat "$inputs/inputs.txt" 2>/dev/null

# The peer's build: its CMakeLists.txt links libpng (absent here, and unused
# by its code: CImg reads PNM itself) and pins C++11, which CUDA 13's Thrust
# refuses; so its sources are compiled as that file's target lists them,
# with these flags instead, and none of them is edited.
nvcc=$(sed -n 's/^CMAKE_CUDA_COMPILER:[A-Z]*=//p' "$gpu_build/CMakeCache.txt" 2>/dev/null)
[[ -x ${nvcc:-} ]] || nvcc=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
flags=(-std=c++17 -O3 -gencode arch=compute_90,code=sm_90 -I"$peer/include")
echo "-- DawyD/bm3d-gpu $(cat "$peer/COMMIT" 2>/dev/null): $nvcc ${flags[*]} ($("$nvcc" --version | tail -1))"
build_log=$logs/bm3d-peer-build.log
: > "$build_log"
pids=()
for unit in blockmatching dct8x8 filtering; do
  "$nvcc" "${flags[@]}" -c "$peer/src/$unit.cu" -o "$build/$unit.o" >> "$build_log" 2>&1 &
  pids+=($!)
done
built=1
for pid in "${pids[@]}"; do wait "$pid" || built=0; done
if ((built)); then
  "$nvcc" "${flags[@]}" "$peer/src/main_nodisplay.cpp" "$build"/{blockmatching,dct8x8,filtering}.o -o "$build/bm3d" \
    >> "$build_log" 2>&1 &
  own=$!
  "$nvcc" "${flags[@]}" bench/peers/bm3d_gpu_timed.cpp "$build"/{blockmatching,dct8x8,filtering}.o \
    -o "$build/bm3d_gpu_timed" >> "$build_log" 2>&1 || built=0
  wait "$own" || built=0
fi
why_not=""
if ((!built)); then
  why_not="did not build: $(grep -m1 -E 'error' "$build_log")"
  echo "FAIL: DawyD/bm3d-gpu $why_not (all of it in $build_log)"
  status=1
fi

median() { sort -g | awk '{ v[NR] = $1 } END { if (NR) printf "%.1f", v[int((NR + 1) / 2)] }'; }
seconds_to_ms() { tr '\r' '\n' | sed -n "s/^$1 *//p" | awk '{ printf "%.1f\n", $1 * 1000 }'; }

# Its own program as a user runs it, three cold processes (CUDA modules
# loaded eagerly, at context creation, not inside its timers): the times it
# prints (host clock, CLOCK_REALTIME): "1st step took" (the copy to the GPU,
# step 1), "2nd step took" (step 2), "Total time" (its device allocations,
# both steps, the copies both ways; not CImg's colour conversion), and the
# process's wall time.
own_row=("DawyD/bm3d-gpu, its program" "-" "${why_not:-failed: see bm3d-peer-own-*.txt}" "-" "-" "$out/missing.ppm")
settings="colour (CImg RGB to YCbCr, block matching on Y), both steps, sigma $sigma (its YCbCr variances:"
if ((built)); then
  : > "$out/own-times.txt"
  ok=1
  for run in 1 2 3; do
    log=$logs/bm3d-peer-own-$run.txt
    start=$(date +%s%N)
    CUDA_MODULE_LOADING=EAGER "$build/bm3d" "$inputs/noisy.ppm" "$out/bm3d-gpu-own-$run.ppm" "$sigma" color twostep \
      > "$log" 2>&1 || ok=0
    echo "$(seconds_to_ms '1st step took:' < "$log") $(seconds_to_ms '2nd step took:' < "$log")" \
      "$(seconds_to_ms 'Total time:' < "$log") $((($(date +%s%N) - start) / 1000000))" >> "$out/own-times.txt"
  done
  tr '\r' '\n' < "$logs/bm3d-peer-own-1.txt" | grep -vE "^Processing|^$" | head -40
  variances=$(sed -n 's/^Noise variance for individual channels (YCrCb if color): //p' "$logs/bm3d-peer-own-1.txt")
  settings="$settings ${variances% }); its main's parameters (k 8, n 19, p 3; N 16 then 32)"
  column() { awk -v c="$1" '{ print $c }' "$out/own-times.txt" | median; }
  if ((ok)) && [[ $(awk 'NF == 4' "$out/own-times.txt" | wc -l) == 3 ]]; then
    own_row=("DawyD/bm3d-gpu, its program" "$settings"
      "$(column 3) (step 1 $(column 1), step 2 $(column 2))"
      "its printed times, median of 3 cold processes: host clock around allocation, copies, both steps"
      "$(column 4) (the process)" "$out/bm3d-gpu-own-1.ppm")
  else
    echo "FAIL: DawyD/bm3d-gpu's program failed or printed no times (bm3d-peer-own-*.txt)"
    tail -5 "$logs/bm3d-peer-own-1.txt"
    status=1
  fi
fi

# The same work warm, by CUDA events (bm3d_gpu_timed.cpp).
warm_row=("DawyD/bm3d-gpu, warm" "-" "${why_not:-failed: see bm3d-peer-warm.txt}" "-" "-" "$out/missing.ppm")
if ((built)); then
  "$build/bm3d_gpu_timed" "$inputs/noisy.ppm" "$out/bm3d-gpu-warm.ppm" "$sigma" 5 > "$logs/bm3d-peer-warm.txt" 2>&1 &&
    line=$(sed -n 's/^medians: //p' "$logs/bm3d-peer-warm.txt") || line=""
  if [[ -n $line ]]; then
    read -r _ step1 _ both _ call _ end_to_end <<< "$line"
    warm_row=("DawyD/bm3d-gpu, warm" "$settings" "$both (step 1 $step1; host clock $call)"
      "CUDA events around its denoise call after a warm-up, median of 5: copies, kernels, host gaps between launches"
      "$end_to_end (with CImg's colour conversions)" "$out/bm3d-gpu-warm.ppm")
  else
    echo "FAIL: bm3d_gpu_timed: $(tail -3 "$logs/bm3d-peer-warm.txt")"
    status=1
  fi
fi

# Its kernels alone: the sum of every kernel's duration under ncu (one run
# of its program; caches not flushed, clocks not locked, as it runs).
ncu_rows=()
if ((built)) && [[ ${EDGEWISE_PEER_NCU:-1} != 0 ]] && command -v ncu > /dev/null; then
  ncu_csv=$logs/bm3d-peer-ncu.csv
  timeout 240 ncu --metrics gpu__time_duration.sum --cache-control none --clock-control none --csv \
    --print-units base "$build/bm3d" "$inputs/noisy.ppm" "$out/bm3d-gpu-ncu.ppm" "$sigma" color twostep quiet \
    > "$ncu_csv" 2>&1
  # Quoted CSV; a value may hold thousands separators.
  kernels=$(awk -F'","' '
    /^"/ { $0 = substr($0, 2, length($0) - 2) }
    !name && /Metric Name/ { for (i = 1; i <= NF; ++i) { if ($i == "Metric Name") name = i; if ($i == "Metric Unit") unit = i; if ($i == "Metric Value") value = i }; next }
    name && $name == "gpu__time_duration.sum" {
      v = $value; gsub(",", "", v); scale = 1e-6
      if ($unit ~ /^us/) scale = 1e-3; else if ($unit ~ /^ms/) scale = 1; else if ($unit == "second" || $unit == "s") scale = 1e3
      total += v * scale; ++count
    }
    END { if (count) printf "%.1f %d", total, count }' "$ncu_csv")
  if [[ -n $kernels ]]; then
    ncu_rows=(--peer "DawyD/bm3d-gpu, kernels" "$settings" "${kernels% *}"
      "sum of its ${kernels#* } kernels' durations under ncu (one run)" "-" "$out/bm3d-gpu-ncu.ppm")
  else
    echo "ncu gave no kernel durations for the peer: $(grep -m3 -E "ERR|WARN|rror" "$ncu_csv")"
  fi
fi

echo "-- the table (every PSNR and SSIM by bench_nlbayes_peer)"
"$bench" "$inputs/clean.ppm" "$inputs/noisy.ppm" "$out" --backend "${EDGEWISE_PEER_BACKEND:-cuda}" --peer "${own_row[@]}" --peer "${warm_row[@]}" \
  "${ncu_rows[@]}" 2>&1 | tee "$logs/bm3d-peer.txt"
((PIPESTATUS[0] == 0)) || status=1
exit $status
