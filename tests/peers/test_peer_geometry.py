"""Geometries from ASTRA and RTK, imported and projected as the peers do (issue 17).

The peers run from PyPI in a virtual environment (packaging/peer-venv.sh;
skipped with 77 when it cannot be made).  For each case the peer writes its
geometry (ASTRA: proj_geom as JSON; RTK: its XML writer), `ctrecon-cli
import-geometry` turns it into our geometry.json, and the same phantom is
forward-projected by the peer and by `ctrecon-cli project` with the matched
ray model: ASTRA line_fanflat = Siddon (exact intersection lengths), RTK's
Joseph forward projector = our cone-beam Joseph projector.  They must agree
to a relative RMSE of 1 %.  ASTRA's cone-beam projectors need CUDA (absent
here): its cone and cone_vec imports are checked against ASTRA's own
geom_2vec instead.

Each peer runs once for all its cases (one process for ASTRA's five, one
for RTK's four): importing itk with RTK costs about 20 s of CPU, once
instead of four times.  A case the peer fails (an exception, or the
process dying before it) fails that case's checks as before.

Frames: ASTRA's 2-D volume is ours (row 0 = +y, column 0 = −x; sinogram
[angle][detector]).  RTK's fixed frame (x_r, y_r, z_r) is ours as
(x_r, −z_r, y_r), so RTK's volume array [z_r][y_r][x_r] is ours transposed
to [y_r][z_r][x_r] (core/io/ctr-geometry-import.h).
"""
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "cli"))

TOL = 0.01  # relative RMSE, matched ray models


def phantom2d(n):
    import numpy as np
    y, x = np.mgrid[0:n, 0:n]
    x = x - (n - 1) / 2.0
    y = (n - 1) / 2.0 - y       # row 0 = +y
    img = np.zeros((n, n), np.float32)
    img[(x / (0.42 * n)) ** 2 + (y / (0.36 * n)) ** 2 <= 1] = 1.0
    img[((x - 0.12 * n) / (0.10 * n)) ** 2 + ((y + 0.05 * n) / (0.16 * n)) ** 2 <= 1] = 2.0
    img[(x + 0.15 * n) ** 2 + (y - 0.12 * n) ** 2 <= (0.06 * n) ** 2] = 0.3
    return img * 0.02


def phantom3d(n):
    """Ours: [z][y][x], row 0 = +y."""
    import numpy as np
    z, y, x = np.mgrid[0:n, 0:n, 0:n].astype(np.float64)
    c = (n - 1) / 2.0
    x, y, z = x - c, c - y, z - c
    v = np.zeros((n, n, n), np.float32)
    v[(x / (0.40 * n)) ** 2 + (y / (0.33 * n)) ** 2 + (z / (0.38 * n)) ** 2 <= 1] = 1.0
    v[((x - 0.1 * n) / (0.1 * n)) ** 2 + ((y + 0.08 * n) / (0.14 * n)) ** 2 + ((z - 0.1 * n) / (0.12 * n)) ** 2 <= 1] = 2.0
    return v * 0.02


# ---------------------------------------------------------------- peer side
# (runs in the venv: python test_peer_geometry.py --peer BATCH.json:
# BATCH.json holds a list of [NAME, request] for peer_NAME; each one's
# outcome, true or false, is appended to BATCH.json.ok as it ends)

def peer_astra(req):
    import astra
    import numpy as np
    n = req["n"]
    img = np.load(req["image"])
    angles = np.linspace(0, 2 * np.pi, req["views"], endpoint=False) + 0.1
    pg = astra.create_proj_geom("fanflat", req["pitch"], req["cols"], angles, req["dos"], req["dod"])
    if req["kind"] != "fanflat":
        pg = astra.geom_2vec(pg)
        V = pg["Vectors"]
        for k in range(V.shape[0]):
            u = V[k, 4:6].copy()
            if req["kind"] in ("offset", "tilted"):
                V[k, 2:4] += req["shift"] * u / np.linalg.norm(u)
            if req["kind"] == "tilted":
                a = np.deg2rad(req["tilt_deg"])
                V[k, 4:6] = [np.cos(a) * u[0] - np.sin(a) * u[1], np.sin(a) * u[0] + np.cos(a) * u[1]]
            if req["kind"] == "noncircular":
                f = 1.0 + 0.15 * np.sin(2 * angles[k])
                V[k, 0:2] *= f
                V[k, 2:4] *= 1.0 + 0.1 * np.cos(3 * angles[k])
    vg = astra.create_vol_geom(n, n)
    pid = astra.create_projector("line_fanflat", pg, vg)
    sid, sino = astra.create_sino(img, pid)
    astra.data2d.delete(sid)
    astra.projector.delete(pid)
    geo = {k: (v.tolist() if hasattr(v, "tolist") else v) for k, v in pg.items()}
    with open(req["geometry"], "w") as f:
        json.dump(geo, f)
    np.save(req["projections"], sino.astype(np.float32))


def peer_astra_cone(req):
    import astra
    import numpy as np
    angles = np.linspace(0, 2 * np.pi, 12, endpoint=False) + 0.3
    pg = astra.create_proj_geom("cone", 1.3, 1.1, 20, 30, angles, 300.0, 200.0)
    geo = {k: (v.tolist() if hasattr(v, "tolist") else v) for k, v in pg.items()}
    with open(req["geometry"], "w") as f:
        json.dump(geo, f)
    vec = astra.geom_2vec(pg)
    with open(req["geometry_vec"], "w") as f:
        json.dump({k: (v.tolist() if hasattr(v, "tolist") else v) for k, v in vec.items()}, f)
    np.save(req["vectors"], vec["Vectors"])


def peer_rtk(req):
    import itk
    import numpy as np
    from itk import RTK as rtk
    n, s = req["n"], req["voxel"]
    cols, rows, pu, pv = req["cols"], req["rows"], req["pu"], req["pv"]
    g = rtk.ThreeDCircularProjectionGeometry.New()
    for k in range(req["views"]):
        a = 360.0 * k / req["views"] + 5.0
        sid, sdd = req["sid"], req["sdd"]
        pox = poy = oop = ip = sox = soy = 0.0
        if req["kind"] in ("offset", "tilted"):
            pox, poy = 9.0, -4.0
        if req["kind"] == "tilted":
            oop, ip, sox, soy = 4.0, 6.0, 3.0, -2.0
        if req["kind"] == "noncircular":
            sid = req["sid"] * (1.0 + 0.12 * np.sin(np.deg2rad(2 * a)))
            sdd = sid + (req["sdd"] - req["sid"]) * (1.0 + 0.1 * np.cos(np.deg2rad(3 * a)))
        g.AddProjection(sid, sdd, a, pox, poy, oop, ip, sox, soy)
    w = rtk.ThreeDCircularProjectionGeometryXMLFileWriter.New()
    w.SetFilename(req["geometry"])
    w.SetObject(g)
    w.WriteFile()
    ours = np.load(req["image"])                      # [z][y][x], row 0 = +y
    vol = np.ascontiguousarray(ours.transpose(1, 0, 2))   # RTK [z_r][y_r][x_r]
    ImageType = itk.Image[itk.F, 3]
    v = itk.image_from_array(vol)
    v.SetSpacing([s, s, s])
    v.SetOrigin([-(n - 1) / 2.0 * s] * 3)
    src = rtk.ConstantImageSource[ImageType].New()
    src.SetSize([cols, rows, req["views"]])
    src.SetSpacing([pu, pv, 1.0])
    src.SetOrigin([-(cols - 1) / 2.0 * pu, -(rows - 1) / 2.0 * pv, 0.0])
    src.SetConstant(0.0)
    fp = rtk.JosephForwardProjectionImageFilter[ImageType, ImageType].New()
    fp.SetInput(0, src.GetOutput())
    fp.SetInput(1, v)
    fp.SetGeometry(g)
    fp.Update()
    np.save(req["projections"], itk.array_from_image(fp.GetOutput()).astype(np.float32))


# ---------------------------------------------------------------- our side

def main():
    import numpy as np
    import tifffile
    from common import check, finish, require_cli, run
    require_cli()
    venv = os.environ.get("CTR_PEER_VENV", os.path.join(os.path.dirname(os.environ["CTR_CLI"]), "..", "peers-venv"))
    script = os.path.join(HERE, "..", "..", "packaging", "peer-venv.sh")
    r = subprocess.run(["sh", script, venv])
    if r.returncode != 0:
        print("the peers (astra-toolbox, itk-rtk) could not be installed: skipped")
        sys.exit(77)
    py = os.path.join(venv, "bin", "python")

    def peers(name, batch, tmp):
        """Runs each (fn, request) of @batch through peer_fn in one
        process; a list of booleans, one per request (False for those it
        did not finish)."""
        path = os.path.join(tmp, f"req-{name}.json")
        with open(path, "w") as f:
            json.dump(batch, f)
        p = subprocess.run([py, __file__, "--peer", path], capture_output=True, text=True,
                           timeout=600 * len(batch))
        done = []
        if os.path.exists(path + ".ok"):
            with open(path + ".ok") as f:
                done = [line.strip() == "true" for line in f]
        if p.returncode != 0 or len(done) != len(batch) or not all(done):
            print(p.stdout, p.stderr)
        return [k < len(done) and done[k] for k in range(len(batch))]

    def rel(a, b):
        return float(np.sqrt(np.mean((a - b) ** 2)) / np.sqrt(np.mean(b ** 2)))

    with tempfile.TemporaryDirectory() as tmp:
        # ASTRA fan beam: circular, offset detector, tilted + shifted detector, non-circular orbit.
        n = 128
        img = phantom2d(n)
        np.save(os.path.join(tmp, "img2d.npy"), img)
        tifffile.imwrite(os.path.join(tmp, "img2d.tif"), img)
        fan_kinds = ("fanflat", "offset", "tilted", "noncircular")
        fan = {kind: {"n": n, "views": 90, "cols": 240, "pitch": 1.0, "dos": 300.0, "dod": 200.0,
                      "shift": 11.0, "tilt_deg": 7.0, "kind": kind, "image": os.path.join(tmp, "img2d.npy"),
                      "geometry": os.path.join(tmp, f"astra-{kind}.json"),
                      "projections": os.path.join(tmp, f"astra-{kind}.npy")} for kind in fan_kinds}
        # ASTRA cone and cone_vec: imported as ASTRA's own geom_2vec says.
        cone = {"geometry": os.path.join(tmp, "astra-cone.json"), "geometry_vec": os.path.join(tmp, "astra-cone-vec.json"),
                "vectors": os.path.join(tmp, "astra-cone-vec.npy")}
        astra_ok = peers("astra", [("astra", fan[kind]) for kind in fan_kinds] + [("astra_cone", cone)], tmp)
        for kind, ok in zip(fan_kinds, astra_ok):
            req = fan[kind]
            if not check(ok, f"ASTRA {kind}: the peer projects"):
                continue
            ours_g = os.path.join(tmp, f"ours-{kind}.json")
            r = run("import-geometry", req["geometry"], "-o", ours_g)
            if not check(r.returncode == 0, f"ASTRA {kind}: imported ({r.stdout.strip() or r.stderr.strip()})"):
                continue
            sino = os.path.join(tmp, f"ours-{kind}.tif")
            r = run("project", ours_g, os.path.join(tmp, "img2d.tif"), "-o", sino, "--ray-model", "siddon")
            if not check(r.returncode == 0, f"ASTRA {kind}: projected by ctrecon ({r.stderr.strip()})"):
                continue
            e = rel(tifffile.imread(sino), np.load(req["projections"]))
            check(e <= TOL, f"ASTRA {kind} (line_fanflat vs Siddon): relative RMSE {e:.2e} <= {TOL}")

        req = cone
        if check(astra_ok[-1], "ASTRA cone: the peer writes cone and geom_2vec"):
            want = np.load(req["vectors"])
            for name in ("geometry", "geometry_vec"):
                out = os.path.join(tmp, f"ours-cone-{name}.json")
                r = run("import-geometry", req[name], "-o", out)
                if not check(r.returncode == 0, f"ASTRA {name}: imported ({r.stderr.strip()})"):
                    continue
                # our own vector form of what was imported (circular stays circular)
                vec = os.path.join(tmp, f"ours-cone-{name}-vec.json")
                g = json.load(open(out))
                if "vectors" not in g:
                    a = np.array(g["angles_rad"])
                    R, D = g["source_to_isocenter_mm"], g["source_to_detector_mm"]
                    pu, pv = g["detector_pitch_u_mm"], g["detector_pitch_v_mm"]
                    got = np.stack([R * np.sin(a), -R * np.cos(a), 0 * a, (R - D) * np.sin(a), (D - R) * np.cos(a),
                                    0 * a, pu * np.cos(a), pu * np.sin(a), 0 * a, 0 * a, 0 * a, pv + 0 * a], 1)
                else:
                    got = np.array(g["vectors"])
                err = float(np.abs(got - want).max())
                check(err < 1e-9, f"ASTRA {name}: our vectors equal ASTRA's geom_2vec (max |Δ| {err:.1e} mm)")

        # RTK cone beam: circular, offset detector, tilted + shifted detector and source, non-circular orbit.
        n3, voxel = 48, 2.0
        vol = phantom3d(n3)
        np.save(os.path.join(tmp, "img3d.npy"), vol)
        tifffile.imwrite(os.path.join(tmp, "img3d.tif"), vol)
        rtk_kinds = ("circular", "offset", "tilted", "noncircular")
        cases = {kind: {"n": n3, "voxel": voxel, "views": 36, "cols": 96, "rows": 80, "pu": 2.0, "pv": 2.0,
                        "sid": 400.0, "sdd": 650.0, "kind": kind, "image": os.path.join(tmp, "img3d.npy"),
                        "geometry": os.path.join(tmp, f"rtk-{kind}.xml"),
                        "projections": os.path.join(tmp, f"rtk-{kind}.npy")} for kind in rtk_kinds}
        rtk_ok = peers("rtk", [("rtk", cases[kind]) for kind in rtk_kinds], tmp)
        for kind, ok in zip(rtk_kinds, rtk_ok):
            req = cases[kind]
            if not check(ok, f"RTK {kind}: the peer projects"):
                continue
            ours_g = os.path.join(tmp, f"ours-rtk-{kind}.json")
            r = run("import-geometry", req["geometry"], "-o", ours_g, "--cols", 96, "--rows", 80,
                    "--pitch-u", 2, "--pitch-v", 2)
            if not check(r.returncode == 0, f"RTK {kind}: imported ({r.stdout.strip() or r.stderr.strip()})"):
                continue
            proj = os.path.join(tmp, f"ours-rtk-{kind}.tif")
            r = run("project", ours_g, os.path.join(tmp, "img3d.tif"), "-o", proj, "--pixel-mm", voxel)
            if not check(r.returncode == 0, f"RTK {kind}: projected by ctrecon ({r.stderr.strip()})"):
                continue
            e = rel(tifffile.imread(proj), np.load(req["projections"]))
            check(e <= TOL, f"RTK {kind} (Joseph vs Joseph): relative RMSE {e:.2e} <= {TOL}")
    finish()


def run_peers(path):
    """Each (fn, request) of @path through peer_fn; its outcome appended to
    @path.ok at once (a crash leaves the rest out: failed)."""
    import traceback
    with open(path) as f:
        batch = json.load(f)
    failed = 0
    for fn, req in batch:
        try:
            globals()["peer_" + fn](req)
            ok = True
        except Exception:
            traceback.print_exc()
            ok = False
        failed += not ok
        with open(path + ".ok", "a") as f:
            f.write("true\n" if ok else "false\n")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--peer":
        run_peers(sys.argv[2])
    else:
        main()
