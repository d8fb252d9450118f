"""Helpers shared by the CLI tests (run with Debian's /usr/bin/python3)."""
import os
import subprocess
import sys

CLI = os.environ.get("CTR_CLI")
DATA = os.environ.get("CTR_SHARED_DATA", "")

results = {"passed": 0, "failed": 0}


def run(*args, timeout=600, **kw):
    """Runs ctrecon-cli with args; returns CompletedProcess (text)."""
    return subprocess.run([CLI, *map(str, args)], capture_output=True, text=True,
                          timeout=timeout, **kw)


def check(cond, what):
    if cond:
        results["passed"] += 1
        print(f"ok   {what}", flush=True)
    else:
        results["failed"] += 1
        print(f"FAIL {what}", flush=True)
    return cond


def finish():
    print(f"{results['passed']} passed, {results['failed']} failed")
    sys.exit(1 if results["failed"] else 0)


def require_cli():
    if not CLI or not os.path.exists(CLI):
        print("CTR_CLI is not set; run through meson test")
        sys.exit(77)
