"""ctrecon-cli when a small buffer beside the data cannot be had (issue 38
item 16): FBP's filter rows, one padded row and spectrum a thread, are the
last allocation of a reconstruction of 16 views × 65536 columns; under an
address-space limit that holds everything else (found with one thread) but
not sixteen threads' rows (16 MiB), the run ends with exit 1 and one line
naming the rows, the size and the bound.  Before the change the threads died
in the filter's g_error ("ramp filter: failed to allocate", SIGTRAP).

OMP_STACKSIZE and MALLOC_ARENA_MAX keep the threads' own reservations (8 MiB
stacks, 64 MiB malloc arenas) small and alike at every thread count.
"""
import os
import resource
import tempfile

from common import check, finish, require_cli, run

require_cli()
if os.environ.get("CTR_SANITIZED") == "1":
    print("skip: ASan reserves terabytes of address space")
    finish()


def as_limit(mib):
    def f():
        lim = mib << 20
        resource.setrlimit(resource.RLIMIT_AS, (lim, lim))
    return f


with tempfile.TemporaryDirectory() as tmp:
    scan = os.path.join(tmp, "scan")
    r = run("simulate", "--phantom", "disc", "--geometry", "fan-flat", "--views", 16, "--cols", 65536,
            "--size", 16, "--i0", 0, "--output", scan, timeout=120)
    if not check(r.returncode == 0, "simulate 16 views × 65536 columns"):
        finish()
    env = dict(os.environ, OMP_STACKSIZE="256K", MALLOC_ARENA_MAX="1", CTR_CACHE_DIR=os.path.join(tmp, "cache"))
    env.pop("CTR_MEMORY_LIMIT_MB", None)
    fbp = ["reconstruct", os.path.join(scan, "geometry.json"), "--method", "fbp", "--size", 16]

    def fbp_under(mib, threads, out="out.tif"):
        return run(*fbp, "-o", os.path.join(tmp, out), timeout=120, env=dict(env, OMP_NUM_THREADS=str(threads)),
                   preexec_fn=as_limit(mib))

    # The smallest limit (MiB) under which one thread reconstructs.
    lo, hi = 16, 4096
    if not check(fbp_under(hi, 1).returncode == 0, "FBP with one thread in 4 GiB"):
        finish()
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if fbp_under(mid, 1).returncode == 0:
            hi = mid
        else:
            lo = mid
    print(f"     one thread reconstructs in {hi} MiB of address space")

    # 12 MiB more: the sixteen threads' stacks (4 MiB) and the sinogram fit,
    # their filter rows (16 MiB against the one thread's 1 MiB) do not.
    r = fbp_under(hi + 12, 16, "out16.tif")
    errors = [l for l in r.stderr.splitlines() if l.startswith("ctrecon-cli:")]
    check(r.returncode == 1 and len(errors) == 1
          and "ramp filter's padded rows of 131072 samples × 16 threads" in errors[0]
          and "address-space limit" in errors[0],
          f"FBP with 16 threads in {hi + 12} MiB: exit {r.returncode}, '{r.stderr.strip()[-200:]}'")
    check(0 <= r.returncode < 128, f"no crash or signal (exit {r.returncode})")
    check(not os.path.exists(os.path.join(tmp, "out16.tif")), "no output written")

finish()
