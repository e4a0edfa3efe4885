/*
 * gpu_dev: one NVML device as the sampler sees it, and the reads made on it.
 *
 * Owns: the NVML handle, the static gw_device_info read once at open, the per-field "unsupported"
 * cache (NOT_SUPPORTED and friends are asked once, then the value stays absent), the lost flag
 * (GPU_IS_LOST from any call: every later read is skipped), the GPM samples, and error counts
 * per field. Tick reads (gw_gpu_read_fast: microseconds; gw_gpu_read_gpm: ~230 us) and slow reads
 * (gw_gpu_read_energy, gw_gpu_read_power_limit, gw_gpu_read_processes: up to milliseconds, on the
 * slow thread) touch disjoint parts of the struct, so the two threads may use one device
 * concurrently.
 *
 * Must not: print, write files or know about sinks.
 */
#ifndef GW_GPU_DEV_H
#define GW_GPU_DEV_H

#include "nvml/nvml_lib.h"
#include "sampler/sample.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Failed NVML calls by name (anything but success, "unsupported" and GPU_IS_LOST), shared by the
 * devices of one sampler and both of its threads. Failures are rare, so a mutex is cheap here.
 * Names are the static strings the reads pass; once GW_CALL_ERRORS_MAX names are taken, further
 * calls are counted in the last slot, renamed "other". */
enum { GW_CALL_ERRORS_MAX = 48 };
typedef struct gw_call_errors {
    pthread_mutex_t lock;
    unsigned n;
    const char *call[GW_CALL_ERRORS_MAX];
    uint64_t count[GW_CALL_ERRORS_MAX];
} gw_call_errors;

/* GPM samples kept per GPU: enough for a GW_GPM_MIN_WINDOW_MS window at the shortest interval. */
enum { GW_GPM_RING = 4 };

typedef struct gw_gpu_dev {
    gwn_device handle;
    gw_device_info info;
    uint64_t fast_unsupported; /* GW_FIELD_BIT()s: fast thread only */
    uint64_t slow_unsupported; /* slow thread only */
    int mem_abi;               /* 0 untried, 2 GetMemoryInfo_v2 works, 1 plain GetMemoryInfo */
    atomic_bool lost;          /* any call returned GPU_IS_LOST */
    atomic_bool lost_reported; /* the gpu_lost event was emitted */
    _Atomic(const char *) lost_call; /* the NVML call that saw GPU_IS_LOST first */
    atomic_uint_fast64_t errors;     /* calls that failed with something other than "unsupported" */
    gw_call_errors *call_errors;     /* the same failures by call (borrowed, may be NULL) */
    /* GPM (tick thread): the last GW_GPM_RING samples, then the start of the graphics activity
     * window, and when each was taken (0 = none); graphics activity held between its windows */
    gwn_gpm_sample gpm[GW_GPM_RING + 1];
    int64_t gpm_ns[GW_GPM_RING + 1];
    unsigned gpm_next;
    bool gr_have;
    double gr_value;
    gw_time_span gr_span;
    size_t proc_stride; /* bytes per process record (16, 24 or 32) */
    /* Values that cannot change while the driver runs (GW_FIELDS_STATIC): the first successful
     * read is kept and served from here (fast thread only). */
    uint64_t static_have;
    double static_v[GW_F_COUNT];
    unsigned mig_max;                  /* GetMaxMigDeviceCount when MIG is on, else 0 */
    unsigned long long proc_util_seen; /* GetProcessUtilization: newest sample read (slow thread) */
    /* The calls of the fields the table reads by symbol (gw_fields[].nvml), NULL when the library
     * lacks one (the field is then absent) or the field has its own code. */
    gw_nvml_fn nvml_fn[GW_F_COUNT];
} gw_gpu_dev;

/* Fields read once and then served from the cache: maximum clocks (GetMaxClockInfo costs 1.4 ms
 * per call on an H200) and the maximum PCIe link. */
#define GW_FIELDS_STATIC                                                                           \
    (GW_FIELD_BIT(GW_F_CLOCK_MAX_SM_MHZ) | GW_FIELD_BIT(GW_F_CLOCK_MAX_MEM_MHZ) |                  \
     GW_FIELD_BIT(GW_F_PCIE_GEN_MAX) | GW_FIELD_BIT(GW_F_PCIE_WIDTH_MAX))

/* Opens every device NVML reports (DeviceGetCount, GetHandleByIndex) and reads its static facts.
 * A device that fails to open is still listed, marked lost. *out (owned by the caller, freed with
 * gw_gpu_devs_close) may be NULL with *count 0 when there are no GPUs. */
GW_MUST_USE gw_rc gw_gpu_devs_open(const gw_nvml *nvml, gw_gpu_dev **out, unsigned *count,
                                   gw_error *err);
/* The same, leaving the static facts in `skip` (GW_INFO_* bits, sample.h) unread. */
GW_MUST_USE gw_rc gw_gpu_devs_open_some(const gw_nvml *nvml, uint32_t skip, gw_gpu_dev **out,
                                        unsigned *count, gw_error *err);
void gw_gpu_devs_close(const gw_nvml *nvml, gw_gpu_dev *devs, unsigned count);

/* Reads the fast fields in `want` (minus GW_FIELDS_SLOW) into out, clearing out first. */
void gw_gpu_read_fast(const gw_nvml *nvml, gw_gpu_dev *dev, uint64_t want, gw_gpu_sample *out);

/* GpmSampleGet now and GpmMetricsGet over the window from the newest earlier sample at least
 * GW_GPM_MIN_WINDOW_MS old: sets the GW_F_GPM_* fields of out that `want` asks for, and out->gpm
 * to the window. Nothing when no such sample exists yet (the first read, or after a failure).
 * GW_F_GPM_GR_ACTIVE_PCT apart: over windows of GW_GPM_GR_WINDOW_MS, held in between, its span in
 * out->gpm_gr. mg is a scratch buffer owned by the caller. */
void gw_gpu_read_gpm(const gw_nvml *nvml, gw_gpu_dev *dev, gwn_gpm_metrics_get *mg, uint64_t want,
                     gw_gpu_sample *out);

/* GetTotalEnergyConsumption into GW_F_ENERGY_MJ of out, out->energy to the call's span. */
void gw_gpu_read_energy(const gw_nvml *nvml, gw_gpu_dev *dev, gw_gpu_sample *out);

/* GetPowerManagementLimit (else GetEnforcedPowerLimit) into GW_F_POWER_LIMIT_W of out,
 * out->power_limit to the call's span. */
void gw_gpu_read_power_limit(const gw_nvml *nvml, gw_gpu_dev *dev, gw_gpu_sample *out);

/* Appends the device's compute and graphics processes to *procs (a growable array of *cap
 * entries, *np used). Names come from /proc (proc_root); in_job is left false for the caller. */
void gw_gpu_read_processes(const gw_nvml *nvml, gw_gpu_dev *dev, const char *proc_root,
                           gw_gpu_process **procs, size_t *np, size_t *cap);

/* Counts one failed call on the device and, when it has one, in its call_errors table. */
void gw_gpu_count_error(gw_gpu_dev *dev, const char *call);

/* Appends the device's MIG devices (slots 0 .. GetMaxMigDeviceCount-1 that have a handle) to
 * *migs (a growable array of *cap entries, *used in use). Nothing when MIG is off or was not read
 * at open (GW_INFO_MIG skipped). Instances are enumerated on every call: they can be created and
 * destroyed while the GPU runs. Slow thread. */
void gw_gpu_read_migs(const gw_nvml *nvml, gw_gpu_dev *dev, gw_mig_device **migs, size_t *used,
                      size_t *cap);

/* Marks the device lost (first caller records `call`). Returns true for the first caller. */
bool gw_gpu_mark_lost(gw_gpu_dev *dev, const char *call);

#endif
