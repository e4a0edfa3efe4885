/* Busy-ness verdicts: gpu_starved, underfilled_kernels, expected_dips, multi_gpu_imbalance and
 * gpu_saturated (see checks.h and docs/report.md for the rules). */
#include "analysis/inproc_cause.h"
#include "analysis/checks.h"

#include "util/gw_buf.h"
#include "util/gw_fmt.h"
#include "util/xalloc.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const suggest_epoch_start =
    "The GPU waits at the start of each epoch while the DataLoader starts its workers and fills "
    "its first batches: set persistent_workers=True (and prefetch_factor) so the workers stay up "
    "between epochs.";

/* Dips at the start of epochs' training parts (not expected): when they are at least two and
 * half of the unexpected dips, the epoch start is the cause. */
static size_t epoch_start_dips(const gw_gpu_analysis *g)
{
    size_t at = 0, other = 0;
    for (size_t d = 0; d < g->ndips; d++) {
        if (g->dips[d].expected)
            continue;
        if (g->dips[d].at_epoch_start)
            at++;
        else
            other++;
    }
    return at >= 2 && at >= other ? at : 0;
}

/* A burst of work shorter than this is "short" (a batch or a few). */
#define SHORT_BURST_S 10.0

static bool judged(const gw_gpu_analysis *g)
{
    const double *u = gw_series_gpu_values(g->gpu, GW_F_UTIL_GPU_PCT);
    return g->participant && u && !isnan(g->busy_pct) && g->work_s >= GW_TH(GW_TH_MIN_STEADY_S) &&
           (double)gw_work_samples(g, u) >= GW_TH(GW_TH_MIN_STEADY_SAMPLES);
}

/* Share (%) of the work time (steady state outside expected dips: the time busy_pct is the mean
 * of) with utilization.gpu below limit_pct, so that "busy X %" and "idle Y %" describe the same
 * seconds; NAN when the work time has no utilisation. */
static double share_below_of_work(const gw_gpu_analysis *g, double limit_pct)
{
    const double *u = gw_series_gpu_values(g->gpu, GW_F_UTIL_GPU_PCT);
    gw_span st = g->phase[GW_PHASE_STEADY].span;
    double below = 0, all = 0;
    for (size_t r = st.begin; r < st.end; r++) {
        if (!gw_work_row(g, r) || isnan(u[r]))
            continue;
        all += g->dt_s[r];
        below += u[r] < limit_pct ? g->dt_s[r] : 0;
    }
    return all > 0 ? 100.0 * below / all : NAN;
}

/* Idle: below idle_util_pct. */
static double idle_share_of_work(const gw_gpu_analysis *g)
{
    return share_below_of_work(g, GW_TH(GW_TH_IDLE_UTIL_PCT));
}

/* Bursts of work inside the work rows: count, mean length, longest idle run. */
static void bursts(const gw_gpu_analysis *g, size_t *count, double *mean_s, double *idle_max_s)
{
    const double *u = gw_series_gpu_values(g->gpu, GW_F_UTIL_GPU_PCT);
    gw_span st = g->phase[GW_PHASE_STEADY].span;
    double busy_s = 0, idle_s = 0;
    bool in_burst = false;
    *count = 0;
    *idle_max_s = 0;
    for (size_t r = st.begin; r < st.end; r++) {
        if (!gw_work_row(g, r) || isnan(u[r]))
            continue;
        bool idle = u[r] < GW_TH(GW_TH_IDLE_UTIL_PCT);
        if (!idle) {
            *count += !in_burst;
            busy_s += g->dt_s[r];
            idle_s = 0;
        } else {
            idle_s += g->dt_s[r];
            if (idle_s > *idle_max_s)
                *idle_max_s = idle_s;
        }
        in_burst = !idle;
    }
    *mean_s = *count ? busy_s / (double)*count : NAN;
}

/* Rows of the work time with the GPU not idle: "while busy". */
static bool active_work_row(const gw_gpu_analysis *g, size_t r)
{
    const double *u = gw_series_gpu_values(g->gpu, GW_F_UTIL_GPU_PCT);
    return gw_work_row(g, r) && u[r] >= GW_TH(GW_TH_IDLE_UTIL_PCT);
}

/* What the GPU does while it is busy (issue 13, item 3): GPM SM activity far below GPU-Util
 * means small kernels; without GPM, power against the limit is the weaker evidence. Appends a
 * sentence to note when it says so. */
static void while_busy(const gw_gpu_analysis *g, gw_verdict *v, char *note, size_t len)
{
    note[0] = '\0';
    double util = gw_check_p50(g, gw_series_gpu_values(g->gpu, GW_F_UTIL_GPU_PCT), active_work_row);
    double sm =
        gw_check_p50(g, gw_series_gpu_values(g->gpu, GW_F_GPM_SM_ACTIVE_PCT), active_work_row);
    if (!isnan(sm)) {
        double occ = gw_check_p50(g, gw_series_gpu_values(g->gpu, GW_F_GPM_SM_OCCUPANCY_PCT),
                                  active_work_row);
        double tensor = gw_check_p50(g, gw_series_gpu_values(g->gpu, GW_F_GPM_TENSOR_ACTIVE_PCT),
                                     active_work_row);
        gw_verdict_text(v, "while_busy_source", "gpm");
        gw_verdict_num(v, "while_busy_util_p50_pct", util);
        gw_verdict_num(v, "while_busy_sm_active_p50_pct", sm);
        gw_verdict_num(v, "while_busy_sm_occupancy_p50_pct", occ);
        gw_verdict_num(v, "while_busy_tensor_active_p50_pct", tensor);
        if (sm < GW_TH(GW_TH_SM_UTIL_RATIO) * util)
            snprintf(note, len,
                     "; while busy only %s%% of the SMs work at GPU-Util %s%% (occupancy "
                     "%s%%, tensor %s%%: GPM): the kernels are small too",
                     GW_FIXED(sm, 0), GW_FIXED(util, 0), GW_FIXED(occ, 0), GW_FIXED(tensor, 1));
        return;
    }
    double power =
        gw_check_p50(g, gw_series_gpu_values(g->gpu, GW_F_POWER_DRAW_W), active_work_row);
    double limit = g->gpu->power_limit_w;
    if (isnan(power) || !(limit > 0))
        return;
    gw_verdict_text(v, "while_busy_source", "power");
    gw_verdict_num(v, "while_busy_power_ratio", power / limit);
    if (power / limit < GW_TH(GW_TH_UNDERFILL_POWER_RATIO))
        snprintf(note, len,
                 "; while busy it draws %s of %s W (power, no GPM): the kernels may be small",
                 GW_FIXED(power, 0), GW_FIXED(limit, 0));
}

/* A number of v's evidence by key, NAN when v has none. */
static double evidence_num(const gw_verdict *v, const char *key)
{
    for (size_t i = 0; i < v->nevidence; i++)
        if (!v->evidence[i].text && strcmp(v->evidence[i].key, key) == 0)
            return v->evidence[i].value;
    return NAN;
}

static void starved(gw_analysis *a, gw_gpu_analysis *g)
{
    gw_span st = g->phase[GW_PHASE_STEADY].span;
    gw_severity sev =
        g->busy_pct < GW_TH(GW_TH_STARVED_CRITICAL_PCT) ? GW_SEV_CRITICAL : GW_SEV_WARNING;
    gw_verdict *v =
        gw_verdict_add(&a->verdicts, GW_V_GPU_STARVED, sev, (int)g->slot, st.start_ms, st.end_ms);
    size_t nb;
    double burst_s, idle_max_s;
    bursts(g, &nb, &burst_s, &idle_max_s);
    double idle_share = idle_share_of_work(g);
    gw_verdict_check(v, "busy_pct", g->busy_pct, "<", GW_TH_BUSY_UTIL_PCT);
    if (sev == GW_SEV_CRITICAL)
        gw_verdict_check(v, "busy_pct_critical", g->busy_pct, "<", GW_TH_STARVED_CRITICAL_PCT);
    gw_verdict_num(v, "idle_share_pct", idle_share);
    gw_verdict_num(v, "work_s", g->work_s);
    gw_verdict_num(v, "bursts", (double)nb);
    gw_verdict_num(v, "burst_mean_s", burst_s);
    gw_verdict_num(v, "idle_run_max_s", idle_max_s);
    /* work time / busy time: the factor the steady state could shorten by if the GPU never
     * waited (busy time = the work time at the mean GPU-Util). */
    double speedup = g->busy_pct > 0 ? 100.0 / g->busy_pct : NAN;
    gw_verdict_num(v, "speedup_max", speedup);
    const char *sugg = NULL;
    char why[256], note[200];
    /* Dips at the start of epochs' training parts (the job's own output placed them) name the
     * cause before the processes' numbers do. */
    size_t at_start = epoch_start_dips(g);
    const char *cause = gw_starved_cause(a, g, v, &sugg, why, sizeof why);
    if (at_start) {
        cause = "epoch_start";
        sugg = suggest_epoch_start;
        snprintf(why, sizeof why, "the GPU idled at the start of %zu epochs", at_start);
        gw_verdict_num(v, "epoch_start_dips", (double)at_start);
    }
    gw_inproc_cause(a, g, v, &cause, &sugg, why, sizeof why);
    gw_verdict_set_cause(v, cause);
    gw_verdict_text(v, "cause", cause);
    while_busy(g, v, note, sizeof note);
    /* Say the GPU's rhythm only as the evidence shows it (bursts, idle stretches). */
    char rhythm[96] = "";
    if (idle_share > 0 && nb >= 3 && burst_s <= SHORT_BURST_S)
        snprintf(rhythm, sizeof rhythm, ", %zu short bursts (%s s)", nb, GW_FIXED(burst_s, 1));
    else if (idle_max_s >= GW_TH(GW_TH_DIP_MIN_S))
        snprintf(rhythm, sizeof rhythm, ", idle up to %s s at a time", GW_FIXED(idle_max_s, 0));
    char gain[96] = "";
    /* The in-job data measured the loop's own data wait: that bounds what the input pipeline can
     * gain, tighter than the GPU's idle time, and it is the bound the suggestion quotes. */
    double py_gain = evidence_num(v, "python_input_gain_max");
    if (strcmp(cause, "input_pipeline") == 0 && !isnan(py_gain))
        snprintf(gain, sizeof gain,
                 "; a faster input pipeline could make training up to %sx faster",
                 GW_FIXED(py_gain, 1));
    else if (!isnan(speedup))
        snprintf(gain, sizeof gain, "; removing this wait could make training up to %sx faster",
                 GW_FIXED(speedup, 1));
    gw_verdict_say(v, sugg,
                   "GPU busy %s%% of the steady state (%s s), idle %s%%%s; cause: "
                   "%s (%s)%s%s",
                   GW_FIXED(g->busy_pct, 1), GW_FIXED(g->work_s, 0), GW_FIXED(idle_share, 0),
                   rhythm, cause, why, note, gain);
}

static bool busy_work_row(const gw_gpu_analysis *g, size_t r)
{
    const double *u = gw_series_gpu_values(g->gpu, GW_F_UTIL_GPU_PCT);
    return gw_work_row(g, r) && u[r] >= GW_TH(GW_TH_BUSY_UTIL_PCT);
}

static void underfilled(gw_analysis *a, gw_gpu_analysis *g)
{
    gw_span st = g->phase[GW_PHASE_STEADY].span;
    double busy_s = 0;
    for (size_t r = st.begin; r < st.end; r++)
        if (busy_work_row(g, r))
            busy_s += g->dt_s[r];
    double share = 100.0 * busy_s / g->work_s;
    if (!(share > GW_TH(GW_TH_UNDERFILL_MIN_SHARE)))
        return;
    double sm =
        gw_check_p50(g, gw_series_gpu_values(g->gpu, GW_F_GPM_SM_ACTIVE_PCT), busy_work_row);
    double power = gw_check_p50(g, gw_series_gpu_values(g->gpu, GW_F_POWER_DRAW_W), busy_work_row);
    double limit = g->gpu->power_limit_w, ratio = power / limit;
    bool by_gpm = !isnan(sm);
    if (by_gpm ? !(sm < GW_TH(GW_TH_UNDERFILL_SM_ACTIVE_PCT))
               : !(ratio < GW_TH(GW_TH_UNDERFILL_POWER_RATIO)))
        return;
    gw_verdict *v = gw_verdict_add(&a->verdicts, GW_V_UNDERFILLED_KERNELS, GW_SEV_WARNING,
                                   (int)g->slot, st.start_ms, st.end_ms);
    double occ =
        gw_check_p50(g, gw_series_gpu_values(g->gpu, GW_F_GPM_SM_OCCUPANCY_PCT), busy_work_row);
    double tensor =
        gw_check_p50(g, gw_series_gpu_values(g->gpu, GW_F_GPM_TENSOR_ACTIVE_PCT), busy_work_row);
    gw_verdict_check(v, "busy_share_pct", share, ">", GW_TH_UNDERFILL_MIN_SHARE);
    gw_verdict_num(v, "util_p50_pct",
                   gw_check_p50(g, gw_series_gpu_values(g->gpu, GW_F_UTIL_GPU_PCT), busy_work_row));
    if (by_gpm) {
        gw_verdict_check(v, "sm_active_p50_pct", sm, "<", GW_TH_UNDERFILL_SM_ACTIVE_PCT);
        gw_verdict_num(v, "sm_occupancy_p50_pct", occ);
        gw_verdict_num(v, "tensor_active_p50_pct", tensor);
        gw_verdict_text(v, "evidence_source", "gpm");
    } else {
        gw_verdict_check(v, "power_ratio", ratio, "<", GW_TH_UNDERFILL_POWER_RATIO);
        gw_verdict_text(v, "evidence_source", "power (no GPM: the weaker evidence)");
    }
    gw_verdict_num(v, "power_p50_w", power);
    gw_verdict_num(v, "power_limit_w", limit);
    const char *sugg =
        "GPU-Util counts time with any kernel running, not how much of the GPU works: the kernels "
        "are too small to fill it. Raise the batch size, fuse small operations (torch.compile, "
        "CUDA graphs), and avoid per-sample Python loops that launch tiny kernels.";
    if (by_gpm) {
        /* occupancy and tensor activity are said only when recorded */
        char more[96] = "";
        if (!isnan(occ) && !isnan(tensor))
            snprintf(more, sizeof more, "; occupancy %s%%, tensor activity %s%%", GW_FIXED(occ, 0),
                     GW_FIXED(tensor, 1));
        else if (!isnan(occ))
            snprintf(more, sizeof more, "; occupancy %s%%", GW_FIXED(occ, 0));
        else if (!isnan(tensor))
            snprintf(more, sizeof more, "; tensor activity %s%%", GW_FIXED(tensor, 1));
        gw_verdict_say(v, sugg,
                       "GPU-Util reads busy but only %s%% of the SMs work (GPM SM "
                       "activity p50 < %s%%%s)",
                       GW_FIXED(sm, 1), GW_SIG(GW_TH(GW_TH_UNDERFILL_SM_ACTIVE_PCT), 6), more);
    } else
        gw_verdict_say(v, sugg,
                       "GPU-Util reads busy but the GPU draws %s W of %s W (%s%% < %s%%; "
                       "power, no GPM)",
                       GW_FIXED(power, 0), GW_FIXED(limit, 0), GW_FIXED(100 * ratio, 0),
                       GW_FIXED(100 * GW_TH(GW_TH_UNDERFILL_POWER_RATIO), 0));
}

#define SUGGEST_LAUNCH_PACE                                                                        \
    "The GPU is never left waiting but gets only tiny pieces of work: kernel launches, not data, " \
    "set the pace."
static const char *const suggest_launch_pace = SUGGEST_LAUNCH_PACE;
static const char *const suggest_launch = SUGGEST_LAUNCH_PACE
    " Raise the batch size, capture the step with CUDA graphs or "
    "torch.compile(mode=\"reduce-overhead\"), and remove per-step synchronisation (.item(), "
    ".cpu(), printing tensors).";

/* Quiet: below work_util_pct, no kernel at all. */
static double quiet_share_of_work(const gw_gpu_analysis *g)
{
    return share_below_of_work(g, GW_TH(GW_TH_WORK_UTIL_PCT));
}

/* A starved GPU that is lightly and steadily used (8 % for a whole minute, no quiet stretch) does
 * not wait for data between bursts: its work comes in a trickle of small launches. The verdict
 * says so (launch-bound) and gets the suggestion for it; its cause stays what the host showed. */
static void launch_bound(gw_gpu_analysis *g, gw_verdict *v)
{
    double quiet = quiet_share_of_work(g);
    if (!(quiet <= GW_TH(GW_TH_LAUNCH_QUIET_PCT)))
        return;
    double sm = gw_check_p50(g, gw_series_gpu_values(g->gpu, GW_F_GPM_SM_ACTIVE_PCT), gw_work_row);
    gw_verdict_check(v, "quiet_share_pct", quiet, "<=", GW_TH_LAUNCH_QUIET_PCT);
    gw_verdict_text(v, "pattern", "launch_bound");
    char sm_txt[48] = "";
    if (!isnan(sm))
        snprintf(sm_txt, sizeof sm_txt, ", SM activity %s%%", GW_FIXED(sm, 1));
    char gain[80] = "";
    if (g->busy_pct > 0)
        snprintf(gain, sizeof gain, "; a GPU kept busy could make training up to %sx faster",
                 GW_FIXED(100.0 / g->busy_pct, 1));
    /* The in-job data's suggestion (settings, the data-wait bound, the step's hot functions)
     * stays: the launch-bound finding goes before it, not instead of it. */
    gw_buf sugg = {0};
    bool in_job = !isnan(evidence_num(v, "python_data_wait_share_pct")) && v->suggestion &&
                  v->cause && strcmp(v->cause, "cpu_bound") == 0;
    if (in_job)
        gw_buf_printf(&sugg, "%s %s", suggest_launch_pace, v->suggestion);
    gw_verdict_say(v, in_job ? sugg.data : suggest_launch,
                   "GPU lightly and steadily used: busy %s%% of the steady state (%s s) with "
                   "no quiet stretch%s; launch-bound; cause: %s%s",
                   GW_FIXED(g->busy_pct, 1), GW_FIXED(g->work_s, 0), sm_txt,
                   v->cause ? v->cause : "unknown", gain);
    gw_buf_free(&sugg);
}

void gw_check_starved(gw_analysis *a, gw_gpu_analysis *g)
{
    if (!judged(g) || !(g->busy_pct < GW_TH(GW_TH_BUSY_UTIL_PCT)))
        return;
    starved(a, g);
    launch_bound(g, &a->verdicts.v[a->verdicts.n - 1]);
}

void gw_check_underfilled(gw_analysis *a, gw_gpu_analysis *g)
{
    if (judged(g) && !(g->busy_pct < GW_TH(GW_TH_BUSY_UTIL_PCT)))
        underfilled(a, g);
}

void gw_check_expected_dips(gw_analysis *a, gw_gpu_analysis *g)
{
    size_t n = 0, first = 0, last = 0;
    double total_s = 0;
    for (size_t d = 0; d < g->ndips; d++)
        if (g->dips[d].expected) {
            if (n++ == 0)
                first = d;
            last = d;
            total_s += (double)(g->dips[d].span.end_ms - g->dips[d].span.start_ms) / 1000.0;
        }
    /* no busy time between the dips (an idle GPU whose whole steady state is one "dip"): nothing
     * was interrupted, and the message would say "busy nan% in between" */
    if (n == 0 || isnan(g->busy_pct))
        return;
    double steady_s =
        (double)(g->phase[GW_PHASE_STEADY].span.end_ms - g->phase[GW_PHASE_STEADY].span.start_ms) /
        1000.0;
    double share = steady_s > 0 ? 100 * total_s / steady_s : NAN;
    bool long_dips = share > GW_TH(GW_TH_DIP_SHARE_WARN_PCT);
    gw_verdict *v =
        gw_verdict_add(&a->verdicts, GW_V_EXPECTED_DIPS, long_dips ? GW_SEV_WARNING : GW_SEV_INFO,
                       (int)g->slot, g->dips[first].span.start_ms, g->dips[last].span.end_ms);
    double period, cv;
    gw_dips_regular(g->dips, g->ndips, &period, &cv);
    gw_verdict_num(v, "dips", (double)n);
    gw_verdict_num(v, "dip_mean_s", total_s / (double)n);
    if (long_dips)
        gw_verdict_check(v, "dip_share_pct", share, ">", GW_TH_DIP_SHARE_WARN_PCT);
    else
        gw_verdict_num(v, "dip_share_pct", share);
    gw_verdict_num(v, "period_s", period);
    gw_verdict_check(v, "busy_pct", g->busy_pct, ">=", GW_TH_BUSY_UTIL_PCT);
    const char *with;
    if (a->nepochs > 0)
        with = a->epoch_origin == GW_EPOCHS_OUTPUT ? "validation in the job's output"
                                                   : "epoch boundaries";
    else
        with = a->series->nphases ? "evaluation or saves in the job's output" : "validation marks";
    gw_verdict_text(v, "aligned_with", with);
    char share_txt[48] = "";
    if (!isnan(share))
        snprintf(share_txt, sizeof share_txt, ", %s%% of the steady state", GW_FIXED(share, 0));
    gw_verdict_say(v,
                   "Not a bottleneck of training itself. If the dips are long, validate less "
                   "often or on a subset, and save checkpoints asynchronously (e.g. "
                   "torch.distributed.checkpoint.async_save) so training resumes sooner.",
                   "%zu dips of %s s on average at %s (validation/checkpoint%s); the GPU is "
                   "busy %s%% in between",
                   n, GW_FIXED(total_s / (double)n, 1), with, share_txt, GW_FIXED(g->busy_pct, 1));
}

static void saturated_one(gw_analysis *a, gw_gpu_analysis *g, const void *ctx)
{
    const unsigned char *problem = ctx;
    if (!judged(g) || !(g->busy_pct >= GW_TH(GW_TH_BUSY_UTIL_PCT)) || problem[g->slot])
        return;
    gw_span st = g->phase[GW_PHASE_STEADY].span;
    gw_verdict *v = gw_verdict_add(&a->verdicts, GW_V_GPU_SATURATED, GW_SEV_INFO, (int)g->slot,
                                   st.start_ms, st.end_ms);
    double sm = gw_check_p50(g, gw_series_gpu_values(g->gpu, GW_F_GPM_SM_ACTIVE_PCT), gw_work_row);
    double power = gw_check_p50(g, gw_series_gpu_values(g->gpu, GW_F_POWER_DRAW_W), gw_work_row);
    gw_verdict_check(v, "busy_pct", g->busy_pct, ">=", GW_TH_BUSY_UTIL_PCT);
    gw_verdict_num(v, "work_s", g->work_s);
    gw_verdict_num(v, "sm_active_p50_pct", sm);
    gw_verdict_num(v, "power_p50_w", power);
    gw_verdict_num(v, "power_limit_w", g->gpu->power_limit_w);
    gw_verdict_say(v,
                   "The GPU is the bottleneck, as it should be. To go faster: bf16/fp16 autocast, "
                   "torch.compile, a larger batch if memory allows, or more GPUs.",
                   "GPU busy %s%% of the steady state (%s s)%s", GW_FIXED(g->busy_pct, 1),
                   GW_FIXED(g->work_s, 0), isnan(sm) ? "" : "; SM activity confirms it");
}

/* Runs last, once: which GPUs have a verdict that means "not simply saturated" (a warning or
 * worse) is read from the verdicts in one pass, not once per GPU (n squared on 20,000 GPUs,
 * issue 28); this check adds infos only, so the flags hold while it runs. */
void gw_check_saturated(gw_analysis *a)
{
    size_t slots = a->ngpus;
    for (size_t i = 0; i < a->ngpus; i++)
        slots = a->gpus[i].slot >= slots ? a->gpus[i].slot + 1 : slots;
    unsigned char *problem = xcalloc(slots + 1, 1);
    for (size_t i = 0; i < a->verdicts.n; i++) {
        const gw_verdict *v = &a->verdicts.v[i];
        if (v->gpu >= 0 && (size_t)v->gpu < slots && v->severity >= GW_SEV_WARNING)
            problem[v->gpu] = 1;
    }
    gw_checks_each_gpu(a, saturated_one, problem); /* one GPU's decoded columns at a time */
    free(problem);
}

/* Mean utilisation of each participant over [start, end). */
static void window_means(const gw_analysis *a, int64_t start, int64_t end, double *out)
{
    for (size_t i = 0; i < a->ngpus; i++) {
        const gw_gpu_analysis *g = &a->gpus[i];
        out[i] = NAN;
        if (g->participant)
            out[i] = gw_gpu_mean_field(g, GW_F_UTIL_GPU_PCT, gw_check_span_of_time(g, start, end),
                                       false);
    }
}

/* The present values of one set of means, sorted once, so that each GPU's peers' median (the
 * median without that GPU) costs a binary search instead of a copy and a selection: the check
 * is n log n in GPUs, not n squared (issue 28). */
typedef struct {
    double *v; /* [n] the means, NAN where absent (by GPU) */
    double *s; /* [m] the present ones, ascending */
    size_t m;
} peer_set;

static void peers_sort(peer_set *p, size_t n)
{
    p->s = xmalloc((n ? n : 1) * sizeof *p->s);
    p->m = gw_stats_sort_present(p->v, n, p->s);
}

/* Median of the present means other than GPU i's; NAN when none. */
static double peers_median(const peer_set *p, size_t i)
{
    return gw_stats_median_without(p->s, p->m, p->v[i]);
}

enum { IMBALANCE_WINDOWS = 10 };

/* The steady window's ten slices, their means and peer sets, computed on first need. */
typedef struct {
    peer_set w[IMBALANCE_WINDOWS];
    bool ready;
} window_set;

static void windows_fill(const gw_analysis *a, window_set *ws_, int64_t ws, int64_t we)
{
    for (int w = 0; w < IMBALANCE_WINDOWS; w++) {
        int64_t s = ws + (we - ws) * w / IMBALANCE_WINDOWS;
        int64_t e = ws + (we - ws) * (w + 1) / IMBALANCE_WINDOWS;
        ws_->w[w].v = xmalloc((a->ngpus ? a->ngpus : 1) * sizeof *ws_->w[w].v);
        window_means(a, s, e, ws_->w[w].v);
        peers_sort(&ws_->w[w], a->ngpus);
    }
    ws_->ready = true;
}

static void imbalance_one(gw_analysis *a, size_t i, const peer_set *whole, window_set *wins,
                          int64_t ws, int64_t we, size_t compared)
{
    double mean = whole->v[i];
    double peers = peers_median(whole, i);
    double gap = peers - mean;
    if (!(gap > GW_TH(GW_TH_IMBALANCE_GAP_PCT)))
        return;
    if (!wins->ready)
        windows_fill(a, wins, ws, we);
    size_t below = 0, judged_windows = 0;
    for (int w = 0; w < IMBALANCE_WINDOWS; w++) {
        const peer_set *p = &wins->w[w];
        double pm = peers_median(p, i);
        if (isnan(p->v[i]) || isnan(pm))
            continue;
        judged_windows++;
        below += p->v[i] < pm - GW_TH(GW_TH_IMBALANCE_GAP_PCT) / 2;
    }
    double share = judged_windows ? 100.0 * (double)below / (double)judged_windows : 0;
    if (!(share > GW_TH(GW_TH_IMBALANCE_WINDOWS_PCT)))
        return;
    gw_verdict *v =
        gw_verdict_add(&a->verdicts, GW_V_MULTI_GPU_IMBALANCE, GW_SEV_WARNING, (int)i, ws, we);
    gw_verdict_num(v, "util_mean_pct", mean);
    gw_verdict_num(v, "peers_median_pct", peers);
    gw_verdict_check(v, "gap_pct", gap, ">", GW_TH_IMBALANCE_GAP_PCT);
    gw_verdict_check(v, "windows_below_pct", share, ">", GW_TH_IMBALANCE_WINDOWS_PCT);
    gw_verdict_num(v, "gpus_compared", (double)compared);
    gw_verdict_say(v,
                   "Look at what differs for this GPU or node: uneven data shards "
                   "(DistributedSampler, drop_last), a slower or throttled GPU, CPU contention or "
                   "a slower data path on its node, or rank-specific work (logging, evaluation, "
                   "checkpointing) inside the step.",
                   "busy %s%% while its peers are at %s%% (%s points less, in %s%% of "
                   "the run)",
                   GW_FIXED(mean, 1), GW_FIXED(peers, 1), GW_FIXED(gap, 1), GW_FIXED(share, 0));
}

void gw_check_imbalance(gw_analysis *a)
{
    int64_t ws = INT64_MIN, we = INT64_MAX;
    size_t compared = 0;
    for (size_t i = 0; i < a->ngpus; i++) {
        const gw_gpu_analysis *g = &a->gpus[i];
        if (!g->participant || !gw_series_gpu_has(g->gpu, GW_F_UTIL_GPU_PCT))
            continue;
        compared++;
        if (!g->worked)
            continue;
        gw_span st = g->phase[GW_PHASE_STEADY].span;
        ws = st.start_ms > ws ? st.start_ms : ws;
        we = st.end_ms < we ? st.end_ms : we;
    }
    if (compared < 2 || ws == INT64_MIN || (double)(we - ws) < GW_TH(GW_TH_MIN_STEADY_S) * 1000)
        return;
    peer_set whole = {.v = xmalloc(a->ngpus * sizeof *whole.v)};
    window_means(a, ws, we, whole.v);
    peers_sort(&whole, a->ngpus);
    window_set wins = {.ready = false};
    for (size_t i = 0; i < a->ngpus; i++)
        if (!isnan(whole.v[i]))
            imbalance_one(a, i, &whole, &wins, ws, we, compared);
    for (int w = 0; wins.ready && w < IMBALANCE_WINDOWS; w++) {
        free(wins.w[w].v);
        free(wins.w[w].s);
    }
    free(whole.v);
    free(whole.s);
}
