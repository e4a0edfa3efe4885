/* What a job's output says about its phases (see progress.h). */
#include "logread/progress.h"
#include "logread/counter_line.h"
#include "logread/progress_bar.h"
#include "logread/result_table.h"
#include "logread/step_time.h"
#include "logread/timeline.h"

#include "util/xalloc.h"

#include <ctype.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { KEEP_MS = 1000 };

#include "logread/progress_priv.h"

/* The default matcher's epoch line, unless it only mentions an epoch (epoch_match.h). */
static bool default_epoch(const gw_progress *p, const char *line, long *e, long *t)
{
    return p->dflt && gw_epoch_matcher_match(p->dflt, line, e, t) && !gw_epoch_line_mention(line);
}

static bool epoch_of_line(const gw_progress *p, const char *line, long *e, long *t)
{
    if (p->user)
        return gw_epoch_matcher_match(p->user, line, e, t);
    return default_epoch(p, line, e, t);
}

/* ---- recording ---- */

static long norm_number(const gw_progress *p, long raw)
{
    return raw + (p->zero_based == 1);
}

/* A new epoch when raw differs from the last one; first: its first sample (start's). */
bool gw_progress_add_start(gw_progress *p, long raw, long total, bool inclusive, int64_t t_ms,
                           size_t first, long *epoch, long *tot)
{
    bool reset = p->loop_reset && p->nst && raw <= p->st[p->nst - 1].raw;
    p->loop_reset = false;
    /* numbers that do not advance like epochs are mentions ("best epoch 3" in epoch 9) */
    /* a results table's epoch cell may skip epochs that had no evaluation (spaCy's E 4, then 6:
     * epochs shorter than the evaluation interval) */
    bool skip = p->table_row && p->nst && raw > p->st[p->nst - 1].raw;
    gw_epoch_step step = reset  ? GW_EPOCH_RESET
                         : skip ? GW_EPOCH_NEXT
                                : gw_progress_epoch_step(p, raw);
    if (step == GW_EPOCH_SAME && p->st[p->nst - 1].total < 0)
        p->st[p->nst - 1].total = total;
    if (step == GW_EPOCH_SAME || step == GW_EPOCH_NONE)
        return false;
    if (step == GW_EPOCH_RESTART) {
        p->nst = 0;
        p->zero_based = -1;
    }
    if (step == GW_EPOCH_STRIDE)
        p->stride = raw - p->st[0].raw;
    if (step == GW_EPOCH_RESET)
        gw_timeline_new_loop(p->etl); /* a second loop: its own training phase */
    if (p->zero_based < 0)
        p->zero_based = raw == 0;
    if (!p->epoch_src[0] && p->cur_src)
        snprintf(p->epoch_src, sizeof p->epoch_src, "%s", p->cur_src);
    p->st = xgrow(p->st, &p->capst, p->nst + 1, sizeof *p->st);
    p->st[p->nst++] = (start){
        .raw = raw, .total = total, .t_ms = t_ms, .inclusive = inclusive, .first_sample = first};
    if (epoch)
        *epoch = norm_number(p, raw);
    if (tot)
        *tot = total < 0 ? -1 : total + (inclusive && p->zero_based == 1);
    return true;
}

static void add_sample(gw_progress *p, const bar *b, int64_t t_ms, bool new_inst, long base)
{
    p->work_since_step = false;
    sample *last = p->nsm ? &p->sm[p->nsm - 1] : NULL;
    if (!last || last->keep || last->inst != p->inst) {
        p->sm = xgrow(p->sm, &p->capsm, p->nsm + 1, sizeof *p->sm);
        last = &p->sm[p->nsm++];
    }
    /* kept: a bar's first and last draws, one a second, and the draws around other lines (a
     * log dict, an evaluation): there an epoch of a Hugging Face bar may end or start */
    bool keep =
        new_inst || b->n == b->total || t_ms - p->last_keep_ms >= KEEP_MS || p->last_kind != 1;
    *last = (sample){.t_ms = t_ms,
                     .n = b->n,
                     .total = b->total,
                     .elapsed_s = b->elapsed_s,
                     .step_s = b->step_s,
                     .inst = p->inst,
                     .keep = keep,
                     .base = base,
                     .paused = p->paused && !isnan(b->step_s)};
    if (!isnan(b->step_s))
        p->paused = false;
    if (keep)
        p->last_keep_ms = t_ms;
}

/* Another line came: the training bar's latest draw is kept. */
static void keep_last(gw_progress *p)
{
    if (p->nsm)
        p->sm[p->nsm - 1].keep = true;
}

/* Another activity (or an epoch line) at t_ms ends the evaluation run, an announced one there. */
static void close_val(gw_progress *p, int64_t t_ms)
{
    if (p->val_open && p->nvr && t_ms > p->vr[p->nvr - 1].last_ms)
        p->vr[p->nvr - 1].last_ms = t_ms;
    p->val_open = false;
    p->last_kind = 0;
}

/* A validation draw or line; b->n is -2 for a line that announces the evaluation. */
static void add_val(gw_progress *p, const bar *b, int64_t t_ms)
{
    keep_last(p);
    p->saved_after_val = false;
    val_run *v = p->nvr ? &p->vr[p->nvr - 1] : NULL;
    if (!v || p->last_kind != 2 || (b->n < v->last_n && b->n != -1)) {
        close_val(p, t_ms);
        p->vr = xgrow(p->vr, &p->capvr, p->nvr + 1, sizeof *p->vr);
        v = &p->vr[p->nvr++];
        /* a line that only reports results (no counter) ends work that began after the
         * previous activity */
        /* ... unless it is in an epoch's line that sums the epoch up (no time of its own) */
        int64_t first =
            b->n != 0 && b->n != -2 && p->last_act_ms && !p->fold_eval ? p->last_act_ms : t_ms;
        *v = (val_run){.first_ms = first, .elapsed_s = NAN};
    }
    gw_progress_activity(p, GW_PH_EVAL, t_ms, b->desc[0] ? b->desc : "bar",
                         b->n == -2 ? -1 : v->first_ms);
    p->val_open = b->n == -2;
    p->paused = true;
    p->last_act_ms = t_ms;
    v->last_ms = t_ms;
    v->last_n = b->n;
    if (!isnan(b->elapsed_s))
        v->elapsed_s = b->elapsed_s;
    p->last_kind = 2;
}

/* The epoch a training bar's description (or timm line) names: returns false when none. */
static bool bar_epoch(const gw_progress *p, const bar *b, long *e, long *t, bool *inclusive)
{
    *inclusive = false;
    if (b->epoch >= 0) {
        *e = b->epoch;
        *t = b->epoch_total;
        return true;
    }
    if (!p->user && gw_bar_yolo_column(b->desc, p->header_seen, e, t))
        return *inclusive = true;
    if (!b->desc[0] || !epoch_of_line(p, b->desc, e, t))
        return false;
    /* a description counts from 1 where a results table's epoch column counts from 0 (spaCy's
     * `Epoch 11` bar while its rows say E 10) */
    if (p->table_steps && p->zero_based == 1 && *e > 0)
        (*e)--;
    return true;
}

/* A bar over all epochs' steps (its total the epochs' total times a whole number: kohya's
 * `epoch 11/50`, then `steps: 176/800`) first seen after a later epoch's line stood at the steps
 * of the epochs before: (11 - 1) x 800/50; else 0. */
static long all_epochs_base(const gw_progress *p, const bar *b)
{
    const start *s = &p->st[p->nst - 1];
    long e = norm_number(p, s->raw), t = s->total;
    if (t <= 0 || b->total % t || e < 2)
        return 0;
    long per = b->total / t;
    return b->n > (e - 1) * per && b->n <= e * per ? (e - 1) * per : 0;
}

/* A text counter's epoch that printed its total and ended within one logging stride of it
 * (`| epoch 1 |    40/   50 batches |`, logged every 10, then epoch 2): it ran its total, the
 * steps after its last line included, at that line's time. */
static void ran_its_total(gw_progress *p, const sample *last)
{
    if (last->total <= 0 || last->n >= last->total || p->nsm < 2 || last->inst != p->inst)
        return;
    const sample *before = &p->sm[p->nsm - 2];
    long stride = before->inst == last->inst ? last->n - before->n : 0;
    if (stride <= 0 || last->total - last->n > stride)
        return;
    bar b;
    gw_bar_init(&b);
    b.n = b.total = last->total;
    int64_t at = last->t_ms;
    add_sample(p, &b, at, false, 0);
    keep_last(p);
    gw_timeline_add(p->tl, GW_PH_TRAIN, at, b.n, b.total, p->inst, NAN, NULL, 0);
}

/* A training bar draw; returns true when it starts an epoch. */
static bool on_train_bar(gw_progress *p, const bar *b, int64_t t_ms, long *epoch, long *total)
{
    long e = -1, t = -1;
    bool inclusive, labelled = bar_epoch(p, b, &e, &t, &inclusive);
    const sample *last = p->nsm ? &p->sm[p->nsm - 1] : NULL;
    int64_t prev_act = p->last_act_ms;
    bool new_epoch = labelled && (!p->nst || p->st[p->nst - 1].raw != e);
    if (new_epoch && last && p->cur_src && p->cur_src[0] == '`' && !p->train_bars)
        ran_its_total(p, last);
    last = p->nsm ? &p->sm[p->nsm - 1] : NULL;
    /* a new bar: its count starts over, its total changes, or it names another epoch */
    /* ... or an epoch line came since its last draw (Keras' bars, a log of final states) */
    bool opened = p->nst != p->nst_at_sample;
    /* tqdm's close redraws a finished bar's final state, its clock run on, after the work that
     * followed it (an evaluation, saves, a line that ended the epoch): no step, no training */
    if (last && !labelled && b->n == b->total && last->n == b->n && last->total == b->total &&
        last->inst == p->inst && p->last_kind != 1 && (!opened || p->epoch_over))
        return false;
    bool new_inst = !last || b->n < last->n || b->total != last->total ||
                    ((new_epoch || opened) && last->n == last->total) ||
                    (new_epoch && b->no_total); /* a bar with no total that names a new epoch */
    opened &= !labelled;                        /* a bar that names its epoch opens it itself */
    if (new_inst && last && b->n < last->n && !labelled && !p->nst)
        gw_timeline_new_loop(p->tl); /* no epochs: a counter's reset is a new loop */
    if (new_inst) {
        p->inst++;
        /* a bar first seen at count 0 with its clock running was made earlier (YOLOv9's first
         * draw is lost in a warning's line; the first batch took 6 s): back to its making, but
         * not before what came earlier */
        p->inst_start_ms = t_ms;
        p->inst_first = p->nsm;
        if (b->n == 0 && b->elapsed_s > 0) {
            int64_t made = t_ms - (int64_t)(b->elapsed_s * 1000.0);
            int64_t before = last ? last->t_ms : 0;
            if (p->nvr && p->vr[p->nvr - 1].last_ms > before)
                before = p->vr[p->nvr - 1].last_ms;
            p->inst_start_ms = made > before ? made : before;
        }
    }
    p->saved_after_val = false;
    if (p->train_total < 0 || labelled)
        p->train_total = b->total;
    long base = !new_inst         ? 0
                : p->pending_base ? p->pending_base
                : opened          ? all_epochs_base(p, b)
                                  : 0;
    p->pending_base = 0;
    add_sample(p, b, t_ms, new_inst, base);
    gw_timeline_base(p->tl, base);
    /* the loop began in view: a new epoch's first line, or a counter that printed 0 */
    /* ... or a bar whose clock runs (made by this process, counting from 0) first drawn after
     * start-up lines and nothing of training (gaussian-splatting's bar pasted at 7000/30000) */
    bool made = !last && b->elapsed_s > 0 && !p->nhf && p->first_ms < t_ms;
    /* (a results table's rows: where its row at step 0 was seen; their epoch tag tells nothing
     * of a counter that runs on over the epochs) */
    bool tagged = p->table_row ? p->table_zero : labelled;
    bool fresh =
        new_inst && (tagged || opened || (p->text_zero && b->n == 1) || p->text_from_one || made);
    /* a text counter's first line after an epoch line, counted from 0: its next line tells
     * whether the counter began there (Marian's cumulative `Up. 200500` does not) */
    p->opened_n = fresh && opened && p->text_draw && b->n > 1 ? b->n : -1;
    close_val(p, t_ms);
    gw_timeline_add(p->tl, GW_PH_TRAIN, t_ms, b->n, b->total, p->inst, b->step_s, NULL, fresh);
    p->last_act_ms = t_ms;
    p->last_kind = 1;
    /* the epoch's steps: from the bar's first draw, or this one if an epoch began since */
    size_t first =
        p->nst && p->st[p->nst - 1].first_sample >= p->inst_first ? p->nsm - 1 : p->inst_first;
    /* a counter that runs on over the epochs (spaCy's `#`, Chainer's `iter`): the epoch its tag
     * names began after the work the line before reported */
    int64_t from = new_inst || !p->nst || !prev_act ? p->inst_start_ms : prev_act;
    bool started = labelled && gw_progress_add_start(p, e, t, inclusive, from, first, epoch, total);
    /* a redraw of its end after the epoch it opened (each rank prints it) is no new loop */
    p->nst_at_sample = p->nst;
    return started;
}

/* Hugging Face Trainer's log dicts: {'loss': 0.7, ..., 'epoch': 0.5}. */
static bool hf_line(gw_progress *p, const char *line, int64_t t_ms)
{
    const char *s = line + strspn(line, " ");
    if (*s != '{')
        return false;
    const char *k = strstr(s, "'epoch': ");
    if (!k)
        return false;
    const char *v = k + 9 + (k[9] == '\''); /* transformers 5 prints values as strings */
    char *end;
    double x = strtod(v, &end);
    if (end == v || !(x >= 0) || x > 1e6)
        return false;
    long n = -1;
    for (size_t i = p->nsm; i-- > 0;)
        if (p->sm[i].total == p->train_total) {
            n = p->sm[i].n;
            break;
        }
    keep_last(p);
    p->hf = xgrow(p->hf, &p->caphf, p->nhf + 1, sizeof *p->hf);
    p->hf[p->nhf++] = (hf_dict){.t_ms = t_ms, .epoch = x, .n = n};
    if (strstr(s, "'eval_") && p->nvr && p->last_kind == 2)
        p->vr[p->nvr - 1].last_ms = t_ms; /* the evaluation ends with its results */
    p->last_kind = 0;
    return true;
}

/* The epoch just started by a line that sums it up (`Epoch 1 cost time: 273 s`) ended at
 * t_ms; the first such epoch's evaluation lines came before any epoch line: they are its. */
static void over_line(gw_progress *p, int64_t t_ms)
{
    p->st[p->nst - 1].end_ms = t_ms;
    if (p->nst > 1 || !p->pre_val[0])
        return;
    p->vr = xgrow(p->vr, &p->capvr, p->nvr + 1, sizeof *p->vr);
    p->vr[p->nvr++] = (val_run){
        .first_ms = p->pre_val[0], .last_ms = p->pre_val[1], .elapsed_s = NAN, .last_n = -1};
}

static void note(char *dst, size_t size, const char *src)
{
    if (!dst[0] && src && src[0])
        snprintf(dst, size, "%.*s", (int)size - 1, src);
}

/* A bar drawn before any step of the loop that text lines count, an evaluation's result right
 * after it (mlx-lm's `Calculating loss...` bar, then `Iter 1: Val loss`): it was that
 * evaluation's, before training began (start-up); the bars after it are other loops. */
static void startup_bar_was_eval(gw_progress *p, const gw_counter *c)
{
    if (p->train_bars && !p->train_shape[0] && !p->nst && !p->nhf && p->last_kind == 2 &&
        p->inst == 1 && c->kind == GW_LINE_TRAIN)
        gw_progress_restart(p);
}

/* A text line that reports a checkpoint save (logread/counter_line.h). */
static void save_line(gw_progress *p, const gw_counter *c, int64_t t_ms)
{
    if (p->nsm || p->nst) /* once training has begun */
        note(p->save_word, sizeof p->save_word, c->kind_word);
    p->saved_after_val = p->last_kind == 2;
    p->paused = true;
    keep_last(p);
    close_val(p, t_ms);
    gw_progress_activity(p, GW_PH_SAVE, t_ms, c->kind_word, 0);
    p->last_kind = 3;
    p->last_act_ms = t_ms;
    /* a save that prints the step it was made at ("saving model-snapshot at stage 3, global step
     * 1250") places the text counter there */
    if (c->n > p->last_raw && p->last_raw >= 0 && !p->train_bars) {
        p->last_raw = c->n;
        gw_timeline_place(p->tl, c->n + p->text_zero);
    }
}

/* A text line that reports an evaluation (logread/counter_line.h). */
static void eval_line(gw_progress *p, const gw_counter *c, int64_t t_ms)
{
    if (p->nst || p->nsm)
        note(p->eval_word, sizeof p->eval_word, c->kind_word);
    else
        note(p->pre_eval_word, sizeof p->pre_eval_word, c->kind_word);
    if (p->saved_after_val && c->n < 0 && !c->announce)
        return; /* "Epoch 1/50 - ... Validation Loss: 1.37" after "Saving model" */
    bar b;
    gw_bar_init(&b);
    b.n = c->announce ? -2 : c->n;
    b.total = c->total > 0 ? c->total : 0; /* 0: not printed */
    snprintf(b.desc, sizeof b.desc, "%s", c->kind_word);
    if (p->nst || p->nsm)
        add_val(p, &b, t_ms);
    else if (!p->pre_val[0]) /* kept for an epoch line after them that sums it up */
        p->pre_val[0] = t_ms;
    if (!p->nst && !p->nsm)
        p->pre_val[1] = t_ms;
}

/* A plain text line with a counter, an evaluation or a save (logread/counter_line.h). */
static bool on_counter_line(gw_progress *p, const gw_counter *c, int64_t t_ms, long *epoch,
                            long *total)
{
    if (c->kind == GW_LINE_SAVE) {
        save_line(p, c, t_ms);
        return false;
    }
    if (c->kind == GW_LINE_EVAL) {
        eval_line(p, c, t_ms);
        return false;
    }
    bar b;
    gw_bar_init(&b);
    b.n = c->n;
    b.total = c->total > 0 ? c->total : 0; /* 0: not printed */
    if (gw_progress_repeated_step(p, c))
        return false;
    startup_bar_was_eval(p, c);
    /* a loop whose counter starts at 0 prints the index of the step just done */
    bool from_one = p->last_raw < 0 && !p->nsm && c->n == 1;
    gw_progress_zero_lines(p, c);
    double step_s = gw_progress_counter_step_s(p, c);
    b.n += p->text_zero;
    if (b.total > 0 && b.n > b.total)
        b.n = b.total;
    b.epoch = c->epoch;
    b.epoch_total = c->epoch_total;
    b.step_s = step_s;
    if (b.epoch < 0 && p->train_total > 0 && b.total > 0 && b.total != p->train_total) {
        if (p->nst || p->nsm)
            add_val(p, &b, t_ms); /* a loop of another length amid training: an evaluation */
        return false;
    }
    snprintf(p->train_shape, sizeof p->train_shape, "%s", c->shape); /* the usual line's */
    char src[GW_COUNTER_SHAPE_MAX + 16];
    snprintf(src, sizeof src, "`%s` lines", c->shape);
    p->cur_src = p->table_row ? "results table rows" : src;
    p->text_from_one = from_one;
    gw_progress_opened_check(p, b.n);
    p->text_draw = true;
    bool started = on_train_bar(p, &b, t_ms, epoch, total);
    p->text_draw = false;
    p->after_counter = true;
    p->text_from_one = false;
    keep_last(p); /* text lines are few: each is kept */
    p->cur_src = NULL;
    return started;
}

/* Work that is neither training nor evaluation (an upload, an export) at t_ms. */
static void other_work(gw_progress *p, int64_t t_ms, const char *what)
{
    keep_last(p);
    close_val(p, t_ms);
    gw_progress_activity(p, GW_PH_OTHER, t_ms, what, 0);
}

/* A progress bar draw b of line: a training loop's, an evaluation's, or other work. */
static bool on_bar_line(gw_progress *p, const char *line, bar *b, int64_t t_ms, long *epoch,
                        long *total)
{
    bool val = b->val || (b->epoch < 0 && gw_bar_val_desc(b->desc));
    bool prep = b->epoch < 0 && b->desc[0] && gw_bar_prep_desc(b->desc);
    if (!val && b->epoch < 0 && (p->nsm || p->nst) && gw_bar_save_desc(b->desc)) {
        gw_counter c = {.kind = GW_LINE_SAVE, .n = -1, .total = -1};
        size_t w = strcspn(b->desc, " :");
        snprintf(c.kind_word, sizeof c.kind_word, "%.*s", (int)w, b->desc);
        save_line(p, &c, t_ms); /* Hugging Face's `Writing model shards: 100%|...| 1/1` */
        return false;
    }
    if (prep || (!val && b->epoch < 0 &&
                 ((b->desc[0] && gw_bar_other_desc(b->desc)) || p->after_download))) {
        /* a saving bar right after a save line is that save's (Nanotron's `Saving weights:
         * 100%|...| 15/15` after `Saving checkpoint at checkpoints/10`) */
        if (!(p->last_kind == 3 && strcasestr(b->desc, "saving")))
            other_work(p, t_ms, b->desc);
        return false;
    }
    long e, t;
    bool incl, labelled = !val && bar_epoch(p, b, &e, &t, &incl);
    /* the only counter line so far a set-up's 0 (a configuration's `'step': 0`, `iter=0`): the
     * bars count the steps, not it */
    if (p->zero_set_up && p->nsm == 1 && !p->train_bars && p->train_shape[0] && !p->nst)
        gw_progress_restart(p);
    bool text = p->nsm && !p->train_bars && p->train_shape[0]; /* training in text lines */
    if (!val && !labelled && gw_bar_no_steps(b->desc, text)) {
        const char *r = gw_bar_rest(line, NULL); /* a bar over the epochs, or beside */
        return r && gw_progress_feed_line(p, r, t_ms, epoch, total);
    }
    if (!val && !labelled && p->train_total > 0 && b->total != p->train_total)
        val = true;           /* a bar of another length amid training: an evaluation loop */
    val |= !labelled && text; /* training counted by text lines: a bar is another loop */
    if (val) {
        if (b->val && b->desc[0])
            note(p->eval_word, sizeof p->eval_word, b->desc); /* timm's "Test:" lines */
        if (p->nst || p->nsm)
            add_val(p, b, t_ms);
        return false;
    }
    p->train_bars |= b->epoch < 0;
    p->train_bars_labelled |= labelled;
    p->cur_src = b->epoch >= 0 ? "`Train: E [N/M]` lines" : "progress bar descriptions";
    bool started = on_train_bar(p, b, t_ms, epoch, total);
    p->cur_src = NULL;
    /* a logger's line run into the bar ("...s/it][INFO|...] ***** Running Evaluation *****")
     * is read as its own line; on a cut bar for its evaluation or save only (the bar counts) */
    bool cut;
    const char *rest = gw_bar_rest(line, &cut);
    gw_counter c;
    if (rest && cut && gw_counter_line(rest, &c) && c.kind != GW_LINE_TRAIN)
        on_counter_line(p, &c, t_ms, NULL, NULL);
    if (started || cut)
        return started;
    return rest ? gw_progress_feed_line(p, rest, t_ms, epoch, total) : started;
}

/* A line of its own right after a training counter's that prints the time per step (`speed:
 * 0.0867s/iter`, `global_step/sec: 2.45`) gives that line's, when it printed none. */
static bool step_time_line(gw_progress *p, const char *line)
{
    sample *last = p->nsm ? &p->sm[p->nsm - 1] : NULL;
    if (!last || !isnan(last->step_s))
        return false;
    double x = gw_step_time_alone(line);
    if (isnan(x))
        return false;
    last->step_s = x;
    last->paused = p->paused;
    p->paused = false;
    gw_timeline_step_s(p->tl, x);
    return true;
}

/* Other work named by line's first words, up to one of the characters in stop. */
static void other_work_named(gw_progress *p, int64_t t_ms, const char *line, const char *stop)
{
    char what[GW_COUNTER_WORD_MAX];
    const char *s0 = line + strspn(line, " \t");
    snprintf(what, sizeof what, "%.*s", (int)strcspn(s0, stop), s0);
    other_work(p, t_ms, what);
}

/* A line with no counter, evaluation or save that still tells something: the time per step of
 * the counter's line before it, or work of another kind once training began ("Downloading file
 * gs://..."). */
static bool uncounted_line(gw_progress *p, const char *line, int64_t t_ms, bool after_counter)
{
    if (after_counter && step_time_line(p, line))
        return true;
    /* the counter's line goes on in indented lines (OLMo's `[step=2/739328]`, then `
     * train/CrossEntropyLoss=10.73`, ..., `throughput/device/batches_per_second=0.0869`) */
    if (after_counter && (*line == ' ' || *line == '\t') && line[strspn(line, " \t")])
        p->after_counter = true;
    if (!p->nsm || !gw_bar_other_verb(line))
        return false;
    other_work_named(p, t_ms, line, " :");
    return true;
}

/* A results table's row (result_table.h): with a step column, the step counter at the row's step
 * (its epoch cell the epoch tag; a row at step 0 is the evaluation before training), then the
 * evaluation the row reports when a column names one; without a step column, while text
 * counters or bars count the steps and place the epochs (Chainer's PrintReport beside its
 * ProgressBar), that evaluation alone. */
static bool table_row(gw_progress *p, const gw_table_row *r, int64_t t_ms, long *epoch, long *total)
{
    bool started = false;
    gw_counter c = {.n = -1, .total = -1, .epoch = -1, .epoch_total = -1, .step_s = NAN};
    if (p->table.step_col && r->step > 0) {
        c.n = r->step;
        c.epoch = r->epoch;
        snprintf(c.shape, sizeof c.shape, "%s", p->table.step_name);
        p->table_row = p->table_steps = true;
        size_t nst = p->nst, nsm = p->nsm;
        started = on_counter_line(p, &c, t_ms, epoch, total);
        p->table_row = false;
        if (!nst && p->nst) /* the first epoch's work began at the header or the row before */
            p->st[0].t_ms = p->table_ms;
        /* the second row shows whether the first was the loop's stride (logged every N steps
         * from the start) or an excerpt's: then the steps before its first row count none */
        long first = nsm == 1 ? p->sm[0].n : -1;
        if (first > 0 && p->nsm == 2 && !p->table_zero && r->step - first != first)
            p->sm[0].base = first;
    }
    p->table_zero |= p->table.step_col && r->step == 0;
    p->table_ms = t_ms;
    if (r->eval) {
        c = (gw_counter){.kind = GW_LINE_EVAL,
                         .n = -1,
                         .total = -1,
                         .epoch = -1,
                         .epoch_total = -1,
                         .step_s = NAN};
        snprintf(c.kind_word, sizeof c.kind_word, "%s", p->table.eval_name);
        on_counter_line(p, &c, t_ms, NULL, NULL);
    }
    return started;
}

/* A line that starts an epoch or reports its end: the default epoch lines, or row_e >= 0, the
 * epoch a results table's row ended (result_table.h). */
static bool epoch_line(gw_progress *p, const char *line, int64_t t_ms, long row_e, bool work,
                       long *epoch, long *total)
{
    bool row = row_e >= 0;
    long e = row_e, t = -1;
    p->cur_src = row ? "results table rows" : "`Epoch N` lines";
    /* a line that reports its epoch's end, with no step printed (a table's row sums up its
     * epoch, begun at the row or the header before): docs/epochs.md */
    /* the first epoch line came after training steps, with results (accelerate's `epoch 0:
     * {'accuracy': 0.84}` after its bar's steps): epoch lines sum their epochs up */
    bool summary = !row && !p->user && p->nsm &&
                   (p->ends_epochs || (!p->nst && gw_progress_results_line(line)));
    gw_epoch_line_end ends = row || summary      ? GW_EPOCH_OVER
                             : p->user || p->nsm ? GW_EPOCH_STARTS
                                                 : gw_epoch_line_ends(line);
    int64_t from = !ends                   ? t_ms
                   : !p->nst && !row       ? p->first_ms
                   : ends == GW_EPOCH_OVER ? p->over_ms
                   : p->last_act_ms        ? p->last_act_ms
                                           : t_ms;
    bool started =
        (row || epoch_of_line(p, line, &e, &t)) &&
        gw_progress_add_start(p, e, t, false, from, summary ? p->summed_sm : p->nsm, epoch, total);
    p->table_epochs |= started && row;
    start *cur = p->nst ? &p->st[p->nst - 1] : NULL;
    if (!started && cur && cur->total < 0 && p->dflt &&
        gw_epoch_matcher_match(p->dflt, line, &e, &t) && e == cur->raw && t > 0)
        cur->total = t; /* a line that mentions the epoch being run gives its total ("End of
                           epoch 1 / 500") */
    p->ends_epochs |= started && summary;
    if (started)
        p->epoch_over = row || summary || gw_epoch_line_ends(line) != GW_EPOCH_STARTS;
    if (started && summary)
        p->summed_sm = p->nsm; /* the next epoch's draws begin after this one's */
    if (started) { /* the draws before it are the epoch before's, even at the same time */
        close_val(p, t_ms);
        p->saved_after_val = false;
        p->last_act_ms = ends ? t_ms : 0; /* a result line after it tells not when work began */
        p->over_ms = t_ms;
        if (ends == GW_EPOCH_OVER) /* its evaluation came before: the epoch ends here */
            over_line(p, t_ms);
        gw_progress_mark(p, from);
        keep_last(p);
    }
    p->cur_src = NULL;
    if (started && !p->train_bars_labelled)
        p->train_total = -1; /* the first bar after an epoch line is its training bar */
    /* no step printed (yet): the epoch lines tell the training (docs/epochs.md) */
    if (!p->nsm && (started || (work && cur && !row && epoch_of_line(p, line, &e, &t) &&
                                e == cur->raw && !gw_epoch_line_mention(line))))
        gw_progress_epoch_work(p, line, t_ms, started, row || ends);
    if (started && !p->nsm && !row && !ends)
        p->st[p->nst - 1].results = gw_epoch_line_results(line);
    return started;
}

bool gw_progress_feed_line(gw_progress *p, const char *line, int64_t t_ms, long *epoch, long *total)
{
    bool after_counter = p->after_counter;
    p->after_counter = false;
    if (t_ms > p->last_ms)
        p->last_ms = t_ms;
    if (p->first_ms == INT64_MIN)
        p->first_ms = t_ms;
    if (hf_line(p, line, t_ms))
        return false;
    if (strstr(line, "B/s]") || strstr(line, "B/s, ")) { /* a transfer: bytes per second */
        other_work_named(p, t_ms, line, ":");
        return false;
    }
    bar b;
    if (gw_bar_parse(line, &b))
        return on_bar_line(p, line, &b, t_ms, epoch, total);
    p->after_download = gw_bar_other_line(line);
    if (gw_bar_has_word(line, "Epoch") && gw_bar_has_word(line, "GPU_mem")) {
        p->header_seen = true;
        return false;
    }
    gw_table_row tr;
    gw_table_line row = p->user ? GW_TABLE_NONE : gw_result_table_read(&p->table, line, &tr);
    if (row == GW_TABLE_HEADER) { /* a loop begins: its first row's epoch from here */
        p->loop_reset = p->nst > 0 && !p->table.step_col;
        p->over_ms = p->table_ms = t_ms;
        return false;
    }
    /* beside counters that place the epochs themselves, an epoch table's rows only report */
    if (row == GW_TABLE_ROW && (p->table.step_col || (p->nsm && p->nst && !p->table_epochs)))
        return table_row(p, &tr, t_ms, epoch, total);
    long e = row == GW_TABLE_ROW ? tr.epoch : -1;
    if (gw_training_over_line(line))
        gw_progress_over(p, t_ms); /* "Training complete.": what follows is after training */
    gw_counter c;
    bool counted = gw_counter_line(line, &c);
    if (!counted && uncounted_line(p, line, t_ms, after_counter))
        return false;
    gw_counter_role role = counted && c.kind == GW_LINE_TRAIN && c.n >= 0
                               ? gw_counter_is_step(&p->pick, &c, t_ms)
                               : GW_COUNTER_STEP;
    /* the line before was this counter's first; below the other one's values, it starts a loop
     * of its own from there (a samples counter read first: the steps' first line counts none) */
    if (role == GW_COUNTER_TAKEOVER && p->pick.held.n < p->last_raw) {
        p->last_raw = -1;
        p->text_zero = false;
        p->pending_base = p->pick.held.n == 1 ? 0 : p->pick.held.n; /* 1: its first step */
        if (p->nsm) /* and the other counter's draws count no step */
            p->sm[p->inst_first].base = LONG_MAX;
        gw_timeline_recount(p->tl);
    }
    bool held = role == GW_COUNTER_TAKEOVER &&
                on_counter_line(p, &p->pick.held, p->pick.held_t, epoch, total);
    counted = counted && role != GW_COUNTER_OTHER; /* a second counter's line may tag the epoch */
    long ce, ct; /* an evaluation line that starts an epoch sums it up, with no step printed */
    p->fold_eval = counted && c.kind == GW_LINE_EVAL && c.n < 0 && !p->nsm &&
                   epoch_of_line(p, line, &ce, &ct) &&
                   gw_progress_epoch_step(p, ce) >= GW_EPOCH_NEXT;
    if (counted && row != GW_TABLE_ROW) {
        bool started = on_counter_line(p, &c, t_ms, epoch, total) || held;
        p->fold_eval = false;
        if (started || c.kind == GW_LINE_TRAIN || c.n >= 0)
            return started;
        /* an evaluation or save line may still open an epoch ("epoch 12 ... val acc") */
    }
    p->fold_eval = false;
    return epoch_line(p, line, t_ms, e, !counted, epoch, total);
}

/* ---- the epochs ---- */

size_t gw_progress_finish(gw_progress *p, gw_progress_epoch **out)
{
    close_val(p, p->last_ms);
    if (p->nsm && p->work_since_step && p->train_shape[0] && !p->train_bars)
        ran_its_total(p, &p->sm[p->nsm - 1]); /* the last epoch, its evaluation after it */
    gw_progress_hf_starts(p);
    gw_progress_summed_epochs(p);
    *out = NULL;
    if (!p->nst)
        return 0;
    bool inclusive = false;
    for (size_t i = 0; i < p->nst; i++)
        if (p->st[i].inclusive || (p->st[i].total >= 0 && p->st[i].raw == p->st[i].total))
            inclusive = true;
    gw_progress_epoch *e = xcalloc(p->nst, sizeof *e);
    for (size_t i = 0; i < p->nst; i++) {
        const start *s = &p->st[i];
        bool last = i + 1 == p->nst;
        int64_t to = last ? INT64_MAX : p->st[i + 1].t_ms;
        e[i] = (gw_progress_epoch){
            .number = norm_number(p, s->raw),
            .total = s->total < 0 ? -1 : s->total + (inclusive && p->zero_based == 1),
            .start_ms = s->t_ms,
            .end_ms = last ? p->last_ms : to,
            .validation_s = NAN,
            .steps = -1,
            .steps_per_s = NAN};
        gw_progress_train_figures(p, s->t_ms, to, s->first_sample,
                                  last ? SIZE_MAX : p->st[i + 1].first_sample, &e[i]);
        if (last) {
            /* the last epoch ends with its training and first validation, not the record */
            int64_t end = s->t_ms;
            for (size_t k = 0; k < p->nsm; k++)
                if (p->sm[k].t_ms >= s->t_ms && p->sm[k].t_ms > end)
                    end = p->sm[k].t_ms;
            /* without evaluations amid training, one after the last step is after-work (a
             * predict, a final test), not this epoch's validation (timeline.h) */
            int64_t train_end = end;
            bool mid = false;
            for (size_t k = 0; k < p->nvr; k++)
                mid |= p->vr[k].first_ms < train_end;
            for (size_t k = 0; k < p->nvr && (mid || p->nst < 2); k++)
                if (p->vr[k].first_ms >= s->t_ms) {
                    if (p->vr[k].last_ms > end)
                        end = p->vr[k].last_ms;
                    break;
                }
            if (p->nsm || p->nvr)
                e[i].end_ms = end;
            if (s->end_ms) /* its line summed it up, evaluation included */
                e[i].end_ms = s->end_ms;
        }
        gw_progress_val_figures(p, s->t_ms, last ? e[i].end_ms + 1 : to, last, &e[i]);
        /* Hugging Face's epochs hold steps per epoch each, however the bar's draws fell about
         * their boundary; the last what its count reached beyond */
        if (p->hf_per > 0 && e[i].steps >= 0)
            e[i].steps = last ? gw_progress_hf_count(p) - (long)i * p->hf_per : p->hf_per;
    }
    *out = e;
    return p->nst;
}
