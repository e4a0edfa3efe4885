/* The rate series, the phases and what was found, after gw_progress_finish (see progress.h). */
#include "logread/progress.h"
#include "logread/progress_priv.h"

#include "util/xalloc.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

size_t gw_progress_rates(const gw_progress *p, gw_progress_rate **out)
{
    gw_progress_rate *r = NULL;
    size_t n = 0, cap = 0, k = 0;
    for (size_t i = 1; i < p->nsm; i++) {
        const sample *a = &p->sm[i - 1], *b = &p->sm[i];
        if (b->total != p->train_total)
            continue;
        while (k < p->nvr && p->vr[k].last_ms <= a->t_ms)
            k++;
        double v;
        if (a->inst != b->inst || (k < p->nvr && p->vr[k].first_ms < b->t_ms))
            v = NAN; /* between two bars, or an evaluation between the lines: a gap */
        else if (b->t_ms > a->t_ms && b->n > a->n)
            v = (double)(b->n - a->n) * 1000.0 / (double)(b->t_ms - a->t_ms);
        else
            continue; /* a redraw of the same count (the bar's close) */
        r = xgrow(r, &cap, n + 1, sizeof *r);
        r[n++] = (gw_progress_rate){.t_ms = b->t_ms, .steps_per_s = v};
    }
    *out = r;
    return n;
}

size_t gw_progress_phases(const gw_progress *p, gw_phase_span **out)
{
    /* an output that prints no step: the phases its epoch lines tell */
    return gw_timeline_finish(p->nsm ? p->tl : p->etl, p->last_ms, p->nst == 1, out);
}

void gw_progress_found(const gw_progress *p, char *buf, size_t size)
{
    const char *ew = p->eval_word[0] ? p->eval_word : p->pre_eval_word;
    bool train = p->nsm > 0, eval = p->nvr > 0 || ew[0], save = p->save_word[0];
    if (!p->nst && !train) {
        snprintf(buf, size, "no phases found: no epoch boundaries or training steps printed%s%s%s",
                 ew[0] ? "; only `" : "", ew, ew[0] ? "` lines" : "");
        return;
    }
    const char *unit = p->nst ? "steps" : "iterations";
    size_t n = 0;
    buf[0] = '\0';
#define ADD(...)                                                                                   \
    do {                                                                                           \
        if (n < size)                                                                              \
            n += (size_t)snprintf(buf + n, size - n, __VA_ARGS__);                                 \
    } while (0)
    if (p->nst)
        ADD("epochs from %s", p->epoch_src[0] ? p->epoch_src : "Hugging Face log dicts");
    if (p->stride > 1) /* MACE's `Epoch 0`, `Epoch 2`, ...: the epochs between are not */
        ADD(", printed every %ld epochs", p->stride);
    if (train && p->table_steps)
        ADD("%s%s from results table rows (`%s`)", n ? "; " : "", unit, p->table.step_name);
    else if (train && p->train_shape[0])
        ADD("%s%s from `%s` lines", n ? "; " : "", unit, p->train_shape);
    else if (train)
        ADD("%s%s from progress bars", n ? "; " : "", unit);
    /* what the timeline calls evaluation: one after the last step is after-work */
    gw_phase_span *ph = NULL;
    size_t nph = gw_progress_phases(p, &ph);
    bool amid = false;
    const char *after = NULL;
    for (size_t i = 0; i < nph; i++) {
        amid |= ph[i].kind == GW_PH_EVAL;
        if (ph[i].kind == GW_PH_AFTER && !after)
            after = ph[i].what;
    }
    eval = nph ? amid : eval;
    if (!eval && p->folded && nph && ew[0]) { /* cgcnn2's `Epoch [1/300] - ..., Valid Loss:` */
        ADD("; evaluation inside the epoch lines (`%s`)", ew);
        eval = true;
    } else if (eval && ew[0] && p->table.eval && strcmp(ew, p->table.eval_name) == 0)
        ADD("; evaluation from results table rows (`%s`)", ew);
    else if (eval && ew[0])
        ADD("; evaluation from `%s` lines", ew);
    else if (eval)
        ADD("; evaluation from progress bars");
    if (save)
        ADD("; checkpoint saves from `%s` lines", p->save_word);
    if (after)
        ADD("; work after the last training step (`%s`)", after);
    free(ph);
    if (!p->nst)
        ADD("; no epoch boundaries printed");
    if (!train && nph)
        ADD("; training from epoch lines, no training steps printed");
    else if (!train)
        ADD("; no training steps printed");
    if (!eval)
        ADD("; no evaluation seen");
    if (!save)
        ADD("; no checkpoint saves printed");
#undef ADD
}
