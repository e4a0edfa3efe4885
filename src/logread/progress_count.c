/* A text counter's values read into steps (docs/epochs.md, "Any trainer"): a loop that printed 0
 * first, a step repeated, a time printed since the counter's last line, a first count that an
 * epoch line opened. Used by progress.c's reading of a counter's line. */
#include "logread/progress_priv.h"

#include <math.h>
#include <string.h>

/* The loop's 0 line lacked the time per step its next line, 1, prints (llama.cpp's `iter= 0 ...
 * loss=0.000000`, then `iter= 1 ... dt=00:03:25`): it was printed before the first step, so the
 * counter counts the steps done, and that line counted none. */
static void zero_was_before(gw_progress *p)
{
    p->text_zero = false;
    for (size_t k = p->inst_first; k < p->nsm; k++)
        if (p->sm[k].n == 1)
            p->sm[k].n = 0;
    gw_timeline_uncount(p->tl);
}

/* The text counter's bookkeeping of a 0 printed first (the loop prints the index of the step
 * just done), with the job's set-up line that printed 0 before any step. */
void gw_progress_zero_lines(gw_progress *p, const gw_counter *c)
{
    bool zero_before = p->zero_no_time && c->n == 1 && !isnan(c->step_s) && p->text_zero;
    /* the job's first counter line, 0 with neither a result nor a time per step (DeepSpeed's
     * `step=0, skipped=0, lr=[0.0001]` at the engine's set-up), then a stride in the same form:
     * printed before the first step, so the counter counts steps done */
    zero_before |=
        p->zero_set_up && c->n > 1 && p->text_zero && strcmp(p->train_shape, c->shape) == 0;
    p->zero_set_up = c->n == 0 && isnan(c->step_s) && !c->loss && p->last_raw < 0 && !p->nsm;
    p->zero_no_time = c->n == 0 && isnan(c->step_s);
    if (c->n == 0)
        p->text_zero = true;
    else if (c->n < p->last_raw)
        p->text_zero = false;
    if (zero_before)
        zero_was_before(p);
}

/* A value the counter passed, not its loop's start, on a line of the same form (LightGBM's
 * `[1142]` after `Early stopping, best iteration is:` at 1190): an earlier step repeated. */
bool gw_progress_repeated_step(const gw_progress *p, const gw_counter *c)
{
    return c->n < p->last_raw && c->n > p->first_raw && c->epoch < 0 &&
           strcmp(p->train_shape, c->shape) == 0;
}

/* The seconds per step of c's line: a time since the counter's last line is per step over its
 * advance (the first line: when it counts one step). Moves the counter on to c's value. */
double gw_progress_counter_step_s(gw_progress *p, const gw_counter *c)
{
    bool first = p->last_raw < 0 || c->n < p->last_raw; /* the loop's first line */
    double x = c->step_s, adv = first ? (c->n == 1 ? 1.0 : NAN) : (double)(c->n - p->last_raw);
    if (c->span && !isnan(x)) {
        /* values that never went down and reached twice the loop's first grow like an elapsed
         * clock ("elapsed 12 seconds", 24, 36): per step it is the clock's advance */
        if (first || isnan(p->span_prev)) {
            p->span_first = x;
            p->span_clock = false;
        } else if (x < p->span_prev) {
            p->span_first = NAN; /* a clock never goes down */
            p->span_clock = false;
        } else if (x >= 2 * p->span_first) {
            p->span_clock = true;
        }
        double since = p->span_clock ? x - p->span_prev : x;
        p->span_prev = x;
        x = adv > 0 ? since / adv : NAN;
    } else if (c->span) {
        p->span_prev = NAN;
    }
    if (first)
        p->first_raw = c->n;
    p->last_raw = c->n;
    return x > 0 ? x : NAN;
}

void gw_progress_opened_check(gw_progress *p, long n)
{
    if (p->opened_n > 0 && n > p->opened_n && n - p->opened_n < p->opened_n && p->nsm) {
        p->sm[p->inst_first].base = p->opened_n;
        gw_timeline_uncount_steps(p->tl, p->opened_n);
    }
    p->opened_n = -1;
}
