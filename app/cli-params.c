/* cli-params.c — options from the parameter table (see cli-params.h). */
#include <stdio.h>

#include "cli-params.h"

/* Short options kept from the first CLI. */
static const struct {
  const char *name;
  char short_name;
} shorts[] = { { "iterations", 'n' }, { "relaxation", 'l' }, { "window", 'w' } };

struct _CtrCliParams {
  GArray *params;         /* const CtrParam * */
  char **values;          /* one per param, as given (or NULL) */
  GOptionEntry *entries;  /* NULL-terminated */
  GPtrArray *strings;     /* descriptions and argument names the entries point at */
};

static void
describe_one (GString *s, const CtrParam *p)
{
  g_string_append (s, p->description);
  switch (p->type)
    {
    case CTR_PARAM_CHOICE:
      {
        g_autofree char *names = g_strjoinv (", ", (char **) p->choices);
        g_string_append_printf (s, ": %s", names);
        break;
      }
    case CTR_PARAM_BOOL:
      g_string_append (s, " (yes or no)");
      break;
    case CTR_PARAM_INT:
    case CTR_PARAM_DOUBLE:
      break;
    }
}

/* "; default 10 (art, part, sart), 100 (sirt)": @p's default for every
 * method it applies to, from ctr_recon_options_init (grouped by value). */
static void
describe_defaults (GString *s, const CtrParam *p)
{
  char *texts[CTR_N_METHODS] = { NULL };
  guint done = 0, groups = 0;
  for (guint m = 0; m < CTR_N_METHODS; m++)
    if (ctr_param_applies (p, m))
      {
        CtrReconOptions o;
        ctr_recon_options_init (&o, m);
        char buf[G_ASCII_DTOSTR_BUF_SIZE];
        /* Doubles as a person reads them (1.9, not 1.8999999999999999). */
        texts[m] = p->type == CTR_PARAM_DOUBLE
                     ? g_strdup (g_ascii_formatd (buf, sizeof buf, "%g", ctr_param_get (p, &o)))
                     : ctr_param_format (p, &o);
      }
  g_string_append (s, "; default ");
  for (guint m = 0; m < CTR_N_METHODS; m++)
    {
      if (texts[m] == NULL || (done & (1u << m)) != 0)
        continue;
      guint mask = 0;
      for (guint k = m; k < CTR_N_METHODS; k++)
        if (texts[k] != NULL && g_str_equal (texts[k], texts[m]))
          mask |= 1u << k;
      done |= mask;
      g_string_append_printf (s, "%s%s", groups++ > 0 ? ", " : "", texts[m]);
      if (mask != p->methods)
        {
          g_autofree char *names = ctr_method_names_joined (mask, "and");
          g_string_append_printf (s, " (%s)", names);
        }
    }
  for (guint m = 0; m < CTR_N_METHODS; m++)
    g_free (texts[m]);
}

/* The description of every parameter called @p->name, by method, with its
 * defaults. */
static char *
describe (const CtrParam *p)
{
  GString *s = g_string_new (NULL);
  guint n, count = 0;
  const CtrParam *all = ctr_params_list (&n);
  for (guint i = 0; i < n; i++)
    count += g_str_equal (all[i].name, p->name);
  for (guint i = 0; i < n; i++)
    if (g_str_equal (all[i].name, p->name))
      {
        if (s->len > 0)
          g_string_append (s, ". ");
        if (count > 1)
          {
            g_string_append (s, "[");
            for (guint m = 0, first = 1; m < CTR_N_METHODS; m++)
              if (ctr_param_applies (&all[i], m))
                {
                  g_string_append_printf (s, "%s%s", first ? "" : ", ", ctr_method_name (m));
                  first = 0;
                }
            g_string_append (s, "] ");
          }
        describe_one (s, &all[i]);
        describe_defaults (s, &all[i]);
      }
  return g_string_free (s, FALSE);
}

CtrCliParams *
ctr_cli_params_new (const char *const *only)
{
  CtrCliParams *cp = g_new0 (CtrCliParams, 1);
  cp->params = g_array_new (FALSE, FALSE, sizeof (const CtrParam *));
  cp->strings = g_ptr_array_new_with_free_func (g_free);
  guint n;
  const CtrParam *all = ctr_params_list (&n);
  /* One option per name (a name may stand for different parameters of
   * different methods: ctr_param_find_for picks the method's when applied). */
  for (guint i = 0; i < n; i++)
    if ((only == NULL || g_strv_contains (only, all[i].name)) && ctr_param_find (all[i].name) == &all[i])
      {
        const CtrParam *p = &all[i];
        g_array_append_val (cp->params, p);
      }
  cp->values = g_new0 (char *, cp->params->len + 1);
  cp->entries = g_new0 (GOptionEntry, cp->params->len + 1);
  for (guint i = 0; i < cp->params->len; i++)
    {
      const CtrParam *p = g_array_index (cp->params, const CtrParam *, i);
      GOptionEntry *e = &cp->entries[i];
      e->long_name = p->name;
      for (guint k = 0; k < G_N_ELEMENTS (shorts); k++)
        if (g_str_equal (shorts[k].name, p->name))
          e->short_name = shorts[k].short_name;
      e->arg = G_OPTION_ARG_STRING;
      e->arg_data = &cp->values[i];
      char *desc = describe (p), *arg = g_ascii_strup (p->name, -1);
      g_ptr_array_add (cp->strings, desc);
      g_ptr_array_add (cp->strings, arg);
      e->description = desc;
      e->arg_description = arg;
    }
  return cp;
}

void
ctr_cli_params_free (CtrCliParams *cp)
{
  if (cp == NULL)
    return;
  /* Not g_strfreev: an option not given leaves a NULL before the values
   * of later ones, which it would never reach (a leak per option given). */
  for (guint i = 0; i < cp->params->len; i++)
    g_free (cp->values[i]);
  g_free (cp->values);
  g_array_unref (cp->params);
  g_free (cp->entries);
  g_ptr_array_unref (cp->strings);
  g_free (cp);
}

const GOptionEntry *
ctr_cli_params_entries (CtrCliParams *cp)
{
  return cp->entries;
}

gboolean
ctr_cli_params_apply (CtrCliParams *cp, CtrReconOptions *o, const char *command)
{
  for (guint i = 0; i < cp->params->len; i++)
    {
      if (cp->values[i] == NULL)
        continue;
      const CtrParam *p = ctr_param_find_for (g_array_index (cp->params, const CtrParam *, i)->name, o->method);
      g_autoptr (GError) error = NULL;
      if (!ctr_param_parse (p, o, cp->values[i], &error))
        {
          fprintf (stderr, "ctrecon-cli %s: --%s: %s\n", command, p->name, error->message);
          return FALSE;
        }
    }
  return TRUE;
}
