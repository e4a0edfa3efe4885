#include "events/events.h"

#include "util/gw_time.h"
#include "util/xalloc.h"

#include <pthread.h>
#include <stdlib.h>

enum { GW_MAX_LISTENERS = 16 };

struct gw_events {
    pthread_mutex_t lock;
    int n;
    gw_event_fn fn[GW_MAX_LISTENERS];
    void *ctx[GW_MAX_LISTENERS];
};

gw_events *gw_events_new(void)
{
    gw_events *bus = xcalloc(1, sizeof *bus);
    pthread_mutex_init(&bus->lock, NULL);
    return bus;
}

void gw_events_free(gw_events *bus)
{
    if (!bus)
        return;
    pthread_mutex_destroy(&bus->lock);
    free(bus);
}

void gw_events_listen(gw_events *bus, gw_event_fn fn, void *ctx)
{
    pthread_mutex_lock(&bus->lock);
    if (bus->n < GW_MAX_LISTENERS) {
        bus->fn[bus->n] = fn;
        bus->ctx[bus->n] = ctx;
        bus->n++;
    }
    pthread_mutex_unlock(&bus->lock);
}

void gw_events_unlisten(gw_events *bus, gw_event_fn fn, const void *ctx)
{
    pthread_mutex_lock(&bus->lock);
    for (int i = 0; i < bus->n; i++) {
        if (bus->fn[i] == fn && bus->ctx[i] == ctx) {
            for (int k = i + 1; k < bus->n; k++) {
                bus->fn[k - 1] = bus->fn[k];
                bus->ctx[k - 1] = bus->ctx[k];
            }
            bus->n--;
            break;
        }
    }
    pthread_mutex_unlock(&bus->lock);
}

cJSON *gw_event_new(const char *type, int64_t wall_ms)
{
    char ts[GW_RFC3339_LEN];
    cJSON *ev = cJSON_CreateObject();
    if (!ev)
        abort();
    cJSON_AddStringToObject(ev, "timestamp", gw_rfc3339_ms(wall_ms ? wall_ms : gw_wall_ms(), ts));
    cJSON_AddStringToObject(ev, "type", type);
    return ev;
}

void gw_events_emit(gw_events *bus, cJSON *event)
{
    if (bus && event) {
        pthread_mutex_lock(&bus->lock);
        for (int i = 0; i < bus->n; i++)
            bus->fn[i](bus->ctx[i], event);
        pthread_mutex_unlock(&bus->lock);
    }
    cJSON_Delete(event);
}
