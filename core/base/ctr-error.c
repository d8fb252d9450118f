#include "base/ctr-error.h"

G_DEFINE_QUARK (ctr-error-quark, ctr_error)
