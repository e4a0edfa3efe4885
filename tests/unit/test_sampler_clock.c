/* Unit tests of the sampler's schedule and of the time spans of its slow values, on a virtual
 * clock (gw_vclock_start) that also drives the fake NVML's timeline (fakeNvmlSetTime): every tick
 * time and every GPM window is exact, however loaded the machine is. */
#include "fake_nvml_test.h"
#include "test_helpers.h"

#include "sampler/sampler.h"
#include "util/gw_time.h"

#include <math.h>

#define MS    INT64_C(1000000)
#define V0    (INT64_C(1000) * 1000 * MS) /* the virtual clock's start: 1000 s */
#define WALL0 INT64_C(1796000000000)      /* unix ms at V0 */

/* One H200 that is idle (SM activity 0.3 %), busy from 2.1 s to 4.1 s (84.7 %), idle again. */
static const char STEP[] =
    "{'devices': [{'power_limit_w': 700, 'timeline': ["
    " {'t': 0, 'util_gpu': 0, 'util_mem': 1, 'mem_used_mib': 600, 'power_w': 76, 'sm_active': 0.3},"
    " {'t': 2.1, 'util_gpu': 0, 'util_mem': 1, 'mem_used_mib': 600, 'power_w': 76, 'sm_active': "
    "0.3},"
    " {'t': 2.1, 'util_gpu': 100, 'util_mem': 1, 'mem_used_mib': 20600, 'power_w': 600, "
    "'sm_active': 84.7},"
    " {'t': 4.1, 'util_gpu': 100, 'util_mem': 1, 'mem_used_mib': 20600, 'power_w': 600, "
    "'sm_active': 84.7},"
    " {'t': 4.1, 'util_gpu': 0, 'util_mem': 1, 'mem_used_mib': 600, 'power_w': 76, 'sm_active': "
    "0.3}]}]}";

enum { MAX_TICKS = 128 };

/* What the sink saw, tick by tick. */
typedef struct seen {
    unsigned n;
    int64_t mono[MAX_TICKS], wall[MAX_TICKS];
    double util[MAX_TICKS], sm[MAX_TICKS], gr[MAX_TICKS]; /* NAN when absent */
    gw_time_span gpm[MAX_TICKS], gpm_gr[MAX_TICKS], energy[MAX_TICKS], limit[MAX_TICKS];
    unsigned procs_fresh; /* ticks that brought a new process list */
    int64_t busy_seq;     /* the tick whose sink takes busy_ns (-1: none) */
    int64_t busy_ns;
} seen;

static void on_sample(void *ctx, const gw_sample *smp)
{
    seen *s = ctx;
    if (s->n == MAX_TICKS)
        return;
    const gw_gpu_sample *g = &smp->gpus[0];
    unsigned k = s->n++;
    s->mono[k] = smp->mono_ns;
    s->wall[k] = smp->wall_ms;
    s->util[k] = gw_has(g, GW_F_UTIL_GPU_PCT) ? g->v[GW_F_UTIL_GPU_PCT] : NAN;
    s->sm[k] = gw_has(g, GW_F_GPM_SM_ACTIVE_PCT) ? g->v[GW_F_GPM_SM_ACTIVE_PCT] : NAN;
    s->gr[k] = gw_has(g, GW_F_GPM_GR_ACTIVE_PCT) ? g->v[GW_F_GPM_GR_ACTIVE_PCT] : NAN;
    s->gpm[k] = g->gpm;
    s->gpm_gr[k] = g->gpm_gr;
    s->energy[k] = g->energy;
    s->limit[k] = g->power_limit;
    s->procs_fresh += smp->procs_fresh;
    if ((int64_t)smp->seq == s->busy_seq) /* a sink that takes a while: the tick runs late */
        gw_sleep_until_mono_ns(gw_mono_ns() + s->busy_ns);
}

/* The fake's scenario time follows the virtual clock: t = 0 at V0. */
static void follow(int64_t mono_ns, void *ctx)
{
    void (*set_time)(double) = (void (*)(double))ctx;
    set_time((double)(mono_ns - V0) / 1e9);
}

/* The fake's latencies (latency_ms) take virtual time. */
static void virtual_sleep(double ms)
{
    gw_sleep_until_mono_ns(gw_mono_ns() + (int64_t)(ms * 1e6));
}

/* Records until `until_ns` past V0 of virtual time at `interval_ms` into *out (with process
 * lists when `procs`); returns the sampler's stats. */
static gw_sampler_stats record_procs(const char *json, int64_t interval_ms, int64_t until_ns,
                                     bool procs, seen *out)
{
    fake_lib f;
    fake_open_at(&f, json, "0", "0");
    void *set_time = fake_sym(&f, "fakeNvmlSetTime");
    void (*set_sleep)(void (*)(double)) =
        (void (*)(void (*)(double)))fake_sym(&f, "fakeNvmlSetSleep");
    set_sleep(virtual_sleep);
    /* record's fields, and graphics activity as `serve` and `run --listen` read it */
    gw_sampler_config cfg = {.interval_ms = interval_ms,
                             .fields = GW_FIELDS_RECORD | GW_FIELD_BIT(GW_F_GPM_GR_ACTIVE_PCT),
                             .processes = procs};
    gw_sampler *s = NULL;
    gw_error err = {0};
    gw_vclock_start(V0, WALL0, follow, set_time);
    if (gw_sampler_open(f.n, &cfg, NULL, &s, &err))
        fail_msg("%s", err.msg);
    gw_sink sink = {.ctx = out, .on_sample = on_sample};
    gw_sampler_add_sink(s, &sink);
    assert_int_equal(gw_sampler_start(s, &err), GW_OK);
    gw_sleep_until_mono_ns(V0 + until_ns);
    gw_sampler_stop(s);
    gw_sampler_stats st;
    gw_sampler_get_stats(s, &st);
    gw_sampler_close(s);
    gw_vclock_stop();
    set_sleep(NULL);
    fake_close(&f);
    return st;
}

static gw_sampler_stats record(const char *json, int64_t interval_ms, int64_t until_ns, seen *out)
{
    return record_procs(json, interval_ms, until_ns, false, out);
}

/* The STEP scenario's mean over [a, b] seconds of a value that is `busy` from 2.1 to 4.1 s and
 * `idle` before and after. */
static double step_mean(double a, double b, double busy, double idle)
{
    double on = fmax(0, fmin(b, 4.1) - fmax(a, 2.1));
    return (on * busy + (b - a - on) * idle) / (b - a);
}

static void test_ticks_are_on_the_grid(void **state)
{
    (void)state;
    static seen s = {.busy_seq = -1};
    gw_sampler_stats st = record(STEP, 200, 6100 * MS, &s);
    /* ticks at 0, 0.2, ..., 6.0 s exactly: 31 of them, none skipped */
    assert_int_equal(s.n, 31);
    assert_int_equal(st.ticks, 31);
    assert_int_equal(st.ticks_skipped, 0);
    for (unsigned k = 0; k < s.n; k++) {
        assert_true(s.mono[k] == V0 + (int64_t)k * 200 * MS);
        assert_true(s.wall[k] == WALL0 + (int64_t)k * 200);
        assert_num(s.util[k], k * 0.2 >= 2.1 && k * 0.2 < 4.1 ? 100 : 0, 0);
    }
}

static void test_late_tick_skips_and_keeps_the_grid(void **state)
{
    (void)state;
    /* tick 3 (0.3 s) takes 250 ms: the tick due at 0.4 s is skipped, the one due at 0.5 s is
     * taken at once when tick 3 ends (0.55 s), and the next ones are on the grid again */
    static seen s = {.busy_seq = 3, .busy_ns = 250 * MS};
    gw_sampler_stats st = record(STEP, 100, 1050 * MS, &s);
    const int64_t want[] = {0, 100, 200, 300, 550, 600, 700, 800, 900, 1000};
    assert_int_equal(s.n, sizeof want / sizeof want[0]);
    for (unsigned k = 0; k < s.n; k++)
        assert_true(s.mono[k] == V0 + want[k] * MS);
    assert_int_equal(st.ticks_skipped, 1);
}

static void test_slow_reads_never_delay_ticks(void **state)
{
    (void)state;
    /* process-list calls take 400 ms and the energy counter 300 ms of (virtual) time: the first
     * slow pass, in gw_sampler_start, takes over a second before the first tick; the later ones
     * run on the slow thread every second while ticks keep their grid */
    static const char slow[] = "{'devices': [{'latency_ms': {'processes': 400, 'energy': 300},"
                               " 'processes': [{'pid': 1, 'name': 'init', 'used_mib': 10}],"
                               " 'timeline': [{'t': 0, 'util_gpu': 5, 'util_mem': 1, "
                               "'mem_used_mib': 600, 'power_w': 76}]}]}";
    static seen s = {.busy_seq = -1};
    gw_sampler_stats st = record_procs(slow, 100, 6050 * MS, true, &s);
    int64_t first = s.mono[0];
    assert_true(first >= V0 + 1100 * MS);
    assert_int_equal(s.n, (V0 + 6050 * MS - first) / (100 * MS) + 1);
    assert_int_equal(st.ticks_skipped, 0);
    for (unsigned k = 0; k < s.n; k++)
        assert_true(s.mono[k] == first + (int64_t)k * 100 * MS);
    assert_true(s.procs_fresh >= 2); /* the start's list, then the slow thread's */
    /* the energy counter: read once (every 10 s), in the start's pass, during [V0, V0 + 300 ms]
     * (the call's span; the power limit before it has no latency) */
    assert_true(s.energy[s.n - 1].start_ns == V0 && s.energy[s.n - 1].end_ns == V0 + 300 * MS);
}

static void test_energy_reaches_the_row_it_is_read_for(void **state)
{
    (void)state;
    /* the counter takes 4 ms and is read every 10 s, just before the tick due then (lead: twice
     * the last read and 2 ms), so the row at 10 s carries a reading from the interval before it
     * and from no earlier; read with the tick, it reached the next row, 200 ms after the reading,
     * and the report takes a row's counter value as the row's (energy of spans one tick off) */
    static const char json[] = "{'devices': [{'latency_ms': {'energy': 4}, 'timeline': ["
                               "{'t': 0, 'util_gpu': 5, 'util_mem': 1, 'mem_used_mib': 600, "
                               "'power_w': 76}]}]}";
    static seen s = {.busy_seq = -1};
    record(json, 200, 10250 * MS, &s);
    int64_t first = s.mono[0];
    assert_true(first == V0 + 4 * MS); /* after the start's pass */
    assert_int_equal(s.n, 52);
    assert_true(s.mono[50] == first + 10000 * MS);
    assert_true(s.energy[49].start_ns == V0 && s.energy[49].end_ns == V0 + 4 * MS);
    assert_true(s.energy[50].start_ns == s.mono[50] - 10 * MS);
    assert_true(s.energy[50].end_ns == s.mono[50] - 6 * MS);
    assert_true(s.energy[51].start_ns == s.energy[50].start_ns);
}

/* Every row's gpm.* cells are the mean over the window that ends at the row: for interval
 * `ms`, from the newest tick at least 100 ms earlier. */
static void check_gpm_windows(int64_t ms, unsigned lag)
{
    static seen s;
    memset(&s, 0, sizeof s);
    s.busy_seq = -1;
    record(STEP, ms, 6010 * MS, &s);
    assert_int_equal(s.n, 6000 / ms + 1);
    for (unsigned k = 0; k < s.n; k++) {
        double t = (double)(k * ms) / 1000;
        if (k < lag) { /* no sample 100 ms old yet */
            assert_true(isnan(s.sm[k]));
            assert_true(s.gpm[k].start_ns == 0 && s.gpm[k].end_ns == 0);
            continue;
        }
        assert_true(s.gpm[k].end_ns == s.mono[k]);
        assert_true(s.gpm[k].start_ns == s.mono[k - lag]);
        double a = (double)((k - lag) * ms) / 1000;
        assert_num(s.sm[k], step_mean(a, t, 84.7, 0.3), 1e-9);
        /* both edges: a row 0.7 s or more after a step shows the new SM activity (here already
         * every row whose window starts after the step) */
        if (t >= 2.1 + 0.7 && t < 4.1)
            assert_num(s.sm[k], 84.7, 1e-9);
        if (t >= 4.1 + 0.7)
            assert_num(s.sm[k], 0.3, 1e-9);
        if (a >= 2.1 && t <= 4.1)
            assert_num(s.sm[k], 84.7, 1e-9);
        if (a >= 4.1)
            assert_num(s.sm[k], 0.3, 1e-9);
    }
    /* graphics activity (the fake's GPU-Util) over windows of 1 s, held between; the first
     * window as short as the other metrics' (100 ms or more) */
    unsigned per_s = (unsigned)(1000 / ms);
    for (unsigned k = 0; k < s.n; k++) {
        if (k < lag) {
            assert_true(isnan(s.gr[k]) && s.gpm_gr[k].end_ns == 0);
            continue;
        }
        unsigned j = (k - lag) / per_s, end = lag + j * per_s, start = j ? end - per_s : 0;
        assert_true(s.gpm_gr[k].start_ns == s.mono[start] && s.gpm_gr[k].end_ns == s.mono[end]);
        double a = (double)(start * ms) / 1000, b = (double)(end * ms) / 1000;
        assert_num(s.gr[k], step_mean(a, b, 100, 0), 1e-9);
    }
    /* the slow values' spans: read at start (V0) and held; the energy counter and power limit
     * are not read again within 10 s */
    for (unsigned k = 0; k < s.n; k++) {
        assert_true(s.energy[k].start_ns == V0 && s.energy[k].end_ns == V0);
        assert_true(s.limit[k].start_ns == V0 && s.limit[k].end_ns == V0);
    }
}

static void test_gpm_window_ends_at_the_row(void **state)
{
    (void)state;
    check_gpm_windows(200, 1); /* the window is the tick's interval */
    check_gpm_windows(50, 2);  /* GPM needs 100 ms: the last two intervals */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_teardown(test_ticks_are_on_the_grid, fake_teardown),
        cmocka_unit_test_teardown(test_late_tick_skips_and_keeps_the_grid, fake_teardown),
        cmocka_unit_test_teardown(test_slow_reads_never_delay_ticks, fake_teardown),
        cmocka_unit_test_teardown(test_gpm_window_ends_at_the_row, fake_teardown),
        cmocka_unit_test_teardown(test_energy_reaches_the_row_it_is_read_for, fake_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
