#include "summary/run_summary.h"

#include "util/gw_fmt.h"
#include "util/xalloc.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct gpu_acc {
    gw_device_info info;
    gw_gpu_summary fig; /* NAN until set */
    unsigned samples;
    bool lost;
} gpu_acc;

struct gw_run_summary {
    gpu_acc *gpus;
    unsigned n;
    double job_rss_peak_mib, job_cpu_mean_pct, job_procs_max;
    int64_t first_ns, last_ns;
    unsigned ticks;
};

static const gw_gpu_summary no_figures = {.util_mean_pct = NAN,
                                          .util_p95_pct = NAN,
                                          .sm_active_mean_pct = NAN,
                                          .mem_peak_mib = NAN,
                                          .mem_total_mib = NAN,
                                          .temp_max_c = NAN,
                                          .power_mean_w = NAN,
                                          .power_max_w = NAN,
                                          .power_limit_w = NAN,
                                          .energy_wh = NAN};

gw_run_summary *gw_run_summary_new(void)
{
    gw_run_summary *rs = xcalloc(1, sizeof(gw_run_summary));
    rs->job_rss_peak_mib = rs->job_cpu_mean_pct = rs->job_procs_max = NAN;
    return rs;
}

static void on_start(void *ctx, const gw_device_info *devs, unsigned count)
{
    gw_run_summary *rs = ctx;
    free(rs->gpus);
    rs->gpus = xcalloc(count ? count : 1, sizeof *rs->gpus);
    rs->n = count;
    for (unsigned i = 0; i < count; i++) {
        rs->gpus[i].info = devs[i];
        rs->gpus[i].fig = no_figures;
    }
}

static void on_sample(void *ctx, const gw_sample *s)
{
    gw_run_summary *rs = ctx;
    if (rs->ticks == 0)
        rs->first_ns = s->mono_ns;
    rs->last_ns = s->mono_ns;
    rs->ticks++;
    for (unsigned i = 0; i < s->gpu_count && i < rs->n; i++) {
        if (s->gpus[i].lost)
            rs->gpus[i].lost = true;
        else
            rs->gpus[i].samples++;
    }
}

gw_sink gw_run_summary_as_sink(gw_run_summary *rs)
{
    return (gw_sink){.ctx = rs, .on_start = on_start, .on_sample = on_sample};
}

bool gw_run_summary_gpu(const gw_run_summary *rs, unsigned i, gw_gpu_summary *o)
{
    if (i >= rs->n)
        return false;
    const gpu_acc *a = &rs->gpus[i];
    *o = a->fig;
    if (isnan(o->mem_total_mib))
        o->mem_total_mib = a->info.memory_total_mib;
    if (isnan(o->power_limit_w))
        o->power_limit_w = a->info.power_limit_w;
    o->samples = a->samples;
    o->lost = a->lost;
    return true;
}

unsigned gw_run_summary_index(const gw_run_summary *rs, unsigned i)
{
    return i < rs->n ? rs->gpus[i].info.index : 0;
}

bool gw_run_summary_set_gpu(gw_run_summary *rs, int index, const gw_gpu_summary *figures)
{
    for (unsigned i = 0; i < rs->n; i++)
        if ((int)rs->gpus[i].info.index == index) {
            rs->gpus[i].fig = *figures;
            return true;
        }
    return false;
}

void gw_run_summary_set_job(gw_run_summary *rs, double rss_peak_mib, double cpu_mean_pct,
                            double processes_max)
{
    rs->job_rss_peak_mib = rss_peak_mib;
    rs->job_cpu_mean_pct = cpu_mean_pct;
    rs->job_procs_max = processes_max;
}

/* Formats v with `decimals` digits and a unit into buf, or "-" when absent. */
static const char *fmt(char *buf, size_t len, int decimals, double v, const char *unit)
{
    if (isnan(v) || isinf(v))
        snprintf(buf, len, "-");
    else
        snprintf(buf, len, "%s%s", GW_FIXED(v, decimals), unit);
    return buf;
}

void gw_run_summary_print(const gw_run_summary *rs, FILE *to)
{
    double secs = rs->ticks > 1 ? (rs->last_ns - rs->first_ns) / 1e9 : 0;
    fprintf(to, "gpuwatch: %u sample%s over %s s\n", rs->ticks, rs->ticks == 1 ? "" : "s",
            GW_FIXED(secs, 0));
    if (rs->n == 0)
        fprintf(to, "no NVIDIA GPU was found: only the CPU side was recorded\n");
    else /* 80 columns: "power" is the mean, "max" its maximum, "%lim" that of the limit */
        fprintf(to, "%3s %9s %5s %7s %10s %5s %5s %6s %6s %5s %9s\n", "GPU", "util mean", "p95",
                "SM act", "mem peak", "%mem", "temp", "power", "max", "%lim", "energy");
    /* one number of decimals for the energy column, from the largest of the GPUs' */
    double most_wh = 0;
    for (unsigned i = 0; i < rs->n; i++) {
        gw_gpu_summary g;
        gw_run_summary_gpu(rs, i, &g);
        if (!g.other_job && gw_fmt_sane(g.energy_wh) && g.energy_wh > most_wh)
            most_wh = g.energy_wh;
    }
    int wh_dec = most_wh >= 1000 ? 0 : most_wh >= 100 ? 1 : 2;
    for (unsigned i = 0; i < rs->n; i++) {
        gw_gpu_summary g;
        gw_run_summary_gpu(rs, i, &g);
        char a[32], b[32], c[32], d[32], e[32], f[32], h[32], k[32], m[32], n[32];
        if (g.other_job) {
            fprintf(to, "%3u   not this job: recorded, left out (--scope node shows it)\n",
                    rs->gpus[i].info.index);
            continue;
        }
        fprintf(to, "%3u %9s %5s %7s %10s %5s %5s %6s %6s %5s %9s\n", rs->gpus[i].info.index,
                fmt(a, sizeof a, 0, g.util_mean_pct, " %"),
                fmt(b, sizeof b, 0, g.util_p95_pct, " %"),
                fmt(c, sizeof c, 1, g.sm_active_mean_pct, " %"),
                fmt(d, sizeof d, 0, g.mem_peak_mib, " MiB"),
                fmt(e, sizeof e, 0, g.mem_peak_mib / g.mem_total_mib * 100.0, " %"),
                fmt(f, sizeof f, 0, g.temp_max_c, " C"), fmt(h, sizeof h, 0, g.power_mean_w, " W"),
                fmt(k, sizeof k, 0, g.power_max_w, " W"),
                fmt(m, sizeof m, 0, g.power_max_w / g.power_limit_w * 100.0, " %"),
                fmt(n, sizeof n, wh_dec, g.energy_wh, " Wh")); /* 9 columns at most */
    }
    for (unsigned i = 0; i < rs->n; i++) {
        gw_gpu_summary g;
        gw_run_summary_gpu(rs, i, &g);
        if (g.other_job) /* left out above: its loss is not the job's (stderr said it) */
            continue;
        if (g.lost) /* its energy is partial too, for that reason, not for gaps */
            fprintf(to, "GPU %u was lost: its figures end where it stopped answering\n",
                    rs->gpus[i].info.index);
        else if (g.energy_partial)
            fprintf(to, "GPU %u energy is partial: gaps of more than 5 intervals not bridged\n",
                    rs->gpus[i].info.index);
    }
    if (!isnan(rs->job_rss_peak_mib) || !isnan(rs->job_cpu_mean_pct)) {
        char a[32], b[32];
        double procs = rs->job_procs_max;
        fprintf(to, "job: peak RSS %s, mean CPU %s (100 %% = one core), up to %s process%s\n",
                fmt(a, sizeof a, 0, rs->job_rss_peak_mib, " MiB"),
                fmt(b, sizeof b, 0, rs->job_cpu_mean_pct, " %"),
                GW_FIXED(isnan(procs) ? 0 : procs, 0), procs == 1 ? "" : "es");
    }
}

void gw_run_summary_free(gw_run_summary *rs)
{
    if (!rs)
        return;
    free(rs->gpus);
    free(rs);
}
