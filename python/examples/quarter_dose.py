"""Quarter-dose head: FBP against PWLS in HU — CT Recon's main job from Python.

    python3 quarter_dose.py [GEOMETRY.json]   (default: ../shared/data/head-fan-lowdose)

RMSE against the dataset's reference over the field-of-view disc (the
engine's one metric definition) and the noise (SD) in a 6 mm brain ROI."""
import sys

import numpy as np

import ctrecon

path = sys.argv[1] if len(sys.argv) > 1 else "../shared/data/head-fan-lowdose/geometry.json"
ds = ctrecon.load(path)
mu_water = ds.mu_water or 0.0192  # 1/mm; the dataset's own when it states one
g = ds.reference_grid
y, x = np.mgrid[0:g["ny"], 0:g["nx"]]
x_mm = (x - (g["nx"] - 1) / 2) * g["dx_mm"] + g["cx_mm"]
y_mm = ((g["ny"] - 1) / 2 - y) * g["dy_mm"] + g["cy_mm"]  # row 0 = +y
brain = np.hypot(x_mm + 40, y_mm - 20) <= 6  # the ROI at (-40, 20) mm

for method, params in (("fbp", {"window": "hann"}), ("pwls", {})):
    image, stats = ctrecon.reconstruct(ds, method, **params)
    hu = 1000 * (image[0] - mu_water) / mu_water
    rmse_hu = 1000 * stats[-1]["rmse"] / mu_water
    print(f"{method.upper():5s} RMSE {rmse_hu:6.1f} HU   brain noise {hu[brain].std():5.1f} HU   "
          f"SSIM {stats[-1]['ssim']:.3f}")
