#!/bin/sh
# Our CPU reconstruction side by side with the tools users would pick instead
# (ASTRA Toolbox 2.5 CPU, RTK's CPU FDK from itk-rtk, plastimatch fdk), in one
# run on this machine (issue 18).  A benchmark: CI does not run it, and the
# peers are never dependencies of the product.
#
#   sh packaging/bench-peers.sh [--quick] [--only KEY] [--keep DIR]
#
# Needs a release build in build/ (build/app/ctrecon-cli), /usr/bin/python3
# with numpy and tifffile, plastimatch (packaging/debian-deps.sh), the test data
# in ../shared/data (cases whose data is absent are left out).  The peers live
# in a venv: CTR_PEERS_VENV=DIR uses DIR (made there when it is not ready),
# default build/peers-venv (packaging/peer-venv.sh).  --quick: one counted
# repeat instead of 3; --only KEY (sirt10, gel, fbp, fdk; only when asked:
# sirt50 = SIRT 50 on the simulated 256² scan, sirt512 = SIRT 10 and 50 on
# the 512² scan (1 and 2 threads, cold and warm), fdk-w4 = W4 of docs/design.md §14, the
# make-cone-fixture.sh defaults; sart-w5 = W5: our SIRT and SART beside RTK's CPU
# SART on W4's data, --iterations N (default 2); all = every case) runs the
# matching cases; --repeats N sets the counted repeats; --keep DIR
# keeps the inputs and every tool's output there.
# Prints one table; the drivers are packaging/bench-peers/*.py.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
cli=${CTR_CLI:-$root/build/app/ctrecon-cli}
venv=${CTR_PEERS_VENV:-$root/build/peers-venv}
data=${CTR_DATA:-$root/../shared/data}
[ -x "$cli" ] || { echo "bench-peers: no $cli (meson setup build --buildtype=release; meson compile -C build)" >&2; exit 2; }
command -v plastimatch >/dev/null 2>&1 || echo "bench-peers: plastimatch not installed: its row is left out" >&2
sh "$root/packaging/peer-venv.sh" "$venv" || { echo "bench-peers: the peers' venv could not be made in $venv" >&2; exit 1; }
exec /usr/bin/python3 "$root/packaging/bench-peers/bench.py" --cli "$cli" --venv "$venv" --data "$data" "$@"
