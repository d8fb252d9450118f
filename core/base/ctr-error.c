#include "base/ctr-error.h"

G_DEFINE_QUARK (ctr-error-quark, ctr_error)

gboolean
ctr_error_cpu_may_run_instead (const GError *e)
{
  return g_error_matches (e, CTR_ERROR, CTR_ERROR_BACKEND_UNAVAILABLE)
         || g_error_matches (e, CTR_ERROR, CTR_ERROR_OUT_OF_MEMORY);
}
