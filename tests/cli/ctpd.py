"""A small DICOM-CT-PD series written with pydicom (an independent writer),
for tests that need no ../shared/data and for the fuzz seed corpus.

One file per view, flat detector, the private tags of dictionary v8 as
core/io/ctr-dicom-ctpd.c reads them: NumberofDetectorRows/Columns
(7029,1010/1011), spacings (7029,1002/1006), DetectorShape (7029,100B),
focal spot angle/axial position/radius (7031,1001/1002/1003),
ConstantRadialDistance (7031,1031), DetectorCentralElement (7031,1033),
TypeofProjectionData/Geometry (7037,1009/100A).  Pixel values are line
integrals (RescaleSlope 0.001, RescaleIntercept 0).
"""
import math
import os

import numpy as np
import pydicom
from pydicom.dataset import Dataset, FileDataset, FileMetaDataset
from pydicom.uid import ExplicitVRLittleEndian, generate_uid

CT_IMAGE = "1.2.840.10008.5.1.4.1.1.2"


def ctpd_dataset(instance, phi, channels=8, rows=1, series_uid="1.2.3.4.5.6",
                 sod=500.0, sdd=900.0, pitch=0.5, values=None):
    """One DICOM-CT-PD view as a pydicom FileDataset (not yet saved).
    @instance is written verbatim into InstanceNumber (IS), so a test can
    give numbers out of the IS range as strings."""
    meta = FileMetaDataset()
    meta.MediaStorageSOPClassUID = CT_IMAGE
    meta.MediaStorageSOPInstanceUID = generate_uid()
    meta.TransferSyntaxUID = ExplicitVRLittleEndian
    d = FileDataset(None, {}, file_meta=meta, preamble=b"\0" * 128)
    d.is_little_endian = True
    d.is_implicit_VR = False
    d.SOPClassUID = CT_IMAGE
    d.SOPInstanceUID = meta.MediaStorageSOPInstanceUID
    d.Modality = "CT"
    d.SeriesInstanceUID = series_uid
    d.add_new(0x00200013, "IS", str(instance))
    d.SamplesPerPixel = 1
    d.PhotometricInterpretation = "MONOCHROME2"
    d.Rows = channels          # DICOM-CT-PD: image rows = detector channels
    d.Columns = rows           # image columns = detector rows
    d.BitsAllocated = 16
    d.BitsStored = 16
    d.HighBit = 15
    d.PixelRepresentation = 0
    d.RescaleIntercept = "0"
    d.RescaleSlope = "0.001"
    d.add_new(0x70290010, "LO", "DetectorSystemArrangementModule")
    d.add_new(0x70291010, "US", rows)
    d.add_new(0x70291011, "US", channels)
    d.add_new(0x70291002, "FL", pitch)
    d.add_new(0x70291006, "FL", 1.0)
    d.add_new(0x7029100B, "CS", "FLAT")
    d.add_new(0x70310010, "LO", "DetectorDynamicsModule")
    d.add_new(0x70311001, "FL", phi)
    d.add_new(0x70311002, "FL", 0.0)
    d.add_new(0x70311003, "FL", sod)
    d.add_new(0x70311031, "FL", sdd)
    d.add_new(0x70311033, "FL", [(channels + 1) / 2.0, (rows + 1) / 2.0])
    d.add_new(0x70370010, "LO", "ProjectionDataDefinitions")
    d.add_new(0x70371009, "CS", "AXIAL")
    d.add_new(0x7037100A, "CS", "FANBEAM")
    if values is None:
        values = np.full((channels, rows), 100, dtype=np.uint16)
    d.PixelData = np.ascontiguousarray(values, dtype="<u2").tobytes()
    return d


def write_series(folder, instances, channels=8, views_per_turn=None, **kw):
    """Writes one file per entry of @instances into @folder (created);
    view k sits at beta = 2 pi k / views_per_turn (default: len(instances)).
    Returns the file names."""
    os.makedirs(folder, exist_ok=True)
    n = views_per_turn or len(instances)
    names = []
    for k, inst in enumerate(instances):
        beta = 2 * math.pi * k / n
        d = ctpd_dataset(inst, math.fmod(beta + math.pi, 2 * math.pi), channels=channels, **kw)
        name = f"view_{k:04d}.dcm"
        d.save_as(os.path.join(folder, name), write_like_original=False)
        names.append(name)
    return names
