#!/usr/bin/env bash
# The Debian package (package/CMakeLists.txt) built from this build and
# checked as a user would meet it (registered by tests/package/CMakeLists.txt):
#   - cpack -G DEB makes edgewise_VERSION_ARCH.deb; lintian reports no error
#     (nor warning); its files are where GIMP and GEGL look; its Depends,
#     computed by dpkg-shlibdeps, name no CUDA package, and no installed
#     binary needs a CUDA library (readelf); the module exports GEGL's two
#     entry points only; the CLI, the plug-in and the module share one
#     engine, libedgewise-engine.so.0 in the package's private library
#     folder, which exports the edgewise namespace only, found through their
#     RUNPATH; it installs at most 40 MB (Installed-Size, and du of the
#     extracted files; issue 37), the two networks' weights included;
#     apt-get can resolve its dependencies (--simulate);
#   - extracted into a temporary root (dpkg -x): the installed CLI runs and
#     filters as the build's does, the learned filter with the packaged
#     weights too; the gegl command with the installed module
#     gives the CLI's pixels; gimp-console-2.10 with a fresh GIMP2_DIRECTORY,
#     whose plug-in path is the package's system plug-in folder (and the
#     script-fu and PNG plug-ins GIMP needs to run the check), finds
#     plug-in-edgewise-bilateral and gives the CLI's pixels.
# EDGEWISE_TEST_DPKG_INSTALL=1, as root: also dpkg -i the package, run the
# same checks on the installed system (GIMP with its default plug-in path),
# then dpkg -r it. Off by default: an installed edgewise is seen by every
# GIMP and GEGL program on the machine, other tests and users' included.
# Usage: run_package_test.sh WORK BUILD GEGL_PLUGINS GIMP_CONSOLE IMAGE_TOOL DATA
set -uo pipefail
work=$1 build=$2 gegl_plugins=$3 gimp_console=$4 image_tool=$5 data=$6
rm -rf "$work"
mkdir -p "$work"
cd "$work" || exit 1
failures=0
fail() {
  echo "FAIL: $*"
  failures=$((failures + 1))
}
check() {  # check WHAT COMMAND...: runs it, a failure if it fails
  local what=$1
  shift
  if "$@" >check.log 2>&1; then echo "ok: $what"; else fail "$what: $(tail -5 check.log)"; fi
}
tol8=0.00393
photo=$data/astronaut_noisy.png
p1=(--mode rgb --sigma-s 2.5 --sigma-r 25 --iterations 2)

# --- build and inspect the package
start=$SECONDS
cpack -G DEB -B "$work/cpack" --config "$build/CPackConfig.cmake" >cpack.log 2>&1 || {
  cat cpack.log
  exit 1
}
version=$(sed -n 's/^set(CPACK_PACKAGE_VERSION "\(.*\)")$/\1/p' "$build/CPackConfig.cmake")
deb=$work/cpack/edgewise_${version}_$(dpkg --print-architecture).deb
[ -f "$deb" ] || {
  ls "$work/cpack"
  echo "FAIL: no $deb"
  exit 1
}
echo "ok: $(basename "$deb"), $(du -k "$deb" | cut -f1) KiB, made in $((SECONDS - start)) s"

start=$SECONDS
lintian --allow-root --tag-display-limit 0 "$deb" >lintian.log 2>&1
echo "lintian ($((SECONDS - start)) s):"
cat lintian.log
grep -qE '^[EW]: ' lintian.log && fail "lintian reports errors or warnings"

dpkg-deb --field "$deb" Depends >depends.txt
echo "Depends: $(cat depends.txt)"
grep -qi cuda depends.txt && fail "the package depends on a CUDA package"
for needed in libc6 libgegl-0.4-0 libgimp2.0; do
  grep -q "$needed" depends.txt || fail "Depends lacks $needed (dpkg-shlibdeps did not run?)"
done

# The size a user installs: one engine and its CUDA kernels, not three.
installed_kib=$(dpkg-deb --field "$deb" Installed-Size)
echo "Installed-Size: $installed_kib KiB"
[ "$installed_kib" -le 40000 ] || fail "the package installs $installed_kib KiB, more than 40 MB"

gegl_module=${gegl_plugins#/}/edgewise-gegl.so
gimp_plugin=usr/lib/gimp/2.0/plug-ins/edgewise/edgewise
engine=usr/lib/$(dpkg-architecture -qDEB_HOST_MULTIARCH)/edgewise/libedgewise-engine.so.0
dpkg-deb --contents "$deb" >contents.txt
for path in usr/bin/edgewise "$gimp_plugin" "$gegl_module" "$engine" usr/share/man/man1/edgewise.1.gz \
  usr/share/doc/edgewise/README.md usr/share/doc/edgewise/copyright usr/share/doc/edgewise/changelog.gz \
  usr/share/doc/edgewise/docs/architecture.md usr/share/edgewise/noise_net-v1.ewnn \
  usr/share/edgewise/denoiser-v1.ewnn; do
  grep -q " \./$path$" contents.txt || fail "the package has no /$path"
done

root=$work/root
dpkg -x "$deb" "$root"
extracted_kib=$(du -sk "$root" | cut -f1)
echo "extracted: $extracted_kib KiB"
[ "$extracted_kib" -le 40000 ] || fail "the extracted package holds $extracted_kib KiB, more than 40 MB"
for binary in usr/bin/edgewise "$gimp_plugin" "$gegl_module" "$engine"; do
  needed=$(readelf -d "$root/$binary" | grep NEEDED)
  echo "$binary needs: $(echo "$needed" | sed 's/.*\[\(.*\)\]/\1/' | tr '\n' ' ')"
  echo "$needed" | grep -qi cuda && fail "$binary needs a CUDA library"
done
# The three programs load the package's engine, found through their
# RUNPATH ($ORIGIN-relative), and no other.
for binary in usr/bin/edgewise "$gimp_plugin" "$gegl_module"; do
  found=$(env -u LD_LIBRARY_PATH ldd "$root/$binary" | sed -n 's/^\s*libedgewise-engine\.so\.0 => \(\S*\) .*/\1/p')
  [ "$(realpath -m "$found")" = "$(realpath "$root/$engine")" ] ||
    fail "$binary finds its engine at '$found', not at /$engine"
done
# The engine exports the edgewise namespace only (core/engine_exports.map):
# nothing of the CUDA runtime or OpenMP to clash with a host program.
foreign=$(nm -D --defined-only "$root/$engine" | awk '{print $3}' | c++filt |
  grep -cvE '^((typeinfo|typeinfo name|vtable|VTT|guard variable) for |(non-)?virtual thunk to )?edgewise::')
[ "$foreign" = 0 ] || fail "the engine exports $foreign symbols outside the edgewise namespace"
exported=$(nm -D --defined-only "$root/$gegl_module" | awk '{print $3}' | sort | tr '\n' ' ')
[ "$exported" = "gegl_module_query gegl_module_register " ] || fail "the module exports $exported"
if apt-get install --simulate --no-install-recommends "$deb" >apt.log 2>&1; then
  echo "ok: apt-get --simulate resolves the dependencies"
else
  fail "apt-get cannot resolve the package's dependencies: $(tail -5 apt.log)"
fi

# --- the extracted package at work
check "the installed CLI's --version" "$root/usr/bin/edgewise" --version
cat check.log
check "the build's CLI" "$build/cli/edgewise" "${p1[@]}" "$photo" -o cli.png
check "the installed CLI" "$root/usr/bin/edgewise" "${p1[@]}" "$photo" -o installed-cli.png
check "the installed CLI's pixels" "$image_tool" compare installed-cli.png cli.png 0
# The packaged noise network loads and gives the learned reading (the path
# the installed program finds at /usr/share/edgewise, named here since the
# package is only extracted).
EDGEWISE_NOISE_NET="$root/usr/share/edgewise/noise_net-v1.ewnn" "$root/usr/bin/edgewise" --estimate-noise --verbose \
  "$photo" >reading.txt 2>reading.err || fail "--estimate-noise with the packaged network: $(cat reading.err)"
grep -q "^	reading	learned$" reading.txt && [ ! -s reading.err ] && echo "ok: the packaged noise network gives the learned reading" ||
  fail "the packaged noise network was not used: $(cat reading.txt reading.err)"

# The packaged learned denoiser loads and runs (both packaged networks named
# so: the build's source tree, also searched, must not stand in for them),
# giving the build's pixels.
EDGEWISE_NOISE_NET="$root/usr/share/edgewise/noise_net-v1.ewnn" \
  EDGEWISE_DENOISE_NET="$root/usr/share/edgewise/denoiser-v1.ewnn" "$root/usr/bin/edgewise" --filter learned \
  "$photo" -o installed-learned.png >learned.log 2>&1 || fail "--filter learned with the packaged weights: $(cat learned.log)"
check "the build's CLI, learned" "$build/cli/edgewise" --filter learned "$photo" -o learned.png
check "the packaged learned denoiser's pixels" "$image_tool" compare installed-learned.png learned.png 0

GEGL_PATH="$root/${gegl_plugins#/}:$gegl_plugins" gegl "$photo" -o gegl.png -- edgewise:bilateral \
  mode=rgb sigma-s=2.5 sigma-r=25 iterations=2 >gegl.log 2>&1 || fail "gegl with the installed module: $(cat gegl.log)"
check "gegl with the installed module, against the CLI" "$image_tool" compare gegl.png cli.png $tol8

# gimp_check NAME GIMP2_DIRECTORY: runs plug-in-edgewise-bilateral from a
# fresh GIMP profile on the photo; the procedure must exist and give the
# CLI's pixels.
gimp_check() {
  local name=$1 profile=$2
  local script="(let* ((found (car (gimp-procedural-db-proc-exists \"plug-in-edgewise-bilateral\"))))
    (gimp-message (if (= found TRUE) \"PACKAGE PROCEDURE FOUND\" \"PACKAGE PROCEDURE MISSING\"))
    (if (= found TRUE)
      (let* ((image (car (gimp-file-load RUN-NONINTERACTIVE \"$photo\" \"$photo\")))
             (layer (car (gimp-image-get-active-drawable image))))
        (plug-in-edgewise-bilateral RUN-NONINTERACTIVE image layer 1 2.5 0 25.0 0 2 0)
        (gimp-file-save RUN-NONINTERACTIVE image layer \"$work/$name.png\" \"$work/$name.png\"))))"
  GIMP2_DIRECTORY=$profile "$gimp_console" -i -d -f -b "$script" -b "(gimp-quit 0)" >"$name.log" 2>&1
  if grep -q "PACKAGE PROCEDURE FOUND" "$name.log"; then
    echo "ok: $name: GIMP finds plug-in-edgewise-bilateral"
    check "$name: GIMP's pixels against the CLI" "$image_tool" compare "$name.png" cli.png $tol8
  else
    fail "$name: GIMP did not find plug-in-edgewise-bilateral: $(tail -20 "$name.log")"
  fi
}

# A fresh profile whose plug-in path is the package's system folder, and of
# GIMP's own plug-ins those the check needs (all of them take GIMP half a
# minute to query on a first start).
profile=$work/gimp-profile
mkdir -p "$profile"/{brushes,dynamics,gradients,palettes,patterns,tool-presets,fonts} "$work/gimp-own" "$work/tmp"
system_plug_ins=$(pkg-config --variable=gimplibdir gimp-2.0 2>/dev/null || echo /usr/lib/gimp/2.0)/plug-ins
for needed in script-fu file-png; do ln -s "$system_plug_ins/$needed" "$work/gimp-own/$needed"; done
cat >"$profile/gimprc" <<GIMPRC
(plug-in-path "$work/gimp-own:$root/usr/lib/gimp/2.0/plug-ins")
(temp-path "$work/tmp")
(swap-path "$work/tmp")
GIMPRC
gimp_check extracted "$profile"

# --- installed for real (opt-in)
if [ "${EDGEWISE_TEST_DPKG_INSTALL:-0}" = 1 ]; then
  if [ "$(id -u)" != 0 ]; then
    fail "EDGEWISE_TEST_DPKG_INSTALL=1 needs root"
  else
    check "dpkg -i" dpkg -i "$deb"
    check "the installed /usr/bin/edgewise" /usr/bin/edgewise "${p1[@]}" "$photo" -o system-cli.png
    check "/usr/bin/edgewise's pixels" "$image_tool" compare system-cli.png cli.png 0
    env -u GEGL_PATH gegl --list-all >system-ops.txt 2>&1
    grep -qx edgewise:bilateral system-ops.txt && echo "ok: gegl finds edgewise:bilateral" ||
      fail "gegl does not list edgewise:bilateral after dpkg -i"
    mkdir -p "$work/system-profile"
    gimp_check system "$work/system-profile"
    check "dpkg -r" dpkg -r edgewise
    [ ! -e /usr/bin/edgewise ] || fail "/usr/bin/edgewise is still there after dpkg -r"
  fi
fi

echo "package: $failures failures"
[ $failures = 0 ]
