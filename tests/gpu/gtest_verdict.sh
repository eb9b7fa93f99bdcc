#!/usr/bin/env bash
# The GPU scripts' verdict on one test program's run (run.sh, run_bundle.sh):
# exits 1, saying why, when the program is missing (BINARY given and not
# executable), when its log shows no test that ran and passed (every test
# skipped, or none selected), or when any test skipped for want of a GPU
# (REQUIRE_GPU's "no usable CUDA device"; test_cuda_backend has a test that
# passes without one). A GPU run where the GPU tests did not run is not a
# green run.
#
# Usage: gtest_verdict.sh NAME LOG [BINARY]
name=$1 log=$2 binary=${3:-}
if [ -n "$binary" ] && [ ! -x "$binary" ]; then
  echo "FAIL $name: $binary is missing (not built or not packed)"
  exit 1
fi
[ -f "$log" ] || { echo "FAIL $name: no log $log"; exit 1; }
passed=$(sed -n 's/^\[  PASSED  \] \([0-9]*\) tests\{0,1\}\..*/\1/p' "$log" | tail -1)
skipped=$(sed -n 's/^\[  SKIPPED \] \([0-9]*\) tests\{0,1\}, listed below:.*/\1/p' "$log" | tail -1)
if [ "${passed:-0}" -eq 0 ]; then
  if [ "${skipped:-0}" -gt 0 ]; then
    echo "FAIL $name: every test skipped ($skipped): $(grep -m1 -A1 ': Skipped$' "$log" | tail -1)"
  else
    echo "FAIL $name: no test passed (none selected, or it did not finish)"
  fi
  exit 1
fi
no_gpu=$(grep -c '^no usable CUDA device' "$log")
if [ "$no_gpu" -gt 0 ]; then
  echo "FAIL $name: $no_gpu tests found no usable GPU: $(grep -m1 '^no usable CUDA device' "$log")"
  exit 1
fi
exit 0
