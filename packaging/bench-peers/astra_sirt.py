"""ASTRA Toolbox (CPU) SIRT on a fan-flat scan, for packaging/bench-peers.sh.

    python astra_sirt.py REQUEST.json

REQUEST (written by bench.py): projections (.npy, [view][col] line integrals),
angles_rad (β), pitch_u_mm, sod_mm, sdd_mm, n, pixel_mm, projector
(line_fanflat or strip_fanflat), iterations, output (.npy).  The frame is
FORMAT.md's (issue 18): angles = β, det_width = pitch, source_origin = SOD,
origin_det = SDD − SOD, image row 0 = +y, column 0 = −x; the volume window is
n × pixel mm centred on the isocentre, so the result is in 1/mm like ours.
MinConstraint 0 clips at zero as our SIRT does.  Prints the seconds spent
from geometry to image in memory (imports and file I/O excluded).
"""
import json
import sys
import time

import astra
import numpy as np


def main(path):
    with open(path) as f:
        req = json.load(f)
    sino = np.load(req["projections"]).astype(np.float32)
    t0 = time.perf_counter()
    n, p = req["n"], req["pixel_mm"]
    pg = astra.create_proj_geom("fanflat", req["pitch_u_mm"], sino.shape[1], np.asarray(req["angles_rad"]),
                                req["sod_mm"], req["sdd_mm"] - req["sod_mm"])
    h = n * p / 2.0
    vg = astra.create_vol_geom(n, n, -h, h, -h, h)
    pid = astra.create_projector(req["projector"], pg, vg)
    sid = astra.data2d.create("-sino", pg, sino)
    rid = astra.data2d.create("-vol", vg, 0.0)
    cfg = astra.astra_dict("SIRT")
    cfg["ProjectorId"] = pid
    cfg["ProjectionDataId"] = sid
    cfg["ReconstructionDataId"] = rid
    cfg["option"] = {"MinConstraint": 0.0}
    aid = astra.algorithm.create(cfg)
    astra.algorithm.run(aid, req["iterations"])
    img = astra.data2d.get(rid)
    dt = time.perf_counter() - t0
    np.save(req["output"], img.astype(np.float32))
    for f, i in ((astra.algorithm.delete, aid), (astra.data2d.delete, rid), (astra.data2d.delete, sid),
                 (astra.projector.delete, pid)):
        f(i)
    print(f"compute_s {dt:.6f}")


if __name__ == "__main__":
    main(sys.argv[1])
