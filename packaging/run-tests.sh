#!/bin/sh
# Installs what is missing, builds, and runs the whole test suite.
# Ends with one line "N passed, N failed, N skipped"; exits non-zero on failure.
set -eu
cd "$(dirname "$0")/.."
sh packaging/debian-deps.sh
sh packaging/build.sh
status=0
meson test -C build --print-errorlogs --num-processes 1 || status=$?
/usr/bin/python3 - build/meson-logs/testlog.json <<'PY'
import json, sys
passed = failed = skipped = 0
for line in open(sys.argv[1]):
    line = line.strip()
    if not line:
        continue
    r = json.loads(line)["result"]
    if r in ("OK", "EXPECTEDFAIL"):
        passed += 1
    elif r == "SKIP":
        skipped += 1
    else:
        failed += 1
print(f"{passed} passed, {failed} failed, {skipped} skipped")
PY
exit $status
