"""A MODEL (not a measurement) of ctrecon-cli under mpirun on 1-64 nodes,
built from per-rank costs measured on one 2-core machine
(tests/mpi/bench_mpi_scaling.py, the per-rank lines of `reconstruct` under
mpirun) and message sizes; the network and disk figures are ASSUMED
(InfiniBand-class links, a parallel file system seen by rank 0 alone).

Node = one rank with 2 OpenMP threads (the measured machine).  Run:
    python3 tests/mpi/scaling_model.py [--json MEASURED.json]

Workloads:
  savu-2048: savu-parallel-tiff enlarged to 2,048 slices (91 views × 160
    columns, 148² per slice), SIRT, K iterations, slice blocks (ctr-mpi-stack.c).
  fdk-2048:  FDK of a 2048³ volume from 2,048 views of 2048 × 2048 pixels,
    iFDK's R × C grid with R the fewest slabs that fit (ctr-mpi-fdk.c).
Both as implemented: rank 0 reads everything, scatters, gathers, writes;
the last column says what the time would be if every rank read its own
share (the load and the scatter divided by the nodes): not implemented.
"""
import argparse
import json
import math

# Measured on this machine (see the report of issue 16; medians of 3 repeats).
MEASURED = {
    "sirt_s_per_slice_it_1t": None,   # SIRT, 1 rank × 1 thread: run seconds / (iterations · slices)
    "threads2_speedup": None,         # same, 2 threads / 1 thread on one rank
    "plan_cache_s": None,             # one rank's plan with the matrix from the cache
    "load_s_per_mb": None,            # rank 0: reading + converting counts, s per MB of float32 projections
    "fdk_gups_per_core": None,        # FDK back-projection, 1 rank × 1 thread: voxels·views / s / 2³⁰
    "fdk_filter_s_per_mpix": None,    # FDK filtering, 1 thread: s per 10⁶ detector pixels (64-column rows)
}
# Assumed (labelled as such in every table).
ASSUMED = {
    "net_GBps": 10.0,        # per link, one direction (100 Gb/s EDR InfiniBand, effective)
    "net_latency_s": 2e-6,
    "disk_GBps": 2.0,        # rank 0's read and write of the parallel file system
    "node_mem_GB": 256.0,    # an HPC node (iFDK's ABCI nodes: 384 GB); half of it for our arrays
    "iterations": 20,
}


def t_round(p, a):
    # Two MPI_Allreduce (sum, max) of a few dozen doubles: latency-bound trees.
    return 2 * 2 * math.ceil(math.log2(p)) * a["net_latency_s"] if p > 1 else 0.0


def savu(p, m, a):
    slices, views, cols, n = 2048, 91, 160, 148
    proj_mb = views * slices * cols * 4 / 1e6
    vol_mb = slices * n * n * 4 / 1e6
    t_load = proj_mb * m["load_s_per_mb"]
    t_scatter = proj_mb * (p - 1) / p / 1e3 / a["net_GBps"]
    per_slice_it = m["sirt_s_per_slice_it_1t"] / m["threads2_speedup"]
    t_iter = math.ceil(slices / p) * per_slice_it + t_round(p, a)
    t_gather = vol_mb * (p - 1) / p / 1e3 / a["net_GBps"]
    t_write = vol_mb / 1e3 / a["disk_GBps"]
    parts = {"load": t_load, "scatter": t_scatter, "plan": m["plan_cache_s"],
             "iterations": a["iterations"] * t_iter, "gather": t_gather, "write": t_write}
    return parts, f"{math.ceil(slices / p)} slices/rank, scatter {proj_mb * (p - 1) / p:.0f} MB, " \
                  f"gather {vol_mb * (p - 1) / p:.0f} MB"


def fdk(p, m, a):
    n, views, det = 2048, 2048, 2048
    vol_gb = n ** 3 * 4 / 1e9
    view_gb = det * det * 4 / 1e9
    budget = a["node_mem_GB"] / 2
    # Rank 0 holds every view and the whole volume besides its own share;
    # a rank (r, c) its slab and its group's filtered views (all at once).
    if views * view_gb + vol_gb > budget:
        return None, f"rank 0 holds {views * view_gb + vol_gb:.0f} GB > {budget:.0f} GB"
    r = next((r for r in range(1, p + 1) if p % r == 0 and vol_gb / r + view_gb * views / (p // r)
              + (views * view_gb + vol_gb if p == 1 else 0) <= budget), None)
    if r is None:
        return None, f"a slab and its group's views exceed {budget:.0f} GB per node"
    c = p // r
    cores = 2
    t_load = views * view_gb * 1e3 * m["load_s_per_mb"]
    t_scatter = views * view_gb * (p - 1) / p / a["net_GBps"]
    # FFT work per pixel grows with log2 of the padded row (4096 here, 128 measured).
    t_filter = views / p * det * det / 1e6 * m["fdk_filter_s_per_mpix"] * math.log2(2 * det) / math.log2(128) / cores
    t_allgather = views / c * (r - 1) / r * view_gb / a["net_GBps"]
    gups_node = m["fdk_gups_per_core"] * cores
    t_bp = (n ** 3 / r) * (views / c) / 2 ** 30 / gups_node
    t_reduce = 2 * (vol_gb / r) * (c - 1) / c / a["net_GBps"]   # reduce-scatter + gather (pipelined)
    t_gather = vol_gb * (r - 1) / r / a["net_GBps"]
    t_write = vol_gb / a["disk_GBps"]
    parts = {"load": t_load, "scatter": t_scatter, "filter": t_filter, "all-gather": t_allgather,
             "back-projection": t_bp, "reduce": t_reduce, "gather": t_gather, "write": t_write}
    return parts, f"R = {r} slabs × C = {c} groups"


def table(name, fn, m, a):
    print(f"\n### MODEL: {name} (node = 1 rank × 2 threads as measured; network and disk assumed)\n")
    base = None
    rows = []
    for p in (1, 2, 4, 8, 16, 32, 64):
        parts, how = fn(p, m, a)
        if parts is None:
            rows.append(f"| {p} | — | — | — | {how} | — |")
            continue
        total = sum(parts.values())
        if base is None:
            base = (p, total)
        speed = base[1] / total
        eff = speed / (p / base[0])
        top = ", ".join(f"{k} {v:.1f}" for k, v in sorted(parts.items(), key=lambda kv: -kv[1])[:4])
        own = total - (parts["load"] + parts["scatter"]) * (1 - 1 / p)
        rows.append(f"| {p} | {total:.1f} | {speed:.1f}× | {eff:.0%} | {how}; {top} s | {own:.1f} |")
    print(f"| nodes | seconds | speed-up (vs {base[0] if base else '-'} node) | efficiency | split; largest terms "
          f"| s if each rank read its share |")
    print("|---|---|---|---|---|---|")
    print("\n".join(rows))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--json", help="measured constants (keys of MEASURED)")
    args = ap.parse_args()
    m = dict(MEASURED)
    if args.json:
        m.update(json.load(open(args.json)))
    missing = [k for k, v in m.items() if v is None]
    if missing:
        raise SystemExit(f"measured constants missing: {', '.join(missing)}")
    print("measured:", json.dumps(m))
    print("ASSUMED:", json.dumps(ASSUMED))
    table("savu stack enlarged to 2,048 slices, SIRT, 20 iterations", savu, m, ASSUMED)
    table("FDK 2048³ from 2,048 views of 2048²", fdk, m, ASSUMED)


if __name__ == "__main__":
    main()
