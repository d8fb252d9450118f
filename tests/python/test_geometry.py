"""ctrecon.Geometry: made from a geometry.json path, a dict of its keys, a
Dataset, an ASTRA proj_geom (parallel_vec: as the parallel scan it
describes) and an RTK XML; to_dict() gives the same
geometry back (fan, parallel, cone, per-view vectors, helical); its vectors
equal FORMAT.md's circular geometry written out independently in numpy;
Operator(Geometry) projects as Operator(Dataset); bad input raises the
engine's exception classes with its messages."""
import json
import math
import os

import numpy as np

from common import adjointness, check, finish, require_module, simulate, tempdir

ctrecon = require_module()


def raises(cls, fn, what, needle=""):
    try:
        fn()
    except cls as e:
        return check(needle in str(e), f"{what}: {cls.__name__} ({e})")
    except Exception as e:  # noqa: BLE001 - the wrong class is the failure reported
        return check(False, f"{what}: {type(e).__name__} instead of {cls.__name__} ({e})")
    return check(False, f"{what}: no exception")


def round_trip(g, label):
    d = g.to_dict()
    again = ctrecon.Geometry(d)
    check(again.to_dict() == d and again.data_shape == g.data_shape and again.beam == g.beam,
          f"{label}: Geometry(g.to_dict()) is g ({g.beam}, {g.data_shape})")
    check(json.loads(g.to_json()) == d, f"{label}: to_json() is to_dict() as text")


def circular_vectors(d):
    """FORMAT.md's flat-detector circular geometry as per-view vectors:
    source R(sin b, -cos b, 0), the detector centre SDD along the central ray
    plus the offsets, u = pitch_u (cos b, sin b, 0), v = pitch_v e_z."""
    b = np.asarray(d["angles_rad"], dtype=np.float64)
    R, sdd = d["source_to_isocenter_mm"], d["source_to_detector_mm"]
    pu, pv = d["detector_pitch_u_mm"], d["detector_pitch_v_mm"]
    ou, ov = d.get("detector_offset_u_mm", 0.0), d.get("detector_offset_v_mm", 0.0)
    s = np.stack([R * np.sin(b), -R * np.cos(b), 0 * b], 1)
    ray = np.stack([-np.sin(b), np.cos(b), 0 * b], 1)
    eu = np.stack([np.cos(b), np.sin(b), 0 * b], 1)
    ez = np.tile([0.0, 0.0, 1.0], (len(b), 1))
    det = s + sdd * ray + ou * eu + ov * ez
    return np.concatenate([s, det, pu * eu, pv * ez], 1)


with tempdir() as tmp:
    # A path, a Dataset and a dict of the file's keys: one geometry.
    path = simulate(tmp)
    ds = ctrecon.load(path)
    g = ctrecon.Geometry(path)
    check(g.to_dict() == ctrecon.Geometry(ds).to_dict(), "Geometry(path) = Geometry(dataset)")
    with open(path) as fh:
        keys = json.load(fh)
    check(ctrecon.Geometry(keys).to_dict() == g.to_dict(), "Geometry(the file's dict) = Geometry(path)")
    check(np.array_equal(g.angles, ds.geometry["angles"]) and g.data_shape == ds.projections.shape,
          f"angles and data_shape are the dataset's {g.data_shape}")
    round_trip(g, "fan, flat")
    for kind, extra in (("parallel", ("-g", "parallel")), ("fan, curved", ("-g", "fan-curved")),
                        ("cone", ("-g", "cone-flat", "--rows", 4, "--views", 30, "--cols", 48))):
        gk = ctrecon.Geometry(simulate(os.path.join(tmp, kind.replace(", ", "-")), *extra))
        round_trip(gk, kind)

    # Vectors: FORMAT.md's convention, written out here, for the circular
    # fan scan with a detector offset.
    off = dict(keys, detector_offset_u_mm=1.7)
    go = ctrecon.Geometry(off)
    want = circular_vectors(go.to_dict())
    err = float(np.abs(go.vectors - want).max())
    check(go.vectors.shape == (90, 12) and err <= 1e-9, f"fan vectors = FORMAT.md's formula to {err:.1e} mm")

    # Per-view vectors round trip, and an Operator on them is a transpose pair.
    cone = ctrecon.Geometry(simulate(os.path.join(tmp, "cone2"), "-g", "cone-flat", "--rows", 6, "--views", 24,
                                     "--cols", 40))
    vec = cone.vectors.copy()
    vec[:, 2] += 0.5 * np.sin(np.arange(24))  # a wobbling source: no circular description
    dvec = dict(cone.to_dict(), vectors=vec)
    gv = ctrecon.Geometry(dvec)
    check(np.allclose(gv.vectors, vec, atol=1e-12), "vectors given are the vectors kept")
    round_trip(gv, "cone, per-view vectors")
    adjointness(ctrecon.Operator(gv, size=(24, 24, 6)), "Operator on per-view vectors", seed=3)

    # A helical scan: round trip, and no vector form.
    hel = dict(cone.to_dict(), type="helical", source_z_start_mm=-3.0, table_feed_per_rotation_mm=6.0)
    gh = ctrecon.Geometry(hel)
    check(gh.helical and gh.beam == "cone", "a helical dict gives a helical cone-beam geometry")
    round_trip(gh, "helical")

    # Operator(Geometry) = Operator(Dataset) on the same grid.
    x = np.random.default_rng(1).random((1, 64, 64), dtype=np.float32)
    a1 = ctrecon.Operator(ds, size=64).forward(x)
    a2 = ctrecon.Operator(g, size=64, pixel_size=ctrecon.Operator(ds, size=64).grid["dx_mm"]).forward(x)
    check(np.array_equal(a1, a2), "Operator(geometry) = Operator(dataset) on the same grid")

    # ASTRA: fanflat with numpy angles is our fan geometry (ASTRA's frame is
    # FORMAT.md's: DistanceOriginDetector = SDD - SOD); cone_vec passes
    # through verbatim.
    angles = np.linspace(0, 2 * math.pi, 90, endpoint=False)
    astra = {"type": "fanflat", "DetectorWidth": 0.75, "DetectorCount": 128, "ProjectionAngles": angles,
             "DistanceOriginSource": 400.0, "DistanceOriginDetector": 200.0}
    ga = ctrecon.Geometry.from_astra(astra)
    da = ga.to_dict()
    check(da["type"] == "fan" and da["source_to_isocenter_mm"] == 400.0 and da["source_to_detector_mm"] == 600.0
          and da["detector_pitch_u_mm"] == 0.75 and np.allclose(ga.angles, angles),
          "ASTRA fanflat: SOD 400, SDD 600, pitch 0.75, the angles")
    av = ctrecon.Geometry.from_astra({"type": "cone_vec", "DetectorRowCount": 6, "DetectorColCount": 40,
                                      "Vectors": vec})
    check(np.allclose(av.vectors, vec, atol=1e-12), "ASTRA cone_vec: the vectors verbatim")
    raises(ctrecon.Unsupported, lambda: ctrecon.Geometry.from_astra({"type": "parallel3d"}), "ASTRA parallel3d")
    # ASTRA parallel_vec: the vectors ASTRA makes of a parallel scan (ray
    # (sin b, -cos b), here reversed on odd views; the detector centre at the
    # offset along u and moved along the ray; u = pitch (cos b, sin b)) are
    # that parallel scan: its angles, pitch and offset, and the same sinogram.
    par = ctrecon.Geometry(ctrecon.load(simulate(os.path.join(tmp, "pv"), "-g", "parallel")))
    pitch = par.to_dict()["detector_pitch_u_mm"]
    shifted = ctrecon.Geometry(dict(par.to_dict(), detector_offset_u_mm=0.3 * pitch))
    b = par.angles
    r = np.stack([np.sin(b), -np.cos(b)], 1) * np.where(np.arange(b.size) % 2, -1.0, 1.0)[:, None]
    u = pitch * np.stack([np.cos(b), np.sin(b)], 1)
    d = 0.3 * u + 7.0 * r
    pv = ctrecon.Geometry.from_astra({"type": "parallel_vec", "DetectorCount": par.data_shape[2],
                                      "Vectors": np.hstack([r, d, u])})
    pvd = pv.to_dict()
    check(pv.beam == "parallel" and np.allclose(pv.angles, b, rtol=0, atol=1e-12)
          and abs(pvd["detector_pitch_u_mm"] - pitch) <= 1e-12 * pitch
          and abs(pvd["detector_offset_u_mm"] - 0.3 * pitch) <= 1e-12 * pitch,
          f"ASTRA parallel_vec: a parallel beam of {b.size} views, pitch {pitch:g} mm, offset 0.3 pitch")
    A_ref = ctrecon.Operator(shifted, size=64)
    A_vec = ctrecon.Operator(pv, size=64, pixel_size=A_ref.grid["dx_mm"])
    x = np.random.default_rng(3).random(A_ref.shape[1], dtype=np.float32)
    want = A_ref.forward(x)
    err = float(np.abs(A_vec.forward(x) - want).max() / np.abs(want).max())
    check(A_vec.shape == A_ref.shape and err <= 1e-6,
          f"ASTRA parallel_vec projects as the parallel geometry it describes (to {err:.1e})")
    tilted = np.hstack([r, d, u])
    tilted[3, :2] = [math.cos(0.01) * r[3, 0] - math.sin(0.01) * r[3, 1],
                     math.sin(0.01) * r[3, 0] + math.cos(0.01) * r[3, 1]]
    raises(ctrecon.Unsupported, lambda: ctrecon.Geometry.from_astra(
        {"type": "parallel_vec", "DetectorCount": par.data_shape[2], "Vectors": tilted}),
        "ASTRA parallel_vec with oblique rays", "view 3")
    stretched = np.hstack([r, d, u * np.where(np.arange(b.size) == 5, 1.01, 1.0)[:, None]])
    raises(ctrecon.Unsupported, lambda: ctrecon.Geometry.from_astra(
        {"type": "parallel_vec", "DetectorCount": par.data_shape[2], "Vectors": stretched}),
        "ASTRA parallel_vec with a pitch that changes", "pitch")
    raises(ctrecon.FormatError, lambda: ctrecon.Geometry.from_astra({"type": "fanflat"}), "ASTRA without keys")

    # RTK: a circular scan of 36 projections, source at 500 mm, detector 800.
    rtk = ['<?xml version="1.0"?>', '<!DOCTYPE RTKGEOMETRY>', '<RTKThreeDCircularGeometry version="3">',
           "<SourceToIsocenterDistance>500</SourceToIsocenterDistance>",
           "<SourceToDetectorDistance>800</SourceToDetectorDistance>"]
    rtk += [f"<Projection><GantryAngle>{10 * k}</GantryAngle></Projection>" for k in range(36)]
    rtk += ["</RTKThreeDCircularGeometry>"]
    xml = "\n".join(rtk)
    gr = ctrecon.Geometry.from_rtk(xml, 32, 8, (1.0, 1.0))
    check(gr.beam == "cone" and gr.data_shape == (36, 8, 32), f"RTK XML text: {gr}")
    xml_path = os.path.join(tmp, "rtk.xml")
    with open(xml_path, "w") as fh:
        fh.write(xml)
    check(np.array_equal(ctrecon.Geometry.from_rtk(xml_path, 32, 8, (1.0, 1.0)).vectors, gr.vectors),
          "RTK XML from a file = from its text")
    sx = gr.vectors[:, :3]
    check(np.allclose(np.hypot(sx[:, 0], sx[:, 1]), 500.0), "RTK: every source 500 mm from the axis")
    raises(ctrecon.InvalidArgument, lambda: ctrecon.Geometry.from_rtk(xml, 32, 8, (0.0, 1.0)), "RTK spacing 0")

    # Bad input: the engine's classes and messages, nothing else.
    raises(ctrecon.FormatError, lambda: ctrecon.Geometry({"type": "fan"}), "a dict without views", "views")
    raises(ctrecon.InvalidGeometry, lambda: ctrecon.Geometry(dict(keys, source_to_isocenter_mm=-5.0)),
           "a negative SOD")
    raises(ctrecon.InvalidArgument, lambda: ctrecon.Geometry(dict(keys, detector_offset_u_mm=float("nan"))),
           "a NaN offset", "finite")
    raises(ctrecon.FileError, lambda: ctrecon.Geometry(os.path.join(tmp, "missing.json")), "a missing file",
           "missing.json")
    raises(TypeError, lambda: ctrecon.Geometry(3), "an int")
    raises(TypeError, lambda: ctrecon.Operator(keys), "Operator(dict)")
    with open(os.path.join(tmp, "list.json"), "w") as fh:
        fh.write("[1, 2]")
    raises(ctrecon.FormatError, lambda: ctrecon.Geometry(os.path.join(tmp, "list.json")), "a JSON list",
           "one JSON object")

finish()
