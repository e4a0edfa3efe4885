/* The first screen of the text report (text_priv.h): what was found and what to try, evidence
 * later in the report. */
#include "report/report.h"
#include "report/text_priv.h"

#include "util/gw_buf.h"
#include "util/xalloc.h"

#include <stdlib.h>
#include <string.h>

static bool same_block(const gw_verdict *a, const gw_verdict *b)
{
    return a->id == b->id && a->severity == b->severity && a->gpu >= 0 && b->gpu >= 0 &&
           strcmp(a->cause ? a->cause : "", b->cause ? b->cause : "") == 0;
}

char *gw_report_gpu_group(const gw_analysis *a, const gw_verdict *const *v, size_t n)
{
    gw_buf b = {NULL, 0, 0};
    if (n == 1 || a->series->several_sources) {
        for (size_t i = 0; i < n; i++) {
            char *l = v[i]->gpu < 0 ? xstrdup("job")
                                    : gw_series_gpu_label(a->series, a->series->gpus[v[i]->gpu]);
            gw_buf_printf(&b, "%s%s", i ? ", " : "", l);
            free(l);
        }
        return b.data ? b.data : xstrdup("");
    }
    /* one source: "GPUs 0-3, 6" from the NVML indexes, runs of consecutive ones joined */
    int *ix = xcalloc(n, sizeof *ix);
    for (size_t i = 0; i < n; i++)
        ix[i] = a->series->gpus[v[i]->gpu]->index;
    for (size_t i = 1; i < n; i++) /* few GPUs: insertion sort */
        for (size_t k = i; k > 0 && ix[k - 1] > ix[k]; k--) {
            int t = ix[k];
            ix[k] = ix[k - 1], ix[k - 1] = t;
        }
    gw_buf_puts(&b, "GPUs ");
    for (size_t i = 0; i < n;) {
        size_t j = i;
        while (j + 1 < n && ix[j + 1] == ix[j] + 1)
            j++;
        if (j > i + 1)
            gw_buf_printf(&b, "%s%d-%d", i ? ", " : "", ix[i], ix[j]);
        else if (j == i + 1)
            gw_buf_printf(&b, "%s%d, %d", i ? ", " : "", ix[i], ix[j]);
        else
            gw_buf_printf(&b, "%s%d", i ? ", " : "", ix[i]);
        i = j + 1;
    }
    free(ix);
    return b.data;
}

void gw_report_findings_text(FILE *out, const gw_analysis *a, bool color)
{
    fprintf(out, "\nVerdicts\n");
    if (a->verdicts.n == 0) {
        fprintf(out, "  none: %s\n", gw_report_no_verdict_reason(a));
        return;
    }
    bool *done = xcalloc(a->verdicts.n, sizeof *done);
    const gw_verdict **group = xcalloc(a->verdicts.n, sizeof *group);
    for (size_t i = 0; i < a->verdicts.n; i++) {
        if (done[i])
            continue;
        const gw_verdict *v = &a->verdicts.v[i];
        size_t n = 0;
        for (size_t k = i; k < a->verdicts.n; k++)
            if (!done[k] && (k == i || same_block(v, &a->verdicts.v[k]))) {
                group[n++] = &a->verdicts.v[k];
                done[k] = true;
            }
        char *who = gw_report_gpu_group(a, group, n);
        fprintf(out, "%s%-8s%s  %s  %s\n", color ? gw_text_sev_color(v->severity) : "",
                gw_severity_name(v->severity), color ? "\033[0m" : "", gw_verdict_name(v->id), who);
        free(who);
        if (n > 1) {
            char *first = gw_series_gpu_label(a->series, a->series->gpus[v->gpu]);
            fprintf(out, "  %s (the others' numbers under Evidence): %s\n", first, v->message);
            free(first);
        } else {
            fprintf(out, "  %s\n", v->message);
        }
        if (v->suggestion && *v->suggestion)
            fprintf(out, "  try: %s\n", v->suggestion);
    }
    free(group);
    free(done);
}
