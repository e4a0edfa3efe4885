/* Unit tests for src/alerts/engine.c: rules judged on synthetic ticks (no NVML, no sleeping —
 * every tick carries its own monotonic time). */
#include "test_helpers.h"

#include "alerts/alerts.h"
#include "alerts/trend.h"
#include "analysis/thresholds.h"
#include "record/eventlog.h"

#include <math.h>

#define S_NS 1000000000LL

typedef struct harness {
    gw_alerts_config cfg;
    gw_events *bus;
    gw_alerts *a;
    gw_sink sink;
    cJSON *ev[128]; /* alert and alert_resolved events, in order */
    int nev;
    gw_sample s;
    gw_gpu_sample gpus[2];
    gw_device_info dev[2];
} harness;

/* Keeps alerts as events.jsonl would hold them (the writer's JSON). */
static void capture(void *ctx, const gw_event *ev)
{
    harness *h = ctx;
    if ((ev->kind == GW_EV_ALERT || ev->kind == GW_EV_ALERT_RESOLVED) && h->nev < 128)
        h->ev[h->nev++] = gw_event_to_json(ev);
}

/* Starts the engine on ngpu GPUs (NVML indices 0, 1) with h->cfg. */
static void start(harness *h, unsigned ngpu)
{
    h->bus = gw_events_new();
    gw_events_listen(h->bus, capture, h);
    h->a = gw_alerts_new(&h->cfg, h->bus);
    gw_alerts_set_log(h->a, NULL);
    h->sink = gw_alerts_as_sink(h->a);
    for (unsigned i = 0; i < 2; i++)
        h->dev[i].index = i;
    h->s.gpus = h->gpus;
    h->s.gpu_count = ngpu;
    h->s.host = (gw_host_sample){NAN, NAN, NAN, NAN, NAN, NAN};
    h->sink.on_start(h->sink.ctx, h->dev, ngpu);
}

static harness *new_harness(unsigned ngpu)
{
    harness *h = calloc(1, sizeof *h);
    gw_alerts_config_defaults(&h->cfg);
    (void)ngpu;
    return h;
}

static void finish(harness *h)
{
    gw_alerts_free(h->a);
    gw_events_free(h->bus);
    for (int i = 0; i < h->nev; i++)
        cJSON_Delete(h->ev[i]);
    free(h);
}

/* One tick at t seconds with GPU 0's temperature and memory percentage (NAN: absent). */
static void tick(harness *h, double t_s)
{
    h->s.mono_ns = (int64_t)(t_s * S_NS) + 1000 * S_NS;
    h->s.wall_ms = 1800000000000LL + (int64_t)(t_s * 1000);
    h->sink.on_sample(h->sink.ctx, &h->s);
    h->s.seq++;
}

static void set_temp(harness *h, unsigned g, double c)
{
    h->gpus[g].valid &= ~GW_FIELD_BIT(GW_F_TEMP_GPU_C);
    if (!isnan(c))
        gw_set(&h->gpus[g], GW_F_TEMP_GPU_C, c);
}

static void set_mem_pct(harness *h, unsigned g, double pct)
{
    gw_set(&h->gpus[g], GW_F_MEM_TOTAL_MIB, 100);
    gw_set(&h->gpus[g], GW_F_MEM_USED_MIB, pct);
}

static const char *str(const cJSON *ev, const char *k)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(ev, k);
    return cJSON_IsString(v) ? v->valuestring : "";
}

static double num(const cJSON *ev, const char *k)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(ev, k);
    return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}

/* Counts captured events of type for rule. */
static int count(const harness *h, const char *type, const char *rule)
{
    int n = 0;
    for (int i = 0; i < h->nev; i++)
        n += strcmp(str(h->ev[i], "type"), type) == 0 && strcmp(str(h->ev[i], "rule"), rule) == 0;
    return n;
}

static const cJSON *find(const harness *h, const char *type, const char *rule)
{
    for (int i = 0; i < h->nev; i++)
        if (strcmp(str(h->ev[i], "type"), type) == 0 && strcmp(str(h->ev[i], "rule"), rule) == 0)
            return h->ev[i];
    return NULL;
}

/* Only the rules named stay enabled. */
static void only(harness *h, const char *rule)
{
    for (int i = 0; i < h->cfg.nrules; i++)
        h->cfg.rules[i].enabled = strcmp(h->cfg.rules[i].id, rule) == 0;
}

static void test_touching_the_threshold_does_not_fire(void **state)
{
    (void)state;
    harness *h = new_harness(1);
    only(h, "temp_warning");
    start(h, 1);
    for (int t = 0; t < 100; t++) {
        set_temp(h, 0, 80);
        tick(h, t);
    }
    assert_int_equal(h->nev, 0);
    set_temp(h, 0, 80.5);
    tick(h, 100);
    assert_int_equal(count(h, "alert", "temp_warning"), 1);
    finish(h);
}

static void test_warning_fires_and_resolves_once_with_hysteresis(void **state)
{
    (void)state;
    harness *h = new_harness(1);
    only(h, "temp_warning");
    start(h, 1);
    /* 70 -> 81 (fires) -> wobbles 79..82 around the threshold -> 77.5 (still above clear 77) ->
     * 77 (resolves) -> 79 -> 81 again (fires again: a new episode) */
    double temps[] = {70, 81, 79, 82, 78, 81, 79.9, 77.5, 77, 76, 79, 81};
    for (int i = 0; i < 12; i++) {
        set_temp(h, 0, temps[i]);
        tick(h, i);
        if (i == 7) {
            assert_int_equal(count(h, "alert", "temp_warning"), 1);
            assert_int_equal(count(h, "alert_resolved", "temp_warning"), 0);
        }
    }
    assert_int_equal(count(h, "alert", "temp_warning"), 2);
    assert_int_equal(count(h, "alert_resolved", "temp_warning"), 1);
    const cJSON *a = find(h, "alert", "temp_warning");
    assert_string_equal(str(a, "severity"), "warning");
    assert_string_equal(str(a, "metric"), "temperature");
    assert_int_equal(num(a, "gpu"), 0);
    assert_true(num(a, "value") == 81);
    assert_true(num(a, "threshold") == 80);
    assert_true(num(a, "clear") == 77);
    assert_true(num(a, "duration_s") == 0);
    assert_string_equal(str(a, "message"), "GPU 0 temperature 81 C above 80 C");
    assert_string_equal(str(a, "timestamp"), "2027-01-15T08:00:01.000Z");
    const cJSON *r = find(h, "alert_resolved", "temp_warning");
    assert_true(num(r, "value") == 77);
    assert_true(num(r, "peak") == 82);
    assert_true(num(r, "duration_s") == 7); /* fired at t=1, resolved at t=8 */
    assert_string_equal(str(r, "message"),
                        "GPU 0 temperature 77 C back to 77 C or below after 7 s (peak 82 C)");
    gw_alerts_stats st;
    gw_alerts_get_stats(h->a, &st);
    assert_int_equal(st.fired, 2);
    assert_int_equal(st.resolved, 1);
    assert_int_equal(st.active, 1);
    finish(h);
}

static void test_critical_needs_three_minutes(void **state)
{
    (void)state;
    harness *h = new_harness(1);
    only(h, "temp_critical");
    start(h, 1);
    /* above 83 for 179 s, a dip to 83 (touching: not above), then above again */
    for (int t = 0; t <= 179; t++) {
        set_temp(h, 0, 84);
        tick(h, t);
    }
    set_temp(h, 0, 83);
    tick(h, 180);
    assert_int_equal(h->nev, 0);
    for (int t = 181; t < 181 + 180; t++) {
        set_temp(h, 0, 85);
        tick(h, t);
    }
    assert_int_equal(h->nev, 0); /* 181..360 is 179 s */
    tick(h, 361);
    assert_int_equal(count(h, "alert", "temp_critical"), 1);
    const cJSON *a = find(h, "alert", "temp_critical");
    assert_true(num(a, "duration_s") == 180);
    assert_string_equal(str(a, "severity"), "critical");
    assert_string_equal(str(a, "message"), "GPU 0 temperature 85 C above 83 C for 3 min 0 s");
    /* resolves at 80 (clear), not at 82 */
    set_temp(h, 0, 82);
    tick(h, 362);
    assert_int_equal(h->nev, 1);
    set_temp(h, 0, 80);
    tick(h, 363);
    assert_int_equal(count(h, "alert_resolved", "temp_critical"), 1);
    finish(h);
}

static void test_absent_value_restarts_a_pending_rule(void **state)
{
    (void)state;
    harness *h = new_harness(1);
    only(h, "temp_critical");
    start(h, 1);
    for (int t = 0; t < 120; t++) {
        set_temp(h, 0, 90);
        tick(h, t);
    }
    set_temp(h, 0, NAN);
    tick(h, 120);
    for (int t = 121; t < 300; t++) {
        set_temp(h, 0, 90);
        tick(h, t);
    }
    assert_int_equal(h->nev, 0); /* 121..299 is 178 s since the gap */
    tick(h, 301);
    assert_int_equal(h->nev, 1);
    finish(h);
}

/* The built-in memory rules fire at the report's levels (memory_near_capacity: above 92 % a
 * warning, above 98 % critical), so one GPU's memory has one severity live and afterwards. */
static void test_memory_levels_are_the_reports(void **state)
{
    (void)state;
    harness *h = new_harness(1);
    only(h, "memory_critical");
    gw_alerts_config_find(&h->cfg, "memory_warning")->enabled = true;
    assert_true(gw_alerts_config_find(&h->cfg, "memory_warning")->threshold ==
                GW_TH(GW_TH_MEM_CAPACITY_PCT));
    assert_true(gw_alerts_config_find(&h->cfg, "memory_critical")->threshold ==
                GW_TH(GW_TH_MEM_CAPACITY_CRIT_PCT));
    start(h, 1);
    /* 92 % touches the warning level: nothing; a caching allocator settled at 95 %, or one
     * climbing to it: a warning, as the report's memory_near_capacity says */
    for (int t = 0; t < 60; t++) {
        set_mem_pct(h, 0, t < 30 ? 92 : 90 + (t - 30) * 0.2);
        tick(h, t);
        if (t == 39) /* 91.8 % */
            assert_int_equal(h->nev, 0);
    }
    assert_int_equal(count(h, "alert", "memory_warning"), 1);
    assert_true(fabs(num(find(h, "alert", "memory_warning"), "value") - 92.2) < 1e-9);
    assert_int_equal(count(h, "alert", "memory_critical"), 0);
    /* exactly 98 %: touching; 98.5 %, rising or not: critical */
    set_mem_pct(h, 0, 98);
    tick(h, 60);
    assert_int_equal(count(h, "alert", "memory_critical"), 0);
    for (int t = 61; t < 200; t++) {
        set_mem_pct(h, 0, 98.5);
        tick(h, t);
    }
    assert_int_equal(count(h, "alert", "memory_critical"), 1);
    const cJSON *a = find(h, "alert", "memory_critical");
    assert_string_equal(str(a, "severity"), "critical");
    assert_string_equal(str(a, "message"), "GPU 0 memory used 98.5 % above 98 %");
    /* it resolves at the warning's level */
    set_mem_pct(h, 0, 92.5);
    tick(h, 200);
    assert_int_equal(count(h, "alert_resolved", "memory_critical"), 0);
    set_mem_pct(h, 0, 92);
    tick(h, 201);
    assert_int_equal(count(h, "alert_resolved", "memory_critical"), 1);
    finish(h);
}

/* A rule of the user's own with trend = rising (what memory_critical was before it took the
 * report's levels: above 92 % and rising): a plateau does not fire it, a climb does. */
static void test_rising_rule_needs_a_rise(void **state)
{
    (void)state;
    harness *h = new_harness(1);
    only(h, "memory_critical");
    gw_alert_rule *r = gw_alerts_config_find(&h->cfg, "memory_critical");
    r->threshold = 92;
    r->clear = 88;
    r->trend = GW_TREND_RISING;
    r->trend_window_ms = 60000;
    r->trend_min = 0.5;
    start(h, 1);
    /* a plateau at 95 % from the start: nothing rises */
    for (int t = 0; t < 120; t++) {
        set_mem_pct(h, 0, 95);
        tick(h, t);
    }
    assert_int_equal(count(h, "alert", "memory_critical"), 0);
    /* down to 60 %, then climbing 90 -> 96 % within a minute: fires once it is above 92 % and
     * has risen by at least 0.5 points in the window */
    set_mem_pct(h, 0, 60);
    tick(h, 120);
    for (int t = 121; t <= 181; t++) {
        set_mem_pct(h, 0, 90 + (t - 121) * 0.1);
        tick(h, t);
        if (t == 141) /* 92.0 %: touching */
            assert_int_equal(count(h, "alert", "memory_critical"), 0);
    }
    assert_int_equal(count(h, "alert", "memory_critical"), 1);
    const cJSON *a = find(h, "alert", "memory_critical");
    assert_true(fabs(num(a, "value") - 92.1) < 1e-9);
    assert_string_equal(str(a, "message"), "GPU 0 memory used 92.1 % above 92 % and rising");
    /* it stays active on the plateau (resolving needs 88 %), then resolves */
    for (int t = 182; t < 400; t++) {
        set_mem_pct(h, 0, 96);
        tick(h, t);
    }
    assert_int_equal(count(h, "alert_resolved", "memory_critical"), 0);
    set_mem_pct(h, 0, 88);
    tick(h, 400);
    assert_int_equal(count(h, "alert_resolved", "memory_critical"), 1);
    finish(h);
}

/* Job RSS: 1000 MiB during the warm-up and beyond, then a ramp or a step. */
static void job_series(harness *h, bool linear)
{
    for (int t = 0; t <= 900; t++) {
        double rss = 1000;
        if (t < 30)
            rss = 5000; /* start-up allocations during the warm-up are not growth */
        else if (linear && t > 120)
            rss = 1000 + (t - 120) * 10.0; /* 10 MiB/s */
        else if (!linear && t > 300)
            rss = 1000 + 3600; /* one step of 3600 MiB, then flat */
        h->s.host.job_rss_mib = rss;
        tick(h, t);
    }
}

static void test_job_memory_linear_growth(void **state)
{
    (void)state;
    harness *h = new_harness(1);
    only(h, "job_memory_warning");
    gw_alerts_config_find(&h->cfg, "job_memory_critical")->enabled = true;
    start(h, 1);
    job_series(h, true);
    const cJSON *w = find(h, "alert", "job_memory_warning");
    const cJSON *c = find(h, "alert", "job_memory_critical");
    assert_non_null(w);
    assert_non_null(c);
    assert_true(num(w, "value") == 2050); /* the first value above 2048 MiB: t = 325 */
    assert_true(num(c, "value") == 3080); /* the first above 3072: t = 428, linear by then */
    assert_string_equal(str(c, "metric"), "job_rss_growth");
    assert_true(cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(c, "gpu")));
    assert_string_equal(str(c, "message"),
                        "job host memory growth 3080 MiB above 3072 MiB and growing linearly");
    finish(h);
}

static void test_job_memory_step_is_only_a_warning(void **state)
{
    (void)state;
    harness *h = new_harness(1);
    only(h, "job_memory_warning");
    gw_alerts_config_find(&h->cfg, "job_memory_critical")->enabled = true;
    start(h, 1);
    job_series(h, false);
    assert_int_equal(count(h, "alert", "job_memory_warning"), 1);
    assert_true(num(find(h, "alert", "job_memory_warning"), "value") == 3600);
    assert_int_equal(count(h, "alert", "job_memory_critical"), 0);
    finish(h);
}

/* slow_sample needs reads slower than 500 ms for 5 s: here from t = 4 (600 ms each tick), so it
 * fires at t = 9 and resolves at the first read back at 250 ms. */
static void test_slow_sample(void **state)
{
    (void)state;
    harness *h = new_harness(1);
    only(h, "slow_sample");
    start(h, 1);
    const int64_t ms[] = {20, 40, 30, 20, 600, 600, 700, 600, 600, 600, 400, 260, 250, 30};
    for (int i = 0; i < 14; i++) {
        h->s.read_ns = ms[i] * 1000000;
        tick(h, i);
        if (i < 9)
            assert_int_equal(count(h, "alert", "slow_sample"), 0);
    }
    assert_int_equal(count(h, "alert", "slow_sample"), 1);
    const cJSON *fired = find(h, "alert", "slow_sample");
    assert_true(num(fired, "value") == 600);
    assert_true(num(fired, "duration_s") == 5);
    assert_string_equal(str(fired, "message"), "sample read time 600 ms above 500 ms for 5 s");
    assert_int_equal(count(h, "alert_resolved", "slow_sample"), 1);
    assert_true(num(find(h, "alert_resolved", "slow_sample"), "value") == 250);
    assert_true(cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(fired, "gpu")));
    finish(h);
}

/* Issue 12: one NVML read of 1.2 s while the job creates its CUDA context, or a few slow ones in
 * under 5 s, is no alert; the same reads kept up are one. */
static void test_slow_sample_start_up_is_no_alert(void **state)
{
    (void)state;
    harness *h = new_harness(1);
    start(h, 1); /* every built-in rule */
    for (int i = 0; i < 120; i++) {
        int64_t ms = i == 2 ? 1200 : (i >= 30 && i < 34) ? 900 : 15; /* 4 slow reads: 3 s */
        h->s.read_ns = ms * 1000000;
        tick(h, i);
    }
    assert_int_equal(h->nev, 0);
    for (int i = 120; i < 130; i++) { /* slow from t = 120 on: fires at t = 125 */
        h->s.read_ns = 1200 * 1000000LL;
        tick(h, i);
    }
    assert_int_equal(count(h, "alert", "slow_sample"), 1);
    assert_true(num(find(h, "alert", "slow_sample"), "value") == 1200);
    assert_int_equal(h->nev, 1);
    finish(h);
}

/* Issue 12: 8 DataLoader workers starting add 2.5 GiB of summed RSS, and again each time they
 * restart for an epoch: no growth. A leak at a steady set of processes still is. */
static void test_job_memory_workers_are_no_growth(void **state)
{
    (void)state;
    harness *h = new_harness(1);
    only(h, "job_memory_warning");
    gw_alerts_config_find(&h->cfg, "job_memory_critical")->enabled = true;
    start(h, 1);
    for (int t = 0; t <= 1000; t++) {
        double np = 9, rss = 3100 + (t % 7) * 15; /* the workers' buffers come and go */
        if (t < 90) {
            np = 1, rss = 600; /* start-up: past the warm-up before the workers start */
        } else if (t >= 400 && t < 410) {
            np = 1, rss = 650; /* validation: the workers are gone */
        } else if (t >= 410 && t < 420) {
            rss = 1000 + (t - 410) * 210; /* they start again and fill up */
        } else if (t >= 600) {
            rss += (t - 600) * 10; /* a leak of 10 MiB/s from t = 600 */
        }
        h->s.host.job_processes = np;
        h->s.host.job_rss_mib = rss;
        tick(h, t);
        if (t < 600)
            assert_int_equal(h->nev, 0);
    }
    const cJSON *w = find(h, "alert", "job_memory_warning");
    assert_non_null(w);
    assert_int_equal(count(h, "alert", "job_memory_warning"), 1);
    /* the baseline with 9 processes is 3100 MiB: above it by more than 2048 from t = 805 */
    assert_true(num(w, "value") > 2048 && num(w, "value") < 2048 + 15 + 10 + 1);
    assert_int_equal(count(h, "alert", "job_memory_critical"), 1); /* linear by 3072 */
    finish(h);
}

static void test_gpu_lost_fires_once_per_gpu(void **state)
{
    (void)state;
    harness *h = new_harness(2);
    only(h, "gpu_lost");
    start(h, 2);
    tick(h, 0);
    h->gpus[1].lost = true;
    for (int t = 1; t < 50; t++)
        tick(h, t);
    assert_int_equal(h->nev, 1);
    const cJSON *a = find(h, "alert", "gpu_lost");
    assert_int_equal(num(a, "gpu"), 1);
    assert_string_equal(str(a, "severity"), "critical");
    assert_string_equal(str(a, "message"), "GPU 1 lost");
    finish(h);
}

static void emit_xid(harness *h, unsigned gpu, int xid)
{
    gw_event ev = gw_event_make(GW_EV_XID, 0);
    ev.xid.gpu = (int)gpu;
    ev.xid.xid = xid;
    gw_events_emit(h->bus, &ev);
}

static void test_xid_fires_counts_and_resolves_after_quiet(void **state)
{
    (void)state;
    harness *h = new_harness(2);
    only(h, "xid");
    gw_alerts_config_find(&h->cfg, "ecc_double_bit")->enabled = true;
    start(h, 2);
    tick(h, 0);
    emit_xid(h, 1, 79);
    assert_int_equal(h->nev, 0); /* judged at the next tick, in the tick thread */
    tick(h, 1);
    assert_int_equal(count(h, "alert", "xid"), 1);
    const cJSON *a = find(h, "alert", "xid");
    assert_int_equal(num(a, "gpu"), 1);
    assert_true(num(a, "value") == 79);
    assert_true(cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(a, "threshold")));
    assert_string_equal(str(a, "message"), "GPU 1 XID 79");
    emit_xid(h, 1, 13);
    tick(h, 100);
    assert_int_equal(count(h, "alert", "xid"), 1); /* still the same episode */
    tick(h, 399);                                  /* 299 s after the last one */
    assert_int_equal(count(h, "alert_resolved", "xid"), 0);
    tick(h, 400);
    assert_int_equal(count(h, "alert_resolved", "xid"), 1);
    const cJSON *r = find(h, "alert_resolved", "xid");
    assert_int_equal(num(r, "events"), 2);
    assert_true(num(r, "duration_s") == 399);
    /* a double-bit ECC event on GPU 0 is its own rule */
    gw_event ev = gw_event_make(GW_EV_ECC_DOUBLE_BIT, 0);
    ev.ecc.gpu = 0;
    gw_events_emit(h->bus, &ev);
    tick(h, 401);
    assert_int_equal(count(h, "alert", "ecc_double_bit"), 1);
    assert_int_equal(num(find(h, "alert", "ecc_double_bit"), "gpu"), 0);
    finish(h);
}

/* The job's GPUs (gw_alerts_set_job_gpus): another job's GPU is not judged (an alert open on it
 * resolves, saying why); with node, it is judged and marked. */
static void test_job_gpus_only(void **state)
{
    (void)state;
    harness *h = new_harness(2);
    only(h, "temp_warning");
    gw_alerts_config_find(&h->cfg, "xid")->enabled = true;
    start(h, 2);
    set_temp(h, 0, 90); /* GPU 0 hot before the job's GPUs are known: judged */
    set_temp(h, 1, 60);
    tick(h, 0);
    assert_int_equal(count(h, "alert", "temp_warning"), 1);
    assert_string_equal(str(find(h, "alert", "temp_warning"), "message"),
                        "GPU 0 temperature 90 C above 80 C");
    unsigned mine = 1;
    gw_alerts_set_job_gpus(h->a, &mine, 1, false); /* its processes showed up on GPU 1 */
    tick(h, 1);
    const cJSON *r = find(h, "alert_resolved", "temp_warning");
    assert_non_null(r);
    assert_int_equal(num(r, "gpu"), 0);
    assert_string_equal(str(r, "message"),
                        "GPU 0 is not this job's: no longer watched (active 1 s)");
    emit_xid(h, 0, 79); /* another job's XID: no alert */
    set_temp(h, 1, 85); /* the job's GPU is judged as before */
    tick(h, 2);
    assert_int_equal(count(h, "alert", "xid"), 0);
    assert_int_equal(count(h, "alert", "temp_warning"), 2);
    assert_int_equal(num(h->ev[h->nev - 1], "gpu"), 1);
    gw_alerts_set_job_gpus(h->a, &mine, 1, true); /* --scope node: judged, marked */
    emit_xid(h, 0, 79);
    tick(h, 3);
    const cJSON *x = find(h, "alert", "xid");
    assert_non_null(x);
    assert_string_equal(str(x, "message"), "GPU 0 (not this job) XID 79");
    assert_string_equal(str(h->ev[h->nev - 2], "message"), /* rules judged in table order */
                        "GPU 0 (not this job) temperature 90 C above 80 C");
    gw_alerts_stats st;
    gw_alerts_get_stats(h->a, &st);
    assert_int_equal(st.fired, 4);
    assert_int_equal(st.active, 3);
    finish(h);
}

static void test_rule_of_ones_own_below(void **state)
{
    (void)state;
    harness *h = new_harness(1);
    only(h, "none");
    gw_alert_rule *r = gw_alerts_config_add(&h->cfg, "gpu_idle");
    r->has_metric = true;
    r->metric = GW_AM_UTIL_GPU;
    r->below = true;
    r->threshold = 10;
    r->clear = 30;
    r->duration_ms = 60000;
    start(h, 1);
    for (int t = 0; t <= 70; t++) {
        gw_set(&h->gpus[0], GW_F_UTIL_GPU_PCT, t < 10 ? 90 : 5);
        tick(h, t);
    }
    assert_int_equal(count(h, "alert", "gpu_idle"), 1);
    assert_true(num(find(h, "alert", "gpu_idle"), "duration_s") == 60);
    gw_set(&h->gpus[0], GW_F_UTIL_GPU_PCT, 20);
    tick(h, 71);
    assert_int_equal(count(h, "alert_resolved", "gpu_idle"), 0);
    gw_set(&h->gpus[0], GW_F_UTIL_GPU_PCT, 30);
    tick(h, 72);
    assert_int_equal(count(h, "alert_resolved", "gpu_idle"), 1);
    assert_string_equal(str(find(h, "alert", "gpu_idle"), "message"),
                        "GPU 0 GPU-Util 5 % below 10 % for 1 min 0 s");
    finish(h);
}

static void test_disabled_rules_and_alerts_off(void **state)
{
    (void)state;
    harness *h = new_harness(1);
    h->cfg.enabled = false;
    start(h, 1);
    for (int t = 0; t < 400; t++) {
        set_temp(h, 0, 99);
        set_mem_pct(h, 0, 99);
        h->gpus[0].lost = t > 100;
        tick(h, t);
    }
    assert_int_equal(h->nev, 0);
    finish(h);
}

static void test_clear_duration_holds_resolution(void **state)
{
    (void)state;
    harness *h = new_harness(1);
    only(h, "temp_warning");
    gw_alerts_config_find(&h->cfg, "temp_warning")->clear_duration_ms = 10000;
    start(h, 1);
    double temps[] = {85, 70, 70, 85, 70}; /* at 0, 1, 5, 8, 9 */
    double at[] = {0, 1, 5, 8, 9};
    for (int i = 0; i < 5; i++) {
        set_temp(h, 0, temps[i]);
        tick(h, at[i]);
    }
    tick(h, 18.9);
    assert_int_equal(count(h, "alert_resolved", "temp_warning"), 0);
    tick(h, 19);
    assert_int_equal(count(h, "alert_resolved", "temp_warning"), 1);
    assert_int_equal(count(h, "alert", "temp_warning"), 1);
    finish(h);
}

static void test_trend_window(void **state)
{
    (void)state;
    gw_trend w;
    gw_trend_reset(&w, 20 * S_NS);
    for (int t = 0; t <= 600; t++) /* 60 s at 10 Hz: flat, then 5 per second from 30 s */
        gw_trend_push(&w, t * S_NS / 10, t < 300 ? 100 : 100 + (t - 300) * 0.5);
    /* the last 20 s (200 ticks) are kept as at most GW_TREND_POINTS, all on the ramp */
    assert_true(w.n <= GW_TREND_POINTS);
    assert_true(w.n > 150);
    assert_true(fabs(gw_trend_rise(&w) - 100) < 1e-9);
    double slope, r2;
    assert_true(gw_trend_fit(&w, &slope, &r2));
    assert_true(fabs(slope - 5.0) < 1e-6); /* 0.5 per 0.1 s */
    assert_true(r2 > 0.999);
    /* a 10-minute window fed every second still spans 10 minutes in at most 256 points */
    gw_trend_reset(&w, 600 * S_NS);
    for (int t = 0; t <= 1200; t++)
        gw_trend_push(&w, t * S_NS, t);
    assert_true(w.n <= GW_TREND_POINTS);
    assert_true(gw_trend_rise(&w) >= 597 && gw_trend_rise(&w) <= 600);
    gw_trend_reset(&w, 60 * S_NS);
    for (int t = 0; t < 20; t++)
        gw_trend_push(&w, t * S_NS, 42);
    assert_false(gw_trend_fit(&w, &slope, &r2)); /* no spread in value */
    assert_true(gw_trend_rise(&w) == 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_touching_the_threshold_does_not_fire),
        cmocka_unit_test(test_warning_fires_and_resolves_once_with_hysteresis),
        cmocka_unit_test(test_critical_needs_three_minutes),
        cmocka_unit_test(test_absent_value_restarts_a_pending_rule),
        cmocka_unit_test(test_memory_levels_are_the_reports),
        cmocka_unit_test(test_rising_rule_needs_a_rise),
        cmocka_unit_test(test_job_memory_linear_growth),
        cmocka_unit_test(test_job_memory_step_is_only_a_warning),
        cmocka_unit_test(test_slow_sample),
        cmocka_unit_test(test_slow_sample_start_up_is_no_alert),
        cmocka_unit_test(test_job_memory_workers_are_no_growth),
        cmocka_unit_test(test_gpu_lost_fires_once_per_gpu),
        cmocka_unit_test(test_xid_fires_counts_and_resolves_after_quiet),
        cmocka_unit_test(test_job_gpus_only),
        cmocka_unit_test(test_rule_of_ones_own_below),
        cmocka_unit_test(test_disabled_rules_and_alerts_off),
        cmocka_unit_test(test_clear_duration_holds_resolution),
        cmocka_unit_test(test_trend_window),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
