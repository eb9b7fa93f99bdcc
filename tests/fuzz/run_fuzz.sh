#!/usr/bin/env bash
# Fuzzes the CLI's PNG, JPEG and TIFF readers with libFuzzer for SECONDS
# each: builds the targets in BUILD_DIR (clang; the whole project with
# ASan, UBSan and libFuzzer's coverage, so the readers are instrumented as
# well as the targets), writes the seed corpus with the CLI's own writers,
# then runs the targets one after the other.
#
# Usage: tests/fuzz/run_fuzz.sh BUILD_DIR SECONDS
#
# Exits non-zero when any target finds a crash, a sanitizer report, a leak,
# a timeout or an out-of-memory input; every target runs either way, so one
# log shows all findings. Under BUILD_DIR/fuzz-run/:
#   logs/FORMAT.log        libFuzzer's full output
#   artifacts/FORMAT/      reproducers (crash-*, leak-*, timeout-*, oom-*);
#                          replay one with BUILD_DIR/tests/fuzz/fuzz_FORMAT FILE
#   corpus/FORMAT/         inputs found so far, kept to start the next run
#   seeds/FORMAT/          the seed corpus, made afresh each run
set -euo pipefail

if [ $# -ne 2 ]; then
  echo "usage: $0 BUILD_DIR SECONDS" >&2
  exit 2
fi
source_dir=$(cd "$(dirname "$0")/../.." && pwd)
mkdir -p "$1"
build=$(cd "$1" && pwd)
seconds=$2
run="$build/fuzz-run"

# fuzzer-no-link: coverage for every library, libFuzzer's main() only in
# the targets (tests/fuzz/CMakeLists.txt). UBSan must stop at its first
# report, or libFuzzer would not see it. CUDA, tests and benchmarks are
# not needed to read images.
flags="-fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer"
cmake -S "$source_dir" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ \
  -DCMAKE_C_FLAGS="$flags" -DCMAKE_CXX_FLAGS="$flags" \
  -DEDGEWISE_FUZZ=ON -DEDGEWISE_CUDA=OFF -DEDGEWISE_BUILD_TESTS=OFF -DEDGEWISE_BUILD_BENCH=OFF >/dev/null
cmake --build "$build" --target edgewise_fuzz

rm -rf "$run/seeds"
"$build/tests/fuzz/make_seed_corpus" "$run/seeds"

export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
# ASan keeps freed memory in quarantine to catch use-after-free; a reader
# that allocates and frees a few MB per input filled 2 GB of it within a
# minute (live heap 24 MB) and hit libFuzzer's RSS limit. 64 MB still
# spans many inputs.
export ASAN_OPTIONS="quarantine_size_mb=64${ASAN_OPTIONS:+:$ASAN_OPTIONS}"
failed=()
for format in png jpeg tiff; do
  target="$build/tests/fuzz/fuzz_$format"
  log="$run/logs/$format.log"
  artifacts="$run/artifacts/$format"
  mkdir -p "$run/corpus/$format" "$artifacts" "$run/logs"
  echo "fuzz_$format: ${seconds} s, log $log"
  status=0
  # The first corpus directory receives new inputs; the seeds are only read.
  # -timeout: an input that takes 30 s (a hang) is a finding too.
  "$target" -max_total_time="$seconds" -timeout=30 -print_final_stats=1 \
    -artifact_prefix="$artifacts/" "$run/corpus/$format" "$run/seeds/$format" >"$log" 2>&1 || status=$?
  if [ "$status" -eq 0 ]; then
    # e.g. "#405838 DONE cov: 104 ft: 123 corp: 20/1247b ..." and the totals.
    grep -m1 -E '^#[0-9]+[[:space:]]+DONE' "$log" | sed 's/^/  /' || true
    grep -E '^stat::(number_of_executed_units|average_exec_per_sec|new_units_added|peak_rss_mb)' "$log" |
      sed 's/^/  /' || true
  else
    failed+=("$format")
    echo "FAIL fuzz_$format (exit $status); the report, from its log:"
    # The report's first line and its stack; the shadow-byte map after it
    # is in the full log.
    report='ERROR: (AddressSanitizer|LeakSanitizer|libFuzzer)|runtime error:|edgewise fuzz:|uncaught exception'
    if grep -q -E "$report" "$log"; then
      grep -m1 -A30 -E "$report" "$log" | sed 's/^/  | /'
    else
      tail -n 40 "$log" | sed 's/^/  | /'
    fi
    # libFuzzer names the file it wrote: "Test unit written to PATH".
    grep 'Test unit written to' "$log" | sed "s|.*Test unit written to |  reproducer: |; s|\$| (replay: $target FILE)|" || true
  fi
done

if [ ${#failed[@]} -gt 0 ]; then
  echo "fuzzing found problems in: ${failed[*]} (logs and reproducers under $run)"
  exit 1
fi
echo "fuzzing: no findings in png, jpeg, tiff (${seconds} s each)"
