/*
 * gw_json: the few cJSON helpers every JSON writer of gpuwatch needs, so that "absent" is written
 * the same way everywhere: null, never 0 or "".
 *
 * Must not: own any document; the caller builds and frees its cJSON objects.
 */
#ifndef GW_JSON_H
#define GW_JSON_H

#include "util/gw_file.h"

#include <cjson/cJSON.h>
#include <stdint.h>

/* Adds key: v rounded to `decimals` digits after the point (decimals < 0: as is), or key: null
 * when v is absent (NAN) or absurd (not finite, or beyond GW_FMT_MAX_ABS: gw_fmt.h). */
void gw_json_add_num(cJSON *o, const char *key, double v, int decimals);

/* Adds key: s, or key: null when s is NULL or empty. */
void gw_json_add_str(cJSON *o, const char *key, const char *s);

/* Adds key: the RFC 3339 UTC time of wall_ms (ms since the epoch), or key: null when wall_ms <= 0.
 */
void gw_json_add_time(cJSON *o, const char *key, int64_t wall_ms);

/* A new document of gpuwatch: schema_version (the schema of that kind), gpuwatch_version and,
 * unless NULL, kind ("fleet", "jobs"). */
cJSON *gw_json_doc(int schema_version, const char *kind);

/* Writes doc, indented, and a newline to out and commits it (gw_file_out_commit). */
GW_MUST_USE gw_rc gw_json_write_out(const cJSON *doc, gw_file_out *out, gw_error *err);
/* The same into path (gw_file_out_open_path: "-" is stdout). */
GW_MUST_USE gw_rc gw_json_write_path(const cJSON *doc, const char *path, gw_error *err);

#endif
