/* The alert engine: rule states per GPU, evaluated on every tick; see alerts.h. */
#include "alerts/alerts.h"

#include "alerts/hook.h"
#include "alerts/trend.h"
#include "util/gw_fmt.h"
#include "util/gw_termline.h"
#include "util/gw_time.h"
#include "util/xalloc.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

enum { ST_OK, ST_PENDING, ST_FIRING, ST_CLEARING };
enum { EVENT_QUEUE_MAX = 256 };
/* job_rss_growth: process counts 0..JOB_COUNTS have a baseline each (more share the last). */
enum { JOB_COUNTS = 64 };

/* One rule on one GPU (or on the job / the tick). */
typedef struct inst {
    const gw_alert_rule *rule;
    int gpu; /* index into the sample's gpus, -1 for job and tick rules */
    int st;
    int64_t since_ns; /* pending or clearing since */
    int64_t fired_ns;
    double peak;     /* the most extreme value since pending */
    unsigned events; /* events while firing */
    int64_t last_event_ns;
    int64_t job_steady_ns; /* job_rss_growth: since when the job has had job_count processes (0:
                              no job yet) */
    int job_count;         /* job_rss_growth: the job's process count (0 when unknown) */
    int trend_count;       /* job_rss_growth: the count whose baseline the trend window follows */
    double *job_base;      /* job_rss_growth: [JOB_COUNTS + 1] lowest job.rss with that many
                              processes once the count has held for the warm-up; NAN before */
    gw_trend *trend;       /* NULL without a trend condition */
} inst;

/* An NVML event taken from the bus, waiting for the next tick. */
typedef struct queued_event {
    gw_alert_metric metric;
    unsigned gpu; /* NVML index */
    double value;
} queued_event;

struct gw_alerts {
    gw_alerts_config cfg; /* copy; hook strings are not copied (the runner has its own) */
    gw_events *bus;
    FILE *log;
    char *hook_path; /* NULL: no hook */
    char **hook_argv;
    gw_sampler *sampler; /* for the hook runner, borrowed */
    char *run_dir;
    gw_hook_runner *hooks; /* started with sampling (on_start) */
    unsigned ngpus;
    unsigned *gpu_index; /* [ngpus] NVML index of each sample GPU */
    bool job_set;        /* gw_alerts_set_job_gpus was called: job_gpus says the job's GPUs */
    bool job_node;       /* --scope node: the other GPUs are judged too, marked */
    unsigned *job_gpus;  /* [njob] NVML indices */
    size_t njob;
    inst *insts;
    int ninsts;
    pthread_mutex_t lock; /* the event queue and the counters */
    queued_event queue[EVENT_QUEUE_MAX];
    int nqueue;
    unsigned fired, resolved, active;
};

static void fmt_num(double v, char *buf, size_t len);

static bool own_rule(const gw_alerts *a, const char *id)
{
    for (int i = 0; i < a->ninsts; i++)
        if (strcmp(a->insts[i].rule->id, id) == 0)
            return true;
    return false;
}

/* Alerts that other modules put on the bus (the stall detector's job_stalled) run the hook like
 * the engine's own rules do; the engine's own alerts come back here too and are skipped. */
static void hook_external(gw_alerts *a, const gw_event_alert *ev, bool firing)
{
    if (!a->hooks || !ev->rule || !*ev->rule || own_rule(a, ev->rule))
        return;
    gw_hook_alert h;
    memset(&h, 0, sizeof h);
    snprintf(h.rule, sizeof h.rule, "%s", ev->rule);
    snprintf(h.state, sizeof h.state, "%s", firing ? "firing" : "resolved");
    snprintf(h.severity, sizeof h.severity, "%s", ev->severity ? ev->severity : "");
    if (ev->gpu >= 0)
        snprintf(h.gpu, sizeof h.gpu, "%d", ev->gpu);
    fmt_num(ev->value, h.value, sizeof h.value);
    fmt_num(ev->threshold, h.threshold, sizeof h.threshold);
    bool metric = (ev->has & GW_EVA_METRIC) && ev->metric && *ev->metric;
    snprintf(h.metric, sizeof h.metric, "%s", metric ? ev->metric : ev->rule);
    if ((ev->has & GW_EVA_MESSAGE) && ev->message)
        snprintf(h.message, sizeof h.message, "%s", ev->message);
    h.wall_ms = gw_wall_ms();
    gw_hook_runner_enqueue(a->hooks, &h);
}

static void on_bus_event(void *ctx, const gw_event *ev)
{
    gw_alerts *a = ctx;
    if (ev->kind == GW_EV_ALERT || ev->kind == GW_EV_ALERT_RESOLVED) {
        hook_external(a, &ev->alert, ev->kind == GW_EV_ALERT);
        return;
    }
    queued_event q = {.value = 1};
    if (ev->kind == GW_EV_XID && ev->xid.gpu >= 0) {
        q.gpu = (unsigned)ev->xid.gpu;
        q.metric = GW_AM_XID;
        q.value = (double)ev->xid.xid;
    } else if (ev->kind == GW_EV_ECC_DOUBLE_BIT && ev->ecc.gpu >= 0) {
        q.gpu = (unsigned)ev->ecc.gpu;
        q.metric = GW_AM_ECC_DOUBLE_BIT;
    } else {
        return;
    }
    pthread_mutex_lock(&a->lock);
    if (a->nqueue < EVENT_QUEUE_MAX)
        a->queue[a->nqueue++] = q;
    pthread_mutex_unlock(&a->lock);
}

gw_alerts *gw_alerts_new(const gw_alerts_config *cfg, gw_events *bus)
{
    gw_alerts *a = xcalloc(1, sizeof *a);
    a->cfg = *cfg;
    memset(a->cfg.hook_argv, 0, sizeof a->cfg.hook_argv);
    a->cfg.hook_path = NULL;
    a->bus = bus;
    a->log = stderr;
    pthread_mutex_init(&a->lock, NULL);
    if (cfg->enabled && cfg->hook_argv[0] && cfg->hook_path) {
        int n = 0;
        while (cfg->hook_argv[n])
            n++;
        a->hook_argv = xcalloc((size_t)n + 1, sizeof *a->hook_argv);
        for (int i = 0; i < n; i++)
            a->hook_argv[i] = xstrdup(cfg->hook_argv[i]);
        a->hook_path = xstrdup(cfg->hook_path);
    }
    if (bus)
        gw_events_listen(bus, on_bus_event, a);
    return a;
}

void gw_alerts_set_log(gw_alerts *a, FILE *log)
{
    a->log = log;
}

void gw_alerts_attach(gw_alerts *a, gw_sampler *sampler, const char *run_dir)
{
    a->sampler = sampler;
    free(a->run_dir);
    a->run_dir = run_dir ? realpath(run_dir, NULL) : NULL;
    if (run_dir && !a->run_dir)
        a->run_dir = xstrdup(run_dir);
}

/* ---- formatting ---- */

static double round3(double v)
{
    return round(v * 1000.0) / 1000.0;
}

/* "3 min 5 s", "12.5 s", "1 h 2 min". */
static void fmt_span(int64_t ns, char *buf, size_t len)
{
    double s = (double)ns / 1e9;
    if (s < 60)
        snprintf(buf, len, "%s s", GW_SIG(s, 3));
    else if (s < 3600)
        snprintf(buf, len, "%d min %d s", (int)(s / 60), (int)fmod(s, 60));
    else
        snprintf(buf, len, "%d h %d min", (int)(s / 3600), (int)fmod(s / 60, 60));
}

static void fmt_num(double v, char *buf, size_t len)
{
    if (isnan(v))
        snprintf(buf, len, "%s", "");
    else
        snprintf(buf, len, "%s", GW_SIG(round3(v), 10));
}

/* Whether the GPU of sample slot `slot` is the job's (every GPU until the job's are known). */
static bool job_gpu(const gw_alerts *a, int slot)
{
    if (!a->job_set || slot < 0)
        return true;
    for (size_t i = 0; i < a->njob; i++)
        if (a->job_gpus[i] == a->gpu_index[slot])
            return true;
    return false;
}

/* "GPU 0 ", "GPU 0 (not this job) " (--scope node) or "" for job and tick rules. */
static void subject(const gw_alerts *a, const inst *in, char *buf, size_t len)
{
    if (in->gpu >= 0)
        snprintf(buf, len, "GPU %u %s", a->gpu_index[in->gpu],
                 job_gpu(a, in->gpu) ? "" : "(not this job) ");
    else
        buf[0] = '\0';
}

static void fire_message(const gw_alerts *a, const inst *in, double v, int64_t held_ns, char *buf,
                         size_t len)
{
    const gw_alert_rule *r = in->rule;
    const gw_alert_metric_info *m = &gw_alert_metrics[r->metric];
    char who[48], span[32] = "";
    subject(a, in, who, sizeof who);
    if (r->metric == GW_AM_XID) {
        snprintf(buf, len, "%sXID %s", who, GW_FIXED(v, 0));
        return;
    }
    if (m->event || r->metric == GW_AM_GPU_LOST) {
        snprintf(buf, len, "%s%s", who, m->label);
        return;
    }
    if (r->duration_ms > 0)
        fmt_span(held_ns, span, sizeof span);
    snprintf(buf, len, "%s%s %s%s %s %s%s%s%s%s", who, m->label, GW_SIG(v, 4), m->unit,
             r->below ? "below" : "above", GW_SIG(r->threshold, 4), m->unit,
             r->trend == GW_TREND_RISING   ? " and rising"
             : r->trend == GW_TREND_LINEAR ? " and growing linearly"
                                           : "",
             span[0] ? " for " : "", span);
}

static void resolve_message(const gw_alerts *a, const inst *in, double v, int64_t active_ns,
                            char *buf, size_t len)
{
    const gw_alert_rule *r = in->rule;
    const gw_alert_metric_info *m = &gw_alert_metrics[r->metric];
    char who[48], span[32];
    subject(a, in, who, sizeof who);
    fmt_span(active_ns, span, sizeof span);
    if (!job_gpu(a, in->gpu) && !a->job_node) { /* the GPU turned out to be another job's */
        snprintf(buf, len, "GPU %u is not this job's: no longer watched (active %s)",
                 a->gpu_index[in->gpu], span);
        return;
    }
    if (m->event) {
        char quiet[32];
        fmt_span(r->clear_duration_ms * 1000000, quiet, sizeof quiet);
        snprintf(buf, len, "%s%s: none for %s (%u in %s)", who, m->label, quiet, in->events, span);
        return;
    }
    snprintf(buf, len, "%s%s %s%s back to %s%s or %s after %s (peak %s%s)", who, m->label,
             GW_SIG(v, 4), m->unit, GW_SIG(r->clear, 4), m->unit, r->below ? "above" : "below",
             span, GW_SIG(in->peak, 4), m->unit);
}

/* ---- announcing ---- */

static void hook_alert(gw_alerts *a, const inst *in, const char *state, double v, const char *msg,
                       int64_t wall_ms)
{
    if (!a->hooks)
        return;
    gw_hook_alert h;
    memset(&h, 0, sizeof h);
    snprintf(h.rule, sizeof h.rule, "%s", in->rule->id);
    snprintf(h.severity, sizeof h.severity, "%s", gw_severity_name(in->rule->severity));
    snprintf(h.state, sizeof h.state, "%s", state);
    if (in->gpu >= 0)
        snprintf(h.gpu, sizeof h.gpu, "%u", a->gpu_index[in->gpu]);
    fmt_num(v, h.value, sizeof h.value);
    fmt_num(gw_alert_metrics[in->rule->metric].event ? NAN : in->rule->threshold, h.threshold,
            sizeof h.threshold);
    snprintf(h.metric, sizeof h.metric, "%s", gw_alert_metrics[in->rule->metric].key);
    snprintf(h.message, sizeof h.message, "%s", msg);
    h.wall_ms = wall_ms;
    gw_hook_runner_enqueue(a->hooks, &h);
}

/* Emits "alert" or "alert_resolved", prints its line and queues the hook. */
static void announce(gw_alerts *a, const inst *in, bool firing, double v, int64_t span_ns,
                     int64_t wall_ms)
{
    const gw_alert_rule *r = in->rule;
    bool event = gw_alert_metrics[r->metric].event;
    char msg[256];
    if (firing)
        fire_message(a, in, v, span_ns, msg, sizeof msg);
    else
        resolve_message(a, in, v, span_ns, msg, sizeof msg);
    gw_event ev = gw_event_make(firing ? GW_EV_ALERT : GW_EV_ALERT_RESOLVED, wall_ms);
    gw_event_alert *al = &ev.alert;
    al->has = GW_EVA_METRIC | GW_EVA_CLEAR | GW_EVA_DURATION | GW_EVA_MESSAGE;
    al->rule = r->id;
    al->severity = gw_severity_name(r->severity);
    al->metric = gw_alert_metrics[r->metric].key;
    al->gpu = in->gpu >= 0 ? (int)a->gpu_index[in->gpu] : -1;
    al->value = v;
    al->threshold = event ? NAN : r->threshold;
    al->clear = event ? NAN : r->clear;
    al->duration_s = (double)span_ns / 1e9;
    if (!firing && !event) {
        al->has |= GW_EVA_PEAK;
        al->peak = in->peak;
    }
    if (!firing && event) {
        al->has |= GW_EVA_EVENTS;
        al->events = (long)in->events;
    }
    al->message = msg;
    gw_events_emit(a->bus, &ev);
    if (a->log) {
        gw_termline_fresh(a->log);
        if (firing)
            fprintf(a->log, "gpuwatch: ALERT %s %s: %s\n", gw_severity_name(r->severity), r->id,
                    msg);
        else
            fprintf(a->log, "gpuwatch: resolved %s %s: %s\n", gw_severity_name(r->severity), r->id,
                    msg);
    }
    hook_alert(a, in, firing ? "firing" : "resolved", v, msg, wall_ms);
    pthread_mutex_lock(&a->lock);
    if (firing) {
        a->fired++;
        a->active++;
    } else {
        a->resolved++;
        a->active--;
    }
    pthread_mutex_unlock(&a->lock);
}

/* ---- values ---- */

static double gpu_value(const gw_gpu_sample *g, gw_alert_metric m)
{
    switch (m) {
    case GW_AM_TEMPERATURE:
        return gw_has(g, GW_F_TEMP_GPU_C) ? g->v[GW_F_TEMP_GPU_C] : NAN;
    case GW_AM_MEMORY_USED_PCT:
        if (gw_has(g, GW_F_MEM_USED_MIB) && gw_has(g, GW_F_MEM_TOTAL_MIB) &&
            g->v[GW_F_MEM_TOTAL_MIB] > 0)
            return 100.0 * g->v[GW_F_MEM_USED_MIB] / g->v[GW_F_MEM_TOTAL_MIB];
        return NAN;
    case GW_AM_UTIL_GPU:
        return gw_has(g, GW_F_UTIL_GPU_PCT) ? g->v[GW_F_UTIL_GPU_PCT] : NAN;
    case GW_AM_POWER_PCT:
        if (gw_has(g, GW_F_POWER_DRAW_W) && gw_has(g, GW_F_POWER_LIMIT_W) &&
            g->v[GW_F_POWER_LIMIT_W] > 0)
            return 100.0 * g->v[GW_F_POWER_DRAW_W] / g->v[GW_F_POWER_LIMIT_W];
        return NAN;
    case GW_AM_GPU_LOST:
        return g->lost ? 1 : 0;
    default:
        return NAN;
    }
}

/* The job's RSS above the lowest it had with as many processes, counted once the process count
 * has held for the warm-up; NAN before. job.rss sums every process's RSS, so DataLoader workers
 * starting (each counting the pages it shares with its parent) add gigabytes that are no leak:
 * each process count has its own baseline, and the warm-up starts again whenever the count
 * changes (the job's start-up, workers started or restarted for an epoch), so what is judged is
 * growth at a steady set of processes, and a leak shows at every count. A new baseline restarts
 * the trend window, since the growth series shifts with it. */
static double job_growth(inst *in, const gw_sample *s)
{
    double rss = s->host.job_rss_mib;
    if (isnan(rss))
        return NAN;
    double np = s->host.job_processes;
    int count = isnan(np) || np < 0 ? 0 : np > JOB_COUNTS ? JOB_COUNTS : (int)np;
    if (in->job_steady_ns == 0 || count != in->job_count) {
        in->job_steady_ns = s->mono_ns;
        in->job_count = count;
    }
    if (s->mono_ns - in->job_steady_ns < in->rule->warmup_ms * 1000000)
        return NAN;
    double *base = &in->job_base[count];
    if (isnan(*base) || rss < *base || count != in->trend_count) {
        if (isnan(*base) || rss < *base)
            *base = rss;
        in->trend_count = count;
        if (in->trend)
            gw_trend_reset(in->trend, in->rule->trend_window_ms * 1000000);
    }
    return rss - *base;
}

static double value_of(inst *in, const gw_sample *s)
{
    switch (in->rule->metric) {
    case GW_AM_JOB_RSS_GROWTH:
        return job_growth(in, s);
    case GW_AM_SAMPLE_READ_MS:
        return (double)s->read_ns / 1e6;
    default:
        return (unsigned)in->gpu < s->gpu_count ? gpu_value(&s->gpus[in->gpu], in->rule->metric)
                                                : NAN;
    }
}

static bool trend_holds(const inst *in)
{
    const gw_alert_rule *r = in->rule;
    double slope, r2;
    switch (r->trend) {
    case GW_TREND_RISING: {
        double rise = gw_trend_rise(in->trend);
        return rise > 0 && rise >= r->trend_min;
    }
    case GW_TREND_LINEAR:
        return gw_trend_fit(in->trend, &slope, &r2) && slope > 0 && r2 >= GW_ALERT_LINEAR_MIN_R2;
    default:
        return true;
    }
}

/* ---- state machines ---- */

static void step_value(gw_alerts *a, inst *in, const gw_sample *s)
{
    const gw_alert_rule *r = in->rule;
    int64_t now = s->mono_ns;
    double v = value_of(in, s);
    if (isnan(v)) {
        /* Without a value nothing can be proved: a pending rule starts over, a firing one waits. */
        if (in->st == ST_PENDING)
            in->st = ST_OK;
        return;
    }
    if (in->trend)
        gw_trend_push(in->trend, now, v);
    bool pass = r->below ? v < r->threshold : v > r->threshold;
    bool clear = r->below ? v >= r->clear : v <= r->clear;
    bool more = r->below ? v < in->peak : v > in->peak;
    if (in->st == ST_OK) {
        if (!pass || !trend_holds(in))
            return;
        in->st = ST_PENDING; /* and, without a duration, it fires right below */
        in->since_ns = now;
        in->peak = v;
    }
    if (in->st == ST_PENDING) {
        if (!pass || !trend_holds(in)) {
            in->st = ST_OK;
            return;
        }
        if (more)
            in->peak = v;
        if (now - in->since_ns >= r->duration_ms * 1000000) {
            in->st = ST_FIRING;
            in->fired_ns = now;
            announce(a, in, true, v, now - in->since_ns, s->wall_ms);
        }
        return;
    }
    /* firing or clearing */
    if (more)
        in->peak = v;
    if (!clear) {
        in->st = ST_FIRING;
        return;
    }
    if (in->st == ST_FIRING) {
        in->st = ST_CLEARING;
        in->since_ns = now;
    }
    if (now - in->since_ns >= r->clear_duration_ms * 1000000) {
        in->st = ST_OK;
        announce(a, in, false, v, now - in->fired_ns, s->wall_ms);
    }
}

static void step_event(gw_alerts *a, inst *in, const gw_sample *s, const queued_event *q, int nq)
{
    int64_t now = s->mono_ns;
    for (int i = 0; i < nq; i++) {
        if (q[i].metric != in->rule->metric || in->gpu < 0 || q[i].gpu != a->gpu_index[in->gpu])
            continue;
        in->last_event_ns = now;
        if (in->st == ST_FIRING) {
            in->events++;
            continue;
        }
        in->st = ST_FIRING;
        in->fired_ns = now;
        in->events = 1;
        announce(a, in, true, q[i].value, 0, s->wall_ms);
    }
    if (in->st == ST_FIRING && now - in->last_event_ns >= in->rule->clear_duration_ms * 1000000 &&
        now > in->last_event_ns) {
        in->st = ST_OK;
        announce(a, in, false, NAN, now - in->fired_ns, s->wall_ms);
    }
}

static void on_sample(void *ctx, const gw_sample *s)
{
    gw_alerts *a = ctx;
    queued_event q[EVENT_QUEUE_MAX];
    pthread_mutex_lock(&a->lock);
    int nq = a->nqueue;
    memcpy(q, a->queue, (size_t)nq * sizeof q[0]);
    a->nqueue = 0;
    pthread_mutex_unlock(&a->lock);
    for (int i = 0; i < a->ninsts; i++) {
        inst *in = &a->insts[i];
        if (!a->job_node && !job_gpu(a, in->gpu)) { /* another job's GPU: not judged */
            if (in->st == ST_FIRING || in->st == ST_CLEARING)
                announce(a, in, false, NAN, s->mono_ns - in->fired_ns, s->wall_ms);
            in->st = ST_OK;
            continue;
        }
        if (gw_alert_metrics[in->rule->metric].event)
            step_event(a, in, s, q, nq);
        else
            step_value(a, in, s);
    }
}

/* One instance per enabled rule and GPU (job and tick rules: one). */
static void on_start(void *ctx, const gw_device_info *devices, unsigned count)
{
    gw_alerts *a = ctx;
    for (int i = 0; i < a->ninsts; i++) { /* a sampler started again: start over */
        free(a->insts[i].trend);
        free(a->insts[i].job_base);
    }
    free(a->insts);
    free(a->gpu_index);
    a->ninsts = 0;
    a->ngpus = count;
    a->gpu_index = xcalloc(count ? count : 1, sizeof *a->gpu_index);
    for (unsigned i = 0; i < count; i++)
        a->gpu_index[i] = devices[i].index;
    int cap = 0;
    for (int r = 0; r < a->cfg.nrules; r++)
        cap += gw_alert_metrics[a->cfg.rules[r].metric].scope == GW_SCOPE_GPU ? (int)count : 1;
    a->insts = xcalloc(cap ? (size_t)cap : 1, sizeof *a->insts);
    for (int r = 0; a->cfg.enabled && r < a->cfg.nrules; r++) {
        const gw_alert_rule *rule = &a->cfg.rules[r];
        if (!rule->enabled)
            continue;
        bool per_gpu = gw_alert_metrics[rule->metric].scope == GW_SCOPE_GPU;
        for (int g = 0; g < (per_gpu ? (int)count : 1); g++) {
            inst *in = &a->insts[a->ninsts++];
            in->rule = rule;
            in->gpu = per_gpu ? g : -1;
            in->trend_count = -1;
            if (rule->metric == GW_AM_JOB_RSS_GROWTH) {
                in->job_base = xcalloc(JOB_COUNTS + 1, sizeof *in->job_base);
                for (int c = 0; c <= JOB_COUNTS; c++)
                    in->job_base[c] = NAN;
            }
            if (rule->trend != GW_TREND_NONE) {
                in->trend = xcalloc(1, sizeof *in->trend);
                gw_trend_reset(in->trend, rule->trend_window_ms * 1000000);
            }
        }
    }
    if (a->hook_path && !a->hooks) {
        a->hooks = gw_hook_runner_new(a->hook_path, a->hook_argv, a->cfg.hook_timeout_ms, a->log);
        gw_hook_runner_attach(a->hooks, a->sampler, a->run_dir);
    }
}

void gw_alerts_set_job_gpus(gw_alerts *a, const unsigned *gpus, size_t n, bool node)
{
    free(a->job_gpus);
    a->job_gpus = xmemdup(gpus, n * sizeof *gpus);
    a->njob = n;
    a->job_node = node;
    a->job_set = true;
}

static void on_stop(void *ctx)
{
    gw_alerts *a = ctx;
    if (a->hooks)
        gw_hook_runner_stop(a->hooks);
}

gw_sink gw_alerts_as_sink(gw_alerts *a)
{
    return (gw_sink){.ctx = a, .on_start = on_start, .on_sample = on_sample, .on_stop = on_stop};
}

void gw_alerts_get_stats(gw_alerts *a, gw_alerts_stats *out)
{
    memset(out, 0, sizeof *out);
    pthread_mutex_lock(&a->lock);
    out->fired = a->fired;
    out->resolved = a->resolved;
    out->active = a->active;
    pthread_mutex_unlock(&a->lock);
    if (a->hooks) {
        gw_hook_stats h;
        gw_hook_runner_get_stats(a->hooks, &h);
        out->hooks_run = h.run;
        out->hooks_killed = h.killed;
        out->hooks_dropped = h.dropped;
    }
}

void gw_alerts_free(gw_alerts *a)
{
    if (!a)
        return;
    if (a->bus)
        gw_events_unlisten(a->bus, on_bus_event, a);
    gw_hook_runner_free(a->hooks);
    for (int i = 0; a->hook_argv && a->hook_argv[i]; i++)
        free(a->hook_argv[i]);
    free(a->hook_argv);
    free(a->hook_path);
    free(a->run_dir);
    for (int i = 0; i < a->ninsts; i++) {
        free(a->insts[i].trend);
        free(a->insts[i].job_base);
    }
    free(a->insts);
    free(a->gpu_index);
    free(a->job_gpus);
    pthread_mutex_destroy(&a->lock);
    free(a);
}
