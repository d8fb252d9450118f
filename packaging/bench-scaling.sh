#!/bin/sh
# How the CPU cost grows with the image size and the thread count (issue 18):
# one table, size × threads → matrix build seconds, seconds per SIRT
# iteration, seconds per parallel-ART iteration, matrix MiB, peak RSS.
# A benchmark: CI does not run it.
#
#   sh packaging/bench-scaling.sh [--sizes "256 512 1024"] [--threads "1 2"] [-n ITERATIONS]
#
# Each row runs `ctrecon-cli bench art` (a fan-flat Shepp-Logan scan made in
# the process, views and columns scaled with the image as bench-peers.sh
# scales them: 256² → 360 × 368, 512² → 720 × 736, 1024² → 1440 × 1472; no
# matrix cache, the default SCSR matrix and area model) once with --method
# sirt and once with --method part; the build is timed in both and the
# smaller is printed; s/it is the median over the iterations (default 3);
# peak RSS is the larger of the two processes' (/usr/bin/time -f %M).
# Needs a release build in build/ and /usr/bin/python3.  Figures on a shared
# machine are noisy: print `uptime` beside them and compare rows of one run.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
cli=${CTR_CLI:-$root/build/app/ctrecon-cli}
sizes="256 512 1024"
threads="1 2"
iters=3
while [ $# -gt 0 ]; do
  case $1 in
    --sizes) sizes=$2; shift 2 ;;
    --threads) threads=$2; shift 2 ;;
    -n) iters=$2; shift 2 ;;
    *) echo "usage: $0 [--sizes \"256 512 1024\"] [--threads \"1 2\"] [-n ITERATIONS]" >&2; exit 2 ;;
  esac
done
[ -x "$cli" ] || { echo "bench-scaling: no $cli (meson setup build --buildtype=release; meson compile -C build)" >&2; exit 2; }
[ -x /usr/bin/time ] || { echo "bench-scaling: /usr/bin/time is needed for the peak RSS" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM

echo "# $(uname -n): $(nproc) cores; $(uptime | sed 's/.*load/load/')"
printf '%-6s %-11s %3s %8s %10s %10s %9s %9s  %s\n' image views×cols thr build_s sirt_s/it part_s/it matrix_MiB peak_MiB symmetry
for n in $sizes; do
  views=$((n * 360 / 256))
  cols=$((n * 368 / 256))
  for t in $threads; do
    for m in sirt part; do
      OMP_NUM_THREADS=$t /usr/bin/time -f %M -o "$tmp/$m.rss" \
        "$cli" bench art --geometry fan-flat --method "$m" --image "$n" --views "$views" --cols "$cols" \
        -n "$iters" >"$tmp/$m.json" 2>"$tmp/$m.log" || { echo "bench-scaling: $m ${n}² failed:" >&2; tail -3 "$tmp/$m.log" >&2; exit 1; }
    done
    /usr/bin/python3 - "$tmp" "$n" "$views" "$cols" "$t" <<'EOF'
import json, sys, os
d, n, views, cols, t = sys.argv[1:]
r = {m: json.load(open(os.path.join(d, m + ".json"))) for m in ("sirt", "part")}
rss = max(int(open(os.path.join(d, m + ".rss")).read().split()[-1]) for m in r) / 1024
print(f"{n + '²':<6} {views + '×' + cols:<11} {t:>3} {min(x['build_s'] for x in r.values()):8.2f} "
      f"{r['sirt']['iteration_s']:10.3f} {r['part']['iteration_s']:10.3f} "
      f"{r['sirt']['matrix_bytes'] / 1048576:9.1f} {rss:9.0f}  {r['sirt']['symmetry']}")
EOF
  done
done
echo "# $(uptime | sed 's/.*load/load/')"
