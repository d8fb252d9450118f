#!/usr/bin/python3
"""cuSPARSE and cuFFT that cannot be loaded: the run falls back to the CPU
and says why, never a crash (issue 38; gpu/ctr-cuda-libs.cu).

CTR_CUSPARSE_LIB / CTR_CUFFT_LIB name the library the loader opens instead
of libcusparse.so.<major> / libcufft.so.<major>: a soname that does not
exist (dlopen fails) and a library without those functions (libm: dlsym
fails).  Run on
  - the CLI built on the CUDA emulation harness (CTR_CLI_EMU; CI): its
    emulated device answers, so the loader is reached;
  - the product in a CUDA build (CTR_BUILD_CUDA=1) when a device answers;
    without one the libraries are never opened (the probe fails first) and
    that part is skipped.
Exit 77 when neither runs.  The emulated device is no GPU: no timing here
means anything."""
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(__file__))
from common import check, finish  # noqa: E402

BOGUS = "libctr-no-such-library.so.0"


def cli_run(cli, args, extra_env=None, timeout=600):
    env = dict(os.environ, CTR_EMU_QUIET="1")
    env.pop("CTR_CUSPARSE_LIB", None)
    env.pop("CTR_CUFFT_LIB", None)
    env.update(extra_env or {})
    return subprocess.run([cli, *map(str, args)], capture_output=True, text=True, env=env, timeout=timeout)


def exercise(name, cli, tmp):
    scan = os.path.join(tmp, name + "-scan")
    r = cli_run(cli, ["simulate", "--phantom", "disc", "--views", 24, "--cols", 32, "--size", 16, "--i0", 0,
                      "--output", scan])
    if not check(r.returncode == 0, f"{name}: simulate a small scan ({r.stderr.strip()[-200:]})"):
        return
    geo = os.path.join(scan, "geometry.json")

    def recon(method, backend, extra_env=None, tag=""):
        out = os.path.join(tmp, f"{name}-{method}-{backend}{tag}.tif")
        r = cli_run(cli, ["reconstruct", geo, "--method", method, "--iterations", 2, "--size", 16,
                          "--backend", backend, "--output", out], extra_env)
        return r, os.path.exists(out)

    # cuSPARSE missing: --backend cusparse runs PART on the CPU and says why
    r, wrote = recon("part", "cusparse", {"CTR_CUSPARSE_LIB": BOGUS})
    err = r.stderr
    check(r.returncode == 0 and wrote, f"{name}: a missing cuSPARSE: PART still reconstructs (exit {r.returncode})")
    check(f"cuSPARSE library {BOGUS} could not be loaded" in err and "the CPU runs instead" in err,
          f"{name}: the note names cuSPARSE, the soname and that the CPU runs ({err.strip()[-400:]})")
    check("cannot open shared object file" in err, f"{name}: the loader's own reason is passed on")

    # a library without cuSPARSE's functions: dlsym fails, same fall-back
    r, wrote = recon("part", "cusparse", {"CTR_CUSPARSE_LIB": "libm.so.6"}, "-libm")
    check(r.returncode == 0 and wrote and "libm.so.6 has no cusparseCreate" in r.stderr
          and "the CPU runs instead" in r.stderr,
          f"{name}: a library without cusparseCreate: CPU, and the note says so ({r.stderr.strip()[-400:]})")

    # cuFFT missing: the "cuda" backend is unavailable (its FDK and its
    # self-check need cuFFT); SIRT runs on the CPU with the reason
    r, wrote = recon("sirt", "cuda", {"CTR_CUFFT_LIB": BOGUS})
    check(r.returncode == 0 and wrote, f"{name}: a missing cuFFT: SIRT still reconstructs (exit {r.returncode})")
    check(f"cuFFT library {BOGUS} could not be loaded" in r.stderr and "the CPU runs instead" in r.stderr,
          f"{name}: the note names cuFFT ({r.stderr.strip()[-400:]})")


def device_answers(cli):
    """The product's `selftest` names a device when one answers."""
    r = cli_run(cli, ["selftest"])
    return "backend chosen: cuda" in r.stdout + r.stderr


ran = False
with tempfile.TemporaryDirectory() as tmp:
    emu = os.environ.get("CTR_CLI_EMU")
    if emu:
        ran = True
        exercise("emulated", emu, tmp)
        # the loader is reached only after a device answers: with none, the
        # reason is the probe's and no library is named
        r = cli_run(emu, ["simulate", "--phantom", "disc", "--views", 24, "--cols", 32, "--size", 16, "--i0", 0,
                          "--output", os.path.join(tmp, "nodev")])
        r = cli_run(emu, ["reconstruct", os.path.join(tmp, "nodev", "geometry.json"), "--method", "part",
                          "--iterations", 2, "--size", 16, "--backend", "cusparse",
                          "--output", os.path.join(tmp, "nodev.tif")],
                    {"CTR_EMU_NO_DEVICE": "1", "CTR_CUSPARSE_LIB": BOGUS})
        check(r.returncode == 0 and "the CPU runs instead" in r.stderr and BOGUS not in r.stderr,
              f"emulated, no device: the CPU runs and no library was opened ({r.stderr.strip()[-300:]})")
    cli = os.environ.get("CTR_CLI")
    if os.environ.get("CTR_BUILD_CUDA") == "1" and cli:
        if device_answers(cli):
            ran = True
            exercise("product", cli, tmp)
        else:
            print("product: no CUDA device answers here; the libraries are never opened (skipped)")
if not ran:
    print("neither the emulated CLI nor a CUDA device: nothing to test")
    sys.exit(77)
finish()
