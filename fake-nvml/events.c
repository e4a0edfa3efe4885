/* Event sets, registration and waiting; see events.h. */
#include "events.h"

#include "fake_api.h"
#include "util/gw_time.h"
#include "util/xalloc.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#define SUPPORTED_EVENTS                                                                           \
    (GWN_EVENT_XID_CRITICAL_ERROR | GWN_EVENT_DOUBLE_BIT_ECC | GWN_EVENT_GPU_UNAVAILABLE)

struct gwn_event_set_st {
    struct gwn_event_set_st *next;
    unsigned long long *mask; /* registered types, per GPU */
    bool **delivered;         /* per GPU, per scenario event of that GPU */
    size_t ndevices;
};

/* Every live event set, under the state lock: callers' handles are checked against it. */
static struct gwn_event_set_st *sets;

/* nvmlEventData_t before _v2 ended before the GPU/compute instance ids: all that the unversioned
 * nvmlEventSetWait may write. */
#define EVENT_DATA_V1_SIZE offsetof(gwn_event_data, gpuInstanceId)

static void free_set(struct gwn_event_set_st *s)
{
    for (size_t i = 0; i < s->ndevices; i++)
        free(s->delivered[i]);
    free(s->delivered);
    free(s->mask);
    free(s);
}

void fake_events_release_all(void)
{
    while (sets) {
        struct gwn_event_set_st *next = sets->next;
        free_set(sets);
        sets = next;
    }
}

/* The link that points at s, or NULL when s is not a live set (compared, never read). */
static struct gwn_event_set_st **find_set(const struct gwn_event_set_st *s)
{
    for (struct gwn_event_set_st **p = &sets; *p; p = &(*p)->next) {
        if (*p == s)
            return p;
    }
    return NULL;
}

gwn_return nvmlEventSetCreate(gwn_event_set *set)
{
    fake_call c;
    gwn_return r = fake_begin(&c, FC_nvmlEventSetCreate);
    if (r)
        return r;
    if (!set)
        return fake_end(&c, GWN_ERROR_INVALID_ARGUMENT);
    struct gwn_event_set_st *s = xcalloc(1, sizeof *s);
    s->ndevices = c.sc->ndevices;
    s->mask = xcalloc(s->ndevices, sizeof *s->mask);
    s->delivered = xcalloc(s->ndevices, sizeof *s->delivered);
    for (size_t i = 0; i < s->ndevices; i++)
        s->delivered[i] = xcalloc(c.sc->devices[i].nevents, sizeof **s->delivered);
    s->next = sets;
    sets = s;
    *set = s;
    return fake_end(&c, GWN_SUCCESS);
}

gwn_return nvmlEventSetFree(gwn_event_set set)
{
    fake_call c;
    gwn_return r = fake_begin(&c, FC_nvmlEventSetFree);
    if (r)
        return r;
    struct gwn_event_set_st **link = find_set(set);
    if (!link)
        return fake_end(&c, GWN_ERROR_INVALID_ARGUMENT);
    *link = set->next;
    free_set(set);
    fake_wake_all(); /* a waiter on this set must notice that it is gone */
    return fake_end(&c, GWN_SUCCESS);
}

gwn_return nvmlDeviceGetSupportedEventTypes(gwn_device device, unsigned long long *types)
{
    fake_call c;
    gwn_return r = fake_begin_device(&c, FC_nvmlDeviceGetSupportedEventTypes, device, FG_EVENTS);
    if (r)
        return r;
    if (!types)
        return fake_end(&c, GWN_ERROR_INVALID_ARGUMENT);
    *types = SUPPORTED_EVENTS;
    return fake_end(&c, GWN_SUCCESS);
}

gwn_return nvmlDeviceRegisterEvents(gwn_device device, unsigned long long types, gwn_event_set set)
{
    fake_call c;
    gwn_return r = fake_begin_device(&c, FC_nvmlDeviceRegisterEvents, device, FG_EVENTS);
    if (r)
        return r;
    if (!find_set(set))
        return fake_end(&c, GWN_ERROR_INVALID_ARGUMENT);
    if (types & ~(unsigned long long)SUPPORTED_EVENTS)
        return fake_end(&c, GWN_ERROR_NOT_SUPPORTED);
    set->mask[c.index] |= types;
    return fake_end(&c, GWN_SUCCESS);
}

/* The earliest undelivered event registered in s that is due at t (*gpu, *index), and the time of
 * the earliest one not yet due (*next_t, left as it is when there is none). */
static bool find_due(const fake_scenario *sc, const struct gwn_event_set_st *s, double t,
                     size_t *gpu, size_t *index, double *next_t)
{
    bool found = false;
    for (size_t g = 0; g < s->ndevices; g++) {
        const fake_device *d = &sc->devices[g];
        for (size_t i = 0; s->mask[g] && i < d->nevents; i++) {
            const fake_event *e = &d->events[i];
            if (s->delivered[g][i] || !(e->type & s->mask[g]))
                continue;
            if (e->t > t) {
                if (e->t < *next_t)
                    *next_t = e->t;
                break; /* events are sorted by t: the rest of this GPU's are later */
            }
            if (!found || e->t < sc->devices[*gpu].events[*index].t) {
                *gpu = g;
                *index = i;
                found = true;
            }
            break;
        }
    }
    return found;
}

static gwn_return wait_event(fake_call_id id, gwn_event_set set, gwn_event_data *data,
                             unsigned int timeout_ms, bool v1)
{
    fake_call c;
    gwn_return r = fake_begin(&c, id);
    if (r)
        return r;
    if (!data || !find_set(set))
        return fake_end(&c, GWN_ERROR_INVALID_ARGUMENT);
    int64_t deadline = gw_mono_ns() + (int64_t)timeout_ms * 1000000;
    for (;;) {
        size_t g = 0, i = 0;
        double next_t = 1e300;
        if (find_due(c.sc, set, c.t, &g, &i, &next_t)) {
            const fake_event *e = &c.sc->devices[g].events[i];
            set->delivered[g][i] = true;
            gwn_event_data out = {.device = fake_handle((unsigned int)g, -1),
                                  .eventType = e->type,
                                  .eventData = e->data,
                                  .gpuInstanceId = 0xFFFFFFFFu,
                                  .computeInstanceId = 0xFFFFFFFFu};
            memcpy(data, &out, v1 ? EVENT_DATA_V1_SIZE : sizeof out);
            return fake_end(&c, GWN_SUCCESS);
        }
        if (gw_mono_ns() >= deadline)
            return fake_end(&c, GWN_ERROR_TIMEOUT);
        /* Wake when the next event is due (1 us late, so that it is due by then) or at the
         * deadline, whichever comes first. */
        int64_t due = fake_mono_ns_at(next_t);
        int64_t wake = (due < deadline - 1000) ? due + 1000 : deadline;
        r = fake_wait(&c, wake);
        if (r)
            return r;
        if (!find_set(set)) /* freed by another thread while this one waited */
            return fake_end(&c, GWN_ERROR_INVALID_ARGUMENT);
    }
}

gwn_return nvmlEventSetWait_v2(gwn_event_set set, gwn_event_data *data, unsigned int timeout_ms)
{
    return wait_event(FC_nvmlEventSetWait_v2, set, data, timeout_ms, false);
}

gwn_return nvmlEventSetWait(gwn_event_set set, gwn_event_data *data, unsigned int timeout_ms)
{
    return wait_event(FC_nvmlEventSetWait, set, data, timeout_ms, true);
}
