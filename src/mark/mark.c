/* Mark events and appending them to a run directory (see mark.h). */
#include "mark/mark.h"

#include "events/events.h"
#include "record/eventlog.h"
#include "util/xalloc.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

gw_rc gw_mark_field(cJSON *fields, const char *key_value, gw_error *err)
{
    const char *eq = strchr(key_value, '=');
    if (!eq || eq == key_value)
        return gw_error_set(err, GW_E_USAGE,
                            "bad field '%s': give KEY=VALUE (e.g. --field epoch=3 --field "
                            "phase=warmup)",
                            key_value);
    char *key = xstrndup(key_value, (size_t)(eq - key_value));
    const char *value = eq + 1;
    char *end = NULL;
    errno = 0;
    double num = *value ? strtod(value, &end) : 0;
    cJSON_DeleteItemFromObjectCaseSensitive(fields, key); /* a repeated key: the last one wins */
    /* Decimal numbers only: "0x10", "inf" and "nan" stay text, as a person would read them. */
    bool decimal = *value && value[strspn(value, "0123456789+-.eE")] == '\0';
    if (decimal && end && *end == '\0' && errno == 0 && isfinite(num))
        cJSON_AddNumberToObject(fields, key, num);
    else if (strcmp(value, "true") == 0 || strcmp(value, "false") == 0)
        cJSON_AddBoolToObject(fields, key, value[0] == 't');
    else if (strcmp(value, "null") == 0)
        cJSON_AddNullToObject(fields, key);
    else
        cJSON_AddStringToObject(fields, key, value);
    free(key);
    return GW_OK;
}

cJSON *gw_mark_event(const char *text, cJSON *fields, long pid, int64_t wall_ms)
{
    cJSON *ev = gw_event_new("mark", wall_ms);
    cJSON_AddStringToObject(ev, "text", text);
    cJSON_AddItemToObject(ev, "fields", fields ? fields : cJSON_CreateObject());
    cJSON_AddNumberToObject(ev, "pid", (double)pid);
    return ev;
}

gw_rc gw_mark_append(const char *run_dir, const cJSON *event, bool *written, gw_error *err)
{
    *written = false;
    if (!run_dir || !*run_dir)
        return GW_OK;
    char *path = xasprintf("%s/events.jsonl", run_dir);
    gw_rc rc = GW_OK;
    /* gpuwatch creates events.jsonl when the run starts: without it this is no run (any more),
     * and a marker must not create files in whatever directory the variable names. */
    if (access(path, F_OK) == 0) {
        rc = gw_eventlog_append(path, event, err);
        *written = rc == GW_OK;
    }
    free(path);
    return rc;
}
