/* Event members for the job verdicts and markers, and the end of output.log (event_members.h). */
#include "logread/event_members.h"

#include "util/line_split.h"
#include "util/gw_buf.h"
#include "util/xalloc.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static double num_of(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}

static const char *str_of(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsString(v) ? v->valuestring : "";
}

/* "PID NAME STATE SYSCALL in WCHAN; ..." from a job_stalled alert's processes[]. */
static void processes_detail(gw_series_event *e, const cJSON *procs)
{
    gw_buf b = {0};
    const cJSON *p;
    cJSON_ArrayForEach(p, procs)
    {
        double pid = num_of(p, "pid");
        if (!(pid >= 0 && pid <= 1e9))
            continue;
        const char *sc = str_of(p, "syscall"), *wchan = str_of(p, "wchan");
        gw_buf_printf(&b, "%s%ld %s %s%s%s%s%s", b.len ? "; " : "", (long)pid, str_of(p, "name"),
                      str_of(p, "state"), *sc ? " " : "", sc, *wchan ? " in " : "", wchan);
    }
    gw_series_event_set(&e->detail, b.len ? b.data : "");
    gw_buf_free(&b);
}

static void mark_fields(gw_series_event *e, const cJSON *fields)
{
    const cJSON *f;
    cJSON_ArrayForEach(f, fields)
    {
        if (!f->string)
            continue;
        if (cJSON_IsNumber(f)) {
            gw_series_event_add_field(e, f->string, f->valuedouble, NULL);
        } else if (cJSON_IsBool(f)) {
            gw_series_event_add_field(e, f->string, NAN, cJSON_IsTrue(f) ? "true" : "false");
        } else if (cJSON_IsString(f)) {
            gw_series_event_add_field(e, f->string, NAN, f->valuestring);
        } else {
            char *text = cJSON_PrintUnformatted(f); /* null, arrays, objects: as JSON */
            gw_series_event_add_field(e, f->string, NAN, text ? text : "");
            cJSON_free(text);
        }
    }
}

void gw_logread_event_members(gw_series_event *e, const cJSON *o)
{
    if (strcmp(e->type, "alert") == 0 || strcmp(e->type, "alert_resolved") == 0) {
        gw_series_event_set(&e->rule, str_of(o, "rule"));
        e->value = num_of(o, "value");
        e->threshold = num_of(o, "threshold");
        const cJSON *procs = cJSON_GetObjectItemCaseSensitive(o, "processes");
        if (cJSON_IsArray(procs))
            processes_detail(e, procs);
        else
            gw_series_event_set(&e->detail, str_of(o, "reason"));
    } else if (strcmp(e->type, "job_exit") == 0) {
        double sig = num_of(o, "signal");
        e->signal = sig >= 1 && sig <= 128 ? (int)sig : 0;
        gw_series_event_set(&e->detail, str_of(o, "signal_name"));
    } else if (strcmp(e->type, "mark") == 0) {
        const cJSON *fields = cJSON_GetObjectItemCaseSensitive(o, "fields");
        if (cJSON_IsObject(fields))
            mark_fields(e, fields);
    }
}

/* The kept lines: a ring of the last GW_TAIL_MAX_LINES. */
typedef struct tail_lines {
    char *line[GW_TAIL_MAX_LINES];
    size_t n, next;
} tail_lines;

static void keep_line(void *ctx, const char *line, int64_t wall_ms)
{
    (void)wall_ms;
    tail_lines *t = ctx;
    free(t->line[t->next]);
    t->line[t->next] = xstrdup(line);
    t->next = (t->next + 1) % GW_TAIL_MAX_LINES;
    if (t->n < GW_TAIL_MAX_LINES)
        t->n++;
}

void gw_logread_output_tail(gw_series *s, const char *dir, size_t input, const char *source)
{
    char *path = xasprintf("%s/output.log", dir);
    FILE *f = fopen(path, "rb");
    free(path);
    if (!f)
        return;
    bool cut = fseek(f, -(long)GW_TAIL_MAX_BYTES, SEEK_END) == 0 && ftell(f) > 0;
    if (!cut)
        rewind(f);
    char *buf = xmalloc(GW_TAIL_MAX_BYTES);
    size_t n = fread(buf, 1, GW_TAIL_MAX_BYTES, f);
    fclose(f);
    size_t start = 0;
    if (cut) /* the first line is a piece of a longer one */
        while (start < n && buf[start] != '\n' && buf[start] != '\r')
            start++;
    tail_lines t = {0};
    gw_line_splitter ls = {.fn = keep_line, .ctx = &t};
    gw_line_splitter_feed(&ls, buf + start, n - start, 0);
    gw_line_splitter_finish(&ls, 0);
    free(buf);
    gw_buf text = {0};
    for (size_t i = 0; i < t.n; i++) {
        size_t k = (t.next + GW_TAIL_MAX_LINES - t.n + i) % GW_TAIL_MAX_LINES;
        gw_buf_printf(&text, "%s%s", i ? "\n" : "", t.line[k]);
    }
    for (size_t i = 0; i < GW_TAIL_MAX_LINES; i++)
        free(t.line[i]);
    if (t.n)
        gw_series_add_tail(s, input, source, text.data, t.n);
    gw_buf_free(&text);
}
