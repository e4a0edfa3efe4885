/*
 * nvml_events: the NVML event watcher — one thread that waits for XID critical errors (0x8) and
 * double-bit ECC errors (0x2) on every GPU and puts them on the events bus.
 *
 * Owns: the NVML event set (EventSetCreate; DeviceGetSupportedEventTypes and
 * DeviceRegisterEvents(supported & wanted) per GPU) and the thread that calls EventSetWait_v2 with
 * a short timeout, so that it notices a stop request within GW_NVML_EVENTS_WAIT_MS; the set is
 * freed only after the thread has been joined (never from under a waiting call). Emits exactly
 *   {"timestamp", "type": "xid", "gpu": N, "xid": 79}  and  {"timestamp", "type": "ecc_double_bit",
 *   "gpu": N}
 * where N is the NVML index. Must not: interpret events (the alert engine does) or print.
 */
#ifndef GW_NVML_EVENTS_H
#define GW_NVML_EVENTS_H

#include "events/events.h"
#include "nvml/nvml_lib.h"

typedef struct gw_nvml_events gw_nvml_events;

enum { GW_NVML_EVENTS_WAIT_MS = 500 };

/* Registers the wanted events on each of the n handles (indices[i] is handle i's NVML index) and
 * starts the thread. Returns NULL, with nothing started, when the library lacks the event API or
 * no GPU supports either event (a GPU that refuses is skipped). nvml and bus are borrowed and must
 * outlive the watcher. */
gw_nvml_events *gw_nvml_events_start(const gw_nvml *nvml, const gwn_device *handles,
                                     const unsigned *indices, unsigned n, gw_events *bus);

/* How many GPUs have events registered. */
unsigned gw_nvml_events_gpus(const gw_nvml_events *w);

/* Stops and joins the thread, then frees the event set. NULL is accepted. */
void gw_nvml_events_stop(gw_nvml_events *w);

#endif
