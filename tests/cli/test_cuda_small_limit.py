#!/usr/bin/python3
"""A CUDA build starts and reconstructs on the CPU under a small
address-space limit (issue 38): cuSPARSE, cuFFT and the nvJitLink library
cuSPARSE needs (about 550,000 KiB of address space together) are opened only when
a device answers and a GPU path needs them (gpu/ctr-cuda-libs.cu), and the
CUDA runtime is linked statically.  Before, the dynamic loader mapped them at
start-up and a build of that kind could not even print its version under
`ulimit -v` 400 MiB.

Only in builds with CUDA (CTR_BUILD_CUDA=1); exit 77 otherwise (CI).  On a
machine with a device the GPU backends are unavailable under this limit
(the driver reserves far more address space) and the CPU runs: the run must
succeed either way."""
import os
import resource
import sys
import tempfile

sys.path.insert(0, os.path.dirname(__file__))
from common import CLI, check, finish, require_cli, run  # noqa: E402

require_cli()
if os.environ.get("CTR_BUILD_CUDA") != "1":
    print("not a CUDA build: nothing to test")
    sys.exit(77)

LIMIT_MIB = 400


def limited():
    lim = LIMIT_MIB << 20
    resource.setrlimit(resource.RLIMIT_AS, (lim, lim))


env = dict(os.environ, OMP_NUM_THREADS="2", OMP_STACKSIZE="256K", MALLOC_ARENA_MAX="1")
env.pop("CTR_MEMORY_LIMIT_MB", None)

with tempfile.TemporaryDirectory() as tmp:
    env["CTR_CACHE_DIR"] = os.path.join(tmp, "cache")
    r = run("--version", env=env, preexec_fn=limited, timeout=60)
    check(r.returncode == 0 and r.stdout.strip() != "",
          f"ctrecon-cli --version starts under ulimit -v {LIMIT_MIB} MiB (exit {r.returncode}; {r.stderr.strip()[-300:]})")

    scan = os.path.join(tmp, "scan")
    r = run("simulate", "--phantom", "disc", "--views", 60, "--cols", 64, "--size", 32, "--i0", 0,
            "--output", scan, env=env, preexec_fn=limited, timeout=120)
    check(r.returncode == 0 and os.path.exists(os.path.join(scan, "geometry.json")),
          f"simulate under ulimit -v {LIMIT_MIB} MiB (exit {r.returncode}; {r.stderr.strip()[-300:]})")

    for method in ("fbp", "sirt"):
        out = os.path.join(tmp, f"{method}.tif")
        r = run("reconstruct", os.path.join(scan, "geometry.json"), "--method", method, "--iterations", 3,
                "--size", 32, "--output", out, env=env, preexec_fn=limited, timeout=120)
        check(r.returncode == 0 and os.path.exists(out) and os.path.getsize(out) > 0
              and "backend: cpu" in r.stderr,
              f"reconstruct --method {method} on the CPU under ulimit -v {LIMIT_MIB} MiB "
              f"(exit {r.returncode}; {r.stderr.strip()[-300:]})")
finish()
