#!/usr/bin/env bash
# What CI runs (.ci/run), in three stages:
#   1. everything built with warnings as errors, and every test;
#   2. the CPU tests again, built with ASan and UBSan (build-asan/);
#   3. 60 s of libFuzzer on each image reader (build-fuzz/, tests/fuzz/).
# Every stage runs even when an earlier one failed, so one log shows all
# failures; the exit status is non-zero if any stage failed. GPU tests
# report themselves skipped where no usable GPU exists (tests/gpu/run.sh
# runs them on a CUDA machine).
set -euo pipefail
cd "$(dirname "$0")/.."
install/deps.sh

start=$SECONDS
failed=()
stage() { printf '\n=== %s (at %d s)\n' "$1" $((SECONDS - start)); }

# Commands within a stage are chained with &&: set -e is off inside a
# command list tested with ||, and a failed stage must not hide the others.
stage "1/3 build with -Werror, all tests"
{ cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DEDGEWISE_WERROR=ON &&
  cmake --build build &&
  ctest --test-dir build --output-on-failure -j "$(nproc)"; } || failed+=("tests")
# ctest does not print why a test skipped; say why the GPU tests did.
if [ -x build/tests/gpu/test_cuda_backend ]; then
  build/tests/gpu/test_cuda_backend --gtest_filter='CudaBackendShort.*' 2>&1 | grep -m1 "no usable CUDA device" || true
fi

# clang, not GCC: GCC's UBSan ignores log_path and prints only to stderr,
# where a CLI test that expects the edgewise binary to fail would swallow
# it; with clang every report lands in a file checked below. OpenMP comes
# from libomp. No -Werror: the build above checks warnings (GCC's), and
# clang warns about AVX lanes' ABI in core/ headers (-Wpsabi) that GCC
# does not. CUDA off: device code is not instrumented, and the CUDA tests
# skip here anyway.
# Not run: the gimp and dialog labels. They drive external programs
# (gimp-console and the GIMP GUI loading the plug-in, Xvfb, xdotool,
# ImageMagick) that are not instrumented and would need the ASan runtime
# preloaded into GIMP, and they take minutes; the CPU code they reach is
# the code the other tests run.
stage "2/3 ASan + UBSan build (clang), CPU tests without gimp and dialog"
asan_flags="-fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer"
reports="$PWD/build-asan/sanitizer-reports"
rm -rf "$reports"
{ cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ \
    -DCMAKE_C_FLAGS="$asan_flags" -DCMAKE_CXX_FLAGS="$asan_flags" \
    -DEDGEWISE_CUDA=OFF -DEDGEWISE_BUILD_BENCH=OFF >/dev/null &&
  cmake --build build-asan &&
  mkdir -p "$reports" &&
  # babl keeps allocations past babl_exit() (babl's own, from babl_malloc);
  # the leak is not ours and is not fixable here.
  printf 'leak:libbabl\n' >build-asan/lsan.supp &&
  ASAN_OPTIONS="log_path=$reports/asan" \
  LSAN_OPTIONS="suppressions=$PWD/build-asan/lsan.supp:print_suppressions=0" \
  UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1:log_path=$reports/ubsan" \
    ctest --test-dir build-asan -LE 'gimp|dialog' --output-on-failure -j "$(nproc)"; } || failed+=("sanitizer tests")
# A report from a child process (the CLI run by test_cli) fails the stage
# even where its test accepted the exit status. The reports are printed
# last, after the fuzzing, where a log's tail (all that some CI views keep)
# still shows them.
if compgen -G "$reports/*" >/dev/null; then
  echo "sanitizer reports: $(ls "$reports" | wc -l), printed at the end (also in $reports)"
  failed+=("sanitizer reports")
fi

stage "3/3 fuzzing the PNG, JPEG and TIFF readers, 60 s each"
tests/fuzz/run_fuzz.sh build-fuzz 60 || failed+=("fuzzing")

printf '\n=== install/test.sh: %d min %d s\n' $(((SECONDS - start) / 60)) $(((SECONDS - start) % 60))
if [ ${#failed[@]} -gt 0 ]; then
  if compgen -G "$reports/*" >/dev/null; then
    for report in "$reports"/*; do
      echo "--- sanitizer report $report (first 60 lines)"
      head -60 "$report"
    done
  fi
  echo "FAILED: ${failed[*]}"
  exit 1
fi
echo "all stages passed"
