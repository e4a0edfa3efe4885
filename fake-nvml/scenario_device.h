/*
 * scenario_device: reads the lists inside one scenario device — "unsupported", "latency_ms",
 * "timeline", "processes", "events" and "mig" — for scenario.c.
 *
 * Owns: the call-group and timeline-key tables (fake_group_names, fake_keys) and the rules of
 * each list (time order, value ranges, which keys an entry may have).
 * Must not: read device-level scalar keys (scenario.c does) or know about time.
 */
#ifndef FAKE_SCENARIO_DEVICE_H
#define FAKE_SCENARIO_DEVICE_H

#include "scenario.h"
#include "scenario_json.h"

/* Reads the lists of the device object `obj` at `path` (devices[index]) into d. On error fills the
 * reader's message and returns false; d may then be half-filled and is freed by the caller. */
bool fake_read_device_lists(const fj_reader *r, const cJSON *obj, const char *path, size_t index,
                            fake_device *d);

/* Frees what a device owns (not d itself). */
void fake_free_device(fake_device *d);

#endif
