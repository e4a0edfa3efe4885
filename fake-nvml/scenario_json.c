/* Strict JSON readers with key paths; see scenario_json.h. */
#include "scenario_json.h"

#include "util/gw_strdist.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#define FJ_FIX "see docs/fake-nvml.md for the scenario format"

bool fj_fail(const fj_reader *r, const char *fmt, ...)
{
    int n = snprintf(r->msg, FAKE_MSG_MAX, "%s: ", r->file);
    if (n < 0 || n >= FAKE_MSG_MAX)
        n = 0;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->msg + n, (size_t)(FAKE_MSG_MAX - n), fmt, ap);
    va_end(ap);
    return false;
}

void fj_path_key(char out[FJ_PATH_MAX], const char *parent, const char *key)
{
    snprintf(out, FJ_PATH_MAX, "%s%s%s", parent, *parent ? "." : "", key);
}

void fj_path_index(char out[FJ_PATH_MAX], const char *parent, size_t index)
{
    snprintf(out, FJ_PATH_MAX, "%s[%zu]", parent, index);
}

const char *fj_type_name(const cJSON *v)
{
    if (cJSON_IsString(v))
        return "a string";
    if (cJSON_IsNumber(v))
        return "a number";
    if (cJSON_IsBool(v))
        return "a boolean";
    if (cJSON_IsArray(v))
        return "an array";
    if (cJSON_IsObject(v))
        return "an object";
    if (cJSON_IsNull(v))
        return "null";
    return "an invalid value";
}

static bool unknown_key(const fj_reader *r, const char *path, const char *key,
                        const char *const allowed[])
{
    char full[FJ_PATH_MAX];
    fj_path_key(full, path, key);
    const char *nearest = NULL;
    int best = 3;
    for (size_t i = 0; allowed[i]; i++) {
        int d = gw_edit_distance(key, allowed[i], 3); /* enough for "temp_c" vs "tmep_c" */
        if (d < best) {
            best = d;
            nearest = allowed[i];
        }
    }
    if (nearest)
        return fj_fail(r, "unknown key %s: did you mean \"%s\"? (%s)", full, nearest, FJ_FIX);
    char list[FAKE_MSG_MAX / 2] = "";
    size_t used = 0;
    for (size_t i = 0; allowed[i] && used < sizeof list; i++) {
        int n = snprintf(list + used, sizeof list - used, "%s%s", i ? ", " : "", allowed[i]);
        if (n < 0)
            break;
        used += (size_t)n;
    }
    return fj_fail(r, "unknown key %s: the keys allowed here are %s (%s)", full, list, FJ_FIX);
}

bool fj_object(const fj_reader *r, const cJSON *v, const char *path, const char *const allowed[])
{
    if (!cJSON_IsObject(v))
        return fj_fail(r, "%s must be an object, not %s (%s)", *path ? path : "the document",
                       fj_type_name(v), FJ_FIX);
    for (const cJSON *c = v->child; c; c = c->next) {
        bool known = false;
        for (size_t i = 0; allowed[i] && !known; i++)
            known = strcmp(c->string, allowed[i]) == 0;
        if (!known)
            return unknown_key(r, path, c->string, allowed);
        /* cJSON keeps both copies of a repeated key; which one a reader gets is an accident. */
        for (const cJSON *d = v->child; d != c; d = d->next) {
            if (strcmp(d->string, c->string) == 0) {
                char full[FJ_PATH_MAX];
                fj_path_key(full, path, c->string);
                return fj_fail(r, "key %s appears twice: keep one", full);
            }
        }
    }
    return true;
}

const cJSON *fj_item(const cJSON *obj, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    return cJSON_IsNull(v) ? NULL : v;
}

bool fj_number(const fj_reader *r, const cJSON *obj, const char *path, const char *key, double lo,
               double hi, bool integer, double *out, bool *given)
{
    const cJSON *v = fj_item(obj, key);
    if (given)
        *given = v != NULL;
    if (!v)
        return true;
    double x = cJSON_IsNumber(v) ? v->valuedouble : NAN;
    if (isfinite(x) && x >= lo && x <= hi && (!integer || x == floor(x))) {
        *out = x;
        return true;
    }
    char full[FJ_PATH_MAX];
    fj_path_key(full, path, key);
    const char *kind = integer ? "an integer" : "a number";
    if (!cJSON_IsNumber(v))
        return fj_fail(r, "%s must be %s from %.15g to %.15g, not %s (%s)", full, kind, lo, hi,
                       fj_type_name(v), FJ_FIX);
    return fj_fail(r, "%s must be %s from %.15g to %.15g, not %.15g", full, kind, lo, hi, x);
}

static bool wrong_type(const fj_reader *r, const char *path, const char *key, const char *want,
                       const cJSON *v)
{
    char full[FJ_PATH_MAX];
    fj_path_key(full, path, key);
    return fj_fail(r, "%s must be %s, not %s (%s)", full, want, fj_type_name(v), FJ_FIX);
}

bool fj_string(const fj_reader *r, const cJSON *obj, const char *path, const char *key,
               const char **out)
{
    const cJSON *v = fj_item(obj, key);
    if (!v)
        return true;
    if (!cJSON_IsString(v))
        return wrong_type(r, path, key, "a string", v);
    *out = v->valuestring;
    return true;
}

bool fj_bool(const fj_reader *r, const cJSON *obj, const char *path, const char *key, bool *out)
{
    const cJSON *v = fj_item(obj, key);
    if (!v)
        return true;
    if (!cJSON_IsBool(v))
        return wrong_type(r, path, key, "true or false", v);
    *out = cJSON_IsTrue(v);
    return true;
}

bool fj_array(const fj_reader *r, const cJSON *obj, const char *path, const char *key,
              const cJSON **out)
{
    const cJSON *v = fj_item(obj, key);
    *out = NULL;
    if (!v)
        return true;
    if (!cJSON_IsArray(v))
        return wrong_type(r, path, key, "an array", v);
    *out = v;
    return true;
}
