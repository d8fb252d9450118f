#!/bin/sh
# Configures (once) and builds CT Recon into ./build.  GUI and CUDA are
# detected automatically (-Dgui=auto, -Dcuda=auto).
set -eu
cd "$(dirname "$0")/.."
if [ ! -f build/build.ninja ]; then
  meson setup build --buildtype=release >/dev/null
fi
meson compile -C build >/dev/null
