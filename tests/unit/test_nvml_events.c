/* Unit tests for src/sampler/nvml_events.c: the event watcher against the fake NVML library. */
#include "fake_nvml_test.h"

#include "record/eventlog.h"
#include "sampler/nvml_events.h"

#include <pthread.h>

typedef struct got_events {
    pthread_mutex_t lock;
    char *lines[16];
    int n;
} got_events;

/* Keeps each event as its JSON text without the timestamp. */
static void keep(void *ctx, const gw_event *ev)
{
    got_events *g = ctx;
    cJSON *copy = gw_event_to_json(ev);
    assert_true(cJSON_IsString(cJSON_GetObjectItem(copy, "timestamp")));
    cJSON_DeleteItemFromObject(copy, "timestamp");
    pthread_mutex_lock(&g->lock);
    if (g->n < 16)
        g->lines[g->n++] = cJSON_PrintUnformatted(copy);
    pthread_mutex_unlock(&g->lock);
    cJSON_Delete(copy);
}

static int count_now(got_events *g)
{
    pthread_mutex_lock(&g->lock);
    int n = g->n;
    pthread_mutex_unlock(&g->lock);
    return n;
}

static void test_watcher_emits_xid_and_ecc(void **state)
{
    (void)state;
    fake_lib f;
    fake_open_at(&f,
                 "{'devices': [{'events': [{'t': 0.2, 'type': 'xid', 'data': 79},"
                 " {'t': 0.5, 'type': 'double_bit_ecc'}, {'t': 0.6, 'type': 'gpu_unavailable'}]},"
                 " {'events': [{'t': 0.3, 'type': 'xid', 'data': 13}]}]}",
                 "4", NULL);
    assert_int_equal(f.init, GWN_SUCCESS);
    gwn_device h[2] = {gpu_handle(&f, 0), gpu_handle(&f, 1)};
    unsigned idx[2] = {0, 1};
    gw_events *bus = gw_events_new();
    got_events g = {.lock = PTHREAD_MUTEX_INITIALIZER};
    gw_events_listen(bus, keep, &g);
    gw_nvml_events *w = gw_nvml_events_start(f.n, h, idx, 2, bus);
    assert_non_null(w);
    assert_int_equal(gw_nvml_events_gpus(w), 2);
    for (int i = 0; i < 500 && count_now(&g) < 3; i++)
        usleep(10000);
    usleep(3 * GW_NVML_EVENTS_WAIT_MS * 1000); /* nothing more may come */
    gw_nvml_events_stop(w);
    assert_int_equal(g.n, 3); /* GPU unavailable is not watched */
    assert_string_equal(g.lines[0], "{\"type\":\"xid\",\"gpu\":0,\"xid\":79}");
    assert_string_equal(g.lines[1], "{\"type\":\"xid\",\"gpu\":1,\"xid\":13}");
    assert_string_equal(g.lines[2], "{\"type\":\"ecc_double_bit\",\"gpu\":0}");
    for (int i = 0; i < g.n; i++)
        free(g.lines[i]);
    gw_events_free(bus);
    fake_close(&f);
}

static void test_no_watcher_without_event_support(void **state)
{
    (void)state;
    fake_lib f;
    fake_open(&f, "{'devices': [{'unsupported': ['events']}]}");
    gwn_device h = gpu_handle(&f, 0);
    unsigned idx = 0;
    gw_events *bus = gw_events_new();
    assert_null(gw_nvml_events_start(f.n, &h, &idx, 1, bus));
    assert_null(gw_nvml_events_start(f.n, &h, &idx, 0, bus));
    gw_nvml_events_stop(NULL);
    gw_events_free(bus);
    fake_close(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_teardown(test_watcher_emits_xid_and_ecc, fake_teardown),
        cmocka_unit_test_teardown(test_no_watcher_without_event_support, fake_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
