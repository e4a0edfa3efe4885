/* The job's phases in order (see timeline.h). */
#include "logread/timeline.h"

#include "stats/stats.h"
#include "util/xalloc.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* A run of activities of one kind, as read. */
typedef struct run {
    gw_phase_kind kind;
    int64_t first_ms, last_ms;
    long steps, first_n, last_n;
    double *step_s; /* the printed seconds per step, for their median */
    size_t nstep_s, capstep_s;
    size_t paused_s; /* the step_s printed first after a pause, SIZE_MAX none */
    int64_t since_ms;
    bool open_end;    /* announced (an evaluation's "Evaluating..."): runs to the next activity */
    int64_t close_ms; /* a save's or announced run's end marked before the next activity */
    bool announced;   /* its first activity announced it: it starts at its line */
    bool test_after_val;   /* a test announced right after a validation (test_after_val) */
    bool no_steps;         /* training from epoch lines alone: its steps unknown */
    int64_t rate_first_ms; /* the first sample counted for the wall-time rate */
    long rate_n0;
    char what[GW_PHASE_WORD_MAX];
} run;

struct gw_timeline {
    run *r;
    size_t n, cap;
    bool any_train;
    unsigned last_inst;
    long first_n;     /* the first training line's counter when it counted none, else -1 */
    size_t first_run; /* ... and its run */
    unsigned nfirst;  /* training lines of the first counter's loop seen so far */
    long last_n, last_total;
    long last_delta; /* the largest advance between two draws of the training loop */
    long base;       /* gw_timeline_base's, for the next training line */
    bool paused;     /* an evaluation or save came since the last time per step */
    bool new_loop;   /* gw_timeline_new_loop: the next training line starts a phase */
    bool recounted;  /* gw_timeline_recount since the last training line: its run goes on */
    size_t over_at;  /* gw_timeline_over: the first run after it (0: not said) */
    int64_t over_ms;
};

gw_timeline *gw_timeline_new(void)
{
    return xcalloc(1, sizeof(gw_timeline));
}

void gw_timeline_free(gw_timeline *tl)
{
    if (!tl)
        return;
    for (size_t i = 0; i < tl->n; i++)
        free(tl->r[i].step_s);
    free(tl->r);
    free(tl);
}

const char *gw_phase_kind_name(gw_phase_kind k)
{
    static const char *const names[] = {"train", "eval", "save", "after_training", "other"};
    return k <= GW_PH_OTHER ? names[k] : "unknown";
}

/* An evaluation named test after one named by a validation word (val, valid, dev, eval). */
static bool test_after_val(const char *before, const char *word)
{
    static const char *const val[] = {"val", "dev", "eval"};
    if (strncasecmp(word, "test", 4) != 0)
        return false;
    for (size_t i = 0; i < sizeof val / sizeof *val; i++)
        if (strncasecmp(before, val[i], strlen(val[i])) == 0)
            return true;
    return false;
}

/* A training bar's draw after other work (cur, an evaluation or a save) that counts no step of
 * its own: its count repeated (tqdm redraws its bar's place when the evaluation's bar closes), or
 * the loop's last steps, done before that work but drawn after it (tqdm draws at most every 0.1
 * s: Hugging Face's final evaluation runs at the last step, its bar last drawn a few steps
 * earlier). Those steps are the training's before the work; true when the draw is taken so. */
static bool lagging_draw(gw_timeline *tl, const run *cur, long n, long total, unsigned inst)
{
    if (!tl->any_train || !cur || cur->kind == GW_PH_TRAIN || inst != tl->last_inst)
        return false;
    if (n == tl->last_n)
        return true;
    long delta = n - tl->last_n;
    if (total <= 0 || n != total || delta <= 0 || delta > tl->last_delta)
        return false;
    for (size_t i = tl->n; i-- > 0;)
        if (tl->r[i].kind == GW_PH_TRAIN) {
            tl->r[i].steps += delta;
            tl->r[i].last_n = n;
            break;
        }
    tl->last_n = n;
    return true;
}

/* A training line's steps into cur (gw_timeline_add). */
static void count_steps(gw_timeline *tl, run *cur, int64_t t_ms, long n, long total, unsigned inst,
                        double step_s, int64_t since)
{
    /* steps: the counter's advance since the previous training line of the same loop; a new
     * loop counts from 0; the first line ever counts none (a resumed run's counter) */
    long delta = since ? n : 0;
    bool repeat = tl->any_train && inst == tl->last_inst && n == tl->last_n;
    if (tl->any_train && !since)
        delta = inst == tl->last_inst ? (n > tl->last_n ? n - tl->last_n : 0) : n;
    if (delta == n && delta > 0) /* a loop's first line, counted from its base */
        delta = n > tl->base ? n - tl->base : 0;
    tl->base = 0;
    if (!tl->any_train) {
        tl->first_n = since ? -1 : n;
        tl->first_run = tl->n - 1;
        tl->nfirst = 0;
    } else if (tl->first_n > 1 && inst == tl->last_inst && !repeat && tl->nfirst++ == 0 &&
               n - tl->first_n == tl->first_n) {
        /* the second value shows the first was the loop's stride (logged every N steps from its
         * start: N, 2N): the first line's N steps were done in view */
        tl->r[tl->first_run].steps += tl->first_n;
    }
    if (cur->first_n < 0) {
        cur->first_n = n;
        cur->rate_first_ms = t_ms;
        cur->rate_n0 = n;
    } else if (inst != tl->last_inst) {
        cur->rate_first_ms = t_ms; /* the wall-time rate restarts with the loop */
        cur->rate_n0 = 0;
    }
    cur->steps += delta;
    if (delta > 0 && inst == tl->last_inst)
        tl->last_delta = delta > tl->last_delta ? delta : tl->last_delta;
    cur->last_n = n;
    if (!isnan(step_s) && !repeat) /* a repeat: another logger's copy of the line */
        gw_timeline_step_s(tl, step_s);
    tl->any_train = true;
    tl->over_at = 0; /* training went on: that was no end */
    tl->last_inst = inst;
    tl->last_n = n;
    tl->last_total = total;
}

void gw_timeline_add(gw_timeline *tl, gw_phase_kind kind, int64_t t_ms, long n, long total,
                     unsigned inst, double step_s, const char *word, int64_t since)
{
    if (kind != GW_PH_TRAIN)
        tl->paused = true;
    if (kind != GW_PH_TRAIN && !tl->any_train)
        return; /* before training: start-up (loading, a sanity check) */
    run *cur = tl->n ? &tl->r[tl->n - 1] : NULL;
    /* a test announced or reported after a validation that reported its results is another
     * evaluation (Flair's `Testing using best model ...` after its last `DEV :` line, Ignite's
     * `Test Results - ...` after `Validation Results - ...`): after the last training step, the
     * final test, unless tests followed validations amid training too (gw_timeline_finish) */
    bool final_test = cur && kind == GW_PH_EVAL && cur->kind == kind && !cur->open_end && word &&
                      test_after_val(cur->what, word);
    if (kind == GW_PH_TRAIN && !since && lagging_draw(tl, cur, n, total, inst))
        return;
    /* the step counter replaced (gw_timeline_recount): the emptied run is the new loop's */
    bool new_loop = kind == GW_PH_TRAIN && tl->new_loop &&
                    !(tl->recounted && cur && cur->kind == kind && cur->steps == 0);
    if (kind == GW_PH_TRAIN && tl->recounted)
        tl->new_loop = tl->recounted = false;
    if (!cur || cur->kind != kind || final_test || new_loop) {
        tl->new_loop = tl->new_loop && !new_loop;
        tl->r = xgrow(tl->r, &tl->cap, tl->n + 1, sizeof *tl->r);
        cur = &tl->r[tl->n++];
        *cur = (run){.kind = kind,
                     .first_ms = t_ms,
                     .first_n = -1,
                     .last_n = -1,
                     .paused_s = SIZE_MAX,
                     .test_after_val = final_test};
        if (word) {
            strncpy(cur->what, word, GW_PHASE_WORD_MAX - 1);
            cur->what[GW_PHASE_WORD_MAX - 1] = '\0';
        }
    }
    cur->last_ms = t_ms;
    /* a test reported after the validation's results began after them, not with that run */
    if (kind == GW_PH_EVAL && since > 0 && !cur->test_after_val &&
        (!cur->since_ms || since < cur->since_ms))
        cur->since_ms = since;
    if (kind == GW_PH_EVAL)
        cur->open_end = since < 0;
    if (kind == GW_PH_EVAL && since < 0 && cur->first_ms == t_ms)
        cur->announced = true;
    if (kind == GW_PH_TRAIN)
        count_steps(tl, cur, t_ms, n, total, inst, step_s, since);
}

void gw_timeline_epoch(gw_timeline *tl, int64_t t_ms, bool open, int64_t since)
{
    run *cur = tl->n ? &tl->r[tl->n - 1] : NULL;
    /* the first epoch's work began before its line */
    int64_t first = !cur && since > 0 && since < t_ms && !open ? since : t_ms;
    if (!cur || cur->kind != GW_PH_TRAIN || tl->new_loop) {
        tl->new_loop = false;
        tl->r = xgrow(tl->r, &tl->cap, tl->n + 1, sizeof *tl->r);
        cur = &tl->r[tl->n++];
        *cur = (run){.kind = GW_PH_TRAIN,
                     .first_ms = first,
                     .first_n = -1,
                     .last_n = -1,
                     .paused_s = SIZE_MAX,
                     .no_steps = true}; /* from the phase before's end, even when open */
    }
    cur->last_ms = t_ms;
    cur->open_end = open;
    tl->any_train = true;
    tl->over_at = 0;
}

void gw_timeline_over(gw_timeline *tl, int64_t t_ms)
{
    if (!tl->any_train || tl->over_at)
        return;
    tl->over_at = tl->n;
    tl->over_ms = t_ms;
}

void gw_timeline_step_s(gw_timeline *tl, double step_s)
{
    run *cur = tl->n ? &tl->r[tl->n - 1] : NULL;
    if (!cur || cur->kind != GW_PH_TRAIN || !(step_s > 0))
        return;
    if (tl->paused && cur->paused_s == SIZE_MAX)
        cur->paused_s = cur->nstep_s;
    tl->paused = false;
    cur->step_s = xgrow(cur->step_s, &cur->capstep_s, cur->nstep_s + 1, sizeof *cur->step_s);
    cur->step_s[cur->nstep_s++] = step_s;
}

void gw_timeline_uncount(gw_timeline *tl)
{
    run *cur = tl->n ? &tl->r[tl->n - 1] : NULL;
    if (!cur || cur->kind != GW_PH_TRAIN || cur->steps < 1 || tl->last_n < 1)
        return;
    cur->steps--;
    cur->last_n--;
    tl->last_n--;
    if (cur->first_n > cur->last_n)
        cur->first_n = cur->last_n;
    if (cur->rate_n0 > cur->last_n)
        cur->rate_n0 = cur->last_n;
}

void gw_timeline_uncount_steps(gw_timeline *tl, long k)
{
    run *cur = tl->n ? &tl->r[tl->n - 1] : NULL;
    if (cur && cur->kind == GW_PH_TRAIN && cur->steps >= k)
        cur->steps -= k;
}

void gw_timeline_new_loop(gw_timeline *tl)
{
    tl->new_loop = true;
}

void gw_timeline_base(gw_timeline *tl, long base)
{
    tl->base = base;
}

void gw_timeline_recount(gw_timeline *tl)
{
    run *cur = tl->n ? &tl->r[tl->n - 1] : NULL;
    if (!cur || cur->kind != GW_PH_TRAIN)
        return;
    cur->steps = 0;
    cur->nstep_s = 0;
    cur->paused_s = SIZE_MAX;
    cur->first_n = -1; /* its rate restarts with the step counter */
    tl->first_n = -1;
    tl->recounted = true;
}

void gw_timeline_place(gw_timeline *tl, long n)
{
    if (tl->any_train && n > tl->last_n)
        tl->last_n = n;
}

void gw_timeline_mark(gw_timeline *tl, int64_t t_ms)
{
    run *cur = tl->n ? &tl->r[tl->n - 1] : NULL;
    if (cur && (cur->kind == GW_PH_SAVE || cur->open_end) && !cur->close_ms)
        cur->close_ms = t_ms;
}

static double median_of(const double *v, size_t n)
{
    double *c = xmalloc(n * sizeof *c);
    memcpy(c, v, n * sizeof *c);
    double m = gw_stats_quantile(c, n, 0.5);
    free(c);
    return m;
}

double gw_timeline_median(const double *v, size_t n)
{
    return median_of(v, n);
}

double gw_timeline_step_median(const double *v, size_t n, size_t paused)
{
    if (paused >= n)
        return median_of(v, n);
    bool *flag = xcalloc(n, sizeof *flag);
    flag[paused] = true;
    double m = gw_timeline_step_median_of(v, flag, n);
    free(flag);
    return m;
}

double gw_timeline_step_median_of(const double *v, const bool *paused, size_t n)
{
    double *c = xmalloc(n * sizeof *c);
    size_t nrest = 0;
    for (size_t i = 0; i < n; i++)
        if (!paused[i])
            c[nrest++] = v[i];
    double rest = nrest ? median_of(c, nrest) : NAN;
    size_t nc = 0; /* each time after a pause that held it is left out */
    for (size_t i = 0; i < n; i++)
        if (!paused[i] || isnan(rest) || !(v[i] > 2.0 * rest))
            c[nc++] = v[i];
    double m = median_of(c, nc);
    free(c);
    return m;
}

/* What follows the last training step is after-training work, except the loop's own
 * evaluation there (the first one, when evaluations ran amid training too, when
 * last_eval_is_loops, or when the output ends before the counter's total: mid-training) and a
 * save right after the last steps when saves ran amid training too or the loop's evaluation
 * follows it (a checkpoint each epoch). */
static void mark_after(const gw_timeline *tl, gw_phase_span *s, bool last_eval_is_loops)
{
    size_t last_train = 0;
    for (size_t i = 0; i < tl->n; i++)
        if (tl->r[i].kind == GW_PH_TRAIN)
            last_train = i;
    bool mid_eval = false, mid_save = false, mid_test = false;
    for (size_t i = 0; i < last_train; i++) {
        mid_eval |= tl->r[i].kind == GW_PH_EVAL;
        mid_save |= tl->r[i].kind == GW_PH_SAVE;
        mid_test |= tl->r[i].test_after_val;
    }
    mid_eval |= last_eval_is_loops || (tl->last_total > 0 && tl->last_n < tl->last_total);
    size_t loop_eval = SIZE_MAX;
    for (size_t i = last_train + 1; mid_eval && i < tl->n && loop_eval == SIZE_MAX; i++)
        if (tl->r[i].kind == GW_PH_EVAL)
            loop_eval = i;
    bool kept_eval = false, kept_save = false, kept_all = true;
    for (size_t i = last_train + 1; i < tl->n; i++) {
        gw_phase_kind k = tl->r[i].kind;
        if (tl->over_at && i >= tl->over_at) { /* after "Training complete." */
            s[i].kind = GW_PH_AFTER;
            kept_all = false;
        } else if (k == GW_PH_EVAL && mid_eval && !kept_eval) {
            kept_eval = true;
        } else if (tl->r[i].test_after_val && mid_test && kept_eval && s[i - 1].kind == k) {
            /* the last validation's test, as after each one amid training */
        } else if (k == GW_PH_SAVE && !kept_save && kept_all &&
                   (mid_save || (loop_eval != SIZE_MAX && i < loop_eval))) {
            kept_save = true;
        } else {
            s[i].kind = GW_PH_AFTER;
            kept_all = false;
        }
        if (!s[i].what[0])
            snprintf(s[i].what, sizeof s[i].what, "%s", gw_phase_kind_name(k));
    }
}

/* Phase i's span and figures from its run (s[0..i-1] done; may move s[i - 1]'s end). */
static void span_of(const gw_timeline *tl, size_t i, gw_phase_span *s, int64_t end_ms)
{
    const run *r = &tl->r[i];
    gw_phase_span *p = &s[i];
    *p = (gw_phase_span){.kind = r->kind,
                         .start_ms = r->first_ms,
                         .end_ms = r->last_ms,
                         .steps = -1,
                         .first_step = -1,
                         .last_step = -1,
                         .steps_per_s = NAN};
    memcpy(p->what, r->what, sizeof p->what);
    if (i > 0 && r->kind != GW_PH_SAVE && !r->announced)
        p->start_ms = s[i - 1].end_ms;
    /* up to the announcement: the phase before's, or up to the line saying training ended */
    bool over = tl->over_at && i == tl->over_at && tl->over_ms < p->start_ms;
    if (i > 0 && r->announced && s[i - 1].end_ms < p->start_ms)
        s[i - 1].end_ms = over && tl->over_ms >= s[i - 1].end_ms ? tl->over_ms : p->start_ms;
    if (r->since_ms && r->since_ms < p->start_ms) {
        /* work it reports began earlier; a save printed just before ends where it began */
        p->start_ms = r->since_ms;
        if (i > 0 && s[i - 1].kind == GW_PH_SAVE) {
            if (p->start_ms < s[i - 1].start_ms)
                p->start_ms = s[i - 1].start_ms;
            s[i - 1].end_ms = p->start_ms;
        }
    }
    if (r->kind == GW_PH_SAVE || r->open_end) {
        p->end_ms = i + 1 < tl->n ? tl->r[i + 1].first_ms : end_ms;
        if (r->close_ms && r->close_ms < p->end_ms)
            p->end_ms = r->close_ms;
    }
    if (p->end_ms < p->start_ms)
        p->end_ms = p->start_ms;
    if (over && tl->over_ms < p->start_ms && tl->over_ms >= s[i - 1].end_ms)
        p->start_ms = tl->over_ms; /* the work after training began where it said so */
    if (r->kind == GW_PH_TRAIN && !r->no_steps) {
        p->steps = r->steps;
        p->first_step = r->first_n;
        p->last_step = r->last_n;
        long n = r->last_n - r->rate_n0;
        if (r->nstep_s > 0) /* the median: a line whose step held an evaluation is not */
            p->steps_per_s = 1.0 / gw_timeline_step_median(r->step_s, r->nstep_s, r->paused_s);
        else if (r->last_ms > r->rate_first_ms && n > 0)
            p->steps_per_s = (double)n * 1000.0 / (double)(r->last_ms - r->rate_first_ms);
    }
}

/* b, a training span right after a, made part of a: its steps added, its rate when it has
 * the more steps. */
static void join_train(gw_phase_span *a, const gw_phase_span *b)
{
    a->end_ms = b->end_ms > a->end_ms ? b->end_ms : a->end_ms;
    if (b->steps < 0)
        return;
    if (b->steps > a->steps || isnan(a->steps_per_s))
        a->steps_per_s = b->steps_per_s;
    if (a->first_step < 0)
        a->first_step = b->first_step;
    a->last_step = b->last_step;
    a->steps = (a->steps > 0 ? a->steps : 0) + b->steps;
}

/* The spans of s (one per run of tl) joined where they are one phase: the work after training
 * (t5's downloads, then `Save PyTorch model`); a test after a validation amid training, that
 * evaluation's; an "other" activity amid training, the training around it. Returns their count. */
static size_t compact(const gw_timeline *tl, gw_phase_span *s)
{
    size_t n = 0, last_train = 0;
    bool mid_test = false;
    for (size_t i = 0; i < tl->n; i++)
        if (tl->r[i].kind == GW_PH_TRAIN)
            last_train = i;
    for (size_t i = 0; i < last_train; i++)
        mid_test |= tl->r[i].test_after_val;
    bool joined = false; /* the span before was training that an "other" activity joined */
    for (size_t i = 0; i < tl->n; i++) {
        bool other = tl->r[i].kind == GW_PH_OTHER && s[i].kind == GW_PH_TRAIN;
        if (n && s[i].kind == GW_PH_TRAIN && s[n - 1].kind == GW_PH_TRAIN && (other || joined)) {
            join_train(&s[n - 1], &s[i]); /* one training phase around a download's bar */
            joined = other;
            continue;
        }
        joined = other;
        if (n && tl->r[i].test_after_val && (i < last_train || mid_test) &&
            s[n - 1].kind == GW_PH_EVAL && s[i].kind == GW_PH_EVAL) {
            s[n - 1].end_ms = s[i].end_ms;
            continue;
        }
        if (n && s[i].kind == GW_PH_AFTER && s[n - 1].kind == GW_PH_AFTER) {
            if (s[i].end_ms > s[n - 1].end_ms)
                s[n - 1].end_ms = s[i].end_ms;
            continue;
        }
        s[n++] = s[i];
    }
    return n;
}

size_t gw_timeline_finish(const gw_timeline *tl, int64_t end_ms, bool last_eval_is_loops,
                          gw_phase_span **out)
{
    *out = NULL;
    if (!tl->n)
        return 0;
    gw_phase_span *s = xcalloc(tl->n, sizeof *s);
    for (size_t i = 0; i < tl->n; i++)
        span_of(tl, i, s, end_ms);
    mark_after(tl, s, last_eval_is_loops);
    /* an "other" activity amid training (a bar that is neither) is shown as after-work only at
     * the end; in between it is part of the training around it */
    for (size_t i = 0; i < tl->n; i++)
        if (s[i].kind == GW_PH_OTHER)
            s[i].kind = GW_PH_TRAIN;
    size_t n = compact(tl, s);
    *out = s;
    return n;
}
