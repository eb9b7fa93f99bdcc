#!/usr/bin/env bash
# Installs what Edgewise builds and tests with, from Debian 12's packages.
# CUDA is optional: when nvcc is at /usr/local/cuda it is used (no GPU needed
# to build); without it the CPU backend alone is built.
set -euo pipefail
packages=(build-essential cmake ninja-build pkg-config
          libpng-dev libtiff-dev libjpeg-dev      # the CLI's image I/O
          libexiv2-dev libdeflate-dev             # the CLI's metadata (as GIMP) and PNG compression
          libspng-dev imagemagick gmic            # the codec benchmark's peers
          libgtest-dev libbabl-dev                # tests (Lab is checked against babl)
          python3                                 # tests: docs/quality.md's figures against the CSVs
          libopencv-dev                           # the CPU benchmark's peer
          libgimp2.0-dev libgegl-dev              # the GIMP 2.10 plug-in
          libgtk-3-dev                            # the dialog (edgewise --gui, interactive plug-in)
          gimp gimp-gmic                          # plug-in tests (gimp-console, GIMP GUI), benchmark peer
          xvfb xdotool x11-utils                  # dialog tests: X display, input, screenshots, xprop
          openbox xfwm4                           # dialog tests: Help in front under two window managers
          gegl                                    # the GEGL module's tests: the gegl command
          dpkg-dev file lintian                   # the Debian package: dpkg-shlibdeps (CPack), its check
          clang libclang-rt-14-dev libomp-14-dev) # ASan/UBSan tests and libFuzzer (clang 14's runtimes, OpenMP)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  echo "installing: ${missing[*]}"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
