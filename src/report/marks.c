/* The markers of a job in the text report and summary.json (see report.h). */
#include "report/report.h"
#include "report/html_priv.h"

#include "util/gw_buf.h"
#include "util/gw_fmt.h"
#include "util/gw_json.h"
#include "util/gw_time.h"
#include "util/xalloc.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum {
    MARKS_LISTED_PER_TEXT = 10, /* a text marked more often is summarised in one line */
    MARKS_JSON_MAX = 1000,      /* summary.json lists at most this many */
};

static bool is_mark(const gw_series_event *e)
{
    return e->kind == GW_EV_MARK;
}

static size_t count_text(const gw_series *s, const char *text)
{
    size_t n = 0;
    for (size_t i = 0; i < s->nevents; i++)
        n += is_mark(&s->events[i]) && strcmp(s->events[i].text, text) == 0;
    return n;
}

static void fields_text(gw_buf *b, const gw_series_event *e)
{
    for (size_t f = 0; f < e->nfields; f++) {
        const gw_series_field *x = &e->fields[f];
        if (x->text)
            gw_buf_printf(b, "%s%s=%s", f ? " " : "", x->key, x->text);
        else {
            gw_buf_printf(b, "%s%s=", f ? " " : "", x->key);
            gw_fmt_buf_sig(b, x->num, 6, "");
        }
    }
}

/* One line for a text marked many times: how often, from when to when, how regularly. */
static void summary_line(FILE *out, const gw_analysis *a, const char *text, size_t n)
{
    const gw_series *s = a->series;
    int64_t first = 0, last = 0;
    for (size_t i = 0; i < s->nevents; i++)
        if (is_mark(&s->events[i]) && strcmp(s->events[i].text, text) == 0) {
            if (!first)
                first = s->events[i].t_ms;
            last = s->events[i].t_ms;
        }
    fprintf(out, "  %-20s %zu marks from +%s s to +%s s (every %s s on average)\n", text, n,
            GW_FIXED((double)(first - a->start_ms) / 1000.0, 1),
            GW_FIXED((double)(last - a->start_ms) / 1000.0, 1),
            GW_FIXED((double)(last - first) / 1000.0 / (double)(n - 1), 2));
}

void gw_report_marks_text(FILE *out, const gw_analysis *a)
{
    const gw_series *s = a->series;
    size_t total = 0;
    for (size_t i = 0; i < s->nevents; i++)
        total += is_mark(&s->events[i]);
    if (total == 0)
        return;
    fprintf(out, "\nMarks (%zu)\n  %-25s %9s  %-20s %s\n", total, "time", "+s", "text", "fields");
    gw_buf b = {0};
    for (size_t i = 0; i < s->nevents; i++) {
        const gw_series_event *e = &s->events[i];
        if (!is_mark(e) || count_text(s, e->text) > MARKS_LISTED_PER_TEXT)
            continue;
        char ts[GW_RFC3339_LEN];
        gw_buf_reset(&b);
        fields_text(&b, e);
        fprintf(out, "  %-25s %9s  ", gw_rfc3339_ms(e->t_ms, ts),
                GW_FIXED((double)(e->t_ms - a->start_ms) / 1000.0, 1));
        if (b.len)
            fprintf(out, "%-20s %s\n", e->text, b.data);
        else
            fprintf(out, "%s\n", e->text);
    }
    gw_buf_free(&b);
    /* Texts marked often, once each, in the order of their first mark. */
    for (size_t i = 0; i < s->nevents; i++) {
        const gw_series_event *e = &s->events[i];
        size_t n = is_mark(e) ? count_text(s, e->text) : 0;
        bool first = true;
        for (size_t k = 0; k < i && first; k++)
            first = !(is_mark(&s->events[k]) && strcmp(s->events[k].text, e->text) == 0);
        if (n > MARKS_LISTED_PER_TEXT && first)
            summary_line(out, a, e->text, n);
    }
}

static cJSON *mark_json(const gw_series *s, const gw_series_event *e)
{
    cJSON *o = cJSON_CreateObject();
    char ts[GW_RFC3339_LEN];
    cJSON_AddStringToObject(o, "time", gw_rfc3339_ms(e->t_ms, ts));
    cJSON_AddStringToObject(o, "source", s->inputs[e->input].source);
    cJSON_AddStringToObject(o, "text", e->text);
    cJSON *fields = cJSON_AddObjectToObject(o, "fields");
    for (size_t f = 0; f < e->nfields; f++) {
        const gw_series_field *x = &e->fields[f];
        if (x->text)
            cJSON_AddStringToObject(fields, x->key, x->text);
        else /* null when absent or absurd (1e308 from `gpuwatch mark -f n=1e308`) */
            gw_json_add_num(fields, x->key, x->num, -1);
    }
    return o;
}

void gw_report_marks_json(cJSON *root, const gw_analysis *a)
{
    const gw_series *s = a->series;
    cJSON *arr = cJSON_AddArrayToObject(root, "marks");
    size_t total = 0;
    for (size_t i = 0; i < s->nevents; i++) {
        if (!is_mark(&s->events[i]))
            continue;
        if (total++ < MARKS_JSON_MAX)
            cJSON_AddItemToArray(arr, mark_json(s, &s->events[i]));
    }
    cJSON_AddNumberToObject(root, "marks_total", (double)total);
}

void gw_report_marks_chart_json(gw_buf *b, const gw_analysis *a)
{
    const gw_series *s = a->series;
    size_t n = 0;
    gw_buf_puts(b, ",\"marks\":[");
    for (size_t i = 0; i < s->nevents && n < GW_HTML_MAX_MARKS; i++) {
        const gw_series_event *e = &s->events[i];
        if (!is_mark(e) || count_text(s, e->text) > MARKS_LISTED_PER_TEXT ||
            (a->epoch_origin == GW_EPOCHS_MARKS && strcmp(e->text, "epoch") == 0))
            continue; /* epoch marks are the charts' epoch lines already */
        gw_buf_printf(b, "%s{\"t\":%s,\"label\":", n++ ? "," : "",
                      GW_FIXED((double)e->t_ms / 1000.0, 3));
        gw_html_json_str(b, e->text);
        gw_buf_puts(b, "}");
    }
    gw_buf_puts(b, "]");
}
