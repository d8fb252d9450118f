#!/bin/sh
# libFuzzer smoke runs (issue 14): builds the harnesses of tests/fuzz with
# clang (ASan + UBSan, -Dfuzz=enabled) in build-fuzz, then for each target
#  1. replays the committed seed corpus and every reproducer (seconds);
#  2. fuzzes for CTR_FUZZ_SECONDS (default 120) with the limits of the
#     issue: -timeout=10 -rss_limit_mb=4096 -malloc_limit_mb=2048.
# New inputs go to build-fuzz/fuzz-work/NAME/corpus (the committed corpus
# is read only); a crash, leak, timeout or out-of-memory leaves its input
# in build-fuzz/fuzz-work/NAME/artifacts: fix it, and add the input to
# tests/fuzz/reproducers/NAME.  Prints one line per target (executions,
# coverage) and exits non-zero when any target failed.
#   CTR_FUZZ_TARGETS="tiff dicom" CTR_FUZZ_SECONDS=3600 sh packaging/run-fuzz.sh
set -eu
cd "$(dirname "$0")/.."
sh packaging/debian-deps.sh --fuzz
seconds=${CTR_FUZZ_SECONDS:-120}
targets=${CTR_FUZZ_TARGETS:-"tiff dataset dicom geometry"}
if [ ! -f build-fuzz/build.ninja ]; then
  CC=clang CXX=clang++ meson setup build-fuzz --buildtype=debugoptimized -Dfuzz=enabled \
    -Db_sanitize=address,undefined -Db_lundef=false -Dgui=disabled -Dcuda=disabled -Dman=disabled \
    -Dc_args=-fno-sanitize-recover=all -Dcpp_args=-fno-sanitize-recover=all >/dev/null
fi
names=""
for t in $targets; do names="$names tests/fuzz/fuzz-$t"; done
# shellcheck disable=SC2086
if ! meson compile -C build-fuzz $names > build-fuzz/compile.log 2>&1; then
  tail -40 build-fuzz/compile.log >&2
  echo "fuzz: the build failed (build-fuzz/compile.log)" >&2
  exit 1
fi
export ASAN_OPTIONS="detect_leaks=1:halt_on_error=1"
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1"
status=0
for t in $targets; do
  exe=build-fuzz/tests/fuzz/fuzz-$t
  work=build-fuzz/fuzz-work/$t
  mkdir -p "$work/corpus" "$work/artifacts"
  dirs="tests/fuzz/corpus/$t"
  [ -d "tests/fuzz/reproducers/$t" ] && dirs="$dirs tests/fuzz/reproducers/$t"
  t0=$(date +%s)
  # shellcheck disable=SC2086
  if ! "$exe" -runs=0 -timeout=10 -rss_limit_mb=4096 -malloc_limit_mb=2048 \
       -artifact_prefix="$work/artifacts/" $dirs > "$work/replay.log" 2>&1; then
    echo "fuzz-$t: the corpus or a reproducer fails (build-fuzz/fuzz-work/$t/replay.log):" >&2
    tail -30 "$work/replay.log" >&2
    status=1
    continue
  fi
  t1=$(date +%s)
  # shellcheck disable=SC2086
  if ! "$exe" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=4096 -malloc_limit_mb=2048 \
       -print_final_stats=1 -artifact_prefix="$work/artifacts/" "$work/corpus" $dirs \
       > "$work/fuzz.log" 2>&1; then
    echo "fuzz-$t: a finding (input in build-fuzz/fuzz-work/$t/artifacts):" >&2
    tail -40 "$work/fuzz.log" >&2
    status=1
  fi
  t2=$(date +%s)
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$work/fuzz.log" | tail -1)
  cov=$(grep -o 'cov: [0-9]* ft: [0-9]*' "$work/fuzz.log" | tail -1)
  echo "fuzz-$t: replay $((t1 - t0)) s; fuzzing $((t2 - t1)) s, ${execs:-?} executions, ${cov:-cov ?}, corpus $(ls "$work/corpus" | wc -l) new inputs"
done
exit $status
