/* cli-methods.c — `ctrecon-cli methods`: the method table and the parameter
 * table (core/recon/ctr-recon-types.h, core/recon/ctr-params.h) as one JSON
 * object on stdout, the source every help text is made from:
 *
 *   {"methods": [{"name": "pwls", "label": "PWLS", "description": "...",
 *                 "iterative": true, "cone_beam": true,
 *                 "parameters": [{"name": "iterations", "type": "int",
 *                                 "min": 1, "max": 100000, "default": "12"}, ...]},
 *                ...]}
 *
 * "cone_beam": whether a circular cone beam takes the method
 * (ctr_method_fits_geometry).  "default" is the value as `reconstruct`
 * reads it (ctr_param_format); "choices" lists a choice's names.
 */
#include <stdio.h>

#include "cli-common.h"

static const char *
type_name (CtrParamType t)
{
  switch (t)
    {
    case CTR_PARAM_INT: return "int";
    case CTR_PARAM_DOUBLE: return "double";
    case CTR_PARAM_BOOL: return "bool";
    case CTR_PARAM_CHOICE: return "choice";
    }
  return "";
}

static void
add_parameter (JsonBuilder *b, const CtrParam *p, const CtrReconOptions *o)
{
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "name");
  json_builder_add_string_value (b, p->name);
  json_builder_set_member_name (b, "type");
  json_builder_add_string_value (b, type_name (p->type));
  if (p->type == CTR_PARAM_INT || p->type == CTR_PARAM_DOUBLE)
    {
      ctr_cli_json_number (b, "min", p->min);
      ctr_cli_json_number (b, "max", p->max);
      json_builder_set_member_name (b, "min_open");
      json_builder_add_boolean_value (b, p->min_open);
      json_builder_set_member_name (b, "max_open");
      json_builder_add_boolean_value (b, p->max_open);
    }
  if (p->type == CTR_PARAM_CHOICE)
    {
      json_builder_set_member_name (b, "choices");
      json_builder_begin_array (b);
      for (guint i = 0; p->choices[i] != NULL; i++)
        json_builder_add_string_value (b, p->choices[i]);
      json_builder_end_array (b);
    }
  g_autofree char *def = ctr_param_format (p, o);
  json_builder_set_member_name (b, "default");
  json_builder_add_string_value (b, def);
  json_builder_end_object (b);
}

int
ctr_cli_methods (int argc, char **argv)
{
  GOptionEntry entries[] = { { NULL } };
  g_autoptr (GOptionContext) ctx = g_option_context_new ("— the reconstruction methods and their parameters (JSON on stdout)");
  g_option_context_add_main_entries (ctx, entries, NULL);
  g_option_context_set_description (ctx,
      "The method table and the parameter table every help text and the window's method panel\n"
      "are made from: names, labels, ranges and each method's defaults.");
  if (!ctr_cli_parse (ctx, &argc, &argv))
    return 2;
  if (argc != 1)
    {
      fprintf (stderr, "ctrecon-cli methods: takes no arguments (got %d)\n", argc - 1);
      return 2;
    }
  CtrGeometry cone = { 0 };
  cone.beam = CTR_BEAM_CONE;
  guint n_params;
  const CtrParam *params = ctr_params_list (&n_params);
  g_autoptr (JsonBuilder) b = json_builder_new ();
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "methods");
  json_builder_begin_array (b);
  for (guint m = 0; m < CTR_N_METHODS; m++)
    {
      CtrReconOptions o;
      ctr_recon_options_init (&o, m);
      json_builder_begin_object (b);
      json_builder_set_member_name (b, "name");
      json_builder_add_string_value (b, ctr_method_name (m));
      json_builder_set_member_name (b, "label");
      json_builder_add_string_value (b, ctr_method_label (m));
      json_builder_set_member_name (b, "description");
      json_builder_add_string_value (b, ctr_method_description (m));
      json_builder_set_member_name (b, "iterative");
      json_builder_add_boolean_value (b, ctr_method_is_iterative (m));
      json_builder_set_member_name (b, "cone_beam");
      json_builder_add_boolean_value (b, ctr_method_fits_geometry (m, &cone));
      json_builder_set_member_name (b, "parameters");
      json_builder_begin_array (b);
      for (guint i = 0; i < n_params; i++)
        if (ctr_param_applies (&params[i], m))
          add_parameter (b, &params[i], &o);
      json_builder_end_array (b);
      json_builder_end_object (b);
    }
  json_builder_end_array (b);
  json_builder_end_object (b);
  g_autoptr (JsonGenerator) gen = json_generator_new ();
  g_autoptr (JsonNode) root = json_builder_get_root (b);
  json_generator_set_root (gen, root);
  json_generator_set_pretty (gen, TRUE);
  g_autofree char *text = json_generator_to_data (gen, NULL);
  printf ("%s\n", text);
  return 0;
}
