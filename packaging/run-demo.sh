#!/bin/sh
# The main job: what CT Recon is for, on a fresh machine, in one command.
#
# A head slice scanned at full dose (I0 1e5 photons per bin) and at a
# quarter of it (clinical fan beam: curved detector, 720 views x 736
# columns, SOD 595 mm), reconstructed with FBP (Hann window, the best of
# three cut-offs at each dose) and with PWLS at its defaults, as one dose
# study (packaging/demo-study.json: `ctrecon-cli study`).  Prints one table
# (RMSE in HU inside the head, SSIM, noise SD in a brain ROI, time) and the
# comparison its numbers support, and writes demo-output/montage.png
# (reference, FBP, PWLS, difference) and demo-output/study/study.png.
# The head is ../shared/data/head-fan-lowdose (a real head CT slice) when
# present, else the project's analytic head phantom (simulated here).
# With ../shared/data the real gel-phantom scan follows (72 and 18 views).
set -eu
cd "$(dirname "$0")/.."
sh packaging/debian-deps.sh
sh packaging/build.sh
CLI=build/app/ctrecon-cli
OUT=demo-output
mkdir -p "$OUT"
start=$(date +%s)
# Runs a command with its messages in a log, shown only when it fails.
quiet() {
  log=$1; shift
  if ! "$@" >"$log" 2>&1; then cat "$log" >&2; exit 1; fi
}

if [ -f ../shared/data/head-fan-lowdose/geometry.json ]; then
  DATASET=../shared/data/head-fan-lowdose/geometry.json
  REF=../shared/data/head-fan-lowdose/reference.tif
  STUDY=packaging/demo-study.json
  echo "== head-fan-lowdose: a real head CT slice, scanned (simulated) at full and at quarter dose"
else
  DATASET=$OUT/head-phantom/geometry.json
  REF=$OUT/head-phantom/reference.tif
  STUDY=packaging/demo-study-phantom.json
  echo "== the analytic head phantom, scanned (simulated) at full and at quarter dose (../shared/data absent)"
  # simulate refuses a folder that is not empty (it never merges into a dataset): a rerun starts afresh
  rm -rf "$OUT/head-phantom"
  quiet "$OUT/head-phantom.log" $CLI simulate --phantom head --geometry fan-curved --views 720 --cols 736 \
    --i0 1e5 --output "$OUT/head-phantom"
fi

echo "   FBP (Hann, cut-off 0.5, 0.7, 1) and PWLS (defaults) at both doses; log: $OUT/study/study.log"
mkdir -p "$OUT/study"
quiet "$OUT/study/study.log" $CLI study "$STUDY" --images --output "$OUT/study"

# The table and the sentence, from study.csv (columns by name; one row per
# run, row N's image is run-NN.tif).  FBP: the cut-off with the lowest RMSE
# at each dose.
awk -F, -v out="$OUT" '
/^#/ { next }
NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
{
  dose = $col["dose"]; m = $col["method"]; hu = $col["hu_rmse"] + 0
  key = m "@" dose
  if (m == "fbp" && (key in best) && best[key] <= hu) next
  best[key] = hu; ssim[key] = $col["ssim"]; noise[key] = $col["noise_sd_hu"]
  secs[key] = $col["seconds"]; par[key] = $col["parameters"]; run[key] = NR - 1
}
function name(k,   m, d, p) {
  split(k, a, "@"); m = toupper(a[1]); d = (a[2] == 1) ? "full dose" : "quarter dose"
  p = par[k]; gsub(/window=hann;cutoff=/, "Hann ", p)
  return sprintf("%s, %s%s", m, d, p != "" ? " (" p ")" : " (defaults)")
}
function line(k) {
  if (!(k in best)) return
  printf "%-34s %9.1f %7.4f %12.1f %8.2f\n", name(k), best[k], ssim[k], noise[k], secs[k]
}
END {
  printf "\n%-34s %9s %7s %12s %8s\n", "method", "RMSE (HU)", "SSIM", "noise SD (HU)", "time (s)"
  line("fbp@1"); line("fbp@0.25"); line("pwls@0.25"); line("pwls@1")
  print "(RMSE inside the head against the truth; noise: SD in a brain ROI, plane removed; time: the method alone)"
  p = best["pwls@0.25"]; fq = best["fbp@0.25"]; ff = best["fbp@1"]
  if (p < ff)
    s = sprintf("PWLS at quarter dose: lower error than FBP at full dose (%.1f against %.1f HU), %.0f %% of FBP%ss at quarter dose (%.1f HU).", p, ff, 100 * p / fq, "\047", fq)
  else if (p < fq)
    s = sprintf("PWLS at quarter dose: lower error than FBP at quarter dose (%.1f against %.1f HU), but not lower than FBP at full dose (%.1f HU).", p, fq, ff)
  else
    s = sprintf("PWLS at quarter dose: no lower error than FBP at quarter dose (%.1f against %.1f HU).", p, fq)
  print "\n" s
  # What the montage shows: the runs and their RMSE.
  printf "FBPQ=%s/study/run-%02d.tif\nPWLSQ=%s/study/run-%02d.tif\nFBPQ_CAP=%s\nPWLSQ_CAP=%s\n", out, run["fbp@0.25"], out, run["pwls@0.25"], \
    sprintf("%s: %.1f HU", name("fbp@0.25"), fq), sprintf("%s: %.1f HU", name("pwls@0.25"), p) > (out "/study/montage.env")
}' "$OUT/study/study.csv"

FBPQ=$(sed -n 's/^FBPQ=//p' "$OUT/study/montage.env")
PWLSQ=$(sed -n 's/^PWLSQ=//p' "$OUT/study/montage.env")
FBPQ_CAP=$(sed -n 's/^FBPQ_CAP=//p' "$OUT/study/montage.env")
PWLSQ_CAP=$(sed -n 's/^PWLSQ_CAP=//p' "$OUT/study/montage.env")
quiet "$OUT/montage.log" $CLI montage --reference "$REF" --reference-caption "Reference (truth)" --dataset "$DATASET" \
  "$FBPQ" --caption "$FBPQ_CAP" "$PWLSQ" --caption "$PWLSQ_CAP" \
  --difference --difference-caption "PWLS, quarter dose − reference" --window 40,80 \
  --title "Quarter dose: FBP against PWLS (RMSE inside the head; brain window)" \
  --output "$OUT/montage.png"
echo
echo "Wrote $OUT/montage.png (reference, FBP, PWLS, PWLS − reference; brain window W 80 / L 40 HU)"
echo "  and $OUT/study/study.png (RMSE and SSIM against dose), $OUT/study/study.csv, run-NN.tif (1/mm)."

if [ -f ../shared/data/gel-fan/geometry.json ]; then
  echo
  echo "== real data: agarose gel phantom, fan beam, PWLS with its defaults (against the 720-view pre-scan FBP)"
  for g in geometry.json geometry_18views.json; do
    views=72; [ "$g" = geometry_18views.json ] && views=18
    quiet "$OUT/gel-fan-${views}views.log" $CLI reconstruct "../shared/data/gel-fan/$g" --method pwls \
      --output "$OUT/gel-fan-${views}views-pwls.tif"
    pearson=$($CLI metrics "$OUT/gel-fan-${views}views-pwls.tif" ../shared/data/gel-fan/reference_fbp_pre_scan.tif \
      --pixel-size 0.133333 --radius 15 | sed -n 's/.*"pearson":\([-0-9.e]*\).*/\1/p')
    printf "   %2d views: Pearson %.4f inside the gel (r 15 mm) -> %s\n" "$views" "$pearson" "$OUT/gel-fan-${views}views-pwls.tif"
  done
fi

echo
echo "Main job: $(( $(date +%s) - start )) s after the build."
if [ -x build/app/ctrecon ]; then
  echo "The same in the window: build/app/ctrecon $DATASET"
  echo "  (Run: a dose variant, method PWLS, Run; Compare: reference, runs and run - reference with"
  echo "  the Brain (W 80, L 40) preset; Dose Study: doses 1 and 0.25, FBP and PWLS, Run Study)"
fi
