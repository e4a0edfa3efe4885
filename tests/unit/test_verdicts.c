/* Every verdict on synthetic series: series that pass a threshold fire, series that only touch
 * it do not. Series are sampled every second, so a row weighs 1 s. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "synth.h"

/* 10 s start-up at 0 %, then n - 10 rows at util 100 %, 600 W, 10000 MiB. */
static gw_series *busy_run(size_t ngpu, size_t n)
{
    gw_series *s = synth_new(ngpu, n);
    for (size_t i = 0; i < ngpu; i++) {
        synth_set(s, i, GW_F_UTIL_GPU_PCT, 0, 10, 0);
        synth_set(s, i, GW_F_UTIL_GPU_PCT, 10, n, 100);
        synth_set(s, i, GW_F_POWER_DRAW_W, 0, n, 600);
        synth_set(s, i, GW_F_MEM_USED_MIB, 0, n, 10000);
        synth_set(s, i, GW_F_TEMP_GPU_C, 0, n, 60);
    }
    return s;
}

/* Alternates util a, b on rows [from, to). */
static void alternate(gw_series *s, size_t gpu, size_t from, size_t to, double a, double b)
{
    double *u = gw_series_gpu_writable(s->gpus[gpu], GW_F_UTIL_GPU_PCT);
    for (size_t r = from; r < to; r++)
        u[r] = (r - from) % 2 ? b : a;
}

static void expect_only(const gw_analysis *a, gw_verdict_id id)
{
    for (size_t i = 0; i < a->verdicts.n; i++)
        if (a->verdicts.v[i].id != id)
            fail_msg("unexpected verdict %s: %s", gw_verdict_name(a->verdicts.v[i].id),
                     a->verdicts.v[i].message);
    assert_non_null(synth_verdict(a, id, -1));
}

static void test_saturated(void **state)
{
    (void)state;
    gw_series *s = busy_run(1, 130);
    gw_analysis *a = synth_analyze(s);
    expect_only(a, GW_V_GPU_SATURATED);
    const gw_verdict *v = synth_verdict(a, GW_V_GPU_SATURATED, 0);
    assert_int_equal(v->severity, GW_SEV_INFO);
    assert_float_equal(synth_evidence(v, "busy_pct"), 100, 1e-9);
    assert_int_equal(v->start_ms, SYNTH_T0_MS + 10000);
    gw_analysis_free(a);
    gw_series_free(s);
}

static void same_text(const char *x, const char *y)
{
    assert_true((x == NULL) == (y == NULL));
    if (x)
        assert_string_equal(x, y);
}

/* A record big enough (5 GPUs x 120,000 rows) for each GPU's basics, figures and checks to run
 * on two threads (GPUs 0-2 on one, 3-4 on the other), a per-GPU check's verdict on each GPU
 * and gpu_saturated (a job check run per GPU) on both threads: the verdicts, in their order,
 * with every message, suggestion, cause and evidence, are those of one thread. */
static void test_big_record_checks_on_two_threads(void **state)
{
    (void)state;
    enum { N = 120000 };
    gw_series *s = busy_run(5, N);
    alternate(s, 0, 10, N, 95, 20); /* busy 57.5 %: starved */
    for (size_t g = 1; g < 5; g += 3)
        synth_set(s, g, GW_F_CLOCKS_EVENT_REASONS, 0, N, 0);
    synth_set(s, 1, GW_F_CLOCKS_EVENT_REASONS, 10, 20000, 0x40); /* thermal slowdown */
    synth_set(s, 3, GW_F_MEM_USED_MIB, 60, 70, 79000);           /* 98.75 % of 80000 MiB */
    synth_set(s, 4, GW_F_CLOCKS_EVENT_REASONS, 10, 50000, 0x4);  /* power cap */
    gw_analysis_threads = 1;
    gw_analysis *one = synth_analyze(s);
    gw_analysis_threads = 2;
    gw_analysis *two = synth_analyze(s);
    assert_non_null(synth_verdict(one, GW_V_GPU_STARVED, 0));
    assert_non_null(synth_verdict(one, GW_V_THERMAL_THROTTLING, 1));
    assert_non_null(synth_verdict(one, GW_V_GPU_SATURATED, 2));
    assert_non_null(synth_verdict(one, GW_V_MEMORY_NEAR_CAPACITY, 3));
    assert_non_null(synth_verdict(one, GW_V_POWER_CAPPED, 4));
    assert_non_null(synth_verdict(one, GW_V_GPU_SATURATED, 4));
    assert_int_equal(one->verdicts.n, two->verdicts.n);
    for (size_t i = 0; i < one->verdicts.n; i++) {
        const gw_verdict *x = &one->verdicts.v[i], *y = &two->verdicts.v[i];
        assert_int_equal(x->id, y->id);
        assert_int_equal(x->gpu, y->gpu);
        assert_int_equal(x->severity, y->severity);
        assert_int_equal(x->start_ms, y->start_ms);
        assert_int_equal(x->end_ms, y->end_ms);
        same_text(x->message, y->message);
        same_text(x->suggestion, y->suggestion);
        same_text(x->cause, y->cause);
        assert_int_equal(x->nevidence, y->nevidence);
        for (size_t e = 0; e < x->nevidence; e++) {
            const gw_evidence *ex = &x->evidence[e], *ey = &y->evidence[e];
            assert_string_equal(ex->key, ey->key);
            assert_true((isnan(ex->value) && isnan(ey->value)) || ex->value == ey->value);
            same_text(ex->text, ey->text);
            assert_int_equal(ex->threshold, ey->threshold);
            same_text(ex->op, ey->op);
        }
    }
    for (size_t g = 0; g < 5; g++) {
        assert_true(one->gpus[g].busy_pct == two->gpus[g].busy_pct);
        assert_int_equal(one->gpus[g].ndips, two->gpus[g].ndips);
    }
    gw_analysis_free(one);
    gw_analysis_free(two);
    gw_series_free(s);
}

/* A record big enough (3 GPUs x 200,000 rows) for the figures to be computed on two threads
 * (analysis.c each_gpu): every GPU's whole-record and steady-state statistics equal those
 * computed here directly, whichever thread did them. */
static void test_big_record_figures_on_two_threads(void **state)
{
    (void)state;
    enum { N = 200000 };
    gw_series *s = busy_run(3, N);
    for (size_t g = 0; g < 3; g++) {
        double *u = gw_series_gpu_writable(s->gpus[g], GW_F_UTIL_GPU_PCT);
        for (size_t r = 10; r < N; r++)
            u[r] = (double)(80 + (r * 5 + g * 3) % 21); /* 80-100, a different order per GPU */
    }
    gw_analysis *a = synth_analyze(s);
    double *scratch = malloc(N * sizeof *scratch);
    for (size_t g = 0; g < 3; g++) {
        const gw_gpu_analysis *ga = &a->gpus[g];
        int c = s->gpus[g]->col_of[GW_F_UTIL_GPU_PCT];
        assert_true(c >= 0);
        const double *u = gw_series_col_values(&s->gpus[g]->tab, (size_t)c);
        gw_stats want;
        gw_stats_summary(u, ga->dt_s, N, scratch, &want);
        const gw_stats *got = &ga->whole.stats[c];
        assert_int_equal(got->n, N);
        assert_float_equal(got->mean, want.mean, 0);
        assert_float_equal(got->p5, want.p5, 0);
        assert_float_equal(got->p50, want.p50, 0);
        assert_float_equal(got->p95, want.p95, 0);
        assert_float_equal(got->min, 0, 0);
        assert_float_equal(got->max, 100, 0);
        gw_span st = ga->phase[GW_PHASE_STEADY].span;
        assert_true(st.end > st.begin);
        gw_stats_summary(u + st.begin, ga->dt_s + st.begin, st.end - st.begin, scratch, &want);
        got = &ga->phase[GW_PHASE_STEADY].stats[c];
        assert_true(got->p5 == want.p5 && got->p50 == want.p50 && got->p95 == want.p95);
        assert_float_equal(got->p50, 90, 0);
    }
    free(scratch);
    gw_analysis_free(a);
    gw_series_free(s);
}

static void test_starved_thresholds(void **state)
{
    (void)state;
    struct {
        double lo, hi;
        int starved; /* -1 none, else the severity */
    } cases[] = {
        {60, 100, -1},             /* mean exactly 80: busy, not starved */
        {59, 100, GW_SEV_WARNING}, /* 79.5 */
        {5, 95, GW_SEV_WARNING},   /* 50 exactly: warning, not critical */
        {5, 93, GW_SEV_CRITICAL},  /* 49 */
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        gw_series *s = busy_run(1, 130);
        alternate(s, 0, 10, 130, cases[k].hi, cases[k].lo); /* 60 rows of each */
        gw_analysis *a = synth_analyze(s);
        const gw_verdict *v = synth_verdict(a, GW_V_GPU_STARVED, 0);
        if (cases[k].starved < 0) {
            if (v)
                fail_msg("case %zu: starved at %.2f%%", k, a->gpus[0].busy_pct);
            assert_non_null(synth_verdict(a, GW_V_GPU_SATURATED, 0));
        } else {
            if (!v)
                fail_msg("case %zu: not starved at %.2f%%", k, a->gpus[0].busy_pct);
            assert_int_equal(v->severity, cases[k].starved);
            assert_null(synth_verdict(a, GW_V_GPU_SATURATED, 0));
            assert_string_equal(v->cause, "unknown");
        }
        gw_analysis_free(a);
        gw_series_free(s);
    }
}

static void add_host(gw_series *s, double procs, double job_cpu, double host_cpu)
{
    gw_series_host *h = gw_series_add_host(s, 0, "node1");
    for (size_t r = 0; r < s->gpus[0]->tab.n; r++) {
        size_t row = gw_series_table_add_row(&h->tab, s->gpus[0]->tab.t_ms[r]);
        gw_series_table_writable(&h->tab, "job.processes", -1)[row] = procs;
        gw_series_table_writable(&h->tab, "job.cpu [%]", -1)[row] = job_cpu;
        gw_series_table_writable(&h->tab, "cpu.util [%]", -1)[row] = host_cpu;
    }
}

static void test_starved_causes(void **state)
{
    (void)state;
    struct {
        double procs, job_cpu, host_cpu;
        const char *cause;
    } cases[] = {
        {3, 190, 30, "input_pipeline"}, /* 2 workers at 95 % */
        {3, 120, 30, "unknown"},        /* 60 % per worker: exactly the threshold */
        {3, 40, 95, "input_pipeline"},  /* host CPUs saturated */
        {1, 99, 20, "cpu_bound"},       /* one busy process, no workers */
        {1, 80, 20, "unknown"},         /* exactly main_busy_pct */
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        gw_series *s = busy_run(1, 130);
        alternate(s, 0, 10, 129, 100, 0);
        add_host(s, cases[k].procs, cases[k].job_cpu, cases[k].host_cpu);
        gw_analysis *a = synth_analyze(s);
        const gw_verdict *v = synth_verdict(a, GW_V_GPU_STARVED, 0);
        assert_non_null(v);
        if (strcmp(v->cause, cases[k].cause) != 0)
            fail_msg("case %zu: cause %s, want %s", k, v->cause, cases[k].cause);
        assert_float_equal(synth_evidence(v, "dataloader_workers"), cases[k].procs - 1, 0);
        gw_analysis_free(a);
        gw_series_free(s);
    }
}

static void test_underfilled_gpm(void **state)
{
    (void)state;
    double sm[] = {10, 25};
    for (int k = 0; k < 2; k++) {
        gw_series *s = busy_run(1, 130);
        synth_set(s, 0, GW_F_GPM_SM_ACTIVE_PCT, 0, 130, sm[k]);
        gw_analysis *a = synth_analyze(s);
        const gw_verdict *v = synth_verdict(a, GW_V_UNDERFILLED_KERNELS, 0);
        if (k == 0) {
            assert_non_null(v);
            assert_float_equal(synth_evidence(v, "sm_active_p50_pct"), 10, 0);
            assert_null(synth_verdict(a, GW_V_GPU_SATURATED, 0));
        } else {
            assert_null(v); /* exactly underfill_sm_active_pct */
            assert_non_null(synth_verdict(a, GW_V_GPU_SATURATED, 0));
        }
        gw_analysis_free(a);
        gw_series_free(s);
    }
}

static void test_underfilled_power(void **state)
{
    (void)state;
    double watts[] = {120, 210}; /* the H200 one-block case; exactly 0.30 of 700 W */
    for (int k = 0; k < 2; k++) {
        gw_series *s = busy_run(1, 130);
        synth_set(s, 0, GW_F_POWER_DRAW_W, 0, 130, watts[k]);
        gw_analysis *a = synth_analyze(s);
        const gw_verdict *v = synth_verdict(a, GW_V_UNDERFILLED_KERNELS, 0);
        if (k == 0) {
            assert_non_null(v);
            assert_float_equal(synth_evidence(v, "power_ratio"), 120.0 / 700, 1e-9);
        } else {
            assert_null(v);
        }
        gw_analysis_free(a);
        gw_series_free(s);
    }
}

/* memory.used = base + slope * (row - 10) on the steady rows. */
static gw_analysis *leak_run(gw_series **out, size_t n, double base, double slope)
{
    gw_series *s = busy_run(1, n);
    double *m = gw_series_gpu_writable(s->gpus[0], GW_F_MEM_USED_MIB);
    for (size_t r = 10; r < n; r++)
        m[r] = base + slope * (double)(r - 10);
    *out = s;
    return synth_analyze(s);
}

static void test_memory_leak(void **state)
{
    (void)state;
    gw_series *s;
    gw_analysis *a = leak_run(&s, 210, 1000, 100); /* 100 MiB/s */
    const gw_verdict *v = synth_verdict(a, GW_V_MEMORY_LEAK, 0);
    assert_non_null(v);
    assert_int_equal(v->severity, GW_SEV_CRITICAL);
    assert_float_equal(synth_evidence(v, "slope_mib_per_s"), 100, 1e-6);
    assert_float_equal(synth_evidence(v, "r2"), 1, 1e-9);
    /* last value 1000 + 100 * 199 = 20900 MiB of 80000: 591 s left */
    assert_float_equal(synth_evidence(v, "time_to_oom_s"), 591, 1e-6);
    assert_null(synth_verdict(a, GW_V_GPU_SATURATED, 0));
    gw_analysis_free(a);
    gw_series_free(s);

    a = leak_run(&s, 3010, 1000, 1); /* slow: 1 MiB/s, 21 h to OOM: warning */
    v = synth_verdict(a, GW_V_MEMORY_LEAK, 0);
    assert_non_null(v);
    assert_int_equal(v->severity, GW_SEV_WARNING);
    gw_analysis_free(a);
    gw_series_free(s);

    a = leak_run(&s, 210, 1000, 5.6); /* grows ~1003 MiB over the fitted window: not enough */
    assert_null(synth_verdict(a, GW_V_MEMORY_LEAK, 0));
    gw_analysis_free(a);
    gw_series_free(s);
}

static void test_warmup_plateau_is_no_leak(void **state)
{
    (void)state;
    gw_series *s = busy_run(1, 210);
    double *m = gw_series_gpu_writable(s->gpus[0], GW_F_MEM_USED_MIB);
    for (size_t r = 10; r < 210; r++) /* grows for 80 s, then flat: an allocator warming up */
        m[r] = r < 90 ? 1000 + 200.0 * (double)(r - 10) : 17000 + (r % 3);
    gw_analysis *a = synth_analyze(s);
    assert_null(synth_verdict(a, GW_V_MEMORY_LEAK, 0));
    gw_analysis_free(a);
    gw_series_free(s);
}

static void test_memory_capacity(void **state)
{
    (void)state;
    struct {
        double peak_mib;
        int sev;
    } cases[] = {{73600, -1},
                 {74000, GW_SEV_WARNING},
                 {78400, GW_SEV_WARNING},
                 {79000, GW_SEV_CRITICAL}}; /* 92 %, 92.5 %, 98 %, 98.75 % of 80000 */
    for (size_t k = 0; k < 4; k++) {
        gw_series *s = busy_run(1, 130);
        synth_set(s, 0, GW_F_MEM_USED_MIB, 60, 70, cases[k].peak_mib);
        gw_analysis *a = synth_analyze(s);
        const gw_verdict *v = synth_verdict(a, GW_V_MEMORY_NEAR_CAPACITY, 0);
        if (cases[k].sev < 0) {
            assert_null(v);
        } else {
            assert_non_null(v);
            assert_int_equal(v->severity, cases[k].sev);
            assert_float_equal(synth_evidence(v, "peak_pct"), cases[k].peak_mib / 800, 1e-9);
            assert_int_equal(v->start_ms, SYNTH_T0_MS + 60000);
            assert_int_equal(v->end_ms, SYNTH_T0_MS + 70000);
        }
        gw_analysis_free(a);
        gw_series_free(s);
    }
}

/* 110 s of steady state; rows [10, 10 + k) get the mask or the temperature. */
static void test_thermal(void **state)
{
    (void)state;
    struct {
        size_t rows;
        int sev;
    } cases[] = {{5, -1}, {6, GW_SEV_WARNING}, {55, GW_SEV_WARNING}, {56, GW_SEV_CRITICAL}};
    for (size_t k = 0; k < 4; k++) {
        gw_series *s = busy_run(1, 120); /* steady: 110 rows; 5 % = 5.5 rows */
        synth_set(s, 0, GW_F_CLOCKS_EVENT_REASONS, 0, 120, 0);
        synth_set(s, 0, GW_F_CLOCKS_EVENT_REASONS, 10, 10 + cases[k].rows, 0x40);
        gw_analysis *a = synth_analyze(s);
        const gw_verdict *v = synth_verdict(a, GW_V_THERMAL_THROTTLING, 0);
        if (cases[k].sev < 0) {
            assert_null(v);
        } else {
            assert_non_null(v);
            assert_int_equal(v->severity, cases[k].sev);
            assert_float_equal(synth_evidence(v, "thermal_share_pct"),
                               100.0 * (double)cases[k].rows / 110, 1e-9);
        }
        gw_analysis_free(a);
        gw_series_free(s);
    }
    /* without the reasons column: temperature at the slowdown threshold counts */
    gw_series *s = busy_run(1, 120);
    s->gpus[0]->slowdown_temp_c = 89;
    synth_set(s, 0, GW_F_TEMP_GPU_C, 10, 30, 89);
    gw_analysis *a = synth_analyze(s);
    assert_non_null(synth_verdict(a, GW_V_THERMAL_THROTTLING, 0));
    gw_analysis_free(a);
    gw_series_free(s);
}

static void test_running_hot(void **state)
{
    (void)state;
    size_t rows[] = {180, 181};
    for (int k = 0; k < 2; k++) {
        gw_series *s = busy_run(1, 300);
        synth_set(s, 0, GW_F_TEMP_GPU_C, 20, 20 + rows[k], 85);
        gw_analysis *a = synth_analyze(s);
        const gw_verdict *v = synth_verdict(a, GW_V_THERMAL_THROTTLING, 0);
        if (k == 0) {
            assert_null(v);
        } else {
            assert_non_null(v);
            assert_int_equal(v->severity, GW_SEV_INFO);
            assert_non_null(synth_verdict(a, GW_V_GPU_SATURATED, 0)); /* info does not block */
        }
        gw_analysis_free(a);
        gw_series_free(s);
    }
}

static void test_power_capped(void **state)
{
    (void)state;
    struct {
        size_t cap_rows, brake_rows;
        int sev;
    } cases[] = {{22, 0, -1}, {23, 0, GW_SEV_INFO}, {0, 1, -1}, {0, 2, GW_SEV_WARNING}};
    for (size_t k = 0; k < 4; k++) {
        gw_series *s = busy_run(1, 120); /* 110 steady rows: 20 % = 22 rows, 1 % = 1.1 */
        synth_set(s, 0, GW_F_CLOCKS_EVENT_REASONS, 0, 120, 0);
        synth_set(s, 0, GW_F_CLOCKS_EVENT_REASONS, 10, 10 + cases[k].cap_rows, 0x4);
        synth_set(s, 0, GW_F_CLOCKS_EVENT_REASONS, 50, 50 + cases[k].brake_rows, 0x80);
        gw_analysis *a = synth_analyze(s);
        const gw_verdict *v = synth_verdict(a, GW_V_POWER_CAPPED, 0);
        if (cases[k].sev < 0) {
            if (v)
                fail_msg("case %zu fired: %s", k, v->message);
        } else {
            assert_non_null(v);
            assert_int_equal(v->severity, cases[k].sev);
        }
        gw_analysis_free(a);
        gw_series_free(s);
    }
}

static void test_idle_holding_memory(void **state)
{
    (void)state;
    struct {
        size_t idle_rows;
        double mib;
        bool fires;
    } cases[] = {{60, 2000, false}, {61, 2000, true}, {300, 1000, false}, {300, 1024, true}};
    for (size_t k = 0; k < 4; k++) {
        size_t n = 10 + 20 + cases[k].idle_rows + 20;
        gw_series *s = busy_run(1, n);
        synth_set(s, 0, GW_F_UTIL_GPU_PCT, 30, 30 + cases[k].idle_rows, 0);
        synth_set(s, 0, GW_F_MEM_USED_MIB, 0, n, cases[k].mib);
        synth_set(s, 0, GW_F_MEM_USED_MIB, 0, 10, 0); /* nothing held during start-up */
        gw_analysis *a = synth_analyze(s);
        const gw_verdict *v = synth_verdict(a, GW_V_IDLE_HOLDING_MEMORY, 0);
        if (!cases[k].fires) {
            assert_null(v);
        } else {
            assert_non_null(v);
            assert_float_equal(synth_evidence(v, "idle_s"), (double)cases[k].idle_rows, 1e-9);
            assert_float_equal(synth_evidence(v, "memory_held_mib"), cases[k].mib, 0);
        }
        gw_analysis_free(a);
        gw_series_free(s);
    }
}

static void test_imbalance(void **state)
{
    (void)state;
    double slow[] = {60, 80}; /* gap 35 fires; gap exactly 15 does not */
    for (int k = 0; k < 2; k++) {
        gw_series *s = busy_run(2, 130);
        synth_set(s, 0, GW_F_UTIL_GPU_PCT, 10, 130, 95);
        synth_set(s, 1, GW_F_UTIL_GPU_PCT, 10, 130, slow[k]);
        gw_analysis *a = synth_analyze(s);
        const gw_verdict *v = synth_verdict(a, GW_V_MULTI_GPU_IMBALANCE, -1);
        if (k == 0) {
            assert_non_null(v);
            assert_int_equal(v->gpu, 1);
            assert_float_equal(synth_evidence(v, "gap_pct"), 35, 1e-9);
            assert_float_equal(synth_evidence(v, "windows_below_pct"), 100, 1e-9);
            assert_null(synth_verdict(a, GW_V_MULTI_GPU_IMBALANCE, 0));
        } else {
            assert_null(v);
        }
        gw_analysis_free(a);
        gw_series_free(s);
    }
}

static void test_gpu_lost(void **state)
{
    (void)state;
    gw_series *s = busy_run(2, 130);
    gw_series_event *e = gw_series_add_event(s, 0, SYNTH_T0_MS + 100000, "gpu_lost", "Xid 79");
    e->gpu_index = 1;
    gw_analysis *a = synth_analyze(s);
    const gw_verdict *v = synth_verdict(a, GW_V_GPU_LOST, -1);
    assert_non_null(v);
    assert_int_equal(v->gpu, 1);
    assert_int_equal(v->severity, GW_SEV_CRITICAL);
    assert_int_equal(v->start_ms, SYNTH_T0_MS + 100000);
    assert_int_equal(a->verdicts.v[0].id, GW_V_GPU_LOST); /* critical sorts first */
    assert_null(synth_verdict(a, GW_V_GPU_SATURATED, 1));
    gw_analysis_free(a);
    gw_series_free(s);
}

/* Five epochs of `period` s, each ending with `dip` s at 0 %, marked by epoch events. */
static gw_analysis *epoch_run(gw_series **out, size_t dip, size_t shift, bool events)
{
    const size_t period = 20, n = 10 + 5 * period + 5;
    gw_series *s = busy_run(1, n);
    for (size_t k = 0; k < 5; k++)
        synth_set(s, 0, GW_F_UTIL_GPU_PCT, 10 + (k + 1) * period - dip - shift,
                  10 + (k + 1) * period - shift, 0);
    if (events) {
        size_t in = gw_series_add_input(s, "run/events.jsonl", "node1", GW_INPUT_RUN_DIR);
        for (size_t k = 0; k < 5; k++) {
            gw_series_event *e = gw_series_add_event(
                s, in, SYNTH_T0_MS + (int64_t)(10 + k * period) * 1000, "epoch", "Epoch");
            e->epoch = (long)k + 1;
        }
    }
    *out = s;
    return synth_analyze(s);
}

static void test_expected_dips(void **state)
{
    (void)state;
    gw_series *s;
    gw_analysis *a = epoch_run(&s, 3, 0, true);
    assert_int_equal(a->epoch_origin, GW_EPOCHS_EVENTS);
    assert_int_equal(a->nepochs, 5);
    const gw_verdict *v = synth_verdict(a, GW_V_EXPECTED_DIPS, 0);
    assert_non_null(v);
    assert_int_equal(v->severity, GW_SEV_INFO);
    assert_float_equal(synth_evidence(v, "dips"), 4, 0); /* the fifth dip is the tail */
    assert_non_null(synth_verdict(a, GW_V_GPU_SATURATED, 0));
    assert_null(synth_verdict(a, GW_V_GPU_STARVED, 0));
    gw_analysis_free(a);
    gw_series_free(s);

    a = epoch_run(&s, 3, 0, false); /* no epochs: regular dips alone are no validation */
    assert_int_equal(a->epoch_origin, GW_EPOCHS_NONE);
    assert_null(synth_verdict(a, GW_V_EXPECTED_DIPS, 0));
    gw_analysis_free(a);
    gw_series_free(s);

    a = epoch_run(&s, 9, 0, true); /* 34 % of the steady state: expected, but a warning */
    v = synth_verdict(a, GW_V_EXPECTED_DIPS, 0);
    assert_non_null(v);
    assert_int_equal(v->severity, GW_SEV_WARNING);
    assert_null(synth_verdict(a, GW_V_GPU_STARVED, 0));
    assert_null(synth_verdict(a, GW_V_GPU_SATURATED, 0));
    gw_analysis_free(a);
    gw_series_free(s);

    a = epoch_run(&s, 9, 6, true); /* the same dips in mid-epoch: not expected, starved */
    assert_null(synth_verdict(a, GW_V_EXPECTED_DIPS, 0));
    v = synth_verdict(a, GW_V_GPU_STARVED, 0);
    assert_non_null(v);
    assert_int_equal(v->severity, GW_SEV_WARNING);
    gw_analysis_free(a);
    gw_series_free(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_saturated),
        cmocka_unit_test(test_big_record_figures_on_two_threads),
        cmocka_unit_test(test_big_record_checks_on_two_threads),
        cmocka_unit_test(test_starved_thresholds),
        cmocka_unit_test(test_starved_causes),
        cmocka_unit_test(test_underfilled_gpm),
        cmocka_unit_test(test_underfilled_power),
        cmocka_unit_test(test_memory_leak),
        cmocka_unit_test(test_warmup_plateau_is_no_leak),
        cmocka_unit_test(test_memory_capacity),
        cmocka_unit_test(test_thermal),
        cmocka_unit_test(test_running_hot),
        cmocka_unit_test(test_power_capped),
        cmocka_unit_test(test_idle_holding_memory),
        cmocka_unit_test(test_imbalance),
        cmocka_unit_test(test_gpu_lost),
        cmocka_unit_test(test_expected_dips),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
