/*
 * scenario: the fake NVML scenario — what the JSON file says, parsed and checked once at nvmlInit.
 *
 * Owns: the in-memory model of a scenario (devices, their static properties, timelines, processes,
 * events, MIG instances, call latencies and unsupported call groups), the defaults of every
 * optional key (an H200 on driver 580.159.04), and the strict reading of the file: a missing file,
 * invalid JSON, a value of the wrong type or range, and an unknown key anywhere are errors that
 * name the key's path (devices[0].timeline[2].tmep_c) and the fix. The format is documented in
 * docs/fake-nvml.md; spec.md's "Fake NVML scenario (JSON)" section is the contract.
 *
 * Must not: know about time or NVML calls. A loaded scenario is immutable until freed, so readers
 * holding the state lock can use it without copying.
 */
#ifndef FAKE_SCENARIO_H
#define FAKE_SCENARIO_H

#include "nvml/nvml_abi.h"
#include "gpm_metrics.h"
#include "uint_calls.h"

#include <stdbool.h>
#include <stddef.h>

/* Call groups: the names accepted by a device's "unsupported" list and "latency_ms" object. Every
 * call that takes a device belongs to exactly one group (see docs/fake-nvml.md for the table). */
typedef enum fake_group {
    FG_INFO,                 /* GetName, GetUUID, GetIndex, GetPciInfo* */
    FG_UTIL,                 /* GetUtilizationRates, Get{Encoder,Decoder}Utilization */
    FG_MEMORY,               /* GetMemoryInfo, GetMemoryInfo_v2 */
    FG_TEMP,                 /* GetTemperature, GetTemperatureThreshold */
    FG_POWER,                /* GetPowerUsage */
    FG_POWER_LIMIT,          /* GetPowerManagementLimit, GetEnforcedPowerLimit */
    FG_CLOCKS,               /* GetClockInfo, GetMaxClockInfo */
    FG_CLOCKS_EVENT_REASONS, /* GetCurrentClocksEventReasons / ThrottleReasons */
    FG_PSTATE,               /* GetPerformanceState */
    FG_FAN,                  /* GetFanSpeed */
    FG_PCIE,                 /* Get{Curr,Max}PcieLink{Generation,Width} */
    FG_ECC,                  /* GetTotalEccErrors */
    FG_RETIRED_PAGES,        /* GetRetiredPagesPendingStatus */
    FG_REMAPPED_ROWS,        /* GetRemappedRows */
    FG_ENERGY,               /* GetTotalEnergyConsumption (and field 83) */
    FG_FIELDS,               /* GetFieldValues as a whole */
    FG_PROCESSES,            /* Get{Compute,Graphics}RunningProcesses* */
    FG_MIG,                  /* GetMigMode, GetMaxMigDeviceCount, GetMigDeviceHandleByIndex */
    FG_GPM,                  /* GpmQueryDeviceSupport, GpmSampleGet, GpmMetricsGet */
    FG_EVENTS,               /* GetSupportedEventTypes, RegisterEvents */
    FG_COUNT
} fake_group;

/* The scenario name of each group ("clocks_event_reasons"). */
extern const char *const fake_group_names[FG_COUNT];

/* Timeline keys. Each key is its own series over the points that mention it. */
typedef enum fake_key {
    FK_UTIL_GPU,             /* % */
    FK_UTIL_MEM,             /* % */
    FK_MEM_USED_MIB,         /* MiB */
    FK_TEMP_C,               /* deg C */
    FK_POWER_W,              /* W */
    FK_SM_CLOCK_MHZ,         /* MHz */
    FK_CLOCKS_EVENT_REASONS, /* bit mask (step) */
    FK_PSTATE,               /* 0..15, 32 = unknown (step) */
    FK_MEM_CLOCK_MHZ,        /* extension: GetClockInfo(MEM) */
    FK_GR_CLOCK_MHZ,         /* extension: GetClockInfo(GRAPHICS); defaults to sm_clock_mhz */
    FK_MEM_TEMP_C,           /* extension: field 82 */
    FK_ECC_UNCORRECTED,      /* extension: volatile uncorrected ECC count (step) */
    FK_ENC_UTIL,             /* extension: GetEncoderUtilization, % */
    FK_DEC_UTIL,             /* extension: GetDecoderUtilization, % */
/* The keys of gpm_metrics.h (FK_SM_ACTIVE, ...) and uint_calls.h (FK_FAN_PCT, ...) */
#define FAKE_GPM_KEY(metric, id, ...) id,
    FAKE_GPM_METRICS(FAKE_GPM_KEY)
#undef FAKE_GPM_KEY
#define FAKE_UINT_KEY(call, id, ...) id,
        FAKE_UINT_CALLS(FAKE_UINT_KEY)
#undef FAKE_UINT_KEY
            FK_COUNT
} fake_key;

typedef struct fake_key_info {
    const char *name; /* the JSON key */
    bool step;        /* holds the earlier point's value instead of interpolating; integers only */
    double max;       /* largest accepted value (the range of the NVML field it feeds) */
} fake_key_info;

extern const fake_key_info fake_keys[FK_COUNT];

/* One key's points, t strictly non-decreasing. n == 0: the value is absent (NOT_SUPPORTED). */
typedef struct fake_series {
    size_t n;
    double *t; /* scenario seconds */
    double *v;
} fake_series;

typedef struct fake_process {
    bool child;              /* "pid": "child": the caller's first child, resolved per call */
    unsigned int pid;        /* when !child */
    unsigned long long used; /* bytes, or GWN_VALUE_NOT_AVAILABLE for "used_mib": null */
    double from_s, to_s;     /* listed while from_s <= t < to_s (-inf/+inf when absent) */
    bool graphics;           /* "type": "graphics" (else in the compute list) */
    /* extension: "sm_util", "mem_util", "enc_util", "dec_util" (% of GetProcessUtilization's
     * sample period, 0 when not given); a process with all four 0 gets no sample, as in NVML */
    double util[4];
} fake_process;

typedef struct fake_event {
    double t;                /* scenario seconds when it becomes due */
    unsigned long long type; /* GWN_EVENT_* bit */
    unsigned long long data; /* eventData (the XID number for xid events) */
} fake_event;

typedef struct fake_mig_instance {
    char *uuid;
    char *name;
    double memory_total_mib;
    double mem_used_mib;
} fake_mig_instance;

typedef struct fake_device {
    char *name;
    char *uuid;
    unsigned int pci_domain, pci_bus, pci_device;
    double memory_total_mib, memory_reserved_mib;
    double power_limit_w;
    double slowdown_temp_c, shutdown_temp_c, gpu_max_temp_c, mem_max_temp_c;
    double max_sm_clock_mhz, max_mem_clock_mhz;
    unsigned int pcie_gen, pcie_gen_max, pcie_width, pcie_width_max;
    int retired_pages_pending; /* -1: not given, so GetRetiredPagesPendingStatus is
                                  NOT_SUPPORTED (as on Hopper); else 0 or 1 */
    bool remapped_rows_pending;
    double lost_after_s;         /* +inf when never lost */
    unsigned int unsupported;    /* bit (1u << fake_group) per unsupported group */
    double latency_ms[FG_COUNT]; /* sleep of each group's calls, "all" already applied */
    fake_series series[FK_COUNT];
    fake_process *processes;
    size_t nprocesses;
    bool has_child_process; /* some entry has "pid": "child" (needs a /proc scan) */
    fake_event *events;     /* sorted by t */
    size_t nevents;
    bool mig_enabled;
    unsigned int mig_max_count; /* GetMaxMigDeviceCount when enabled */
    fake_mig_instance *mig;
    size_t nmig;
} fake_device;

typedef struct fake_scenario {
    char *driver_version;
    char *nvml_version;
    int cuda_driver_version;
    gwn_return init_error; /* GWN_SUCCESS when nvmlInit succeeds */
    fake_device *devices;
    size_t ndevices;
} fake_scenario;

enum { FAKE_MSG_MAX = 1024 };

/* Reads and checks the scenario file. On error returns NULL and writes one line (without the
 * "fake-nvml: " prefix or a newline) into msg[FAKE_MSG_MAX] naming the file, the problem and the
 * fix. The caller frees the result with fake_scenario_free. */
fake_scenario *fake_scenario_load(const char *path, char *msg);

/* NULL is accepted. */
void fake_scenario_free(fake_scenario *sc);

/* The NVML return code named `name` ("DRIVER_NOT_LOADED", or "NVML_ERROR_DRIVER_NOT_LOADED");
 * false when it names none. */
bool fake_return_code(const char *name, gwn_return *out);

#endif
