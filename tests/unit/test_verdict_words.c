/* Never "nan" in a sentence (issue 14, item 4's rule, its item 3 for the lead): every verdict is
 * made on inputs where what it does not need is absent (no power limit, no memory total, empty
 * cells, no GPM), rendered as the text report and as JSON, and no message, suggestion or report
 * line says nan or inf: a figure that cannot be computed is said in words or left out. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "synth.h"

#include "report/report.h"
#include "util/xalloc.h"

#include <ctype.h>

enum { N = 240 };

/* One GPU of N rows, nothing known about the GPU itself, every seventh cell of util empty. */
static gw_series *bare(size_t ngpu)
{
    gw_series *s = synth_new(ngpu, N);
    for (size_t i = 0; i < ngpu; i++) {
        s->gpus[i]->memory_total_mib = NAN;
        s->gpus[i]->power_limit_w = NAN;
        s->gpus[i]->slowdown_temp_c = NAN;
    }
    return s;
}

static void holes(gw_series *s, size_t gpu, gw_gpu_field f)
{
    for (size_t r = 3; r < N; r += 7)
        synth_set(s, gpu, f, r, r + 1, NAN);
}

static gw_series *saturated(void)
{
    gw_series *s = bare(1);
    synth_set(s, 0, GW_F_UTIL_GPU_PCT, 0, N, 95);
    holes(s, 0, GW_F_UTIL_GPU_PCT);
    return s;
}

static gw_series *starved(void)
{
    gw_series *s = bare(1);
    for (size_t r = 0; r < N; r++)
        synth_set(s, 0, GW_F_UTIL_GPU_PCT, r, r + 1, r % 4 ? 0 : 90);
    holes(s, 0, GW_F_UTIL_GPU_PCT);
    return s;
}

static gw_series *launch_bound(void)
{
    gw_series *s = bare(1);
    synth_set(s, 0, GW_F_UTIL_GPU_PCT, 0, N, 8);
    holes(s, 0, GW_F_UTIL_GPU_PCT);
    return s;
}

static gw_series *underfilled(void)
{
    gw_series *s = bare(1);
    synth_set(s, 0, GW_F_UTIL_GPU_PCT, 0, N, 95);
    synth_set(s, 0, GW_F_GPM_SM_ACTIVE_PCT, 0, N, 10);
    holes(s, 0, GW_F_GPM_SM_ACTIVE_PCT);
    return s;
}

static gw_series *leak(void)
{
    gw_series *s = bare(1); /* memory.total unknown: no time to out-of-memory */
    synth_set(s, 0, GW_F_UTIL_GPU_PCT, 0, N, 95);
    for (size_t r = 0; r < N; r++)
        synth_set(s, 0, GW_F_MEM_USED_MIB, r, r + 1, 1000 + 50.0 * (double)r);
    holes(s, 0, GW_F_MEM_USED_MIB);
    return s;
}

static gw_series *capacity(void)
{
    gw_series *s = bare(1);
    synth_set(s, 0, GW_F_UTIL_GPU_PCT, 0, N, 95);
    synth_set(s, 0, GW_F_MEM_USED_MIB, 0, N, 79000);
    synth_set(s, 0, GW_F_MEM_TOTAL_MIB, 0, N, 80000);
    holes(s, 0, GW_F_MEM_USED_MIB);
    return s;
}

static gw_series *thermal(void)
{
    gw_series *s = bare(1); /* no temperature column, no slowdown threshold */
    synth_set(s, 0, GW_F_UTIL_GPU_PCT, 0, N, 95);
    synth_set(s, 0, GW_F_CLOCKS_EVENT_REASONS, 0, N, 0x20);
    return s;
}

static gw_series *running_hot(void)
{
    gw_series *s = bare(1);
    synth_set(s, 0, GW_F_UTIL_GPU_PCT, 0, N, 95);
    synth_set(s, 0, GW_F_TEMP_GPU_C, 0, N, 86);
    holes(s, 0, GW_F_TEMP_GPU_C);
    return s;
}

static gw_series *power_capped(void)
{
    gw_series *s = bare(1); /* the reasons say "power cap" but no limit was recorded */
    synth_set(s, 0, GW_F_UTIL_GPU_PCT, 0, N, 95);
    synth_set(s, 0, GW_F_CLOCKS_EVENT_REASONS, 0, N, 0x4);
    return s;
}

static gw_series *idle_holding(void)
{
    gw_series *s = bare(1);
    synth_set(s, 0, GW_F_UTIL_GPU_PCT, 0, N, 0);
    synth_set(s, 0, GW_F_MEM_USED_MIB, 0, N, 20000);
    return s;
}

static gw_series *imbalance(void)
{
    gw_series *s = bare(3);
    synth_set(s, 0, GW_F_UTIL_GPU_PCT, 0, N, 95);
    synth_set(s, 1, GW_F_UTIL_GPU_PCT, 0, N, 95);
    synth_set(s, 2, GW_F_UTIL_GPU_PCT, 0, N, 40);
    holes(s, 2, GW_F_UTIL_GPU_PCT);
    return s;
}

static gw_series *lost(void)
{
    gw_series *s = saturated();
    gw_series_event *e = gw_series_add_event(s, 0, SYNTH_T0_MS + 100000, "gpu_lost", "");
    e->gpu_index = 0;
    return s;
}

/* Busy epochs of 40 s whose last 5 s the output showed as validation at 0 %, figures unknown. */
static gw_series *dips(void)
{
    gw_series *s = bare(1);
    synth_set(s, 0, GW_F_UTIL_GPU_PCT, 0, N, 100);
    size_t in = gw_series_add_input(s, "run/output.log", "node1", GW_INPUT_RUN_DIR);
    s->progress = xcalloc(5, sizeof *s->progress);
    for (size_t k = 0; k < 5; k++) {
        int64_t t0 = SYNTH_T0_MS + (int64_t)(10 + k * 40) * 1000;
        synth_set(s, 0, GW_F_UTIL_GPU_PCT, 10 + k * 40 + 35, 10 + k * 40 + 40, 0);
        s->progress[s->nprogress++] = (gw_series_epoch){.input = in,
                                                        .e = {.number = (long)k + 1,
                                                              .total = -1,
                                                              .start_ms = t0,
                                                              .end_ms = t0 + 40000,
                                                              .train_end_ms = t0 + 35000,
                                                              .val_start_ms = t0 + 35000,
                                                              .val_end_ms = t0 + 40000,
                                                              .validation_s = NAN,
                                                              .steps = -1,
                                                              .steps_per_s = NAN}};
    }
    return s;
}

/* A run on node1 whose job exited (code, signal) with no output tail and no memory column;
 * with a stall alert of unknown quiet time. */
static gw_series *job(double code, int signal, bool stall)
{
    gw_series *s = bare(1);
    synth_set(s, 0, GW_F_UTIL_GPU_PCT, 0, N, 0);
    size_t in = gw_series_add_input(s, "run/events.jsonl", "node1", GW_INPUT_RUN_DIR);
    gw_series_add_event(s, in, SYNTH_T0_MS, "job_start", NULL);
    if (stall) {
        gw_series_event *a = gw_series_add_event(s, in, SYNTH_T0_MS + 20000, "alert", NULL);
        gw_series_event_set(&a->rule, "job_stalled");
    }
    gw_series_event *e = gw_series_add_event(s, in, SYNTH_T0_MS + 200000, "job_exit", NULL);
    e->code = code;
    e->signal = signal;
    return s;
}

static gw_series *job_failed(void)
{
    return job(1, 0, false);
}

static gw_series *job_killed(void)
{
    return job(137, 9, true);
}

static gw_series *oom(void)
{
    gw_series *s = job(1, 0, false);
    gw_series_add_tail(s, 0, "node1", "torch.OutOfMemoryError: CUDA out of memory.\n", 1);
    return s;
}

/* A word "nan" or "inf" (any case, with a sign or not) anywhere in text. */
static bool says_nan(const char *text)
{
    for (const char *p = text; *p; p++) {
        if (p > text && isalnum((unsigned char)p[-1]))
            continue;
        if ((strncasecmp(p, "nan", 3) == 0 || strncasecmp(p, "inf", 3) == 0) &&
            !isalnum((unsigned char)p[3]) && !(strncasecmp(p, "inf", 3) == 0 && p[3] == 'o'))
            return true;
    }
    return false;
}

static void test_the_detector(void **state)
{
    (void)state;
    assert_true(says_nan("busy nan%"));
    assert_true(says_nan("(-nan W)"));
    assert_true(says_nan("in about inf s"));
    assert_true(says_nan("NaN"));
    assert_false(says_nan("info  expected_dips"));
    assert_false(says_nan("infinite nanny finance"));
}

typedef struct shape {
    const char *name;
    gw_series *(*make)(void);
    gw_verdict_id id;
} shape;

static const shape shapes[] = {
    {"saturated", saturated, GW_V_GPU_SATURATED},
    {"starved", starved, GW_V_GPU_STARVED},
    {"launch_bound", launch_bound, GW_V_GPU_STARVED},
    {"underfilled", underfilled, GW_V_UNDERFILLED_KERNELS},
    {"leak", leak, GW_V_MEMORY_LEAK},
    {"capacity", capacity, GW_V_MEMORY_NEAR_CAPACITY},
    {"thermal", thermal, GW_V_THERMAL_THROTTLING},
    {"running_hot", running_hot, GW_V_THERMAL_THROTTLING},
    {"power_capped", power_capped, GW_V_POWER_CAPPED},
    {"idle_holding", idle_holding, GW_V_IDLE_HOLDING_MEMORY},
    {"imbalance", imbalance, GW_V_MULTI_GPU_IMBALANCE},
    {"lost", lost, GW_V_GPU_LOST},
    {"dips", dips, GW_V_EXPECTED_DIPS},
    {"job_failed", job_failed, GW_V_JOB_FAILED},
    {"job_killed", job_killed, GW_V_JOB_STALLED},
    {"oom", oom, GW_V_OOM_CRASH},
};

static void test_every_verdict_says_absent_figures_in_words(void **state)
{
    (void)state;
    bool seen[GW_V_COUNT] = {false};
    for (size_t k = 0; k < sizeof shapes / sizeof shapes[0]; k++) {
        gw_series *s = shapes[k].make();
        gw_analysis *a = synth_analyze(s);
        if (!synth_verdict(a, shapes[k].id, -1))
            fail_msg("%s: no %s", shapes[k].name, gw_verdict_name(shapes[k].id));
        for (size_t i = 0; i < a->verdicts.n; i++) {
            const gw_verdict *v = &a->verdicts.v[i];
            seen[v->id] = true;
            if (says_nan(v->message) || says_nan(v->suggestion))
                fail_msg("%s: %s says: %s", shapes[k].name, gw_verdict_name(v->id), v->message);
        }
        char *text = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&text, &len);
        gw_report_opts o = {0};
        gw_report_text(f, a, &o);
        fclose(f);
        if (says_nan(text))
            fail_msg("%s: the text report says nan:\n%s", shapes[k].name, text);
        free(text);
        f = open_memstream(&text, &len); /* the HTML report: its tables, not its script */
        gw_report_html(f, a, NULL);
        fclose(f);
        for (char *sc; (sc = strstr(text, "<script"));) {
            char *end = strstr(sc, "</script>");
            if (!end)
                fail_msg("%s: an unclosed script", shapes[k].name);
            memmove(sc, end + 9, strlen(end + 9) + 1);
        }
        if (says_nan(text))
            fail_msg("%s: the HTML report says nan", shapes[k].name);
        free(text);
        gw_analysis_free(a);
        gw_series_free(s);
    }
    for (int id = 0; id < GW_V_COUNT; id++)
        if (!seen[id])
            fail_msg("no shape makes %s", gw_verdict_name((gw_verdict_id)id));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_the_detector),
        cmocka_unit_test(test_every_verdict_says_absent_figures_in_words),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
