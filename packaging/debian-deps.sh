#!/bin/sh
# Installs what CT Recon needs on Debian 12 (only the packages that are missing).
# Used by the README's two commands and by CI.  Needs root or sudo.
#   --fuzz  also clang, its libFuzzer and sanitizer runtimes and its OpenMP
#           (packaging/run-fuzz.sh)
#   --tests also what only tests use: CPU PyTorch for ctrecon.torch's test
#           (packaging/run-tests.sh; 737 MB installed, not the main job's)
#           and PyWavelets, the oracle of the wavelet-FFT ring removal's test
set -eu

EXTRA_PKGS=""
if [ "${1:-}" = "--fuzz" ]; then
  EXTRA_PKGS="clang libclang-rt-14-dev libomp-dev"
fi
if [ "${1:-}" = "--tests" ]; then
  EXTRA_PKGS="python3-torch python3-pywt"
fi

PKGS="$EXTRA_PKGS meson ninja-build pkg-config gcc libc6-dev
libglib2.0-dev libjson-glib-dev libtiff-dev libfftw3-dev zlib1g-dev libssl-dev libcairo2-dev
libgtk-4-dev libadwaita-1-dev
xvfb xauth desktop-file-utils appstream
python3 python3-dev python3-numpy python3-skimage python3-tifffile python3-venv python3-h5py
g++ libdcmtk-dev libsndfile1-dev dicom3tools python3-pydicom
libhdf5-dev
plastimatch
libopenmpi-dev openmpi-bin"

missing=""
for p in $PKGS; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing="$missing $p"
  fi
done

if [ -z "$missing" ]; then
  echo "ctrecon: all build and test dependencies are installed"
  exit 0
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  SUDO="sudo"
fi
echo "ctrecon: installing$missing"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
# shellcheck disable=SC2086
$SUDO apt-get install -y -qq --no-install-recommends $missing >/dev/null
