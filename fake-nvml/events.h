/*
 * events: the fake NVML event API (nvmlEventSet*, nvmlDeviceRegisterEvents,
 * nvmlDeviceGetSupportedEventTypes).
 *
 * Owns: the event sets handed out by nvmlEventSetCreate (a list, under the state lock), each with
 * its registered event types per GPU and which scenario events it has already delivered. A
 * scenario event is delivered once to each set that registered its GPU and type, as soon as the
 * scenario time reaches its t (also when it came due before the registration: tests register late
 * under a fast clock). Supported types: XID (0x8, eventData = XID number), double-bit ECC (0x2),
 * GPU unavailable (0x4000).
 * Must not: hold the state lock while waiting (nvmlEventSetWait sleeps on the state's condition
 * variable, which releases it).
 */
#ifndef FAKE_EVENTS_H
#define FAKE_EVENTS_H

/* Frees every event set (state lock held; called by the last nvmlShutdown). */
void fake_events_release_all(void);

#endif
