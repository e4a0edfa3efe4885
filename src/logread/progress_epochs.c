/* The phases of an output that prints epochs and no step (progress_priv.h): the epoch lines'
 * own timeline, and how epoch numbers advance (one by one, by a stride, or back to the start). */
#include "logread/epoch_match.h"
#include "logread/progress.h"
#include "logread/progress_priv.h"

#include <math.h>

void gw_progress_activity(gw_progress *p, gw_phase_kind kind, int64_t t_ms, const char *word,
                          int64_t since)
{
    p->work_since_step = true;
    gw_timeline_add(p->tl, kind, t_ms, -1, 0, 0, NAN, word, since);
    p->folded |= kind == GW_PH_EVAL && p->fold_eval;
    if (kind == GW_PH_EVAL && p->fold_eval)
        return; /* the epoch line it is in sums the epoch up, its evaluation included */
    gw_timeline_add(p->etl, kind, t_ms, -1, 0, 0, NAN, word, since);
    /* with no step printed, a save's length cannot be told: a mark at its line */
    if (kind == GW_PH_SAVE)
        gw_timeline_mark(p->etl, t_ms);
}

void gw_progress_mark(gw_progress *p, int64_t t_ms)
{
    gw_timeline_mark(p->tl, t_ms);
    gw_timeline_mark(p->etl, t_ms);
}

void gw_progress_over(gw_progress *p, int64_t t_ms)
{
    gw_timeline_over(p->tl, t_ms);
    gw_timeline_over(p->etl, t_ms);
}

gw_epoch_step gw_progress_epoch_step(const gw_progress *p, long raw)
{
    if (!p->nst)
        return GW_EPOCH_NEXT;
    long first = p->st[0].raw, last = p->st[p->nst - 1].raw, k = raw - first;
    if (raw == last)
        return GW_EPOCH_SAME;
    if (raw == last + (p->stride ? p->stride : 1))
        return GW_EPOCH_NEXT;
    /* the second epoch printed a stride after the first, which was the run's 0, 1 or that
     * stride (MACE's `Epoch 0`, `Epoch 2`, ...: evaluated every second epoch) */
    if (p->nst == 1 && k >= 2 && k <= 50 && (first <= 1 || first == k))
        return GW_EPOCH_STRIDE;
    /* back to the start after two epochs or more: a second loop (another model's run) */
    if (p->nst >= 2 && raw <= 1)
        return GW_EPOCH_RESET;
    /* a first number above 1 gives way to a run that starts at 0 or 1 (a config's "epoch: 300") */
    if (p->nst > 1 || first <= 1 || raw > 1)
        return GW_EPOCH_NONE;
    return GW_EPOCH_RESTART;
}

void gw_progress_epoch_work(gw_progress *p, const char *line, int64_t t_ms, bool started,
                            bool sums_up)
{
    /* the first epoch's work reported at its line began at its start (a table's header, the
     * job's first line for a line that ends its epoch), or at the job's first line */
    const start *s = &p->st[p->nst - 1];
    int64_t since = p->nst == 1 ? (s->t_ms < t_ms ? s->t_ms : p->first_ms) : 0;
    if (!started) { /* a line of the epoch being run ("Train Epoch: 491 [12800/45000]") */
        gw_timeline_epoch(p->etl, t_ms, false, since);
        p->last_act_ms = t_ms;
        return;
    }
    /* a bare "Epoch 3/10" announces its work, which runs to the next activity */
    gw_timeline_epoch(p->etl, t_ms, !sums_up && !gw_epoch_line_results(line), since);
}

void gw_progress_summed_epochs(gw_progress *p)
{
    if (p->nsm || p->user || !p->nst)
        return;
    for (size_t i = 0; i < p->nst; i++)
        if (!p->st[i].results)
            return;
    for (size_t i = p->nst; i-- > 0;) {
        p->st[i].end_ms = p->st[i].t_ms;
        p->st[i].t_ms = i ? p->st[i - 1].t_ms : p->first_ms;
    }
}

/* Results after the epoch number (gw_epoch_line_results: accelerate's `epoch 0: {'accuracy':
 * 0.84}`) and no step counter in the line (TFLearn's per-step `| epoch: 001 | loss: 2.03 -- iter:
 * 00512/55000` tags its epoch). */
bool gw_progress_results_line(const char *line)
{
    gw_counter c;
    return gw_epoch_line_results(line) && !(gw_counter_line(line, &c) && c.n >= 0);
}
