#!/usr/bin/env bash
# On the GPU machine: the bundle pack_bundle.sh made, run from the tree's
# root (the tests read tests/data where they were built: /work/main).
# PART picks any of tests, sanitizer (compute-sanitizer memcheck and
# racecheck on the short GPU cases), bench; logs go to $OUT. TESTS, FILTER
# (a gtest filter for every test binary), SANITIZE (binary:filter pairs),
# BENCHES and BENCH_ARGS narrow a run to what changed.
#
# Exits 1 when a test or benchmark asked for is not in the bundle, when
# every test of a test program skipped or none passed (gtest_verdict.sh,
# packed beside this script), or when a run failed. On a machine without a
# GPU every GPU test skips, so the run fails there: that is how its
# verdicts are checked (tests/gpu/pack_bundle.sh, then this, on any machine).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
bundle=${1:?usage: run_bundle.sh BUNDLE_DIR}
part=${PART:-tests,sanitizer,bench}
out=${OUT:-$PWD/gpu-logs}
mkdir -p "$out"
work=$(mktemp -d)
tar -C "$work" -xJf "$bundle/suite.tar.xz"
B=$work/suite
loader=("$B/ld-linux-x86-64.so.2" --library-path "$B")  # the bundle's own libraries
[ -e /work/main/tests ] || { mkdir -p /work/main && ln -s "$PWD/tests" /work/main/tests; } 2>/dev/null
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
status=0
if [[ $part == *tests* ]]; then
  for t in ${TESTS:-test_cuda_backend test_cuda_nlm test_preview test_cuda_fourier test_cuda_pyramid test_cuda_nlbayes}; do
    [ -x "$B/$t" ] || { echo "FAIL $t: not in the bundle"; status=1; continue; }
    start=$(date +%s)
    timeout 400 "${loader[@]}" "$B/$t" --gtest_filter="${FILTER:-*}" >"$out/$t.log" 2>&1 || status=1
    echo "$t ($(($(date +%s) - start)) s): $(grep -E '^\[  (PASSED|FAILED)  \]|SKIPPED \]' "$out/$t.log" | sort | uniq -c | tr '\n' ' ')"
    grep -E "^\[  FAILED  \]" "$out/$t.log" | head -5
    "$here/gtest_verdict.sh" "$t" "$out/$t.log" || status=1
  done
fi
if [[ $part == *sanitizer* ]]; then
  for tool in memcheck racecheck; do
    for pair in ${SANITIZE:-test_cuda_backend:CudaBackendShort.* test_cuda_nlm:CudaNlmShort.* test_preview:PreviewCuda.* \
                test_cuda_fourier:CudaFourierShort.* test_cuda_pyramid:CudaPyramidShort.* \
                test_cuda_nlbayes:CudaNlBayesShort.*}; do
      t=${pair%%:*}
      [ -x "$B/$t" ] || { echo "FAIL $tool $t: not in the bundle"; status=1; continue; }
      timeout 300 compute-sanitizer --tool "$tool" --error-exitcode 9 "${loader[@]}" "$B/$t" \
        --gtest_filter="${pair#*:}" >"$out/san-$tool-$t.log" 2>&1 || status=1
      echo "$tool $t: $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|PASSED|tests ran' "$out/san-$tool-$t.log" | tr '\n' ' ')"
      "$here/gtest_verdict.sh" "$t under $tool" "$out/san-$tool-$t.log" || status=1
    done
  done
fi
if [[ $part == *bench* ]]; then
  for b in ${BENCHES:-bench_host_memory bench_cuda bench_nlm_cuda bench_preview bench_fourier_cuda bench_pyramid_cuda bench_nlbayes_cuda}; do
    [ -x "$B/$b" ] || { echo "FAIL $b: not in the bundle"; status=1; continue; }
    echo "== $b"
    # shellcheck disable=SC2086
    timeout 200 "${loader[@]}" "$B/$b" ${BENCH_ARGS:-} 2>&1 | tee "$out/$b.txt"
  done
fi
exit $status
