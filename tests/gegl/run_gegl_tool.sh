#!/usr/bin/env bash
# The GEGL module through the gegl command, against the CLI (registered by
# tests/gegl/CMakeLists.txt, one test per GROUP):
#   rgb, rgba, grey  every case gegl_cases prints (each filter at its defaults,
#                    automatic values included, and with every parameter
#                    moved) on a photo of tests/data (rgba: the noisy photo
#                    with an alpha ramp; grey: camera.png), the gegl
#                    command's result within one 8-bit code value of the
#                    CLI's; rgb also rendered in 64x64 tiles and 64x64 chunks
#                    (GEGL_TILE_SIZE, GEGL_CHUNK_SIZE): the same pixels
#   failures         in a gegl render, the GPU failing part-way gives the
#                    CLI's pixels, host memory running out gives the input's
#                    pixels; the gegl command exits 0 with one warning
# The module is loaded from the build: GEGL_PATH is its folder, then GEGL's
# own (GEGL_PATH replaces GEGL's default folders, ~/.local/share's included).
# Usage: run_gegl_tool.sh GROUP WORK GEGL MODULE_DIR GEGL_PLUGINS CASES CLI IMAGE_TOOL DATA
set -uo pipefail
group=$1 work=$2 gegl=$3 module_dir=$4 gegl_plugins=$5 cases=$6 cli=$7 image_tool=$8 data=$9
rm -rf "$work"
mkdir -p "$work"
cd "$work" || exit 1
export GEGL_PATH="$module_dir:$gegl_plugins"
tol8=0.00393  # one 8-bit code value, in 0..1 units (gegl writes 16 bits, the CLI 8)
failures=0

fail() {
  echo "FAIL: $*"
  failures=$((failures + 1))
}

# Every filter the registry has must be an operation the gegl command knows.
"$gegl" --list-all >ops.txt 2>gegl.log
while IFS=$'\t' read -r filter _; do
  grep -qx "edgewise:$filter" ops.txt || fail "edgewise:$filter not listed by gegl --list-all (GEGL_PATH=$GEGL_PATH)"
done < <("$cases")

# gegl_render OUT INPUT FILTER PROPERTIES...: the gegl command's result; its
# stderr in OUT.log (GEGL's own "buffers leaked" note at exit comes with any
# cached operation, gegl:gaussian-blur's too, and is not checked).
gegl_render() {
  local out=$1 input=$2 filter=$3
  shift 3
  "$gegl" "$input" -o "$out" -- "edgewise:$filter" "$@" >"$out.log" 2>&1 || fail "gegl exited $? on $filter $* (see $work/$out.log)"
}

compare() {  # compare A B TOL WHAT
  if ! "$image_tool" compare "$1" "$2" "$3" >compare.log 2>&1; then
    fail "$4: $(cat compare.log)"
  else
    echo "ok: $4 ($(cat compare.log))"
  fi
}

case $group in
  rgb) input=$data/astronaut_noisy.png ;;
  grey) input=$data/camera.png ;;
  rgba)
    input=$work/rgba.png
    "$image_tool" add-alpha "$data/astronaut_noisy.png" "$input" || exit 1
    ;;
  failures) input=$data/astronaut_noisy.png ;;
  *)
    echo "unknown group $group" >&2
    exit 2
    ;;
esac

index=0
while IFS=$'\t' read -r filter name properties options; do
  index=$((index + 1))
  [ "$group" = failures ] && [ "$name" != defaults ] && continue
  what="$filter $name ($properties)"
  cli_out=cli-$index.png
  # shellcheck disable=SC2086  # the options are words
  "$cli" --filter "$filter" $options "$input" -o "$cli_out" >cli-$index.log 2>&1 || {
    fail "the CLI failed on $what: $(cat cli-$index.log)"
    continue
  }
  case $group in
    rgb | rgba | grey)
      # shellcheck disable=SC2086
      gegl_render gegl-$index.png "$input" "$filter" $properties
      compare gegl-$index.png "$cli_out" $tol8 "$group $what"
      [ "$group" = rgb ] || continue
      # shellcheck disable=SC2086
      GEGL_TILE_SIZE=64x64 GEGL_CHUNK_SIZE=4096 G_MESSAGES_DEBUG=Edgewise \
        gegl_render tiles-$index.png "$input" "$filter" $properties
      parts=$(grep -c "filtered 64x64" tiles-$index.png.log)
      [ "$parts" -ge 4 ] || fail "$what: rendered in $parts 64x64 parts, expected several"
      compare tiles-$index.png "$cli_out" $tol8 "tiles $what"
      ;;
    failures)
      # shellcheck disable=SC2086
      EDGEWISE_INJECT_GPU_FAILURE=launch gegl_render gpu-$index.png "$input" "$filter" $properties
      grep -q "rerunning on the" gpu-$index.png.log || fail "$what: no warning of the GPU's failure"
      compare gpu-$index.png "$cli_out" $tol8 "GPU failure, $what"
      # shellcheck disable=SC2086
      EDGEWISE_INJECT_HOST_FAILURE=1 gegl_render host-$index.png "$input" "$filter" $properties
      [ "$(grep -c "out of memory; the input is passed through unchanged" host-$index.png.log)" = 1 ] ||
        fail "$what: expected one warning of host memory running out (see $work/host-$index.png.log)"
      compare host-$index.png "$input" 0.0000001 "host memory failure, $what: the input unchanged"
      ;;
  esac
done < <("$cases")

[ $index -gt 0 ] || fail "gegl_cases printed no case"
echo "$group: $index cases, $failures failures"
[ $failures = 0 ]
