/* test-inputs.c — inputs checked against what they claim (issue 38): the
 * JSON reader's bounds, sizes in messages.  The CLI side is
 * tests/cli/test_inputs.py. */
#include "ctrecon.h"
#include "base/ctr-format.h"
#include "io/ctr-json.h"

#include <string.h>

static void
test_format_bytes (void)
{
  g_autofree char *small = ctr_format_bytes (11 * 1048576 + 1000);
  g_autofree char *tiny = ctr_format_bytes (512);
  g_autofree char *huge = ctr_format_bytes (G_MAXUINT64);
  g_assert_cmpstr (small, ==, "11.0\u00a0MiB");
  g_assert_nonnull (strstr (tiny, "512"));
  g_assert_cmpstr (huge, ==, "more than 16 EiB");
}

static void
test_json_bounds (void)
{
  g_autoptr (GError) error = NULL;
  /* 257 levels: refused before json-glib recurses; 256: parsed. */
  g_autoptr (GString) deep = g_string_new (NULL);
  for (guint i = 0; i < CTR_JSON_MAX_DEPTH; i++)
    g_string_append_c (deep, '[');
  for (guint i = 0; i < CTR_JSON_MAX_DEPTH; i++)
    g_string_append_c (deep, ']');
  g_autoptr (JsonParser) ok = ctr_json_parse (deep->str, -1, "t", &error);
  g_assert_no_error (error);
  g_string_prepend_c (deep, '[');
  g_string_append_c (deep, ']');
  g_autoptr (JsonParser) no = ctr_json_parse (deep->str, -1, "t", &error);
  g_assert_null (no);
  g_assert_error (error, CTR_ERROR, CTR_ERROR_FORMAT);
  g_assert_nonnull (strstr (error->message, "nested more than 256 deep"));
  g_clear_error (&error);

  /* Escaped quotes and brackets inside strings. */
  g_autoptr (JsonParser) str = ctr_json_parse ("{\"a\": \"\\\"[[[[\", \"b\": [1]}", -1, "t", &error);
  g_assert_no_error (error);

  g_autoptr (JsonParser) dup = ctr_json_parse ("{\"a\": 1,\n \"b\": {\"a\": 2},\n \"a\": 3}", -1, "t", &error);
  g_assert_null (dup);
  g_assert_nonnull (strstr (error->message, "“a” is given twice"));
  g_clear_error (&error);

  const char *wrapped[] = { "{\"views\": 18446744073709551688}", "{\"v\": [1, -9223372036854775809]}" };
  for (guint i = 0; i < G_N_ELEMENTS (wrapped); i++)
    {
      g_autoptr (JsonParser) w = ctr_json_parse (wrapped[i], -1, "t", &error);
      g_assert_null (w);
      g_assert_nonnull (strstr (error->message, "beyond the range of a 64-bit integer"));
      g_clear_error (&error);
    }
  g_autoptr (JsonParser) edge = ctr_json_parse ("[9223372036854775807, -9223372036854775808, 1e300, 0.5]", -1,
                                                "t", &error);
  g_assert_no_error (error);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/inputs/format-bytes", test_format_bytes);
  g_test_add_func ("/inputs/json-bounds", test_json_bounds);
  return g_test_run ();
}
