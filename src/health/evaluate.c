/* Judging a GPU's facts into checklist items; see health.h. Pure: no NVML, no printing. */
#include "health/health.h"
#include "sampler/clock_reasons.h"

#include "util/gw_fmt.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

const char *gw_health_state_name(gw_health_state s)
{
    static const char *const names[] = {"ok", "n/a", "unknown"};
    if (s == GW_HEALTH_WARNING || s == GW_HEALTH_CRITICAL)
        return gw_severity_name(gw_health_severity(s));
    return names[s];
}

gw_severity gw_health_severity(gw_health_state s)
{
    return s == GW_HEALTH_CRITICAL  ? GW_SEV_CRITICAL
           : s == GW_HEALTH_WARNING ? GW_SEV_WARNING
                                    : GW_SEV_INFO;
}

static int rank(gw_health_state s)
{
    static const int ranks[] = {0, 0, 1, 2, 3};
    return ranks[s];
}

gw_health_state gw_health_worse(gw_health_state a, gw_health_state b)
{
    return rank(b) > rank(a) ? b : a;
}

int gw_health_exit_code(gw_health_state s)
{
    static const int codes[] = {0, 0, 3, 1, 2};
    return codes[s];
}

void gw_health_thresholds_defaults(gw_health_thresholds *th)
{
    th->idle_temp_warning_c = 45;
    th->idle_temp_critical_c = 55;
    th->held_warning_mib = 1024;
    th->held_critical_pct = 50;
    th->latency_warning_ms = 100;
    th->latency_critical_ms = 500;
}

static gw_health_item *item(gw_health_gpu *g, const char *id, const char *label, gw_health_state st,
                            double value, const char *fmt, ...)
    __attribute__((format(printf, 6, 7)));
static gw_health_item *item(gw_health_gpu *g, const char *id, const char *label, gw_health_state st,
                            double value, const char *fmt, ...)
{
    gw_health_item *it = &g->items[g->nitems++];
    it->id = id;
    it->label = label;
    it->state = st;
    it->value = value;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(it->reason, sizeof it->reason, fmt, ap);
    va_end(ap);
    g->state = gw_health_worse(g->state, st);
    return it;
}

/* Picks the state of a value against a warning and a critical threshold (strictly above). */
static gw_health_state grade(double v, double warning, double critical)
{
    return v > critical ? GW_HEALTH_CRITICAL : v > warning ? GW_HEALTH_WARNING : GW_HEALTH_OK;
}

static void check_temperature(gw_health_gpu *g, const gw_health_thresholds *th)
{
    const gw_gpu_sample *v = &g->facts.v;
    const char *id = "idle_temperature", *label = "idle temperature";
    if (!gw_has(v, GW_F_TEMP_GPU_C)) {
        item(g, id, label, GW_HEALTH_NA, NAN, "no temperature reading on this GPU");
        return;
    }
    double t = v->v[GW_F_TEMP_GPU_C];
    /* a working GPU is warm by right: only an idle one says something about cooling */
    if (gw_has(v, GW_F_UTIL_GPU_PCT) && v->v[GW_F_UTIL_GPU_PCT] > 0) {
        item(g, id, label, GW_HEALTH_NA, t,
             "%s C, not judged: the GPU is working (GPU-Util %s %%); run check on an idle GPU",
             GW_FIXED(t, 0), GW_FIXED(v->v[GW_F_UTIL_GPU_PCT], 0));
        return;
    }
    gw_health_state st = grade(t, th->idle_temp_warning_c, th->idle_temp_critical_c);
    item(g, id, label, st, t, "%s C%s (warning above %s C, critical above %s C)", GW_FIXED(t, 0),
         st == GW_HEALTH_OK ? "" : ": hot before training starts: check fans and airflow",
         GW_SIG(th->idle_temp_warning_c, 6), GW_SIG(th->idle_temp_critical_c, 6));
}

/* "pid 4242 python3 20000 MiB, pid 77 (name hidden: another PID namespace) 480 MiB" */
static void list_procs(const gw_health_facts *f, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    for (unsigned i = 0; i < f->nprocs && used < len; i++) {
        const gw_gpu_process *p = &f->procs[i];
        char mib[GW_FMT_SIZE + 8] = "memory n/a";
        if (p->used_valid && gw_fmt_sane(p->used_mib)) {
            char n[GW_FMT_SIZE];
            snprintf(mib, sizeof mib, "%s MiB",
                     gw_fmt_fixed(n, sizeof n, ceil(p->used_mib), 0, 0, "n/a"));
        }
        /* the memory beside its pid: "pid 411 python3 (70618 MiB)", "pid 4242424 (70618 MiB;
         * name hidden: another PID namespace)" */
        used += (size_t)snprintf(buf + used, len - used, "%spid %u%s%s (%s%s%s)", i ? ", " : "",
                                 p->pid, p->visible ? " " : "", p->visible ? p->name : "", mib,
                                 p->graphics ? ", graphics" : "",
                                 p->visible ? "" : "; name hidden: another PID namespace");
    }
}

static void check_memory(gw_health_gpu *g, const gw_health_thresholds *th)
{
    const gw_health_facts *f = &g->facts;
    const char *id = "memory_held", *label = "memory held";
    if (!gw_has(&f->v, GW_F_MEM_USED_MIB) || !gw_has(&f->v, GW_F_MEM_TOTAL_MIB)) {
        item(g, id, label, GW_HEALTH_NA, NAN, "no memory reading on this GPU");
        return;
    }
    double used = ceil(f->v.v[GW_F_MEM_USED_MIB]);
    double total = floor(f->v.v[GW_F_MEM_TOTAL_MIB]);
    bool compute = false;
    for (unsigned i = 0; i < f->nprocs; i++)
        compute |= !f->procs[i].graphics;
    gw_health_state st = GW_HEALTH_OK;
    if (total > 0 && used > total * th->held_critical_pct / 100.0)
        st = GW_HEALTH_CRITICAL;
    else if (used > th->held_warning_mib || compute)
        st = GW_HEALTH_WARNING;
    char who[GW_HEALTH_REASON_MAX / 2];
    list_procs(f, who, sizeof who);
    item(g, id, label, st, used, "%s of %s MiB used%s%s%s", GW_FIXED(used, 0), GW_FIXED(total, 0),
         f->nprocs ? " by "
                   : (used > th->held_warning_mib ? " by processes NVML does not list "
                                                    "(another container?)"
                                                  : ", no processes"),
         who,
         st == GW_HEALTH_OK ? ""
                            : ": another job shares this GPU; training will have less memory "
                              "and time");
}

static const struct {
    unsigned long long bit;
    const char *name;
    gw_health_state state;
} reason_bits[] = {
    {GW_REASON_GPU_IDLE, "idle", GW_HEALTH_OK},
    {GW_REASON_APPLICATIONS_CLOCKS_SETTING, "applications clocks setting", GW_HEALTH_OK},
    {GW_REASON_SW_POWER_CAP, "SW power cap", GW_HEALTH_WARNING},
    {GW_REASON_HW_SLOWDOWN, "HW slowdown", GW_HEALTH_CRITICAL},
    {GW_REASON_SYNC_BOOST, "sync boost", GW_HEALTH_OK},
    {GW_REASON_SW_THERMAL, "SW thermal slowdown", GW_HEALTH_WARNING},
    {GW_REASON_HW_THERMAL, "HW thermal slowdown", GW_HEALTH_CRITICAL},
    {GW_REASON_HW_POWER_BRAKE, "HW power brake slowdown", GW_HEALTH_CRITICAL},
    {GW_REASON_DISPLAY_CLOCK_SETTING, "display clock setting", GW_HEALTH_OK},
};

gw_health_state gw_health_decode_reasons(unsigned long long mask, char *buf, size_t len)
{
    gw_health_state st = GW_HEALTH_OK;
    size_t used = 0;
    unsigned long long known = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < sizeof reason_bits / sizeof reason_bits[0]; i++) {
        known |= reason_bits[i].bit;
        if (!(mask & reason_bits[i].bit) || used >= len)
            continue;
        used +=
            (size_t)snprintf(buf + used, len - used, "%s%s", used ? ", " : "", reason_bits[i].name);
        st = gw_health_worse(st, reason_bits[i].state);
    }
    if ((mask & ~known) && used < len)
        snprintf(buf + used, len - used, "%sunknown bits 0x%llx", used ? ", " : "", mask & ~known);
    else if (mask == 0)
        snprintf(buf, len, "none");
    return st;
}

static void check_reasons(gw_health_gpu *g)
{
    const gw_gpu_sample *v = &g->facts.v;
    const char *id = "throttle_reasons", *label = "throttle reasons";
    if (!gw_has(v, GW_F_CLOCKS_EVENT_REASONS)) {
        item(g, id, label, GW_HEALTH_NA, NAN, "not reported by this GPU");
        return;
    }
    unsigned long long mask = gw_reasons_of(v->v[GW_F_CLOCKS_EVENT_REASONS]);
    char words[256];
    gw_health_state st = gw_health_decode_reasons(mask, words, sizeof words);
    item(g, id, label, st, (double)mask, "%s (0x%llx)%s", words, mask,
         st == GW_HEALTH_CRITICAL  ? ": the GPU slows itself down at rest: check cooling and power"
         : st == GW_HEALTH_WARNING ? ": clocks are held back before any work"
                                   : "");
}

static void check_ecc(gw_health_gpu *g)
{
    const gw_health_facts *f = &g->facts;
    const char *id = "ecc_uncorrectable", *label = "ECC uncorrectable";
    if (!gw_has(&f->v, GW_F_ECC_UNCORRECTED)) {
        item(g, id, label, GW_HEALTH_NA, NAN, "ECC is off or not supported");
        return;
    }
    double now = f->v.v[GW_F_ECC_UNCORRECTED], life = f->ecc_lifetime;
    if (now > 0)
        item(g, id, label, GW_HEALTH_CRITICAL, now,
             "%s since the driver loaded: memory is failing; drain the GPU and check "
             "`nvidia-smi -q -d ECC`",
             GW_FIXED(now, 0));
    else if (life > 0)
        item(g, id, label, GW_HEALTH_WARNING, life,
             "none since the driver loaded, %s over the GPU's life: watch it", GW_FIXED(life, 0));
    else
        item(g, id, label, GW_HEALTH_OK, now, "none since the driver loaded%s",
             isnan(life) ? "" : ", none over the GPU's life");
}

static void check_repairs(gw_health_gpu *g)
{
    const gw_health_facts *f = &g->facts;
    const char *id = "pending_repairs", *label = "pending repairs";
    if (f->remap_failure == 1) {
        item(g, id, label, GW_HEALTH_CRITICAL, 1,
             "row remapping failed: the GPU has no spare rows left and needs service");
    } else if (f->remap_pending == 1 || f->retired_pending == 1) {
        item(g, id, label, GW_HEALTH_WARNING, 1,
             "%s wait to be applied: reset the GPU (nvidia-smi -r) or reboot before training",
             f->remap_pending == 1 ? "remapped rows" : "retired pages");
    } else if (f->remap_pending < 0 && f->retired_pending < 0) {
        item(g, id, label, GW_HEALTH_NA, NAN,
             "neither row remapping nor page retirement is "
             "reported by this GPU");
    } else {
        item(g, id, label, GW_HEALTH_OK, 0, "no %s pending",
             f->remap_pending >= 0 ? "row remapping" : "page retirement");
    }
}

static void check_pcie(gw_health_gpu *g)
{
    const gw_gpu_sample *v = &g->facts.v;
    const char *id = "pcie_link", *label = "PCIe link";
    if (!gw_has(v, GW_F_PCIE_GEN) || !gw_has(v, GW_F_PCIE_GEN_MAX) || !gw_has(v, GW_F_PCIE_WIDTH) ||
        !gw_has(v, GW_F_PCIE_WIDTH_MAX)) {
        item(g, id, label, GW_HEALTH_NA, NAN, "not reported by this GPU");
        return;
    }
    double gen = v->v[GW_F_PCIE_GEN], gen_max = v->v[GW_F_PCIE_GEN_MAX];
    double width = v->v[GW_F_PCIE_WIDTH], width_max = v->v[GW_F_PCIE_WIDTH_MAX];
    bool idle = (gw_has(v, GW_F_CLOCKS_EVENT_REASONS) &&
                 (gw_reasons_of(v->v[GW_F_CLOCKS_EVENT_REASONS]) & GW_REASON_GPU_IDLE)) ||
                (gw_has(v, GW_F_UTIL_GPU_PCT) && v->v[GW_F_UTIL_GPU_PCT] == 0);
    const char *note = "";
    gw_health_state st = GW_HEALTH_OK;
    if (width < width_max) {
        st = GW_HEALTH_WARNING;
        note = ": fewer lanes than the card has: reseat it or check the slot and riser";
    } else if (gen < gen_max && !idle) {
        st = GW_HEALTH_WARNING;
        note = ": below its generation while working: check the slot, riser and BIOS";
    } else if (gen < gen_max) {
        note = " while idle (links slow down to save power; under load it should reach its "
               "maximum)";
    }
    item(g, id, label, st, gen, "gen %s x%s of gen %s x%s%s", GW_FIXED(gen, 0), GW_FIXED(width, 0),
         GW_FIXED(gen_max, 0), GW_FIXED(width_max, 0), note);
}

static void check_latency(gw_health_gpu *g, const gw_health_thresholds *th)
{
    const gw_health_facts *f = &g->facts;
    gw_health_state st = grade(f->latency_ms, th->latency_warning_ms, th->latency_critical_ms);
    item(g, "nvml_latency", "NVML response", st, f->latency_ms,
         "%s ms for %u groups of calls (slowest: %s, %s ms)%s",
         GW_FIXED(f->latency_ms, f->latency_ms < 10 ? 2 : 0), f->calls,
         f->slowest ? f->slowest : "none", GW_FIXED(f->slowest_ms, f->slowest_ms < 10 ? 2 : 0),
         st == GW_HEALTH_OK ? ""
                            : ": the driver answers slowly: is nvidia-persistenced running? "
                              "(nvidia-smi -pm 1)");
}

void gw_health_evaluate_gpu(gw_health_gpu *g, const gw_health_thresholds *th)
{
    g->nitems = 0;
    g->state = GW_HEALTH_OK;
    const gw_health_facts *f = &g->facts;
    if (!f->reachable) {
        item(g, "reachable", "reachable", GW_HEALTH_CRITICAL, NAN,
             "no: %s failed (GPU lost or not answering): check `dmesg` for Xid 79, then reset "
             "the GPU or reboot",
             f->lost_call);
        return;
    }
    item(g, "reachable", "reachable", GW_HEALTH_OK, NAN, "answers NVML");
    check_temperature(g, th);
    check_memory(g, th);
    check_reasons(g);
    check_ecc(g);
    check_repairs(g);
    check_pcie(g);
    check_latency(g, th);
}

void gw_health_evaluate(gw_health_report *r, const gw_health_thresholds *th)
{
    if (r->ngpus == 0) {
        r->state = GW_HEALTH_UNKNOWN;
        if (!r->error[0])
            snprintf(r->error, sizeof r->error, "NVML reports no GPU");
        return;
    }
    r->state = GW_HEALTH_OK;
    for (unsigned i = 0; i < r->ngpus; i++) {
        gw_health_evaluate_gpu(&r->gpus[i], th);
        r->state = gw_health_worse(r->state, r->gpus[i].state);
    }
}
