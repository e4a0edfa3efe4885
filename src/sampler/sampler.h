/*
 * sampler: turns NVML and /proc into a stream of gw_sample ticks delivered to sinks.
 *
 * Owns: the devices (gpu_dev.h), the tick thread and the slow thread. The tick thread follows a
 * monotonic schedule (tick k at start + k * interval, no drift; a tick that is late skips the
 * ticks it missed rather than bunching them) and reads only fast values: NVML's microsecond calls,
 * a GPM sample (the metrics over the interval that ends at the tick) and /proc. The slow thread
 * reads process lists (every max(interval, 1 s)), the power limit and the energy counter (every
 * max(interval, 10 s)), and publishes them under a mutex; the tick copies the latest published
 * values with their time spans, so no tick ever waits for a slow read. Time comes from gw_time,
 * which tests replace with a virtual clock. A device that returns GPU_IS_LOST gets
 * one "gpu_lost" event and empty values from then on; the others continue.
 *
 * Sinks run in the tick thread, in the order added, and must not block for long (they write
 * buffered files or copy the sample). Must not: print, or know what sinks do with samples.
 */
#ifndef GW_SAMPLER_H
#define GW_SAMPLER_H

#include "events/events.h"
#include "nvml/nvml_lib.h"
#include "sampler/sample.h"

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

typedef struct gw_sampler gw_sampler;

typedef struct gw_sampler_config {
    int64_t interval_ms;   /* tick period; 50 ms .. 24 h */
    uint64_t fields;       /* GW_FIELD_BIT()s to read (GW_FIELDS_RECORD for run/record) */
    bool processes;        /* read GPU process lists on the slow thread */
    bool host;             /* read /proc for the host and the job */
    const char *proc_root; /* NULL = /proc */
    bool nvml_events;      /* watch XID and double-bit ECC events (nvml_events.h) while started */
    bool migs;             /* list MIG devices with the process lists (slow thread) */
    uint32_t info_skip;    /* GW_INFO_* static facts not to read at open (0: read all) */
} gw_sampler_config;

/* What a sink is called with. Every callback may be NULL. */
typedef struct gw_sink {
    void *ctx;
    /* Once, before the first sample, from the thread that calls gw_sampler_start. */
    void (*on_start)(void *ctx, const gw_device_info *devices, unsigned count);
    /* Every tick, in the tick thread. */
    void (*on_sample)(void *ctx, const gw_sample *sample);
    /* Once, after the last sample, from the thread that calls gw_sampler_stop. */
    void (*on_stop)(void *ctx);
} gw_sink;

/* Opens the devices through an initialised nvml (borrowed: it must outlive the sampler). Events
 * (gpu_lost) go to bus (borrowed, may be NULL). */
GW_MUST_USE gw_rc gw_sampler_open(gw_nvml *nvml, const gw_sampler_config *cfg, gw_events *bus,
                                  gw_sampler **out, gw_error *err);

/* The one door to NVML for commands: loads and initialises the library ($GPUWATCH_NVML_LIB, else
 * libnvidia-ml.so.1), then opens the sampler as gw_sampler_open does; the sampler owns the library
 * and gw_sampler_close unloads it. Errors: GW_E_NVML with a message naming the fix. */
GW_MUST_USE gw_rc gw_sampler_load(const gw_sampler_config *cfg, gw_events *bus, gw_sampler **out,
                                  gw_error *err);

/* Versions of the driver stack and the library, read once when the sampler opens. */
typedef struct gw_system_info {
    char driver_version[80]; /* nvmlSystemGetDriverVersion; "" when absent */
    char nvml_version[80];   /* nvmlSystemGetNVMLVersion; "" when absent */
    int cuda_driver_version; /* 13000 = 13.0; 0 when absent */
    char library[512];       /* the path or soname loaded */
    char banner[512];        /* what a simulating library says about itself; "" for a real one */
} gw_system_info;

/* Owned by the sampler; valid until gw_sampler_close. */
const gw_system_info *gw_sampler_system(const gw_sampler *s);

/* The devices' static facts: count entries, owned by the sampler. */
const gw_device_info *gw_sampler_devices(const gw_sampler *s, unsigned *count);

/* The devices' MIG instances now (GPUs in MIG mode; none when GW_INFO_MIG was skipped), for
 * mapping a MIG-UUID to its GPU before sampling starts: *count entries, newly allocated (free).
 * Must not be called while the sampler is started. */
gw_mig_device *gw_sampler_read_migs(gw_sampler *s, unsigned *count);

/* Adds a sink (copied) before gw_sampler_start. At most 16. */
void gw_sampler_add_sink(gw_sampler *s, const gw_sink *sink);

/* Sets the job whose process tree the host side follows (0 = none). Thread-safe; takes effect at
 * the next tick. `self` is gpuwatch's own pid when it is the job's child subreaper, else 0. */
void gw_sampler_set_job(gw_sampler *s, pid_t root, pid_t self);
/* A child of `self` that is not part of the job (an alert hook). Thread-safe. */
void gw_sampler_exclude_pid(gw_sampler *s, pid_t pid, bool excluded);

/* Starts the tick and slow threads; the first tick is read immediately. */
GW_MUST_USE gw_rc gw_sampler_start(gw_sampler *s, gw_error *err);

/* Stops both threads (waits for a tick in progress), then calls every sink's on_stop. */
void gw_sampler_stop(gw_sampler *s);

/* Reads one sample synchronously in the calling thread, slow values included (GPM needs two reads
 * >= 100 ms apart, so it is absent on the first call). For one-shot commands (query, live view);
 * must not be called while the sampler is started (a call before gw_sampler_start is fine: it
 * primes GPM). The sample is owned by the sampler and valid until the next call. */
const gw_sample *gw_sampler_read_now(gw_sampler *s);

/* gw_sampler_read_now for a first sample that should already have GPM values: when GPM fields
 * are configured and a device supports GPM, takes a GPM sample, reads, waits until
 * GW_GPM_FIRST_WINDOW_MS after the GPM sample (GPM needs two samples at least 100 ms apart) and
 * reads again; else reads once. Same ownership and rules. */
enum { GW_GPM_FIRST_WINDOW_MS = 150 };
const gw_sample *gw_sampler_read_first(gw_sampler *s);

/* Counters for self-monitoring. */
typedef struct gw_sampler_stats {
    uint64_t ticks;         /* ticks delivered */
    uint64_t ticks_skipped; /* scheduled ticks skipped because a tick ran late */
    int64_t last_read_ns;   /* duration of the last tick's reads */
    int64_t max_read_ns;
    uint64_t nvml_errors; /* failed NVML calls (not "unsupported"), all devices */
    unsigned lost_gpus;
} gw_sampler_stats;
void gw_sampler_get_stats(gw_sampler *s, gw_sampler_stats *out);

/* GPUs the NVML event watcher listens on for XID and ECC events (0: no watcher, not started yet,
 * or stopped). Thread-safe. */
unsigned gw_sampler_event_gpus(gw_sampler *s);

/* One NVML call that failed and how often (for gpuwatch_nvml_errors_total{call}). */
typedef struct gw_nvml_call_error {
    const char *call; /* "nvmlDeviceGetPowerUsage", ...: static, never freed */
    uint64_t count;   /* failures since the sampler opened, all devices */
} gw_nvml_call_error;
/* Copies up to max per-call failure counts (results other than success, "unsupported" and
 * GPU_IS_LOST), in the order the calls first failed. Thread-safe; never calls NVML. Returns the
 * number copied. */
unsigned gw_sampler_call_errors(gw_sampler *s, gw_nvml_call_error *out, unsigned max);

/* Stops if running and frees everything. NULL is accepted. */
void gw_sampler_close(gw_sampler *s);

#endif
