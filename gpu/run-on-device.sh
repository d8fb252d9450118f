#!/bin/bash
# gpu/run-on-device.sh — build here, check and time on a lent GPU machine.
#
# The GPU machine lent to a session (its notes: the device README, METHOD.md, HOPPER.md)
# has CUDA 13 (nvcc, cudart, cusparse, compute-sanitizer) but none of our
# other libraries (GLib, json-glib, FFTW, libtiff, DCMTK), and nothing can be
# installed there.  So the programs are built HERE and carried, with every
# shared library they need that is not part of the base system or of CUDA,
# in build-cuda/gpubundle, packed as build-cuda/gpubundle.tar.xz (ignored by
# git through /build*/):
#
#   1. here:   gpu/run-on-device.sh bundle
#              (meson setup build-cuda -Dgui=disabled -Dcuda=enabled if needed,
#               ninja, copy bin/ lib/ and the W1 dataset; prints the size,
#               which must stay under the 64 MiB the device tool carries)
#   2. device: run(command="bash gpu/run-on-device.sh test", carry=["build-cuda/gpubundle.tar.xz"])
#              tests/test-gpu (GPU = CPU within the stated tolerances), then
#              compute-sanitizer memcheck and racecheck on the small cases
#   3. device: run(command="bash gpu/run-on-device.sh w1", carry=["build-cuda/gpubundle.tar.xz"])
#              W1 (512², 720 × 1024): parallel ART per iteration, SCSR kernel
#              (1, 4, 8 warps per row; without CUDA graphs) vs cuSPARSE in
#              one run; the 16-slice batch
#      then:   "bash gpu/run-on-device.sh q1": Q1 convergence on
#              shepp-logan-fan-w1 (SSIM per iteration, seconds)
#   4. device: run(command="bash gpu/run-on-device.sh w2", carry=["build-cuda/gpubundle.tar.xz"])
#              W2 (1024², 720 × 1024): SCSR kernel vs cuSPARSE
#   5. device: run(command="bash gpu/run-on-device.sh w3", carry=["build-cuda/gpubundle.tar.xz"])
#              W3 cone-beam FDK (512³ from 1024 views of 512²): back-projection
#              GUPS of both kernels (L1-Tran, texture), total FDK seconds;
#              also a 256³ run (360 views of 256², W4-sized) for comparison
#   6. device: run(command="bash gpu/run-on-device.sh w6split", carry=["build-cuda/gpubundle.tar.xz"])
#              W6 SIRT whole against out of core with a quarter of the device
#              memory it needs (--device-memory-mb), interleaved, twice
#   7. device: run(command="bash gpu/run-on-device.sh w1vec", carry=["build-cuda/gpubundle.tar.xz"])
#              W1 PWLS and ASD-POCS with device-resident vectors against the
#              host's vectors on the device and the host's 16 cores (~6 min)
#
# Each device step writes its logs and JSON under $OUT and prints a short
# table last (the tool returns the end of the output).  Each fits one
# 10-minute command; the matrix builds run on the device's 16 cores.
set -u
here=$(cd "$(dirname "$0")/.." && pwd)
B=build-cuda/gpubundle
mode=${1:-}

bundle () {
  cd "$here" || exit 1
  if [ ! -f build-cuda/build.ninja ]; then
    meson setup build-cuda -Dgui=disabled -Dcuda=enabled || exit 1
  fi
  ninja -C build-cuda -j2 app/ctrecon-cli tests/test-gpu tests/test-gpu-fdk tests/test-gpu-cone tests/test-gpu-cone-split || exit 1
  rm -rf "$B"
  mkdir -p "$B/bin" "$B/lib" "$B/data"
  cp build-cuda/app/ctrecon-cli build-cuda/tests/test-gpu build-cuda/tests/test-gpu-fdk build-cuda/tests/test-gpu-cone \
     build-cuda/tests/test-gpu-cone-split "$B/bin/"
  # Libraries outside the base system and CUDA: glibc, libstdc++, libgcc and
  # CUDA's own are the device's (its image is newer than this Debian 12, so
  # the binaries built here run there); everything else travels.
  ldd "$B"/bin/* | awk '/=> \// { print $3 }' | sort -u | while read -r lib; do
    case "$(basename "$lib")" in
      libc.so*|libm.so*|libpthread*|libdl.so*|librt.so*|ld-linux*|libstdc++*|libgcc_s*) ;;
      libcuda.so*|libcudart*|libcusparse*|libcufft*|libnvJitLink*) ;;
      *) cp -L "$lib" "$B/lib/" ;;
    esac
  done
  if [ -d ../shared/data/shepp-logan-fan-w1 ]; then
    cp -r ../shared/data/shepp-logan-fan-w1 "$B/data/"
    chmod -R u+w "$B/data"
  fi
  du -sh "$B"
  # The shared libraries (ICU's data alone is 30 MB) take the bundle over
  # the 64 MiB the device tool carries: it travels as one xz tarball, which
  # the device steps unpack.
  tar -C build-cuda -cJf build-cuda/gpubundle.tar.xz gpubundle || exit 1
  du -sh build-cuda/gpubundle.tar.xz
  echo "carry build-cuda/gpubundle.tar.xz; on the device: bash gpu/run-on-device.sh test|w1|q1|w2|w3"
}

device_env () {
  cd "$here" || exit 1
  OUT=${OUT:-/tmp/ctr-out}
  mkdir -p "$OUT"
  export LD_LIBRARY_PATH="$here/$B/lib:/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  export OMP_NUM_THREADS=${OMP_NUM_THREADS:-16}
  export CTR_CACHE_DIR=/tmp/ctr-cache
  export CTR_SHARED_DATA="$here/$B/data"
  PATH=/usr/local/cuda/bin:$PATH
  if [ ! -x "$B/bin/ctrecon-cli" ] && [ -f build-cuda/gpubundle.tar.xz ]; then
    tar -C build-cuda -xJf build-cuda/gpubundle.tar.xz
  fi
  if [ ! -x "$B/bin/ctrecon-cli" ]; then
    echo "no $B: run 'gpu/run-on-device.sh bundle' here first and carry build-cuda/gpubundle"
    exit 1
  fi
  nvidia-smi --query-gpu=name,memory.total,driver_version,clocks.max.memory --format=csv > "$OUT/device.txt" 2>&1
  cat "$OUT/device.txt"
  if ldd "$B/bin/ctrecon-cli" "$B/bin/test-gpu" | grep "not found"; then
    echo "missing libraries on the device (above): bundle them"
    exit 1
  fi
}

# One bench art run: name, then its arguments; JSON (last stdout line) saved.
bench () {
  local name=$1
  shift
  echo "== bench $name: $*"
  "$B/bin/ctrecon-cli" bench art "$@" > "$OUT/$name.out" 2> "$OUT/$name.err"
  local rc=$?
  tail -n 1 "$OUT/$name.out" > "$OUT/$name.json"
  tail -n 4 "$OUT/$name.err"
  [ $rc -eq 0 ] || echo "bench $name failed (rc $rc)"
}

summary () {
  python3 - "$OUT" "$@" <<'EOF'
import json, sys, os
out = sys.argv[1]
rows = []
for name in sys.argv[2:]:
    try:
        j = json.load(open(os.path.join(out, name + ".json")))
    except Exception as e:
        rows.append((name, "no result", "", "", "", ""))
        continue
    peak = j.get("peak_gbps", 0) or 0
    rows.append((name, j.get("backend"), "%d²×%d" % (j["image"], j["slices"]),
                 "%.4f ms" % (1e3 * j["iteration_s"]), "%.0f GB/s" % j["gbps"],
                 "%.0f%% of peak" % (100 * j["gbps"] / peak) if peak else ""))
    if "device" in j:
        dev = j["device"]
print("%-14s %-9s %-10s %-12s %-11s %s" % ("run", "backend", "size", "iteration", "matrix GB/s", ""))
for r in rows:
    print("%-14s %-9s %-10s %-12s %-11s %s" % r)
t = {}
for name in sys.argv[2:]:
    try:
        t[name] = json.load(open(os.path.join(out, name + ".json")))["iteration_s"]
    except Exception:
        pass
def ratio(a, b, label):
    if a in t and b in t:
        print("%s: %.2fx" % (label, t[b] / t[a]))
ratio("w1-cuda", "w1-cusparse", "W1 SCSR kernel vs cuSPARSE")
for v in ("w1-cuda-w1", "w1-cuda-w2", "w1-cuda-w4", "w1-cuda-w8", "w1-cuda-nograph"):
    ratio(v, "w1-cusparse", "W1 %s vs cuSPARSE" % v)
ratio("w2-cuda", "w2-cusparse", "W2 SCSR kernel vs cuSPARSE")
if "w1-cuda" in t and "w1-cuda-16" in t:
    print("16-slice batch speed-up (16·t1/t16): %.2fx" % (16 * t["w1-cuda"] / t["w1-cuda-16"]))
EOF
}

case "$mode" in
  bundle)
    bundle
    ;;
  test)
    device_env
    set -o pipefail
    "$B/bin/test-gpu" -p /ctr/backend --verbose 2>&1 | tee "$OUT/test-backend.log" | tail -n 3
    "$B/bin/test-gpu" -p /ctr/gpu/products -p /ctr/gpu/solvers -p /ctr/gpu/reports -p /ctr/gpu/methods -p /ctr/gpu/selfcheck --verbose 2>&1 | tee "$OUT/test-gpu.log" | grep -E "^# (device|d4|c4|none)|^ok|^not ok|Bail|skipped|^device"
    echo "test-gpu rc=$?"
    for tool in memcheck racecheck; do
      compute-sanitizer --tool $tool --error-exitcode 3 "$B/bin/test-gpu" -p /ctr/gpu/products/d4-fan-curved \
        > "$OUT/sanitizer-$tool.log" 2>&1
      echo "compute-sanitizer $tool (products, D4): rc=$? — $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$OUT/sanitizer-$tool.log" | tr '\n' ' ')"
    done
    # racecheck of the solvers took over a minute on an H100: memcheck only
    compute-sanitizer --tool memcheck --error-exitcode 3 "$B/bin/test-gpu" -p /ctr/gpu/solvers/c4-fan-flat-offset-odd \
      > "$OUT/sanitizer-memcheck-solvers.log" 2>&1
    echo "compute-sanitizer memcheck (solvers, C4): rc=$? — $(grep -E 'ERROR SUMMARY' "$OUT/sanitizer-memcheck-solvers.log" | tr '\n' ' ')"
    "$B/bin/test-gpu-fdk" --verbose 2>&1 | tee "$OUT/test-gpu-fdk.log" | grep -E "^# |^ok|^not ok|Bail|skipped"
    echo "test-gpu-fdk rc=$?"
    for tool in memcheck racecheck; do
      compute-sanitizer --tool $tool --error-exitcode 3 "$B/bin/test-gpu-fdk" -p /ctr/gpu-fdk/cylinder \
        > "$OUT/sanitizer-$tool-fdk.log" 2>&1
      echo "compute-sanitizer $tool (FDK, cylinder): rc=$? — $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$OUT/sanitizer-$tool-fdk.log" | tr '\n' ' ')"
    done
    ;;
  w3)
    device_env
    # W3: 512³ from 1024 views of 512² (issue 5); both kernels, best of 3.
    for run in "w3 --volume 512 --views 1024 --detector 512 512" "w4size --volume 256 --views 360 --detector 256 256"; do
      set -- $run
      name=$1
      shift
      echo "== bench fdk $name: $*"
      CTR_CUDA_FDK_TIMES=1 "$B/bin/ctrecon-cli" bench fdk --backend cuda --repeat 3 "$@" > "$OUT/fdk-$name.out" 2> "$OUT/fdk-$name.err"
      echo "rc=$?"
      tail -n 12 "$OUT/fdk-$name.err"
      tail -n 1 "$OUT/fdk-$name.out" | tee "$OUT/fdk-$name.json"
    done
    python3 - "$OUT" <<'EOF'
import json, sys, os
for name in ("w3", "w4size"):
    try:
        j = json.load(open(os.path.join(sys.argv[1], "fdk-%s.json" % name)))
    except Exception:
        print(name, "no result"); continue
    k = j["kernels"]
    print("%s %s: L1-Tran %.1f GUPS, texture %.1f GUPS; best (%s) filter %.3f s, back-projection %.3f s, transfers and set-up %.3f s, total %.3f s"
          % (name, "x".join(map(str, j["volume"])), k["l1tran"]["backproject_gups"], k["texture"]["backproject_gups"],
             j["kernel"], j["filter_s"], j["backproject_s"], j["other_s"], j["total_s"]))
EOF
    ;;
  w1)
    device_env
    W1="--image 512 --views 720 --cols 1024"
    bench w1-cuda --backend cuda $W1 --iterations 20
    export CTR_CUDA_WARPS_PER_ROW=1
    bench w1-cuda-w1 --backend cuda $W1 --iterations 20
    export CTR_CUDA_WARPS_PER_ROW=2
    bench w1-cuda-w2 --backend cuda $W1 --iterations 20
    export CTR_CUDA_WARPS_PER_ROW=4
    bench w1-cuda-w4 --backend cuda $W1 --iterations 20
    export CTR_CUDA_WARPS_PER_ROW=8
    bench w1-cuda-w8 --backend cuda $W1 --iterations 20
    unset CTR_CUDA_WARPS_PER_ROW
    export CTR_CUDA_GRAPHS=0
    bench w1-cuda-nograph --backend cuda $W1 --iterations 10
    unset CTR_CUDA_GRAPHS
    bench w1-cusparse --backend cusparse $W1 --iterations 5
    bench w1-cuda-16 --backend cuda $W1 --slices 16 --iterations 10
    summary w1-cuda w1-cuda-w1 w1-cuda-w2 w1-cuda-w4 w1-cuda-w8 w1-cuda-nograph w1-cusparse w1-cuda-16
    ;;
  q1)
    device_env
    # Q1: converged parallel ART on the cuART set-up, SSIM per iteration.
    ds="$B/data/shepp-logan-fan-w1/equiangular/geometry.json"
    if [ -f "$ds" ]; then
      echo "== Q1 convergence (cuda, 512², 30 iterations)"
      "$B/bin/ctrecon-cli" reconstruct "$ds" -m part -n 30 --size 512 --pixel-size 0.359375 --backend cuda \
        --reference "$B/data/shepp-logan-fan-w1/reference_512.tif" \
        --metrics "$OUT/q1-cuda.csv" -o /tmp/q1-cuda.tif > "$OUT/q1-cuda.log" 2>&1
      echo "rc=$?"; tail -n 4 "$OUT/q1-cuda.log"
    fi
    ;;
  w2)
    device_env
    bench w2-cuda --backend cuda --image 1024 --views 720 --cols 1024 --iterations 10
    bench w2-cusparse --backend cusparse --image 1024 --views 720 --cols 1024 --iterations 3
    summary w2-cuda w2-cusparse
    ;;
  methods)
    device_env
    # The methods on the operator's products and subset steps (CGLS, PWLS,
    # ASD-POCS) on W1: the device against the host's 16 cores, same run.
    W1="--image 512 --views 720 --cols 1024"
    for m in pwls cgls asd-pocs; do
      bench "w1-$m-cuda" --method $m --backend cuda $W1 --iterations 5
      bench "w1-$m-cpu" --method $m --backend cpu $W1 --iterations 5
    done
    python3 - "$OUT" <<'PY'
import json, sys, os
for m in ("pwls", "cgls", "asd-pocs"):
    t = {}
    for b in ("cuda", "cpu"):
        try:
            t[b] = json.load(open(os.path.join(sys.argv[1], "w1-%s-%s.json" % (m, b))))["iteration_s"]
        except Exception:
            pass
    if len(t) == 2:
        print("W1 %-8s cuda %.4f s/iteration, cpu (16 threads) %.4f s/iteration: %.2fx" % (m, t["cuda"], t["cpu"], t["cpu"] / t["cuda"]))
    else:
        print("W1 %s: missing %s" % (m, [b for b in ("cuda", "cpu") if b not in t]))
PY
    ;;
  w1vec)
    device_env
    # W1 PWLS and ASD-POCS with their vectors on the device (the SCSR
    # operator's table, ctr-cuda-scsr-vecops.c), with the host's vectors on
    # the same device (CTR_VECOPS=host: the image over PCIe every subset, as
    # before) and on the host's 16 cores, interleaved, in one run.  Target
    # (issue 37): device-resident ≥ 5x the host's cores.
    W1="--image 512 --views 720 --cols 1024"
    for m in pwls asd-pocs; do
      bench "w1vec-$m-cuda" --method $m --backend cuda $W1 --iterations 5
      CTR_VECOPS=host bench "w1vec-$m-cuda-hostvec" --method $m --backend cuda $W1 --iterations 5
      bench "w1vec-$m-cpu" --method $m --backend cpu $W1 --iterations 3
    done
    python3 - "$OUT" <<'PY'
import json, sys, os
def t(name):
    try:
        return json.load(open(os.path.join(sys.argv[1], name + ".json")))["iteration_s"]
    except Exception:
        return None
for m in ("pwls", "asd-pocs"):
    dev, hv, cpu = t("w1vec-%s-cuda" % m), t("w1vec-%s-cuda-hostvec" % m), t("w1vec-%s-cpu" % m)
    cell = lambda x: "%.4f s" % x if x else "no result"
    line = "W1 %-8s device vectors %s, host vectors %s, cpu (16 threads) %s" % (m, cell(dev), cell(hv), cell(cpu))
    if dev and cpu:
        line += ": %.2fx the host's cores (target 5x)" % (cpu / dev)
    if dev and hv:
        line += ", %.2fx the host vectors" % (hv / dev)
    print(line)
PY
    ;;
  profile)
    device_env
    # Nsight Compute on two orbit passes of a W1 iteration (no graphs, so
    # each launch is its own): what bounds the SCSR kernel.
    NCU=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -n 1)
    if [ -z "$NCU" ]; then
      echo "no ncu on this machine"
      exit 0
    fi
    CTR_CUDA_GRAPHS=0 "$NCU" -k regex:orbit_rows --launch-skip 40 --launch-count 2 \
      --section SpeedOfLight --section MemoryWorkloadAnalysis --section Occupancy \
      --section LaunchStats --section WarpStateStats --section SchedulerStats \
      "$B/bin/ctrecon-cli" bench art --backend cuda --image 512 --views 720 --cols 1024 --iterations 1 \
      > "$OUT/ncu-orbit-rows.txt" 2>&1
    echo "ncu rc=$?"
    grep -E "orbit_rows|Duration|Memory Throughput|DRAM Throughput|L2 Cache Throughput|L1/TEX Cache Throughput|Compute \(SM\) Throughput|Achieved Occupancy|Theoretical Occupancy|Registers Per|Stall|Warp Cycles Per Issued|Issued Warp|No Eligible|Block Limit" "$OUT/ncu-orbit-rows.txt" | head -n 60
    ;;
  cone)
    device_env
    set -o pipefail
    timeout 120 "$B/bin/test-gpu-cone" --verbose 2>&1 | tee "$OUT/test-gpu-cone.log" | grep -E "^# [a-z]|^ok|^not ok|Bail|skipped" | grep -E "20-views|not ok|Bail|skipped"
    echo "test-gpu-cone rc=$? ($(grep -c '^ok' "$OUT/test-gpu-cone.log") ok)"
    timeout 150 compute-sanitizer --tool memcheck --error-exitcode 3 "$B/bin/test-gpu-cone" -p /ctr/gpu-cone/methods/flat-20-views \
      > "$OUT/sanitizer-memcheck-cone.log" 2>&1
    echo "compute-sanitizer memcheck (cone methods, 20 views, both layouts): rc=$? — $(grep -E 'ERROR SUMMARY' "$OUT/sanitizer-memcheck-cone.log" | tr '\n' ' ')"
    timeout 90 compute-sanitizer --tool racecheck --error-exitcode 3 "$B/bin/test-gpu-cone" -p /ctr/gpu-cone/methods/flat \
      > "$OUT/sanitizer-racecheck-cone.log" 2>&1
    echo "compute-sanitizer racecheck (cone methods, flat): rc=$? — $(grep -E 'RACECHECK SUMMARY|ERROR SUMMARY' "$OUT/sanitizer-racecheck-cone.log" | tr '\n' ' ')"
    cone_bench () {
      local name=$1 limit=$2
      shift 2
      echo "== bench cone $name: $*"
      timeout "$limit" "$B/bin/ctrecon-cli" bench cone "$@" > "$OUT/cone-$name.out" 2> "$OUT/cone-$name.err"
      echo "rc=$?"
      tail -n 1 "$OUT/cone-$name.out" > "$OUT/cone-$name.json"
      grep -E "fall|CPU runs|cuda-cone SIRT" "$OUT/cone-$name.err" | tail -n 2
    }
    export CTR_CUDA_CONE_TIMES=1
    # the interior run against the checked stencil alone, interleaved, twice
    # (W5 on W4's grid: 1.5 mm slices, --voxel-z; the runs before stop 40
    # had bench cone's 0.957 mm slices); then the methods, the host's cores,
    # and W6
    for rep in 1 2; do
      cone_bench w5-sirt-cuda-$rep 90 --backend cuda -m sirt -n 10 --voxel-z 1.5
      CTR_CUDA_CONE_INTERIOR=0 cone_bench w5-sirt-cuda-checked-$rep 90 --backend cuda -m sirt -n 10 --voxel-z 1.5
    done
    cone_bench w5-sart-cuda 90 --backend cuda -m sart -n 3 --voxel-z 1.5
    cone_bench w5-cgls-cuda 90 --backend cuda -m cgls -n 5 --voxel-z 1.5
    cone_bench w5-pwls-cuda 120 --backend cuda -m pwls -n 4 --voxel-z 1.5
    cone_bench w5-asd-pocs-cuda 120 --backend cuda -m asd-pocs -n 2 --voxel-z 1.5
    cone_bench w5-pwls-cpu 150 --backend cpu -m pwls -n 2 --voxel-z 1.5
    cone_bench w5-sirt-cpu 150 --backend cpu -m sirt -n 3 --voxel-z 1.5
    cone_bench w6-sirt-cuda 150 --backend cuda -m sirt -n 3 --volume 512 --views 720 --rows 512 --cols 512
    CTR_CUDA_CONE_INTERIOR=0 cone_bench w6-sirt-cuda-checked 150 --backend cuda -m sirt -n 3 --volume 512 --views 720 --rows 512 --cols 512
    unset CTR_CUDA_CONE_TIMES
    python3 - "$OUT" <<'PY'
import json, sys, os, glob
t = {}
for path in sorted(glob.glob(os.path.join(sys.argv[1], "cone-*.json"))):
    name = os.path.basename(path)[5:-5]
    try:
        j = json.load(open(path))
    except Exception:
        print("%-26s no result" % name); continue
    t[name] = j["iteration_s"]
    print("%-26s %-4s %s %-4s %2d it: wall %.4f s/it (update %.4f, residual %.4f), %.2f GUPS, total %.1f s, RSS %.0f MiB, centre %.5f (true %.5f)"
          % (name, j["backend"], "x".join(map(str, j["volume"])), j["method"], j["iterations"], j["iteration_s"],
             j["update_s"], j["residual_s"], j["gups"], j["total_s"], j["peak_rss_mib"], j["centre_value_per_mm"], j["true_value_per_mm"]))
def ratio(a, b, label):
    if a in t and b in t:
        print("%s: %.2fx" % (label, t[b] / t[a]))
ratio("w5-sirt-cuda-1", "w5-sirt-cpu", "W5 SIRT, device vs the host's cores, wall per iteration")
ratio("w5-sirt-cuda-1", "w5-sirt-cuda-checked-1", "W5 SIRT, interior run over checked stencil (speed-up), 1")
ratio("w5-sirt-cuda-2", "w5-sirt-cuda-checked-2", "W5 SIRT, interior run over checked stencil (speed-up), 2")
ratio("w6-sirt-cuda", "w6-sirt-cuda-checked", "W6 SIRT, interior run over checked stencil (speed-up)")
ratio("w5-pwls-cuda", "w5-pwls-cpu", "W5 PWLS, device vs the host's cores")
PY
    ;;
  check)
    # a short check of a build: the self-check (every backend's gate) and
    # the test programs
    device_env
    "$B/bin/ctrecon-cli" selftest 2>&1 | tail -n 12
    for t in test-gpu test-gpu-fdk test-gpu-cone test-gpu-cone-split; do
      args=""
      [ $t = test-gpu ] && args="-p /ctr/gpu/products -p /ctr/gpu/solvers -p /ctr/gpu/reports -p /ctr/gpu/methods -p /ctr/gpu/selfcheck"
      timeout 120 "$B/bin/$t" $args 2>&1 | grep -cE "^ok" | sed "s/^/$t: ok /"
      echo "$t rc=${PIPESTATUS[0]}"
    done
    "$B/bin/ctrecon-cli" bench cone --backend cuda -m sirt -n 10 --voxel-z 1.5 2>/dev/null | tail -n 1
    ;;
  w6split)
    # W6 (512³ from 720 views of 512²) SIRT whole on the device against the
    # out-of-core split with the device memory capped at a quarter of what
    # the whole needs (issue 37: within 2× of the unsplit time).  The whole
    # needs 6680.4 MiB (ctr_cuda_cone_split_bytes: six 512 MiB volumes in the
    # transposed layout, five 720 MiB data arrays, 8.5 MiB of tables), a
    # quarter 1670 MiB: 15 slabs of ≤ 35 slices, every view resident.  The
    # split's test program first; then unsplit and split interleaved, twice.
    device_env
    timeout 120 "$B/bin/test-gpu-cone-split" 2>&1 | grep -E "^ok|^not ok|Bail|largest" | tr '\n' ' '
    echo "test-gpu-cone-split rc=${PIPESTATUS[0]}"
    W6="--volume 512 --views 720 --rows 512 --cols 512"
    for rep in 1 2; do
      for cap in 0 1670; do
        name=w6-sirt-cuda-cap$cap-$rep
        echo "== bench cone $name"
        timeout 200 "$B/bin/ctrecon-cli" bench cone --backend cuda -m sirt -n 3 $W6 --device-memory-mb $cap \
          > "$OUT/cone-$name.out" 2> "$OUT/cone-$name.err"
        echo "rc=$? $(grep -E 'out of core|CPU runs' "$OUT/cone-$name.err" | head -n 1)"
        tail -n 1 "$OUT/cone-$name.out" > "$OUT/cone-$name.json"
      done
    done
    python3 - "$OUT" <<'PY'
import json, sys, os
d = sys.argv[1]
for rep in (1, 2):
    try:
        a = json.load(open(os.path.join(d, "cone-w6-sirt-cuda-cap0-%d.json" % rep)))
        b = json.load(open(os.path.join(d, "cone-w6-sirt-cuda-cap1670-%d.json" % rep)))
        print("W6 SIRT %d: whole (%s) %.3f s/it, quarter memory (%s) %.3f s/it: %.2fx (target <= 2x)"
              % (rep, a["operator"], a["iteration_s"], b["operator"], b["iteration_s"], b["iteration_s"] / a["iteration_s"]))
    except Exception as e:
        print("W6 SIRT %d: no result (%s)" % (rep, e))
PY
    ;;
  session37)
    # one lease: the cone pair first (new), then the fan kernels and FDK
    bash "$here/gpu/run-on-device.sh" cone
    device_env
    echo "######## test (existing suites)"
    timeout 120 "$B/bin/test-gpu" -p /ctr/gpu/products -p /ctr/gpu/solvers -p /ctr/gpu/reports -p /ctr/gpu/methods -p /ctr/gpu/selfcheck 2>&1 | grep -E "^ok|^not ok|Bail" | tr '\n' ' '
    echo "test-gpu rc=$?"
    timeout 120 "$B/bin/test-gpu-fdk" 2>&1 | grep -E "^ok|^not ok|Bail" | tr '\n' ' '
    echo "test-gpu-fdk rc=$?"
    "$B/bin/ctrecon-cli" selftest 2>&1 | tail -n 8
    echo "######## w1: rows vs blocked vs cuSPARSE"
    W1="--image 512 --views 720 --cols 1024"
    bench w1-cuda --backend cuda $W1 --iterations 20
    CTR_CUDA_KERNEL=blocked bench w1-cuda-blocked --backend cuda $W1 --iterations 20
    bench w1-cusparse --backend cusparse $W1 --iterations 5
    summary w1-cuda w1-cuda-blocked w1-cusparse
    python3 - "$OUT" <<'PY'
import json, sys, os
try:
    a = json.load(open(os.path.join(sys.argv[1], "w1-cuda.json")))["iteration_s"]
    b = json.load(open(os.path.join(sys.argv[1], "w1-cuda-blocked.json")))["iteration_s"]
    print("W1 rows %.4f ms, blocked %.4f ms: blocked/rows %.2f" % (1e3 * a, 1e3 * b, b / a))
except Exception as e:
    print("W1 rows vs blocked: no result (%s)" % e)
PY
    echo "######## w3"
    timeout 200 bash "$here/gpu/run-on-device.sh" w3 | tail -n 4
    ;;
  all)
    # Every step in one command (for a short lease): test, w1, w3, w2, q1.
    for step in test w1 w3 w2 q1 methods; do
      echo "######## $step"
      bash "$here/gpu/run-on-device.sh" "$step"
    done
    ;;
  *)
    echo "usage: gpu/run-on-device.sh bundle (here) | test | w1 | q1 | w2 | w3 | methods | cone | w6split | w1vec | check | session37 | profile | all (on the GPU machine)"
    exit 2
    ;;
esac
