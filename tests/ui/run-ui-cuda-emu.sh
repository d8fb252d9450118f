#!/bin/sh
# run-ui-cuda-emu.sh — /ui/window/volume-cuda (tests/ui/test-window-cuda.c)
# under Xvfb with the window linked to the CUDA emulation harness
# (test-window-emu, tests/gpu-emu: the real .cu sources run on the CPU; no
# figure here is a GPU measurement): a tiny simulated cone-beam scan
# (24 views of 40 × 6, noiseless, no reference) reconstructed with SIRT on
# the emulated device and again on the CPU; BUILD_DIR/ui-volume-cuda.png and
# ui-volume-cuda-live.png (mid-run).
#
# usage: run-ui-cuda-emu.sh PATH/TO/test-window-emu BUILD_DIR
# env:   CTR_CLI (ctrecon-cli, to simulate the scan)
# Exit 77 (skipped) without xvfb-run or ctrecon-cli.
set -eu

test_window=${1:?usage: run-ui-cuda-emu.sh TEST-WINDOW-EMU BUILD_DIR}
build_dir=${2:?usage: run-ui-cuda-emu.sh TEST-WINDOW-EMU BUILD_DIR}
if ! command -v xvfb-run >/dev/null 2>&1 || [ -z "${CTR_CLI:-}" ] || [ ! -x "$CTR_CLI" ]; then
  echo "SKIP: needs xvfb-run and \$CTR_CLI"
  exit 77
fi
work=$(mktemp -d "${TMPDIR:-/tmp}/ctrecon-ui-cuda.XXXXXX")
trap 'rm -rf "$work"' EXIT INT TERM
mkdir -p "$work/xdg-data" "$work/xdg-state"
export XDG_DATA_HOME="$work/xdg-data" XDG_STATE_HOME="$work/xdg-state"
"$CTR_CLI" simulate --geometry cone-flat --views 24 --cols 40 --rows 6 --size 32 --radius 60 --i0 0 \
  --output "$work/cone" >"$work/simulate.log" 2>&1 || { cat "$work/simulate.log"; exit 1; }
# without its reference: a run with one reports the whole volume every
# iteration (its metrics are measured on the host), the window's planes
# (CTR_REPORT_PLANES) only without
python3 -c 'import json, sys
p = sys.argv[1]; d = json.load (open (p)); d.pop ("reference"); json.dump (d, open (p, "w"), indent = 2)' \
  "$work/cone/geometry.json"
rm -f "$build_dir/ui-volume-cuda.png"
status=0
timeout 500 xvfb-run -a -s "-screen 0 1280x900x24" \
  env G_DEBUG=gc-friendly,fatal-warnings GSETTINGS_BACKEND=memory GTK_A11Y=none GDK_BACKEND=x11 \
      LIBGL_ALWAYS_SOFTWARE=1 NO_AT_BRIDGE=1 DBUS_SESSION_BUS_ADDRESS=disabled: GSK_RENDERER=cairo \
      CTR_UI_OUT="$build_dir" CTR_UI_CONE="$work/cone/geometry.json" \
  "$test_window" -p /ui/window/volume-cuda >"$work/case.log" 2>&1 || status=$?
grep -v -e '-DEBUG:' "$work/case.log" || true
if [ "$status" -ne 0 ] || ! grep -q "^ok [0-9]* /ui/window/volume-cuda\$" "$work/case.log" ||
   grep -q "^FAIL" "$work/case.log" || [ ! -s "$build_dir/ui-volume-cuda.png" ]; then
  echo "FAIL: /ui/window/volume-cuda (status $status)" >&2
  exit 1
fi
