"""CT Recon from Python: the ctrecon engine (libctrecon, C) on numpy arrays.

    import ctrecon
    ds = ctrecon.load("geometry.json")        # projections: float32 [view][row][col]
    image, stats = ctrecon.reconstruct(ds, "sirt", iterations=20, relaxation=1.5)
    # image: float32 [z][y][x] in 1/mm; stats: one dict per iteration

Everything is computed by the same C engine as ctrecon-cli and the window;
parameters are the CLI's (`ctrecon-cli methods`), with "_" for "-".
Errors are ctrecon.Error (a RuntimeError) subclasses carrying the engine's
message; a bad parameter is ctrecon.InvalidArgument, also a ValueError.
"""
from ._ctrecon import (  # noqa: F401
    __version__,
    BackendUnavailable,
    Cancelled,
    Dataset,
    Error,
    Failed,
    FileError,
    FormatError,
    Geometry,
    InvalidArgument,
    InvalidData,
    InvalidGeometry,
    OutOfMemory,
    Stats,
    Unsupported,
    load,
    metrics,
    noise_level,
    reconstruct,
    roi,
    simulate_dose,
    study,
)
from ._operator import Operator  # noqa: F401  (adds as_linear_operator)

__all__ = [
    "BackendUnavailable", "Cancelled", "Dataset", "Error", "Failed", "FileError", "FormatError", "Geometry",
    "InvalidArgument", "InvalidData", "InvalidGeometry", "Operator", "OutOfMemory", "Stats", "Unsupported",
    "load", "metrics", "noise_level", "reconstruct", "roi", "simulate_dose", "study",
]
