/* compare: the text form (compare.h), every line within the width it is given. */
#include "report/compare.h"

#include "util/gw_fmt.h"

#include <math.h>
#include <string.h>

/* Differences whose noise is unknown are listed from this relative size. */
#define UNJUDGED_SHOWN 0.05

enum { LABEL_W = 20, VALUE_W = 13, RATIO_W = 9 };

static char letter(size_t i)
{
    return i < 26 ? (char)('A' + i) : '?';
}

/* "2.47 ±5.2%": the value and its spread, or "-" when unknown. */
static const char *cell(const gw_cmp_run *r, gw_cmp_metric m, int dec, int sdec, char *buf,
                        size_t size)
{
    char v[GW_FMT_SIZE];
    gw_fmt_fixed(v, sizeof v, r->value[m], dec, 0, "-");
    if (!isfinite(r->value[m]) || !isfinite(r->spread[m])) {
        snprintf(buf, size, "%s", v);
    } else {
        char s[GW_FMT_SIZE];
        snprintf(buf, size, "%s ±%s%%", v,
                 gw_fmt_fixed(s, sizeof s, r->spread[m] * 100, sdec, 0, "-"));
    }
    return buf;
}

/* "1.44x*": the ratio with its mark (* beyond the noise, ~ within it, ? noise unknown). */
static const char *ratio_cell(gw_cmp_diff d, char *buf, size_t size)
{
    char v[GW_FMT_SIZE];
    if (!isfinite(d.ratio))
        return snprintf(buf, size, "-"), buf;
    snprintf(buf, size, "%sx%c", gw_fmt_fixed(v, sizeof v, d.ratio, 2, 0, "-"),
             d.beyond > 0    ? '*'
             : d.beyond == 0 ? '~'
                             : '?');
    return buf;
}

static void header_row(FILE *out, const gw_cmp *c, bool values, bool ratios)
{
    fprintf(out, "%-*s", LABEL_W, "");
    if (values)
        for (size_t i = 0; i < c->nruns; i++)
            fprintf(out, "%*c", VALUE_W, letter(i));
    if (ratios)
        for (size_t i = 1; i < c->nruns; i++)
            fprintf(out, "%*s%c/A", RATIO_W - 2, "", letter(i));
    fputc('\n', out);
}

static void table(FILE *out, const gw_cmp *c, bool values, bool ratios)
{
    header_row(out, c, values, ratios);
    for (int m = 0; m < GW_CMP_COUNT; m++) {
        char buf[64];
        int dec, sdec;
        gw_cmp_row_decimals(c, m, &dec, &sdec);
        fprintf(out, "%-*s", LABEL_W, gw_cmp_metrics[m].label);
        if (values)
            for (size_t i = 0; i < c->nruns; i++) {
                cell(&c->runs[i], m, dec, sdec, buf, sizeof buf);
                /* "±" is two bytes in one column */
                fprintf(out, "%*s", VALUE_W + (strstr(buf, "±") ? 1 : 0), buf);
            }
        if (ratios)
            for (size_t i = 1; i < c->nruns; i++)
                fprintf(out, "%*s", RATIO_W, ratio_cell(gw_cmp_diff_of(c, i, m), buf, sizeof buf));
        fputc('\n', out);
    }
}

static void runs(FILE *out, const gw_cmp *c)
{
    fprintf(out, "gpuwatch compare: %zu runs, each against A\n", c->nruns);
    for (size_t i = 0; i < c->nruns; i++) {
        const gw_cmp_run *r = &c->runs[i];
        char d[GW_FMT_SIZE];
        fprintf(out, "  %c  %s: %s s, %zu GPU%s, ", letter(i), r->name,
                gw_fmt_auto(d, sizeof d, r->duration_s, "-"), r->ngpus, r->ngpus == 1 ? "" : "s");
        if (r->nepochs)
            fprintf(out, "%zu epoch%s\n", r->nepochs, r->nepochs == 1 ? "" : "s");
        else
            fputs("no epochs\n", out);
        if (strcmp(r->name, r->path) != 0)
            fprintf(out, "     %s\n", r->path);
    }
}

static void verdicts(FILE *out, const gw_cmp *c)
{
    fputs("\nverdict (the most severe; `gpuwatch report RUN` for its evidence)\n", out);
    for (size_t i = 0; i < c->nruns; i++) {
        const gw_verdict *v = c->runs[i].lead;
        if (!v) {
            fprintf(out, "  %c  none\n", letter(i));
            continue;
        }
        fprintf(out, "  %c  %-9s %s", letter(i), gw_severity_name(v->severity),
                gw_verdict_name(v->id));
        if (v->cause && *v->cause)
            fprintf(out, ", cause %s", v->cause);
        fputc('\n', out);
    }
}

static const char *direction(gw_cmp_metric m, double ratio)
{
    int better = gw_cmp_metrics[m].better;
    if (better == 0)
        return ratio > 1 ? "more" : "less";
    return (ratio > 1) == (better > 0) ? "better" : "worse";
}

/* One decimals count for metric m of run A and run i ("63.0 -> 8.8"). */
static int pair_decimals(const gw_cmp *c, size_t i, gw_cmp_metric m)
{
    double v[2] = {c->runs[0].value[m], c->runs[i].value[m]};
    return gw_fmt_decimals(v, 2);
}

/* What differs beyond the noise, run by run; then what the noise could not judge. */
static void findings(FILE *out, const gw_cmp *c)
{
    for (size_t i = 1; i < c->nruns; i++) {
        bool any = false;
        for (int m = 0; m < GW_CMP_COUNT; m++) {
            gw_cmp_diff d = gw_cmp_diff_of(c, i, m);
            if (d.beyond != 1)
                continue;
            char a[GW_FMT_SIZE], b[GW_FMT_SIZE], r[GW_FMT_SIZE];
            if (!any)
                fprintf(out, "\n%c against A, beyond the noise:\n", letter(i));
            any = true;
            int dec = pair_decimals(c, i, m);
            fprintf(out, "  %s %s -> %s (%sx, %s)\n", gw_cmp_metrics[m].label,
                    gw_fmt_fixed(a, sizeof a, c->runs[0].value[m], dec, 0, "-"),
                    gw_fmt_fixed(b, sizeof b, c->runs[i].value[m], dec, 0, "-"),
                    gw_fmt_fixed(r, sizeof r, d.ratio, 2, 0, "-"), direction(m, d.ratio));
        }
        if (!any)
            fprintf(out, "\n%c against A: no difference beyond the noise it can see\n", letter(i));
        bool unjudged = false;
        for (int m = 0; m < GW_CMP_COUNT; m++) {
            gw_cmp_diff d = gw_cmp_diff_of(c, i, m);
            if (d.beyond != -1 || !(fabs(d.ratio - 1.0) >= UNJUDGED_SHOWN))
                continue;
            char a[GW_FMT_SIZE], b[GW_FMT_SIZE], r[GW_FMT_SIZE];
            if (!unjudged)
                fprintf(out, "%c against A, noise unknown:\n", letter(i));
            unjudged = true;
            int dec = pair_decimals(c, i, m);
            fprintf(out, "  %s %s -> %s (%sx)\n", gw_cmp_metrics[m].label,
                    gw_fmt_fixed(a, sizeof a, c->runs[0].value[m], dec, 0, "-"),
                    gw_fmt_fixed(b, sizeof b, c->runs[i].value[m], dec, 0, "-"),
                    gw_fmt_fixed(r, sizeof r, d.ratio, 2, 0, "-"));
        }
    }
}

/* Why a figure is "-" or its noise "?": the evidence that is missing. */
static void missing(FILE *out, const gw_cmp *c)
{
    bool few_epochs = false, no_steps = false, no_wait = true, windows = false;
    for (size_t i = 0; i < c->nruns; i++) {
        const gw_cmp_run *r = &c->runs[i];
        few_epochs |= r->nepochs < GW_CMP_MIN_PARTS;
        no_steps |= !isfinite(r->value[GW_CMP_STEPS_PER_S]);
        no_wait &= !isfinite(r->value[GW_CMP_DATA_WAIT_PCT]);
        windows |= r->from_windows[GW_CMP_BUSY_PCT] && isfinite(r->spread[GW_CMP_BUSY_PCT]);
    }
    fputs(windows
              ? "\n\u00b1: the spread between a run's epochs (without 2 epochs: between fifths of\n"
                "   its steady state).\n"
              : "\n\u00b1: the spread between a run's epochs.\n",
          out);
    fputs("*: beyond the noise (the ratio differs from 1 by more than both runs' spreads\n"
          "   combined, the root of the sum of squares); ~ within it; ? noise unknown.\n",
          out);
    if (few_epochs)
        fputs("Steps/s, epoch time and energy per epoch and step need 2 epochs or more in\n"
              "   every run: epoch lines in output.log (gpuwatch run), `gpuwatch mark epoch`,\n"
              "   or --log (docs/epochs.md).\n",
              out);
    else if (no_steps)
        fputs("Steps/s and energy per step need the steps of each epoch: the job's progress\n"
              "   bars in the output.log of gpuwatch run (docs/epochs.md).\n",
              out);
    if (no_wait)
        fputs("Data wait needs the in-job data of gpuwatch run (RUN/python/).\n", out);
}

void gw_cmp_text(FILE *out, const gw_cmp *c, int width)
{
    if (width < 80)
        width = 80;
    runs(out, c);
    fputc('\n', out);
    int n = (int)c->nruns;
    bool fits = LABEL_W + VALUE_W * n + RATIO_W * (n - 1) <= width;
    table(out, c, true, fits);
    if (!fits && n > 1) {
        fputc('\n', out);
        table(out, c, false, true);
    }
    verdicts(out, c);
    findings(out, c);
    missing(out, c);
}
