#!/bin/sh
# The whole test suite under gcc's AddressSanitizer and UndefinedBehavior-
# Sanitizer (issue 14), in its own build folder (build-asan): leaks are
# errors (detect_leaks=1), the first report stops the program
# (halt_on_error=1), and float-to-integer casts out of range are checked
# too (gcc leaves -fsanitize=float-cast-overflow out of "undefined").  The
# GPU suites (no device in CI; the CUDA emulation harness has its own ASan
# run), the package test and the peers (a second venv; the importers' own
# tests are in test-geometry-vectors) are not run here.  LSan suppressions:
# packaging/lsan.supp (GTK's, fontconfig's and GLib's one-time allocations
# in the window test only).  Ends with "N passed, N failed, N skipped".
set -eu
cd "$(dirname "$0")/.."
sh packaging/debian-deps.sh
if [ ! -f build-asan/build.ninja ]; then
  meson setup build-asan --buildtype=debugoptimized -Db_sanitize=address,undefined -Db_lundef=false \
    -Dc_args=-fsanitize=float-cast-overflow -Dcpp_args=-fsanitize=float-cast-overflow \
    -Dcuda=disabled -Dman=disabled -Dgpu_emulation=disabled >/dev/null
fi
if ! meson compile -C build-asan > build-asan/compile.log 2>&1; then
  tail -40 build-asan/compile.log >&2
  echo "sanitizers: the build failed (build-asan/compile.log)" >&2
  exit 1
fi
export ASAN_OPTIONS="detect_leaks=1:halt_on_error=1:print_summary=1:strict_string_checks=1"
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1:print_summary=1"
export LSAN_OPTIONS="suppressions=$(pwd)/packaging/lsan.supp:print_suppressions=0"
export CTR_SANITIZED=1   # tests that cap the address space skip the cap (ASan reserves terabytes)
status=0
export OMP_WAIT_POLICY=passive   # two tests at a time: see packaging/run-tests.sh
meson test -C build-asan --print-errorlogs --num-processes 2 --timeout-multiplier 4 \
  --no-suite gpu --no-suite packaging --no-suite peers || status=$?
/usr/bin/python3 packaging/test-summary.py build-asan/meson-logs/testlog.json sanitizers
exit $status
