/* Memory verdicts: memory_leak, memory_near_capacity, idle_holding_memory (see checks.h). */
#include "analysis/inproc_cause.h"
#include "analysis/checks.h"

#include "util/gw_fmt.h"
#include "util/xalloc.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static double total_at(const gw_gpu_analysis *g, size_t r)
{
    const double *t = gw_series_gpu_values(g->gpu, GW_F_MEM_TOTAL_MIB);
    return t && !isnan(t[r]) ? t[r] : g->gpu->memory_total_mib;
}

static double last_present(const double *v, gw_span s, size_t *row)
{
    for (size_t r = s.end; r > s.begin; r--)
        if (!isnan(v[r - 1])) {
            *row = r - 1;
            return v[r - 1];
        }
    return NAN;
}

static double first_present(const double *v, gw_span s)
{
    for (size_t r = s.begin; r < s.end; r++)
        if (!isnan(v[r]))
            return v[r];
    return NAN;
}

/* The rows a leak is fitted on: from a tenth into the steady state (allocators fill their caches
 * during warm-up) to the peak (a process that exits or frees drops everything at once, and that
 * drop is not part of the growth). Returns false when there is too little to fit. */
static bool leak_window(const gw_gpu_analysis *g, const double *mem, gw_span *out)
{
    gw_span st = g->phase[GW_PHASE_STEADY].span;
    int64_t from = st.start_ms + (st.end_ms - st.start_ms) / 10;
    gw_span w = gw_check_span_of_time(g, from, st.end_ms);
    size_t peak = w.end;
    for (size_t r = w.begin; r < w.end; r++)
        if (!isnan(mem[r]) && (peak == w.end || mem[r] >= mem[peak]))
            peak = r;
    if (peak == w.end)
        return false;
    *out = gw_span_make(g->gpu, g->dt_s, w.begin, peak + 1);
    return out->end - out->begin >= 10 &&
           (double)(out->end_ms - out->start_ms) / 1000.0 >= GW_TH(GW_TH_MIN_STEADY_S);
}

void gw_check_memory_leak(gw_analysis *a, gw_gpu_analysis *g)
{
    const double *mem = gw_series_gpu_values(g->gpu, GW_F_MEM_USED_MIB);
    gw_span w;
    if (!mem || !g->worked || !leak_window(g, mem, &w))
        return;
    double window_s = (double)(w.end_ms - w.start_ms) / 1000.0;
    const int64_t *t = g->gpu->tab.t_ms;
    gw_fit fit, late;
    gw_stats_linfit(t + w.begin, mem + w.begin, w.end - w.begin, &fit);
    size_t half = w.begin + (w.end - w.begin) / 2;
    gw_stats_linfit(t + half, mem + half, w.end - half, &late);
    double growth = fit.slope_per_s * window_s;
    double late_ratio = late.slope_per_s / fit.slope_per_s;
    if (!(fit.slope_per_s > 0) || !(fit.r2 > GW_TH(GW_TH_LEAK_MIN_R2)) ||
        !(growth > GW_TH(GW_TH_LEAK_MIN_GROWTH_MIB)) ||
        !(late_ratio > GW_TH(GW_TH_LEAK_LATE_RATIO)))
        return;
    size_t last_row = w.begin;
    double end_mib = last_present(mem, w, &last_row);
    double total = total_at(g, last_row);
    double to_oom = total > 0 ? (total - end_mib) / fit.slope_per_s : NAN;
    if (to_oom < 0)
        to_oom = 0;
    bool critical = to_oom < GW_TH(GW_TH_LEAK_OOM_CRITICAL_S);
    gw_verdict *v =
        gw_verdict_add(&a->verdicts, GW_V_MEMORY_LEAK, critical ? GW_SEV_CRITICAL : GW_SEV_WARNING,
                       (int)g->slot, w.start_ms, w.end_ms);
    gw_verdict_num(v, "slope_mib_per_s", fit.slope_per_s);
    gw_verdict_check(v, "r2", fit.r2, ">", GW_TH_LEAK_MIN_R2);
    gw_verdict_check(v, "growth_mib", growth, ">", GW_TH_LEAK_MIN_GROWTH_MIB);
    gw_verdict_check(v, "late_slope_ratio", late_ratio, ">", GW_TH_LEAK_LATE_RATIO);
    gw_verdict_num(v, "window_s", window_s);
    gw_verdict_num(v, "memory_start_mib", first_present(mem, w));
    gw_verdict_num(v, "memory_end_mib", end_mib);
    gw_verdict_num(v, "memory_total_mib", total);
    if (critical)
        gw_verdict_check(v, "time_to_oom_s", to_oom, "<", GW_TH_LEAK_OOM_CRITICAL_S);
    else
        gw_verdict_num(v, "time_to_oom_s", to_oom);
    char oom[64] = "unknown (memory.total not recorded)";
    if (!isnan(to_oom) && to_oom < 3600)
        snprintf(oom, sizeof oom, "in about %s s", GW_FIXED(to_oom, 0));
    else if (!isnan(to_oom))
        snprintf(oom, sizeof oom, "in about %s h", GW_FIXED(to_oom / 3600, 1));
    gw_verdict_say(v,
                   "Look for tensors kept across steps: outputs or losses appended to a list "
                   "without .detach() or .item(), `total_loss += loss` keeping the graph, growing "
                   "caches; torch.cuda.memory._record_memory_history() shows who allocates.",
                   "memory.used grows %s MiB/s (%s GiB/s, R2 %s) over %s s; out of "
                   "memory %s",
                   GW_SIG(fit.slope_per_s, 4), GW_FIXED(fit.slope_per_s / 1024, 2),
                   GW_FIXED(fit.r2, 3), GW_FIXED(window_s, 0), oom);
    gw_inproc_leak(a, v);
}

void gw_check_memory_capacity(gw_analysis *a, gw_gpu_analysis *g)
{
    const double *mem = gw_series_gpu_values(g->gpu, GW_F_MEM_USED_MIB);
    size_t n = g->gpu->tab.n, first = n, last = n, peak_row = n, samples = 0;
    double peak_pct = NAN;
    for (size_t r = 0; mem && r < n; r++) {
        double total = total_at(g, r);
        if (isnan(mem[r]) || !(total > 0))
            continue;
        samples++;
        double pct = 100.0 * mem[r] / total;
        if (isnan(peak_pct) || pct > peak_pct) {
            peak_pct = pct;
            peak_row = r;
        }
        if (pct > GW_TH(GW_TH_MEM_CAPACITY_PCT)) {
            first = first == n ? r : first;
            last = r;
        }
    }
    if (!(peak_pct > GW_TH(GW_TH_MEM_CAPACITY_PCT)) ||
        (double)samples < GW_TH(GW_TH_MEM_MIN_SAMPLES))
        return;
    bool critical = peak_pct > GW_TH(GW_TH_MEM_CAPACITY_CRIT_PCT);
    gw_span s = gw_span_make(g->gpu, g->dt_s, first, last + 1);
    gw_verdict *v = gw_verdict_add(&a->verdicts, GW_V_MEMORY_NEAR_CAPACITY,
                                   critical ? GW_SEV_CRITICAL : GW_SEV_WARNING, (int)g->slot,
                                   s.start_ms, s.end_ms);
    gw_verdict_check(v, "peak_pct", peak_pct, ">",
                     critical ? GW_TH_MEM_CAPACITY_CRIT_PCT : GW_TH_MEM_CAPACITY_PCT);
    gw_verdict_num(v, "peak_used_mib", mem[peak_row]);
    gw_verdict_num(v, "memory_total_mib", total_at(g, peak_row));
    gw_verdict_num(v, "time_above_s", g->whole.time_s[GW_TIME_MEMORY_HIGH]);
    gw_verdict_say(v,
                   "Little headroom is left: reduce the batch size (use gradient accumulation to "
                   "keep the effective batch), enable activation checkpointing or bf16, and set "
                   "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True against fragmentation.",
                   "memory peaked at %s%% of the GPU (%s of %s MiB)", GW_FIXED(peak_pct, 1),
                   GW_FIXED(mem[peak_row], 0), GW_FIXED(total_at(g, peak_row), 0));
}

/* The job process holding the most memory on this GPU within [start, end), as "name (pid N)". */
static void holder(const gw_analysis *a, const gw_gpu_analysis *g, int64_t start, int64_t end,
                   char *buf, size_t size)
{
    const gw_series *s = a->series;
    const gw_series_proc *best = NULL;
    buf[0] = '\0';
    for (size_t i = 0; i < s->nprocs; i++) {
        const gw_series_proc *p = &s->procs[i];
        if (p->gpu_index != g->gpu->index || p->t_ms < start || p->t_ms >= end ||
            strcmp(s->inputs[p->input].source, g->gpu->source) != 0)
            continue;
        if (!best || p->used_mib > best->used_mib)
            best = p;
    }
    if (best)
        snprintf(buf, size, "%s (pid %ld)", *best->name ? best->name : "?", best->pid);
}

void gw_check_idle_holding(gw_analysis *a, gw_gpu_analysis *g)
{
    const double *u = gw_series_gpu_values(g->gpu, GW_F_UTIL_GPU_PCT);
    const double *mem = gw_series_gpu_values(g->gpu, GW_F_MEM_USED_MIB);
    size_t n = g->gpu->tab.n, stretches = 0;
    gw_span best = {0};
    double best_s = 0, held = NAN, best_waste = -1, total_s = 0, total_waste = 0;
    /* A stretch is judged on the time its samples observed (a gap the statistics engine does not
     * bridge is not idle time) and needs idle_hold_samples samples. Stretches are ranked by the
     * memory-time they kept from other jobs (MiB held x idle seconds): 27 min at 22 GB outweighs
     * 3 min at 33 GB. The largest is named; all of them are counted (idle_total_s: what
     * `report --fleet` counts). */
    for (size_t r = 0; u && mem && r < n;) {
        size_t e = r;
        double min_mem = INFINITY;
        while (e < n && !isnan(u[e]) && u[e] < GW_TH(GW_TH_IDLE_UTIL_PCT) && !isnan(mem[e]) &&
               mem[e] >= GW_TH(GW_TH_IDLE_HOLD_MIB) && !g->in_expected_dip[e]) {
            min_mem = mem[e] < min_mem ? mem[e] : min_mem;
            e++;
        }
        if (e == r) {
            r++;
            continue;
        }
        gw_span s = gw_span_make(g->gpu, g->dt_s, r, e);
        double dur = 0;
        for (size_t k = r; k < e; k++)
            dur += g->dt_s[k];
        if (dur > GW_TH(GW_TH_IDLE_HOLD_S) && (double)(e - r) >= GW_TH(GW_TH_IDLE_HOLD_SAMPLES)) {
            stretches++;
            total_s += dur;
            total_waste += dur * min_mem;
            if (dur * min_mem > best_waste) {
                best_waste = dur * min_mem;
                best_s = dur;
                best = s;
                held = min_mem;
            }
        }
        r = e;
    }
    if (stretches == 0)
        return;
    gw_verdict *v = gw_verdict_add(&a->verdicts, GW_V_IDLE_HOLDING_MEMORY, GW_SEV_WARNING,
                                   (int)g->slot, best.start_ms, best.end_ms);
    gw_verdict_check(v, "idle_s", best_s, ">", GW_TH_IDLE_HOLD_S);
    gw_verdict_check(v, "memory_held_mib", held, ">=", GW_TH_IDLE_HOLD_MIB);
    gw_verdict_num(v, "stretches", (double)stretches);
    gw_verdict_num(v, "idle_total_s", total_s);
    gw_verdict_num(v, "held_gib_hours", best_waste / 1024 / 3600);
    gw_verdict_num(v, "held_total_gib_hours", total_waste / 1024 / 3600);
    char who[128], more[96] = "";
    holder(a, g, best.start_ms, best.end_ms, who, sizeof who);
    if (*who)
        gw_verdict_text(v, "holder", who);
    if (stretches > 1)
        snprintf(more, sizeof more, "; idle for %s s in all, in %zu stretches",
                 GW_FIXED(total_s, 0), stretches);
    gw_verdict_say(v,
                   "A process keeps GPU memory while the GPU does nothing (a finished notebook "
                   "kernel, a hung rank, evaluation on the CPU): end it, or free the memory "
                   "(del the model, torch.cuda.empty_cache()) so other jobs can use the GPU.",
                   "idle for %s s while holding %s MiB%s%s%s", GW_FIXED(best_s, 0),
                   GW_FIXED(held, 0), *who ? " by " : "", who, more);
}
