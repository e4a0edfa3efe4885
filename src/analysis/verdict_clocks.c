/* Clock verdicts: thermal_throttling, power_capped; and gpu_lost (see checks.h). */
#include "analysis/checks.h"
#include "sampler/clock_reasons.h"
#include "util/gw_fmt.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static bool thermal_row(const gw_gpu_analysis *g, size_t r)
{
    gw_span st = g->phase[GW_PHASE_STEADY].span;
    return r >= st.begin && r < st.end && gw_row_thermal(g, r);
}

static bool cool_row(const gw_gpu_analysis *g, size_t r)
{
    gw_span st = g->phase[GW_PHASE_STEADY].span;
    return r >= st.begin && r < st.end && !gw_row_thermal(g, r);
}

static double steady_s(const gw_gpu_analysis *g)
{
    gw_span st = g->phase[GW_PHASE_STEADY].span;
    double s = 0;
    for (size_t r = st.begin; r < st.end; r++)
        s += g->dt_s[r];
    return s;
}

static void running_hot(gw_analysis *a, gw_gpu_analysis *g)
{
    const gw_phase_result *st = &g->phase[GW_PHASE_STEADY];
    double hot_s = st->time_s[GW_TIME_HOT];
    if (!(hot_s > GW_TH(GW_TH_HOT_MIN_S)))
        return;
    long c = g->gpu->col_of[GW_F_TEMP_GPU_C];
    gw_verdict *v = gw_verdict_add(&a->verdicts, GW_V_THERMAL_THROTTLING, GW_SEV_INFO, (int)g->slot,
                                   st->span.start_ms, st->span.end_ms);
    gw_verdict_check(v, "hot_s", hot_s, ">", GW_TH_HOT_MIN_S);
    gw_verdict_check(v, "temp_max_c", st->stats[c].max, ">", GW_TH_HOT_TEMP_C);
    gw_verdict_num(v, "thermal_share_pct", 0);
    gw_verdict_say(v,
                   "Check the cooling before it throttles: fans, airflow, inlet temperature, "
                   "dust; `nvidia-smi -q -d TEMPERATURE` shows how far the slowdown threshold is.",
                   "running hot (above %s C for %s s) but not slowed down yet",
                   GW_SIG(GW_TH(GW_TH_HOT_TEMP_C), 6), GW_FIXED(hot_s, 0));
}

void gw_check_thermal(gw_analysis *a, gw_gpu_analysis *g)
{
    const gw_phase_result *st = &g->phase[GW_PHASE_STEADY];
    double total = steady_s(g);
    if (!(total > 0) || (double)gw_work_samples(g, NULL) < GW_TH(GW_TH_MIN_STEADY_SAMPLES))
        return;
    double share = 100.0 * st->time_s[GW_TIME_THERMAL] / total;
    if (!(share > GW_TH(GW_TH_THERMAL_SHARE_PCT))) {
        running_hot(a, g);
        return;
    }
    size_t first = st->span.end, last = st->span.begin;
    for (size_t r = st->span.begin; r < st->span.end; r++)
        if (gw_row_thermal(g, r)) {
            first = first == st->span.end ? r : first;
            last = r;
        }
    bool critical = share > GW_TH(GW_TH_THERMAL_CRIT_SHARE_PCT);
    gw_span s = gw_span_make(g->gpu, g->dt_s, first, last + 1);
    gw_verdict *v = gw_verdict_add(&a->verdicts, GW_V_THERMAL_THROTTLING,
                                   critical ? GW_SEV_CRITICAL : GW_SEV_WARNING, (int)g->slot,
                                   s.start_ms, s.end_ms);
    long c = g->gpu->col_of[GW_F_TEMP_GPU_C];
    const double *clk = gw_series_gpu_values(g->gpu, GW_F_CLOCK_SM_MHZ);
    gw_verdict_check(v, "thermal_share_pct", share, ">",
                     critical ? GW_TH_THERMAL_CRIT_SHARE_PCT : GW_TH_THERMAL_SHARE_PCT);
    gw_verdict_num(v, "thermal_s", st->time_s[GW_TIME_THERMAL]);
    gw_verdict_num(v, "temp_max_c", c >= 0 ? st->stats[c].max : NAN);
    gw_verdict_num(v, "slowdown_temp_c", g->gpu->slowdown_temp_c);
    gw_verdict_num(v, "sm_clock_p50_throttled_mhz", gw_check_p50(g, clk, thermal_row));
    gw_verdict_num(v, "sm_clock_p50_other_mhz", gw_check_p50(g, clk, cool_row));
    gw_verdict_say(v,
                   "The GPU slows its clocks to protect itself from heat: check fans, airflow, "
                   "data-centre inlet temperature and blocked or failed fans; `nvidia-smi -q -d "
                   "PERFORMANCE` lists the active slowdown reasons.",
                   "thermal slowdown during %s%% of the steady state (%s s)", GW_FIXED(share, 1),
                   GW_FIXED(st->time_s[GW_TIME_THERMAL], 0));
}

static double share_with_bit(const gw_gpu_analysis *g, unsigned bit, double total)
{
    const double *m = gw_series_gpu_values(g->gpu, GW_F_CLOCKS_EVENT_REASONS);
    gw_span st = g->phase[GW_PHASE_STEADY].span;
    double s = 0;
    for (size_t r = st.begin; m && r < st.end; r++)
        if (gw_reasons_of(m[r]) & bit)
            s += g->dt_s[r];
    return m ? 100.0 * s / total : NAN;
}

static bool steady_row(const gw_gpu_analysis *g, size_t r)
{
    gw_span st = g->phase[GW_PHASE_STEADY].span;
    return r >= st.begin && r < st.end;
}

void gw_check_power(gw_analysis *a, gw_gpu_analysis *g)
{
    const gw_phase_result *st = &g->phase[GW_PHASE_STEADY];
    double total = steady_s(g);
    if (!(total > 0) || !g->worked ||
        (double)gw_work_samples(g, NULL) < GW_TH(GW_TH_MIN_STEADY_SAMPLES))
        return;
    bool has_mask = gw_series_gpu_has(g->gpu, GW_F_CLOCKS_EVENT_REASONS);
    double cap = has_mask ? share_with_bit(g, GW_REASON_SW_POWER_CAP, total)
                          : 100.0 * st->time_s[GW_TIME_POWER_CAPPED] / total;
    double brake = share_with_bit(g, GW_REASON_HW_POWER_BRAKE, total);
    bool braked = brake > GW_TH(GW_TH_POWER_BRAKE_SHARE_PCT);
    if (!braked && !(cap > GW_TH(GW_TH_POWER_CAP_SHARE_PCT)))
        return;
    gw_verdict *v =
        gw_verdict_add(&a->verdicts, GW_V_POWER_CAPPED, braked ? GW_SEV_WARNING : GW_SEV_INFO,
                       (int)g->slot, st->span.start_ms, st->span.end_ms);
    if (braked)
        gw_verdict_check(v, "power_brake_share_pct", brake, ">", GW_TH_POWER_BRAKE_SHARE_PCT);
    else
        gw_verdict_num(v, "power_brake_share_pct", brake);
    if (cap > GW_TH(GW_TH_POWER_CAP_SHARE_PCT))
        gw_verdict_check(v, "power_cap_share_pct", cap, ">", GW_TH_POWER_CAP_SHARE_PCT);
    else
        gw_verdict_num(v, "power_cap_share_pct", cap);
    gw_verdict_num(v, "power_p50_w",
                   gw_check_p50(g, gw_series_gpu_values(g->gpu, GW_F_POWER_DRAW_W), steady_row));
    gw_verdict_num(v, "power_limit_w", g->gpu->power_limit_w);
    gw_verdict_num(v, "sm_clock_p50_mhz",
                   gw_check_p50(g, gw_series_gpu_values(g->gpu, GW_F_CLOCK_SM_MHZ), steady_row));
    gw_verdict_text(v, "from", has_mask ? "clocks_event_reasons" : "power.draw vs power.limit");
    if (braked)
        gw_verdict_say(v,
                       "The hardware power brake is asserted by the system (power supply or "
                       "chassis): ask the administrator to check PSU redundancy and the node's "
                       "power policy.",
                       "hardware power brake during %s%% of the steady state", GW_FIXED(brake, 1));
    else {
        char limit[32] = ""; /* a limit that was not recorded is left out */
        if (!isnan(g->gpu->power_limit_w))
            snprintf(limit, sizeof limit, " (%s W)", GW_FIXED(g->gpu->power_limit_w, 0));
        gw_verdict_say(v,
                       "The GPU runs at its power limit, doing all the work its power budget "
                       "allows. If the limit was lowered (`nvidia-smi -q -d POWER` shows default "
                       "and current), restoring it (`nvidia-smi -pl`) buys speed; else nothing to "
                       "fix.",
                       "at the power limit%s during %s%% of the steady state", limit,
                       GW_FIXED(cap, 1));
    }
}

void gw_check_gpu_lost(gw_analysis *a)
{
    const gw_series *s = a->series;
    for (size_t i = 0; i < s->nevents; i++) {
        const gw_series_event *e = &s->events[i];
        if (e->kind != GW_EV_GPU_LOST)
            continue;
        int slot = -1;
        for (size_t k = 0; k < a->ngpus; k++)
            if (a->gpus[k].gpu->index == e->gpu_index &&
                strcmp(a->gpus[k].gpu->source, s->inputs[e->input].source) == 0)
                slot = (int)k;
        int64_t end = slot >= 0 ? a->gpus[slot].whole.span.end_ms : e->t_ms;
        gw_verdict *v = gw_verdict_add(&a->verdicts, GW_V_GPU_LOST, GW_SEV_CRITICAL, slot, e->t_ms,
                                       end > e->t_ms ? end : e->t_ms);
        gw_verdict_num(v, "index", e->gpu_index);
        gw_verdict_num(v, "seconds_into_recording", (double)(e->t_ms - a->start_ms) / 1000.0);
        gw_verdict_text(v, "reported_by", *e->text ? e->text : e->type);
        gw_verdict_say(v,
                       "The GPU fell off the bus (Xid 79 and similar): jobs cannot continue on "
                       "it. Check `dmesg` for Xid errors, then power, PCIe seating and "
                       "temperature; usually the node must be drained and rebooted, so tell its "
                       "administrator.",
                       "the GPU was lost (%s)", *e->text ? e->text : "gpu_lost event");
    }
}
