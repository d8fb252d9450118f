#!/usr/bin/python3
"""Prints "[LABEL: ]N passed, N failed, N skipped" from a meson test log
(BUILD/meson-logs/testlog.json): the last line of packaging/run-tests.sh
and packaging/run-sanitizers.sh."""
import json
import sys

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
label = sys.argv[2] + ": " if len(sys.argv) > 2 else ""
print(f"{label}{passed} passed, {failed} failed, {skipped} skipped")
