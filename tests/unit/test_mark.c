/* Unit tests for src/mark: fields from KEY=VALUE, the mark event, appending to a run directory,
 * and the series members the reader takes from mark, alert and job_exit lines. */
#include "test_helpers.h"

#include "logread/logread.h"
#include "mark/mark.h"
#include "record/eventlog.h"

#include <math.h>
#include <sys/stat.h>

static void test_fields(void **state)
{
    (void)state;
    gw_event_fields f = {0};
    const char *ok[] = {"n=3",       "lr=1e-3", "name=resnet 50", "ok=true",
                        "bad=false", "x=null",  "empty=",         "eq=a=b",
                        "n=4",       "inf=inf", "hex=0x10"};
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++)
        assert_int_equal(gw_mark_field(&f, ok[i], NULL), GW_OK);
    gw_event ev = gw_mark_event("t", &f, 1, 1);
    cJSON *o = gw_event_to_json(&ev);
    char *text = cJSON_PrintUnformatted(cJSON_GetObjectItemCaseSensitive(o, "fields"));
    cJSON_Delete(o);
    /* a repeated key keeps the last value; "inf" and hex stay text */
    assert_string_equal(text, "{\"lr\":0.001,\"name\":\"resnet 50\",\"ok\":true,\"bad\":false,"
                              "\"x\":null,\"empty\":\"\",\"eq\":\"a=b\",\"n\":4,\"inf\":\"inf\","
                              "\"hex\":\"0x10\"}");
    free(text);
    gw_error err;
    assert_int_equal(gw_mark_field(&f, "novalue", &err), GW_E_USAGE);
    assert_non_null(strstr(err.msg, "KEY=VALUE"));
    assert_int_equal(gw_mark_field(&f, "=3", &err), GW_E_USAGE);
    assert_int_equal(f.n, 10);
    gw_event_fields_free(&f);
}

static void test_append(void **state)
{
    (void)state;
    char *dir = th_tmpdir();
    gw_event mark = gw_mark_event("epoch", NULL, 4242, INT64_C(1800000000123));
    const gw_event *ev = &mark;
    bool written = true;
    /* not in a run: no directory, or a directory without events.jsonl (nothing is created) */
    assert_int_equal(gw_mark_append(NULL, ev, &written, NULL), GW_OK);
    assert_false(written);
    assert_int_equal(gw_mark_append("", ev, &written, NULL), GW_OK);
    assert_false(written);
    assert_int_equal(gw_mark_append(dir, ev, &written, NULL), GW_OK);
    assert_false(written);
    char path[512];
    snprintf(path, sizeof path, "%s/events.jsonl", dir);
    assert_int_equal(access(path, F_OK), -1);
    th_write(dir, "events.jsonl",
             "{\"timestamp\":\"2027-01-15T08:00:00.000Z\",\"type\":\"job_start\"}\n");
    assert_int_equal(gw_mark_append(dir, ev, &written, NULL), GW_OK);
    assert_true(written);
    char *text = th_read(path);
    assert_non_null(strstr(text, "\n{\"timestamp\":\"2027-01-15T08:00:00.123Z\",\"type\":\"mark\","
                                 "\"text\":\"epoch\",\"fields\":{},\"pid\":4242}\n"));
    free(text);
    /* events.jsonl that cannot be written (here: a directory) is an error */
    char *bad = th_tmpdir();
    snprintf(path, sizeof path, "%s/events.jsonl", bad);
    assert_int_equal(mkdir(path, 0755), 0);
    gw_error err;
    assert_int_equal(gw_mark_append(bad, ev, &written, &err), GW_E_IO);
    assert_false(written);
    assert_non_null(strstr(err.msg, "events.jsonl"));
    th_rmrf(dir);
    th_rmrf(bad);
    free(dir);
    free(bad);
}

static const gw_series_event *event_of(const gw_series *s, const char *type)
{
    for (size_t i = 0; i < s->nevents; i++)
        if (strcmp(s->events[i].type, type) == 0)
            return &s->events[i];
    return NULL;
}

static void test_reader_members(void **state)
{
    (void)state;
    char *dir = th_tmpdir();
    th_write(dir, "gpu.csv",
             "timestamp, index, utilization.gpu [%]\n2027-01-15T08:00:00.000Z, 0, 0\n");
    th_write(
        dir, "events.jsonl",
        "{\"timestamp\":\"2027-01-15T08:00:01.000Z\",\"type\":\"mark\",\"text\":\"epoch\","
        "\"fields\":{\"n\":3,\"phase\":\"warmup\",\"ok\":true,\"l\":[1,2]},\"pid\":7}\n"
        "{\"timestamp\":\"2027-01-15T08:00:02.000Z\",\"type\":\"alert\",\"rule\":"
        "\"job_stalled\",\"severity\":\"warning\",\"gpu\":null,\"value\":16.5,\"threshold\":15,"
        "\"processes\":[{\"pid\":10,\"name\":\"python3\",\"state\":\"S\",\"wchan\":"
        "\"do_sys_poll\",\"syscall\":\"ppoll\"},{\"pid\":11,\"name\":\"w\",\"state\":\"D\","
        "\"wchan\":null,\"syscall\":null}]}\n"
        "{\"timestamp\":\"2027-01-15T08:00:03.000Z\",\"type\":\"alert_resolved\",\"rule\":"
        "\"job_stalled\",\"value\":17,\"threshold\":15,\"reason\":\"gpu\"}\n"
        "{\"timestamp\":\"2027-01-15T08:00:04.000Z\",\"type\":\"job_exit\",\"pid\":10,"
        "\"code\":null,\"signal\":15,\"signal_name\":\"TERM\",\"status\":143}\n");
    th_write(dir, "output.log", "Epoch 1\r 10%\r 20%\x1b[0m\nline two\n");
    gw_series *s = gw_series_new();
    gw_error err;
    assert_int_equal(gw_logread_run_dir(s, dir, &err), GW_OK);
    const gw_series_event *m = event_of(s, "mark");
    assert_string_equal(m->text, "epoch");
    assert_int_equal(m->nfields, 4);
    assert_num(gw_series_event_field_num(m, "n"), 3, 0);
    assert_string_equal(m->fields[1].text, "warmup");
    assert_string_equal(m->fields[2].text, "true");
    assert_string_equal(m->fields[3].text, "[1,2]");
    assert_true(isnan(gw_series_event_field_num(m, "phase")));
    const gw_series_event *a = event_of(s, "alert");
    assert_string_equal(a->rule, "job_stalled");
    assert_num(a->value, 16.5, 0);
    assert_num(a->threshold, 15, 0);
    assert_string_equal(a->detail, "10 python3 S ppoll in do_sys_poll; 11 w D");
    assert_string_equal(event_of(s, "alert_resolved")->detail, "gpu");
    const gw_series_event *x = event_of(s, "job_exit");
    assert_int_equal(x->signal, 15);
    assert_string_equal(x->detail, "TERM");
    assert_num(x->code, 143, 0);
    assert_int_equal(s->ntails, 1);
    assert_string_equal(s->tails[0].text, "Epoch 1\n 10%\n 20%\nline two");
    assert_int_equal(s->tails[0].lines, 4);
    gw_series_free(s);
    th_rmrf(dir);
    free(dir);
}

static void test_output_tail_keeps_the_end(void **state)
{
    (void)state;
    char *dir = th_tmpdir();
    th_write(dir, "gpu.csv",
             "timestamp, index, utilization.gpu [%]\n2027-01-15T08:00:00.000Z, 0, 0\n");
    /* 100 KiB of output: 2000 lines of 50 bytes, then the traceback's last line */
    char path[512];
    snprintf(path, sizeof path, "%s/output.log", dir);
    FILE *f = fopen(path, "w");
    for (int i = 0; i < 2000; i++)
        fprintf(f, "step %06d %037d\n", i, 0);
    fputs("torch.OutOfMemoryError: CUDA out of memory.", f); /* no final newline */
    fclose(f);
    gw_series *s = gw_series_new();
    gw_error err;
    assert_int_equal(gw_logread_run_dir(s, dir, &err), GW_OK);
    assert_int_equal(s->tails[0].lines, 200);
    const char *text = s->tails[0].text;
    assert_true(strncmp(text, "step 001801 ", 12) == 0);
    assert_string_equal(strrchr(text, '\n') + 1, "torch.OutOfMemoryError: CUDA out of memory.");
    gw_series_free(s);
    th_rmrf(dir);
    free(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fields),
        cmocka_unit_test(test_append),
        cmocka_unit_test(test_reader_members),
        cmocka_unit_test(test_output_tail_keeps_the_end),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
