/* ctr-backend.c — the backend registry and the CPU backend (see
 * ctr-backend.h). */
#include "plan/ctr-backend.h"
#include "base/ctr-error.h"
#include "sysmat/ctr-scsr-op.h"

#include <string.h>

enum { MAX_BACKENDS = 8 };

/* Filled before main() (constructors) and read afterwards: no lock needed. */
static const CtrBackend *registry[MAX_BACKENDS];
static guint n_registered;

/* The names a build may know; the GPU ones are only registered with CUDA. */
static const char *const known_names[] = { "cpu", "cuda", "cusparse" };

static gboolean
cpu_available (const CtrBackend *self, char **reason)
{
  return TRUE;
}

static CtrOperator *
cpu_scsr_operator (const CtrBackend *self, CtrScsr *m, const CtrGeometry *g, const CtrGrid *grid,
                   GError **error)
{
  return ctr_scsr_op_new (m, g, grid, error);
}

static const CtrBackend cpu_backend = {
  .name = "cpu",
  .description = "CPU, OpenMP (SCSR orbit rows, CSR, cone beam on the fly)",
  .priority = 10,
  .available = cpu_available,
  .scsr_operator = cpu_scsr_operator,
};

const CtrBackend *
ctr_backend_cpu (void)
{
  return &cpu_backend;
}

static void
ensure_cpu (void)
{
  /* Once, thread-safe: the registry is only written before main() and here. */
  static gsize done = 0;
  if (g_once_init_enter (&done))
    {
      ctr_backend_register (&cpu_backend);
      g_once_init_leave (&done, 1);
    }
}

void
ctr_backend_register (const CtrBackend *b)
{
  if (b == NULL || b->name == NULL || b->available == NULL)
    return;
  for (guint i = 0; i < n_registered; i++)
    if (strcmp (registry[i]->name, b->name) == 0)
      return;
  if (n_registered == MAX_BACKENDS)
    return;
  /* Insert by falling priority. */
  guint at = n_registered;
  while (at > 0 && registry[at - 1]->priority < b->priority)
    {
      registry[at] = registry[at - 1];
      at--;
    }
  registry[at] = b;
  n_registered++;
}

const CtrBackend *const *
ctr_backend_list (guint *n_out)
{
  ensure_cpu ();
  if (n_out)
    *n_out = n_registered;
  return registry;
}

const char *
ctr_backend_known_names (void)
{
  return "cpu, cuda, cusparse";
}

const CtrBackend *
ctr_backend_best (void)
{
  ensure_cpu ();
  for (guint i = 0; i < n_registered; i++)
    if (registry[i]->available (registry[i], NULL))
      return registry[i];
  return &cpu_backend;
}

const CtrBackend *
ctr_backend_by_name (const char *name, GError **error)
{
  ensure_cpu ();
  gboolean known = FALSE;
  for (guint i = 0; i < G_N_ELEMENTS (known_names); i++)
    known |= name != NULL && strcmp (name, known_names[i]) == 0;
  if (!known)
    {
      g_set_error (error, CTR_ERROR, CTR_ERROR_INVALID_ARGUMENT,
                   "unknown backend '%s' (choose best, %s)", name ? name : "(null)",
                   ctr_backend_known_names ());
      return NULL;
    }
  for (guint i = 0; i < n_registered; i++)
    if (strcmp (registry[i]->name, name) == 0)
      {
        g_autofree char *reason = NULL;
        if (registry[i]->available (registry[i], &reason))
          return registry[i];
        g_set_error (error, CTR_ERROR, CTR_ERROR_BACKEND_UNAVAILABLE, "backend '%s' is unavailable: %s",
                     name, reason ? reason : "no reason given");
        return NULL;
      }
  g_set_error (error, CTR_ERROR, CTR_ERROR_BACKEND_UNAVAILABLE,
               "backend '%s' is unavailable: not built (this ctrecon was configured without CUDA: "
               "-Dcuda=disabled, or nvcc was not on PATH)", name);
  return NULL;
}

const CtrBackend *
ctr_backend_select (const char *name, char **note, GError **error)
{
  if (note)
    *note = NULL;
  if (name == NULL || strcmp (name, "best") == 0 || *name == '\0')
    {
      const CtrBackend *b = ctr_backend_best ();
      if (note && b == &cpu_backend)
        {
          /* Say why no GPU backend runs (the first GPU name that is not usable). */
          g_autoptr (GError) e = NULL;
          if (ctr_backend_by_name ("cuda", &e) == NULL && e != NULL)
            *note = g_strdup (e->message);
        }
      return b;
    }
  g_autoptr (GError) e = NULL;
  const CtrBackend *b = ctr_backend_by_name (name, &e);
  if (b != NULL)
    return b;
  if (g_error_matches (e, CTR_ERROR, CTR_ERROR_INVALID_ARGUMENT))
    {
      g_propagate_error (error, g_steal_pointer (&e));
      return NULL;
    }
  if (note)
    *note = g_strdup_printf ("%s; the CPU runs instead", e->message);
  return &cpu_backend;
}

/* FDK entry points by backend name (ctr_backend_register_fdk). */
static struct {
  const char *name;
  CtrBackendRunFdk fn;
} fdk_registry[MAX_BACKENDS];
static guint n_fdk;

void
ctr_backend_register_fdk (const char *name, CtrBackendRunFdk fn)
{
  if (name == NULL || fn == NULL || n_fdk == MAX_BACKENDS)
    return;
  for (guint i = 0; i < n_fdk; i++)
    if (strcmp (fdk_registry[i].name, name) == 0)
      return;
  fdk_registry[n_fdk].name = name;
  fdk_registry[n_fdk].fn = fn;
  n_fdk++;
}

CtrBackendRunFdk
ctr_backend_fdk (const CtrBackend *b)
{
  if (b == NULL)
    return NULL;
  for (guint i = 0; i < n_fdk; i++)
    if (strcmp (fdk_registry[i].name, b->name) == 0)
      return fdk_registry[i].fn;
  return NULL;
}

/* Cone-beam operators by backend name (ctr_backend_register_cone). */
static struct {
  const char *name;
  CtrBackendConeOperator fn;
} cone_registry[MAX_BACKENDS];
static guint n_cone;

void
ctr_backend_register_cone (const char *name, CtrBackendConeOperator fn)
{
  if (name == NULL || fn == NULL || n_cone == MAX_BACKENDS)
    return;
  for (guint i = 0; i < n_cone; i++)
    if (strcmp (cone_registry[i].name, name) == 0)
      return;
  cone_registry[n_cone].name = name;
  cone_registry[n_cone].fn = fn;
  n_cone++;
}

CtrBackendConeOperator
ctr_backend_cone (const CtrBackend *b)
{
  if (b == NULL)
    return NULL;
  for (guint i = 0; i < n_cone; i++)
    if (strcmp (cone_registry[i].name, b->name) == 0)
      return cone_registry[i].fn;
  return NULL;
}

/* Cone-beam memory plans by backend name (ctr_backend_register_cone_memory). */
static struct {
  const char *name;
  CtrBackendConeMemory fn;
} cone_memory_registry[MAX_BACKENDS];
static guint n_cone_memory;

void
ctr_backend_register_cone_memory (const char *name, CtrBackendConeMemory fn)
{
  if (name == NULL || fn == NULL || n_cone_memory == MAX_BACKENDS)
    return;
  for (guint i = 0; i < n_cone_memory; i++)
    if (strcmp (cone_memory_registry[i].name, name) == 0)
      return;
  cone_memory_registry[n_cone_memory].name = name;
  cone_memory_registry[n_cone_memory].fn = fn;
  n_cone_memory++;
}

CtrBackendConeMemory
ctr_backend_cone_memory (const CtrBackend *b)
{
  if (b == NULL)
    return NULL;
  for (guint i = 0; i < n_cone_memory; i++)
    if (strcmp (cone_memory_registry[i].name, b->name) == 0)
      return cone_memory_registry[i].fn;
  return NULL;
}

/* On-the-fly operators and their memory plans by backend name
 * (ctr_backend_register_fly). */
static struct {
  const char *name;
  CtrBackendFlyOperator fn;
  CtrBackendFlyMemory memory;
} fly_registry[MAX_BACKENDS];
static guint n_fly;

void
ctr_backend_register_fly (const char *name, CtrBackendFlyOperator fn, CtrBackendFlyMemory memory)
{
  if (name == NULL || fn == NULL || n_fly == MAX_BACKENDS)
    return;
  for (guint i = 0; i < n_fly; i++)
    if (strcmp (fly_registry[i].name, name) == 0)
      return;
  fly_registry[n_fly].name = name;
  fly_registry[n_fly].fn = fn;
  fly_registry[n_fly].memory = memory;
  n_fly++;
}

static gint
fly_index (const CtrBackend *b)
{
  for (guint i = 0; b != NULL && i < n_fly; i++)
    if (strcmp (fly_registry[i].name, b->name) == 0)
      return (gint) i;
  return -1;
}

CtrBackendFlyOperator
ctr_backend_fly (const CtrBackend *b)
{
  const gint i = fly_index (b);
  return i < 0 ? NULL : fly_registry[i].fn;
}

CtrBackendFlyMemory
ctr_backend_fly_memory (const CtrBackend *b)
{
  const gint i = fly_index (b);
  return i < 0 ? NULL : fly_registry[i].memory;
}
