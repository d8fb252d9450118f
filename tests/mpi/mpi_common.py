"""Helpers of the mpi suite: ctrecon-cli under mpirun (Open MPI)."""
import os
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "cli"))
from common import CLI, DATA, check, finish, require_cli, run  # noqa: E402,F401

MPIRUN = shutil.which("mpirun")


def require_mpi():
    """Skips (77) without mpirun or without MPI in the build."""
    require_cli()
    if os.environ.get("CTR_MPI_BUILT") != "1":
        print("ctrecon-cli was built without MPI (-Dmpi)")
        sys.exit(77)
    if MPIRUN is None:
        print("mpirun is not installed (Debian: openmpi-bin)")
        sys.exit(77)


def require_data():
    """The two datasets of the suite, or skip (77) when shared data is absent."""
    savu = os.path.join(DATA, "savu-parallel-tiff", "geometry.json")
    cone = os.path.join(DATA, "head-cone-small", "geometry.json")
    if not (os.path.exists(savu) and os.path.exists(cone)):
        print("shared data missing")
        sys.exit(77)
    return savu, cone


def mpi_env(**extra):
    env = dict(os.environ)
    # CI and containers run as root; Open MPI refuses that unless told.
    env["OMPI_ALLOW_RUN_AS_ROOT"] = "1"
    env["OMPI_ALLOW_RUN_AS_ROOT_CONFIRM"] = "1"
    # Containers often forbid the cross-memory attach that Open MPI's
    # shared-memory transport uses for large messages; plain copies work
    # everywhere.
    env["OMPI_MCA_btl_vader_single_copy_mechanism"] = "none"
    # Two ranks share the machine's cores: one thread each.
    env["OMP_NUM_THREADS"] = "1"
    if env.get("CTR_SANITIZED") == "1":
        # Under ASan (packaging/run-sanitizers.sh) Open MPI's own leaks are
        # suppressed by library (packaging/lsan.supp): its components stay
        # loaded and the unwinder walks its frames (built without frame
        # pointers) so that those frames have names.
        env["OMPI_MCA_mca_base_component_disable_dlclose"] = "1"
        env["ASAN_OPTIONS"] = ":".join(filter(None, [env.get("ASAN_OPTIONS"), "fast_unwind_on_malloc=0"]))
    env.update({k: str(v) for k, v in extra.items()})
    return env


def mpirun_cmd(n, *args, contexts=None, env=None):
    """The mpirun command line for n ranks of ctrecon-cli args (or MPMD
    @contexts: a list of (n, argv) pairs), exporting our variables of @env."""
    env = env if env is not None else os.environ
    cmd = [MPIRUN, "--oversubscribe", "--bind-to", "none"]
    for k in ("OMP_NUM_THREADS", "CTR_MPI_SLABS", "CTR_MPI_HALO", "CTR_CACHE_DIR"):
        if k in env:
            cmd += ["-x", k]
    if contexts is None:
        return cmd + ["-np", str(n), CLI, *map(str, args)]
    for i, (k, argv) in enumerate(contexts):
        cmd += ([":"] if i else []) + ["-np", str(k), *map(str, argv)]
    return cmd


def mpirun(n, *args, timeout=600, env=None, contexts=None):
    env = env or mpi_env()
    return subprocess.run(mpirun_cmd(n, *args, contexts=contexts, env=env), capture_output=True, text=True,
                          timeout=timeout, env=env)
