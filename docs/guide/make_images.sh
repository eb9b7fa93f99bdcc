#!/usr/bin/env bash
# The user guide's pictures (docs/guide/*.png, shown by docs/user-guide.md
# and the plug-in's Help window): crops of the test photos (tests/data)
# given camera-like noise by bench/quality's camera pipeline, before and
# after the Denoise procedure's defaults and a few settings, run as the
# plug-in runs them (tests/tools/denoise_tool.cpp, guide).
# Usage: docs/guide/make_images.sh [BUILD_DIR] [OUT_DIR]
#   BUILD_DIR  the CMake build holding tests/denoise_tool (default: build)
#   OUT_DIR    where the PNGs go (default: docs/guide)
# ctest's docs.guide_images runs it into the build folder and compares each
# picture with the committed one (one 8-bit code value: the CPU's vector
# code may round a sample the other way on another processor).
set -euo pipefail
source=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$source/build}
out=${2:-$source/docs/guide}
"$build/tests/denoise_tool" guide "$source/tests/data" "$out"
