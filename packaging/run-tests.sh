#!/bin/sh
# Installs what is missing, builds, and runs the whole test suite.
# Ends with one line "N passed, N failed, N skipped"; exits non-zero on failure.
set -eu
cd "$(dirname "$0")/.."
sh packaging/debian-deps.sh --tests
sh packaging/build.sh
status=0
meson test -C build --print-errorlogs --num-processes 2 || status=$?
/usr/bin/python3 packaging/test-summary.py build/meson-logs/testlog.json
exit $status
