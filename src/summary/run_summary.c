#include "summary/run_summary.h"

#include "util/xalloc.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct acc {
    double sum, max;
    unsigned n;
} acc;

static void acc_add(acc *a, double v)
{
    if (isnan(v))
        return;
    if (a->n == 0 || v > a->max)
        a->max = v;
    a->sum += v;
    a->n++;
}

static double acc_mean(const acc *a)
{
    return a->n ? a->sum / a->n : NAN;
}

static double acc_max(const acc *a)
{
    return a->n ? a->max : NAN;
}

typedef struct gpu_acc {
    gw_device_info info;
    unsigned util_hist[101];
    unsigned util_n;
    double util_sum;
    acc sm, mem, temp, power, limit;
    double energy_first_mj, energy_last_mj;
    bool have_energy;
    double integral_at_last_energy_j; /* power integral when the counter last changed */
    double power_integral_j;          /* trapezoid over ticks */
    double last_power_w;
    int64_t last_power_ns;
    bool have_last_power;
    unsigned samples;
    bool lost;
} gpu_acc;

struct gw_run_summary {
    gpu_acc *gpus;
    unsigned n;
    acc job_cpu, job_rss, job_procs;
    int64_t first_ns, last_ns;
    unsigned ticks;
};

gw_run_summary *gw_run_summary_new(void)
{
    return xcalloc(1, sizeof(gw_run_summary));
}

static void on_start(void *ctx, const gw_device_info *devs, unsigned count)
{
    gw_run_summary *rs = ctx;
    free(rs->gpus);
    rs->gpus = xcalloc(count, sizeof *rs->gpus);
    rs->n = count;
    for (unsigned i = 0; i < count; i++)
        rs->gpus[i].info = devs[i];
}

static void add_gpu(gpu_acc *a, const gw_gpu_sample *g, int64_t mono_ns)
{
    if (g->lost) {
        a->lost = true;
        return;
    }
    a->samples++;
    if (gw_has(g, GW_F_UTIL_GPU_PCT)) {
        int u = (int)lround(g->v[GW_F_UTIL_GPU_PCT]);
        a->util_hist[u < 0 ? 0 : u > 100 ? 100 : u]++;
        a->util_sum += g->v[GW_F_UTIL_GPU_PCT];
        a->util_n++;
    }
    if (gw_has(g, GW_F_GPM_SM_ACTIVE_PCT))
        acc_add(&a->sm, g->v[GW_F_GPM_SM_ACTIVE_PCT]);
    if (gw_has(g, GW_F_MEM_USED_MIB))
        acc_add(&a->mem, g->v[GW_F_MEM_USED_MIB]);
    if (gw_has(g, GW_F_TEMP_GPU_C))
        acc_add(&a->temp, g->v[GW_F_TEMP_GPU_C]);
    if (gw_has(g, GW_F_POWER_LIMIT_W))
        acc_add(&a->limit, g->v[GW_F_POWER_LIMIT_W]);
    if (gw_has(g, GW_F_POWER_DRAW_W)) {
        double w = g->v[GW_F_POWER_DRAW_W];
        acc_add(&a->power, w);
        if (a->have_last_power)
            a->power_integral_j += 0.5 * (w + a->last_power_w) * (mono_ns - a->last_power_ns) / 1e9;
        a->last_power_w = w;
        a->last_power_ns = mono_ns;
        a->have_last_power = true;
    }
    /* The counter is read every 10 s or so: energy = its increase, plus the power integral
     * since it last changed. */
    if (gw_has(g, GW_F_ENERGY_MJ)) {
        double e = g->v[GW_F_ENERGY_MJ];
        if (!a->have_energy)
            a->energy_first_mj = a->energy_last_mj = e;
        if (!a->have_energy || e != a->energy_last_mj)
            a->integral_at_last_energy_j = a->power_integral_j;
        a->energy_last_mj = e;
        a->have_energy = true;
    }
}

static void on_sample(void *ctx, const gw_sample *s)
{
    gw_run_summary *rs = ctx;
    if (rs->ticks == 0)
        rs->first_ns = s->mono_ns;
    rs->last_ns = s->mono_ns;
    rs->ticks++;
    for (unsigned i = 0; i < s->gpu_count && i < rs->n; i++)
        add_gpu(&rs->gpus[i], &s->gpus[i], s->mono_ns);
    acc_add(&rs->job_cpu, s->host.job_cpu_pct);
    acc_add(&rs->job_rss, s->host.job_rss_mib);
    acc_add(&rs->job_procs, s->host.job_processes);
}

gw_sink gw_run_summary_as_sink(gw_run_summary *rs)
{
    return (gw_sink){.ctx = rs, .on_start = on_start, .on_sample = on_sample};
}

static double percentile_hist(const unsigned hist[101], unsigned n, double p)
{
    if (n == 0)
        return NAN;
    /* nearest-rank: the smallest value with at least p% of samples at or below it */
    unsigned rank = (unsigned)ceil(p / 100.0 * n);
    if (rank == 0)
        rank = 1;
    unsigned seen = 0;
    for (int v = 0; v <= 100; v++) {
        seen += hist[v];
        if (seen >= rank)
            return v;
    }
    return 100;
}

bool gw_run_summary_gpu(const gw_run_summary *rs, unsigned i, gw_gpu_summary *o)
{
    if (i >= rs->n)
        return false;
    const gpu_acc *a = &rs->gpus[i];
    o->util_mean_pct = a->util_n ? a->util_sum / a->util_n : NAN;
    o->util_p95_pct = percentile_hist(a->util_hist, a->util_n, 95);
    o->sm_active_mean_pct = acc_mean(&a->sm);
    o->mem_peak_mib = acc_max(&a->mem);
    o->mem_total_mib = a->info.memory_total_mib;
    o->temp_max_c = acc_max(&a->temp);
    o->power_mean_w = acc_mean(&a->power);
    o->power_max_w = acc_max(&a->power);
    o->power_limit_w = a->limit.n ? acc_max(&a->limit) : a->info.power_limit_w;
    if (a->have_energy && a->energy_last_mj > a->energy_first_mj)
        o->energy_wh = ((a->energy_last_mj - a->energy_first_mj) / 1000.0 + a->power_integral_j -
                        a->integral_at_last_energy_j) /
                       3600.0;
    else
        o->energy_wh = a->have_last_power ? a->power_integral_j / 3600.0 : NAN;
    o->samples = a->samples;
    o->lost = a->lost;
    return true;
}

/* Formats v with `decimals` digits and a unit into buf, or "-" when absent. */
static const char *fmt(char *buf, size_t len, int decimals, double v, const char *unit)
{
    if (isnan(v) || isinf(v))
        snprintf(buf, len, "-");
    else
        snprintf(buf, len, "%.*f%s", decimals, v, unit);
    return buf;
}

void gw_run_summary_print(const gw_run_summary *rs, FILE *to)
{
    double secs = rs->ticks > 1 ? (rs->last_ns - rs->first_ns) / 1e9 : 0;
    fprintf(to, "gpuwatch: %u samples over %.0f s\n", rs->ticks, secs);
    if (rs->n == 0)
        fprintf(to, "no NVIDIA GPU was found: only the CPU side was recorded\n");
    else
        fprintf(to, "%3s %9s %6s %9s %10s %6s %8s %10s %8s %7s %9s\n", "GPU", "util mean", "p95",
                "SM active", "mem peak", "", "temp max", "power mean", "max", "% limit", "energy");
    for (unsigned i = 0; i < rs->n; i++) {
        gw_gpu_summary g;
        gw_run_summary_gpu(rs, i, &g);
        char a[32], b[32], c[32], d[32], e[32], f[32], h[32], k[32], m[32], n[32];
        fprintf(to, "%3u %9s %6s %9s %10s %6s %8s %10s %8s %7s %9s%s\n", rs->gpus[i].info.index,
                fmt(a, sizeof a, 0, g.util_mean_pct, " %"),
                fmt(b, sizeof b, 0, g.util_p95_pct, " %"),
                fmt(c, sizeof c, 1, g.sm_active_mean_pct, " %"),
                fmt(d, sizeof d, 0, g.mem_peak_mib, " MiB"),
                fmt(e, sizeof e, 0, g.mem_peak_mib / g.mem_total_mib * 100.0, " %"),
                fmt(f, sizeof f, 0, g.temp_max_c, " C"), fmt(h, sizeof h, 0, g.power_mean_w, " W"),
                fmt(k, sizeof k, 0, g.power_max_w, " W"),
                fmt(m, sizeof m, 0, g.power_max_w / g.power_limit_w * 100.0, " %"),
                fmt(n, sizeof n, 2, g.energy_wh, " Wh"), g.lost ? "  (lost)" : "");
    }
    if (rs->job_rss.n || rs->job_cpu.n) {
        char a[32], b[32];
        double procs = acc_max(&rs->job_procs);
        fprintf(to, "job: peak RSS %s, mean CPU %s (100 %% = one core), up to %.0f process%s\n",
                fmt(a, sizeof a, 0, acc_max(&rs->job_rss), " MiB"),
                fmt(b, sizeof b, 0, acc_mean(&rs->job_cpu), " %"), isnan(procs) ? 0 : procs,
                procs == 1 ? "" : "es");
    }
}

void gw_run_summary_free(gw_run_summary *rs)
{
    if (!rs)
        return;
    free(rs->gpus);
    free(rs);
}
