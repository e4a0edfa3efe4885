#include "events/events.h"

#include "util/gw_time.h"
#include "util/xalloc.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

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

void gw_events_emit(gw_events *bus, const gw_event *event)
{
    if (!bus || !event)
        return;
    pthread_mutex_lock(&bus->lock);
    for (int i = 0; i < bus->n; i++)
        bus->fn[i](bus->ctx[i], event);
    pthread_mutex_unlock(&bus->lock);
}

static const char *const kind_names[GW_EV_KIND_COUNT] = {
    [GW_EV_JOB_START] = "job_start",
    [GW_EV_JOB_EXIT] = "job_exit",
    [GW_EV_GPU_LOST] = "gpu_lost",
    [GW_EV_EPOCH] = "epoch",
    [GW_EV_MARK] = "mark",
    [GW_EV_XID] = "xid",
    [GW_EV_ECC_DOUBLE_BIT] = "ecc_double_bit",
    [GW_EV_ALERT] = "alert",
    [GW_EV_ALERT_RESOLVED] = "alert_resolved",
};

const char *gw_event_kind_name(gw_event_kind k)
{
    return (unsigned)k < GW_EV_KIND_COUNT ? kind_names[k] : "unknown";
}

bool gw_event_kind_of(const char *type, gw_event_kind *out)
{
    for (int k = 0; type && k < GW_EV_KIND_COUNT; k++) {
        if (strcmp(type, kind_names[k]) == 0) {
            *out = (gw_event_kind)k;
            return true;
        }
    }
    return false;
}

gw_event gw_event_make(gw_event_kind k, int64_t wall_ms)
{
    gw_event ev;
    memset(&ev, 0, sizeof ev);
    ev.kind = k;
    ev.wall_ms = wall_ms ? wall_ms : gw_wall_ms();
    switch (k) {
    case GW_EV_JOB_EXIT:
        ev.job_exit.code = -1;
        ev.job_exit.signal_name = "";
        break;
    case GW_EV_GPU_LOST:
        ev.gpu_lost.gpu = -1;
        ev.gpu_lost.uuid = ev.gpu_lost.pci_bus_id = ev.gpu_lost.call = "";
        ev.gpu_lost.error = "GPU_IS_LOST";
        break;
    case GW_EV_EPOCH:
        ev.epoch.total = -1;
        ev.epoch.line = "";
        break;
    case GW_EV_MARK:
        ev.mark.text = "";
        break;
    case GW_EV_XID:
        ev.xid.gpu = -1;
        break;
    case GW_EV_ECC_DOUBLE_BIT:
        ev.ecc.gpu = -1;
        break;
    case GW_EV_ALERT:
    case GW_EV_ALERT_RESOLVED:
        ev.alert.rule = ev.alert.severity = ev.alert.metric = ev.alert.message = "";
        ev.alert.reason = "";
        ev.alert.gpu = -1;
        ev.alert.value = ev.alert.threshold = ev.alert.clear = ev.alert.peak = NAN;
        ev.alert.gpu_util_pct = ev.alert.job_cpu_pct = ev.alert.processes_total = NAN;
        break;
    default:
        break;
    }
    return ev;
}

void gw_event_print_lost(FILE *to, const gw_event *ev, const char *consequence)
{
    if (ev->kind != GW_EV_GPU_LOST)
        return;
    const char *call = ev->gpu_lost.call && *ev->gpu_lost.call ? ev->gpu_lost.call : "NVML";
    fprintf(to, "gpuwatch: GPU %d was lost (%s from %s): %s; check `dmesg` for Xid 79\n",
            ev->gpu_lost.gpu,
            ev->gpu_lost.error && *ev->gpu_lost.error ? ev->gpu_lost.error : "GPU_IS_LOST", call,
            consequence);
}

void gw_event_fields_put(gw_event_fields *f, const char *key, gw_event_value_type type, double num,
                         bool b, const char *str)
{
    for (unsigned i = 0; i < f->n; i++) {
        if (strcmp(f->items[i].key, key) == 0) {
            free(f->items[i].key);
            free(f->items[i].str);
            memmove(&f->items[i], &f->items[i + 1], (f->n - i - 1) * sizeof *f->items);
            f->n--;
            break;
        }
    }
    if (f->n == f->cap) {
        f->cap = f->cap ? 2 * f->cap : 8;
        f->items = xrealloc(f->items, f->cap * sizeof *f->items);
    }
    gw_event_field *it = &f->items[f->n++];
    it->key = xstrdup(key);
    it->type = type;
    it->num = num;
    it->b = b;
    it->str = str ? xstrdup(str) : NULL;
}

void gw_event_fields_free(gw_event_fields *f)
{
    for (unsigned i = 0; i < f->n; i++) {
        free(f->items[i].key);
        free(f->items[i].str);
    }
    free(f->items);
    memset(f, 0, sizeof *f);
}
