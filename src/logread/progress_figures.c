/* An epoch's figures from the tracker's samples and validation runs, for gw_progress_finish
 * (progress.c): its steps and their rate, its validation time (see progress_priv.h). */
#include "logread/progress_priv.h"
#include "logread/timeline.h"

#include "util/xalloc.h"

#include <math.h>
#include <stdlib.h>

/* Sample k in an epoch: by its index where the epoch's first sample is known (an epoch's first
 * line printed in the same read as the draws before it has their time), else by time. */
static bool in_span(const gw_progress *p, size_t k, int64_t from, int64_t to, size_t kfrom,
                    size_t kto)
{
    if (kfrom != SIZE_MAX ? k < kfrom : p->sm[k].t_ms < from)
        return false;
    return kto != SIZE_MAX ? k < kto : p->sm[k].t_ms < to;
}

/* Steps and their rate in [from, to): per bar instance, its count from where it stood before
 * `from` (0 when it started inside) to its highest draw, over the bar's own elapsed time when it
 * prints one, else the wall time of the draws. A bar that only redraws its end there (Keras after
 * validation, at the next epoch's first line) gives nothing. */
void gw_progress_train_figures(const gw_progress *p, int64_t from, int64_t to, size_t kfrom,
                               size_t kto, gw_progress_epoch *e)
{
    long steps = 0;
    double secs = 0, step_s = NAN, *st = NULL;
    size_t nst = 0, capst = 0, cappf = 0;
    bool *pf = NULL; /* st[i] was printed first after an evaluation or a save */
    bool any = false, secs_ok = true;
    for (size_t i = 0, j; i < p->nsm; i = j + 1) {
        for (j = i; j + 1 < p->nsm && p->sm[j + 1].inst == p->sm[i].inst;)
            j++;
        size_t first = SIZE_MAX, last = SIZE_MAX;
        for (size_t k = i; k <= j; k++) {
            if (!in_span(p, k, from, to, kfrom, kto))
                continue;
            if (first == SIZE_MAX)
                first = k;
            if (last == SIZE_MAX || p->sm[k].n > p->sm[last].n)
                last = k; /* the first draw of the highest count: later redraws add no step */
        }
        if (first == SIZE_MAX)
            continue;
        const sample *f = &p->sm[first], *l = &p->sm[last];
        bool inside = first == i; /* the instance began in this span */
        /* an epoch inside a bar (Hugging Face): from the draw before the span */
        long base = inside ? f->base : p->sm[first - 1].n;
        if (l->n <= base)
            continue;
        steps += l->n - base;
        if (!e->train_end_ms && l->n == l->total)
            e->train_end_ms = l->t_ms;
        /* the rate over the draws seen: the bar's own clock from 0 (or from the first draw),
         * else the wall time between the first and the last draw */
        double span = NAN;
        long n0 = f->n;
        if (!isnan(l->elapsed_s) && inside) {
            /* from the bar's making: its first draw at count 0 and what its clock said then */
            span = l->elapsed_s;
            if (f->n == 0 && !isnan(f->elapsed_s))
                span =
                    gw_bar_clock_or_wall(span, (double)(l->t_ms - f->t_ms) / 1000.0 + f->elapsed_s);
            n0 = 0;
        } else if (!isnan(l->elapsed_s) && !isnan(f->elapsed_s) && l->n > f->n) {
            span = l->elapsed_s - f->elapsed_s;
        } else if (l->t_ms > f->t_ms) {
            span = (double)(l->t_ms - f->t_ms) / 1000.0;
        }
        if (span > 0 && l->n > n0)
            secs += span * (double)(l->n - base) / (double)(l->n - n0);
        else
            secs_ok = false;
        for (size_t k = first; k <= j; k++) /* the printed times per step: their median */
            if (in_span(p, k, from, to, kfrom, kto) && !isnan(p->sm[k].step_s)) {
                st = xgrow(st, &capst, nst + 1, sizeof *st);
                pf = xgrow(pf, &cappf, nst + 1, sizeof *pf);
                pf[nst] = p->sm[k].paused;
                st[nst++] = p->sm[k].step_s;
            }
        any = true;
    }
    if (nst)
        step_s = gw_timeline_step_median_of(st, pf, nst);
    free(st);
    free(pf);
    if (!any)
        return;
    e->steps = steps;
    if (!isnan(step_s))
        e->steps_per_s = 1.0 / step_s;
    else if (secs_ok && secs > 0)
        e->steps_per_s = (double)steps / secs;
}

static double run_s(const val_run *v)
{
    return gw_bar_clock_or_wall(v->elapsed_s, (double)(v->last_ms - v->first_ms) / 1000.0);
}

/* Validation in [from, to): the validation bars there, else the time after the training bar
 * ended. The last epoch keeps only its first validation (a final evaluation follows in YOLO). */
void gw_progress_val_figures(const gw_progress *p, int64_t from, int64_t to, bool last,
                             gw_progress_epoch *e)
{
    double s = 0;
    int runs = 0;
    for (size_t i = 0; i < p->nvr; i++) {
        const val_run *v = &p->vr[i];
        if (v->first_ms < from || v->first_ms >= to || (last && runs == 1))
            continue;
        s += run_s(v);
        if (!runs)
            e->val_start_ms = v->first_ms;
        e->val_end_ms = v->last_ms;
        runs++;
    }
    if (runs && s > 0) /* result lines alone tell no time */
        e->validation_s = s;
    else if (e->train_end_ms && e->end_ms > e->train_end_ms)
        e->validation_s = (double)(e->end_ms - e->train_end_ms) / 1000.0;
}
