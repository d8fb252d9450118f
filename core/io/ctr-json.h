/* ctr-json.h — the one way core reads JSON (geometry.json, STUDY.json, ASTRA
 * proj_geom, the session's drafts): json-glib behind two checks of what the
 * text claims to be.
 *
 *  - Nesting deeper than CTR_JSON_MAX_DEPTH brackets is refused before the
 *    parser sees the text: json-glib descends recursively, and ~100,000 nested
 *    brackets (200 KB) overflow the stack.  The bound is found by one scan of
 *    the brackets outside strings.
 *  - An integer beyond the 64-bit range is refused with its key and line:
 *    json-glib wraps it silently (18446744073709551688 reads as -1).
 *  - A key given twice in one object is refused (json-glib keeps the last one
 *    silently), with the key and its line.
 */
#pragma once

#include <glib.h>
#include <json-glib/json-glib.h>

G_BEGIN_DECLS

/* The deepest nesting of objects and arrays accepted; our files use < 10. */
#define CTR_JSON_MAX_DEPTH 256

/**
 * ctr_json_parse:
 * @text: JSON text of @length bytes (-1: NUL-terminated).
 * @where: names the source in messages (a path, "geometry text").
 *
 * Returns: (transfer full): the parser holding the document, or NULL with
 *   CTR_ERROR_FORMAT "WHERE: not valid JSON: …" (a syntax error; nesting
 *   deeper than CTR_JSON_MAX_DEPTH, with the line; a key given twice in one
 *   object, with the key and the line of its second occurrence), or
 *   "WHERE: line L, the key “K”: the number N is beyond the range of a
 *   64-bit integer".
 */
JsonParser *ctr_json_parse (const char *text, gssize length, const char *where, GError **error);

/**
 * ctr_json_parse_file:
 * Reads @path (a regular file) and parses it as ctr_json_parse(), @path
 * naming it in messages.
 * Returns: (transfer full): the parser, or NULL with CTR_ERROR_IO (missing,
 *   unreadable, not a regular file) or ctr_json_parse()'s errors.
 */
JsonParser *ctr_json_parse_file (const char *path, GError **error);

G_END_DECLS
