/* ctr-dicom-private.h — shared between the DICOM readers of core/io (not public). */
#pragma once

#include "io/ctr-dicom.h"
#include "io/ctr-dicom-shim.h"

G_BEGIN_DECLS

/* Private Creator values of the DICOM-CT-PD modules (dictionary v8). */
#define CTPD_CREATOR_DETECTOR_ARRANGEMENT "DetectorSystemArrangementModule"
#define CTPD_CREATOR_DETECTOR_DYNAMICS "DetectorDynamicsModule"
#define CTPD_CREATOR_SOURCE_DYNAMICS "SourceDynamicsModule"
#define CTPD_CREATOR_DEFINITIONS "ProjectionDataDefinitions"
#define CTPD_CREATOR_PREPROCESSING "PreprocessingFlagsModule"

/* What a loaded file holds. */
CtrDicomKind ctr_dicom_classify (CtrDcm *d);

G_END_DECLS
