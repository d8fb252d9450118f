#!/bin/sh
# The peers in a virtual environment for the peer tests and benchmarks —
# never dependencies of the product.
#   sh packaging/peer-venv.sh DIR            → DIR/bin/python imports astra and itk.RTK
#                                              (ASTRA Toolbox, RTK)
#   sh packaging/peer-venv.sh --algotom DIR  → DIR/bin/python imports algotom
#                                              (Vo's stripe removal, tests/peers/test_peer_stripes.py)
# Exits 0 when DIR is ready (made now or before), 77 when it cannot be made
# (no venv module, no pip, no network): the tests that need it then skip.
set -uf  # no globbing: the requirements hold *, >
imports='import astra, itk; from itk import RTK'
pkgs="astra-toolbox==2.5.* itk-rtk>=2.6 numpy"
if [ "${1:-}" = --algotom ]; then
  shift
  imports='import algotom.prep.removal'
  pkgs="algotom==1.7.*"
fi
dir=${1:?usage: peer-venv.sh [--algotom] DIR}
ready() { "$dir/bin/python" -c "$imports" >/dev/null 2>&1; }
ready && exit 0
# One maker at a time: tests that need the venv may start together.
mkdir -p "$(dirname "$dir")" && exec 9>"$dir.lock" && flock 9 || { echo "peer-venv: no lock on $dir.lock" >&2; exit 77; }
ready && exit 0
/usr/bin/python3 -m venv "$dir" >/dev/null 2>&1 || { echo "peer-venv: python3 -m venv failed (python3-venv missing?)" >&2; exit 77; }
# $pkgs unquoted on purpose: one word per requirement (none holds a space)
# shellcheck disable=SC2086
"$dir/bin/pip" install -q --disable-pip-version-check $pkgs >"$dir.log" 2>&1 \
  || { echo "peer-venv: pip could not install the peers (no network?); see $dir.log" >&2; exit 77; }
ready || { echo "peer-venv: the peers installed but do not import; see $dir.log" >&2; exit 77; }
