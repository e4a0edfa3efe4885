#include "sampler/nvml_events.h"

#include "util/xalloc.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define WANTED_EVENTS (GWN_EVENT_XID_CRITICAL_ERROR | GWN_EVENT_DOUBLE_BIT_ECC)

struct gw_nvml_events {
    const gw_nvml *nvml;
    gw_events *bus;
    gwn_event_set set;
    unsigned n;          /* GPUs registered */
    gwn_device *handles; /* [n] */
    unsigned *indices;   /* [n] */
    atomic_bool stop;
    pthread_t thr;
};

static void emit(gw_nvml_events *w, const gwn_event_data *d)
{
    unsigned gpu = 0;
    bool known = false;
    for (unsigned i = 0; i < w->n && !known; i++)
        if (w->handles[i] == d->device) {
            gpu = w->indices[i];
            known = true;
        }
    if (!known)
        return;
    gw_event ev;
    if (d->eventType & GWN_EVENT_XID_CRITICAL_ERROR) {
        ev = gw_event_make(GW_EV_XID, 0);
        ev.xid.gpu = (int)gpu;
        ev.xid.xid = (long)d->eventData;
    } else if (d->eventType & GWN_EVENT_DOUBLE_BIT_ECC) {
        ev = gw_event_make(GW_EV_ECC_DOUBLE_BIT, 0);
        ev.ecc.gpu = (int)gpu;
    } else {
        return;
    }
    gw_events_emit(w->bus, &ev);
}

static void *watch_main(void *arg)
{
    gw_nvml_events *w = arg;
    pthread_setname_np(pthread_self(), "gw-nvml-events");
    while (!atomic_load(&w->stop)) {
        gwn_event_data d;
        memset(&d, 0, sizeof d);
        gwn_return r = w->nvml->EventSetWait(w->set, &d, GW_NVML_EVENTS_WAIT_MS);
        if (r == GWN_SUCCESS) {
            emit(w, &d);
        } else if (r != GWN_ERROR_TIMEOUT) {
            /* A lost GPU or a driver hiccup: do not spin, try again after a wait. */
            struct timespec ts = {0, GW_NVML_EVENTS_WAIT_MS * 1000000L};
            nanosleep(&ts, NULL);
        }
    }
    return NULL;
}

gw_nvml_events *gw_nvml_events_start(const gw_nvml *nvml, const gwn_device *handles,
                                     const unsigned *indices, unsigned n, gw_events *bus)
{
    if (!nvml->EventSetCreate || !nvml->EventSetWait || !nvml->EventSetFree ||
        !nvml->DeviceRegisterEvents || !nvml->DeviceGetSupportedEventTypes || n == 0)
        return NULL;
    gwn_event_set set = NULL;
    if (nvml->EventSetCreate(&set) != GWN_SUCCESS)
        return NULL;
    gw_nvml_events *w = xcalloc(1, sizeof *w);
    w->nvml = nvml;
    w->bus = bus;
    w->set = set;
    w->handles = xcalloc(n, sizeof *w->handles);
    w->indices = xcalloc(n, sizeof *w->indices);
    for (unsigned i = 0; i < n; i++) {
        unsigned long long supported = 0;
        if (nvml->DeviceGetSupportedEventTypes(handles[i], &supported) != GWN_SUCCESS ||
            !(supported & WANTED_EVENTS) ||
            nvml->DeviceRegisterEvents(handles[i], supported & WANTED_EVENTS, set) != GWN_SUCCESS)
            continue;
        w->handles[w->n] = handles[i];
        w->indices[w->n] = indices[i];
        w->n++;
    }
    atomic_init(&w->stop, false);
    if (w->n == 0 || pthread_create(&w->thr, NULL, watch_main, w) != 0) {
        nvml->EventSetFree(set);
        free(w->handles);
        free(w->indices);
        free(w);
        return NULL;
    }
    return w;
}

unsigned gw_nvml_events_gpus(const gw_nvml_events *w)
{
    return w ? w->n : 0;
}

void gw_nvml_events_stop(gw_nvml_events *w)
{
    if (!w)
        return;
    atomic_store(&w->stop, true);
    pthread_join(w->thr, NULL);
    w->nvml->EventSetFree(w->set);
    free(w->handles);
    free(w->indices);
    free(w);
}
