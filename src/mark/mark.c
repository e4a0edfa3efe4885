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

gw_rc gw_mark_field(gw_event_fields *fields, const char *key_value, gw_error *err)
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
    /* a repeated key: the last one wins. Decimal numbers only: "0x10", "inf" and "nan" stay
     * text, as a person would read them. */
    bool decimal = *value && value[strspn(value, "0123456789+-.eE")] == '\0';
    if (decimal && end && *end == '\0' && errno == 0 && isfinite(num))
        gw_event_fields_put(fields, key, GW_EVV_NUMBER, num, false, NULL);
    else if (strcmp(value, "true") == 0 || strcmp(value, "false") == 0)
        gw_event_fields_put(fields, key, GW_EVV_BOOL, 0, value[0] == 't', NULL);
    else if (strcmp(value, "null") == 0)
        gw_event_fields_put(fields, key, GW_EVV_NULL, 0, false, NULL);
    else
        gw_event_fields_put(fields, key, GW_EVV_STRING, 0, false, value);
    free(key);
    return GW_OK;
}

gw_event gw_mark_event(const char *text, const gw_event_fields *fields, long pid, int64_t wall_ms)
{
    gw_event ev = gw_event_make(GW_EV_MARK, wall_ms);
    ev.mark.text = text;
    ev.mark.fields = fields ? fields->items : NULL;
    ev.mark.nfields = fields ? fields->n : 0;
    ev.mark.pid = pid;
    return ev;
}

gw_rc gw_mark_append(const char *run_dir, const gw_event *event, bool *written, gw_error *err)
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
