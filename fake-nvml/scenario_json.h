/*
 * scenario_json: strict, path-aware reading of a cJSON tree for scenario.c.
 *
 * Owns: the wording of scenario errors. Every reader takes the path of the object it reads from
 * ("devices[0].timeline[2]") and, on error, fills the reader's message with the full path of the
 * offending key, what was expected, what was found and how to fix it. Absent keys and JSON null
 * mean "not given"; the caller keeps its default.
 *
 * Must not: know the scenario's keys (scenario.c passes them in) or allocate anything but the
 * message.
 */
#ifndef FAKE_SCENARIO_JSON_H
#define FAKE_SCENARIO_JSON_H

#include "scenario.h"

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stddef.h>

/* Room for a path such as devices[12].mig.instances[3].memory_total_mib. */
enum { FJ_PATH_MAX = 256 };

typedef struct fj_reader {
    const char *file; /* the scenario path, named in every message */
    char *msg;        /* FAKE_MSG_MAX bytes */
} fj_reader;

/* Formats "FILE: <message>" into r->msg; always returns false so that readers can
 * `return fj_fail(...)`. */
bool fj_fail(const fj_reader *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* "devices" + "name" -> "devices.name"; "" + "devices" -> "devices". */
void fj_path_key(char out[FJ_PATH_MAX], const char *parent, const char *key);
/* "devices" + 2 -> "devices[2]" */
void fj_path_index(char out[FJ_PATH_MAX], const char *parent, size_t index);

/* Checks that v is an object whose keys are all in `allowed` (NULL-terminated) and appear once.
 * An unknown key is reported with its path and the nearest allowed key or the allowed list. */
bool fj_object(const fj_reader *r, const cJSON *v, const char *path, const char *const allowed[]);

/* The member `key` of obj, or NULL when it is absent or JSON null. */
const cJSON *fj_item(const cJSON *obj, const char *key);

/* Reads a number in [lo, hi] (and integral when `integer`). Absent or null leaves *out as it is
 * and *given (when not NULL) false. */
bool fj_number(const fj_reader *r, const cJSON *obj, const char *path, const char *key, double lo,
               double hi, bool integer, double *out, bool *given);

/* Reads a string; *out points into the cJSON tree. Absent or null leaves *out unchanged. */
bool fj_string(const fj_reader *r, const cJSON *obj, const char *path, const char *key,
               const char **out);

/* Reads true/false. Absent or null leaves *out unchanged. */
bool fj_bool(const fj_reader *r, const cJSON *obj, const char *path, const char *key, bool *out);

/* Reads an array; absent or null gives *out = NULL. */
bool fj_array(const fj_reader *r, const cJSON *obj, const char *path, const char *key,
              const cJSON **out);

/* "a string", "an object", ... for messages. */
const char *fj_type_name(const cJSON *v);

#endif
