#!/bin/sh
# The main job: a real reconstruction on a default dataset, on a fresh machine.
#
# Simulates a quarter-dose clinical fan-beam scan (curved detector, 720 views ×
# 736 columns, SOD 595 mm, Poisson noise at 2.5e4 photons per bin) of the
# project's analytic head phantom, then reconstructs it with FBP (Hann window)
# and with parallel ART, and prints RMSE/SSIM of both against the truth.
# With ../shared/data present it also reconstructs the real gel phantom scan.
# Results land in ./demo-output/.
set -eu
cd "$(dirname "$0")/.."
sh packaging/debian-deps.sh
sh packaging/build.sh
CLI=build/app/ctrecon-cli
OUT=demo-output
mkdir -p "$OUT"

echo "== simulating a quarter-dose fan-beam scan of the head phantom"
# simulate refuses a folder that is not empty (it never merges into a dataset): a rerun starts afresh
rm -rf "$OUT/head-quarter-dose"
$CLI simulate --phantom head --geometry fan-curved --views 720 --cols 736 --i0 2.5e4 --output "$OUT/head-quarter-dose"

echo "== FBP (Hann window)"
$CLI reconstruct "$OUT/head-quarter-dose/geometry.json" --method fbp --window hann \
  --metrics "$OUT/fbp-metrics.csv" --output "$OUT/head-fbp.tif"

echo "== parallel ART (cuART Eq. 9), 3 iterations (early stopping: more iterations fit the quarter-dose noise)"
$CLI reconstruct "$OUT/head-quarter-dose/geometry.json" --method part --iterations 3 \
  --metrics "$OUT/part-metrics.csv" --output "$OUT/head-part.tif"

if [ -f ../shared/data/gel-fan/geometry.json ]; then
  echo "== real data: gel phantom, 72-view fan beam (../shared/data/gel-fan)"
  $CLI reconstruct ../shared/data/gel-fan/geometry.json --method sart --iterations 10 \
    --output "$OUT/gel-fan-sart.tif"
fi

echo
echo "Results in $OUT/: reconstructions (float32 TIFF, 1/mm) and per-iteration metrics (CSV)."
if [ -x build/app/ctrecon ]; then
  echo "Open the window with: build/app/ctrecon $OUT/head-quarter-dose/geometry.json"
fi
