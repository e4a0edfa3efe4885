/*
 * sample: the one record that flows from the sampler to every sink.
 *
 * Owns: the shapes of a tick's data — per-GPU values with a validity bit each, the GPU processes
 * seen on the last slow read, and the host/job CPU side — plus the static description of each GPU
 * (gw_device_info) and the one field table (unit, source, CSV header) of GPU, host, job and
 * process fields.
 *
 * A value whose bit is clear in `valid` is absent (NOT_SUPPORTED, MIG, lost GPU, out-of-range
 * sentinel, not yet measured): sinks show it as an empty cell / absent series, never as 0.
 * Must not: call NVML or read /proc. Sinks receive `const gw_sample *` and copy what they keep.
 */
#ifndef GW_SAMPLE_H
#define GW_SAMPLE_H

#include "host/host_sample.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Field ids: GPU fields (gw_gpu_sample.v), then host, job and process fields (gw_host_sample,
 * gw_gpu_process). A value is held in the unit its name gives, everywhere: in a sample, in the
 * read-back series model (logread/series.h), in analysis thresholds and alert rules. NVML's raw
 * units (bytes, mW) are converted once at the NVML read (gw_field_from_nvml); text units at the
 * text edges (CSV, display, Prometheus, query). Integers are exact. gw_fields[] says each one's
 * unit, source and CSV header; docs/run-directory.md lists them. */
typedef enum gw_field {
    GW_F_UTIL_GPU_PCT,          /* GetUtilizationRates.gpu: % of the period with >=1 kernel */
    GW_F_UTIL_MEM_PCT,          /* GetUtilizationRates.memory: % of time memory was read/written */
    GW_F_MEM_TOTAL_MIB,         /* GetMemoryInfo_v2 (else GetMemoryInfo).total */
    GW_F_MEM_USED_MIB,          /* GetMemoryInfo_v2.used (matches nvidia-smi), else v1 .used */
    GW_F_MEM_FREE_MIB,          /* .free */
    GW_F_MEM_RESERVED_MIB,      /* GetMemoryInfo_v2.reserved (driver/firmware); absent with v1 */
    GW_F_TEMP_GPU_C,            /* GetTemperature(GPU) */
    GW_F_TEMP_MEM_C,            /* GetFieldValues(NVML_FI_DEV_MEMORY_TEMP) */
    GW_F_POWER_DRAW_W,          /* GetPowerUsage: 1 s average on Ampere+ */
    GW_F_POWER_LIMIT_W,         /* GetPowerManagementLimit (nvidia-smi power.limit) */
    GW_F_POWER_ENFORCED_W,      /* GetEnforcedPowerLimit */
    GW_F_CLOCK_SM_MHZ,          /* GetClockInfo(SM) */
    GW_F_CLOCK_MEM_MHZ,         /* GetClockInfo(MEM) */
    GW_F_CLOCK_GR_MHZ,          /* GetClockInfo(GRAPHICS) */
    GW_F_CLOCK_MAX_SM_MHZ,      /* GetMaxClockInfo(SM) */
    GW_F_CLOCK_MAX_MEM_MHZ,     /* GetMaxClockInfo(MEM) */
    GW_F_CLOCKS_EVENT_REASONS,  /* GetCurrentClocksEventReasons bit mask (GWN_CLOCKS_EVENT_*) */
    GW_F_PSTATE,                /* GetPerformanceState: 0..15 */
    GW_F_FAN_PCT,               /* GetFanSpeed */
    GW_F_PCIE_GEN,              /* GetCurrPcieLinkGeneration */
    GW_F_PCIE_GEN_MAX,          /* GetMaxPcieLinkGeneration */
    GW_F_PCIE_WIDTH,            /* GetCurrPcieLinkWidth (lanes) */
    GW_F_PCIE_WIDTH_MAX,        /* GetMaxPcieLinkWidth */
    GW_F_ECC_UNCORRECTED,       /* GetTotalEccErrors(UNCORRECTED, VOLATILE) */
    GW_F_ENERGY_MJ,             /* GetTotalEnergyConsumption: mJ since driver load (slow read) */
    GW_F_GPM_SM_ACTIVE_PCT,     /* GPM metric 2 (SM util) over gw_gpu_sample.gpm (in the tick) */
    GW_F_GPM_SM_OCCUPANCY_PCT,  /* GPM metric 3 */
    GW_F_GPM_TENSOR_ACTIVE_PCT, /* GPM metric 5 (any tensor pipe) */
    GW_F_GPM_DRAM_ACTIVE_PCT,   /* GPM metric 10 (DRAM bandwidth) */
    GW_F_GPM_GR_ACTIVE_PCT,   /* GPM metric 1 (graphics engine activity; DCGM's GR_ENGINE_ACTIVE) */
    GW_F_GPM_PCIE_TX_MIB_S,   /* GPM metric 20: PCIe traffic from the GPU, MiB/s */
    GW_F_GPM_PCIE_RX_MIB_S,   /* GPM metric 21: PCIe traffic to the GPU, MiB/s */
    GW_F_GPM_NVLINK_TX_MIB_S, /* GPM metric 61: NVLink traffic from the GPU, all links, MiB/s */
    GW_F_GPM_NVLINK_RX_MIB_S, /* GPM metric 60: NVLink traffic to the GPU, all links, MiB/s */
    GW_F_UTIL_ENC_PCT,        /* GetEncoderUtilization: % of its sampling period NVENC worked */
    GW_F_UTIL_DEC_PCT,        /* GetDecoderUtilization: the same for NVDEC */
    GW_F_PCIE_REPLAY_COUNTER, /* GetPcieReplayCounter: PCIe replays since the driver loaded */
    GW_F_COUNT,               /* the number of GPU fields (gw_gpu_sample.v, the valid mask) */

    /* Host and job fields (gw_host_sample; host.csv), from /proc. */
    GW_F_HOST_CPU_UTIL_PCT = GW_F_COUNT, /* all CPUs, 0-100 */
    GW_F_HOST_MEM_USED_MIB,              /* MemTotal - MemAvailable */
    GW_F_HOST_MEM_TOTAL_MIB,             /* MemTotal (not in host.csv) */
    GW_F_JOB_CPU_PCT,                    /* job tree's CPU time per wall time, 100 = one core */
    GW_F_JOB_RSS_MIB,                    /* sum of RSS over the job tree */
    GW_F_JOB_PROCESSES,                  /* processes in the job tree */
    GW_F_HOST_IOWAIT_PCT,                /* all CPUs' iowait share, 0-100 */
    GW_F_HOST_STEAL_PCT,                 /* all CPUs' steal share, 0-100 */
    GW_F_HOST_OTHERS_PCT,                /* CPU used outside the job, % of all CPUs */
    /* The job's processes by role (gw_role_sample, host/host_sample.h): GW_F_ROLE(role, k). */
    GW_F_TRAIN_CPU_PCT, /* GW_F_ROLE_FIRST */
    GW_F_TRAIN_CPU_MAX_PCT,
    GW_F_TRAIN_SATURATED,
    GW_F_TRAIN_PROCESSES,
    GW_F_TRAIN_RUNNING_PCT,
    GW_F_TRAIN_SLEEPING_PCT,
    GW_F_TRAIN_DISK_WAIT_PCT,
    GW_F_WORKERS_CPU_PCT,
    GW_F_WORKERS_CPU_MAX_PCT,
    GW_F_WORKERS_SATURATED,
    GW_F_WORKERS_PROCESSES,
    GW_F_WORKERS_RUNNING_PCT,
    GW_F_WORKERS_SLEEPING_PCT,
    GW_F_WORKERS_DISK_WAIT_PCT,
    GW_F_REST_CPU_PCT,
    GW_F_REST_CPU_MAX_PCT,
    GW_F_REST_SATURATED,
    GW_F_REST_PROCESSES,
    GW_F_REST_RUNNING_PCT,
    GW_F_REST_SLEEPING_PCT,
    GW_F_REST_DISK_WAIT_PCT,
    /* GPU process fields (gw_gpu_process; processes.csv). */
    GW_F_PROC_PID,      /* host pid as NVML reports it */
    GW_F_PROC_NAME,     /* /proc/PID/comm (text: not a number) */
    GW_F_PROC_USED_MIB, /* usedGpuMemory */
    GW_F_PROC_IN_JOB,   /* 1 when the pid is in the wrapped command's tree, else 0 */
    /* GetProcessUtilization: the process's share of NVML's last sample period, in % */
    GW_F_PROC_SM_UTIL_PCT,  /* .smUtil: SMs (compute and graphics) */
    GW_F_PROC_MEM_UTIL_PCT, /* .memUtil: device memory reads and writes */
    GW_F_PROC_ENC_UTIL_PCT, /* .encUtil: NVENC */
    GW_F_PROC_DEC_UTIL_PCT, /* .decUtil: NVDEC */
    GW_F_TABLE_COUNT        /* every field id: the size of gw_fields[] */
} gw_field;

/* A GPU field (< GW_F_COUNT): an index into gw_gpu_sample.v. */
typedef gw_field gw_gpu_field;

#define GW_FIELD_BIT(f) (UINT64_C(1) << (f))

/* Sets of fields the table says (gw_fields[], walked each call: a loop over GW_F_COUNT rows).
 * GW_FIELDS_RECORD: read on every tick of `run`/`record`, the gpu.csv columns (csv_pos != 0).
 * GW_FIELDS_GPM: the GPM metrics (gpm_metric != 0), sampled in every tick and averaged over the
 * window that ends in it (GpmSampleGet + GpmMetricsGet: ~230 us of CPU per GPU on an H200;
 * docs/performance.md). GW_FIELDS_VIEW: what the live view and top read, the fields with a
 * --json key (json != NULL). A new field joins them through its row alone. */
uint64_t gw_fields_record(void);
uint64_t gw_fields_gpm(void);
uint64_t gw_fields_view(void);
#define GW_FIELDS_RECORD (gw_fields_record())
#define GW_FIELDS_GPM    (gw_fields_gpm())
#define GW_FIELDS_VIEW   (gw_fields_view())

/* Fields that gw_gpu_read_fast leaves alone: the power limit and the energy counter come from the
 * slow reader thread because their calls cost far more than a tick should (measured on an H200,
 * CPU time per call): GetPowerManagementLimit 530 us and GetTotalEnergyConsumption 4.5 ms (both
 * every max(interval, 10 s)); GPM has its own read in the tick (above). Calls 100 ms apart cost
 * more than back to back: NVML caches values for a short while (bench/bench_tick, spaced). */
#define GW_FIELDS_SLOW                                                                             \
    (GW_FIELD_BIT(GW_F_ENERGY_MJ) | GW_FIELD_BIT(GW_F_POWER_LIMIT_W) | GW_FIELDS_GPM)

/* Field k (0: cpu, 1: cpu_max, 2: saturated, 3: processes, 4: running, 5: sleeping, 6: disk
 * wait) of role r (gw_role). */
#define GW_F_ROLE_FIRST  GW_F_TRAIN_CPU_PCT
#define GW_F_ROLE_FIELDS 7
#define GW_F_ROLE(r, k)  ((gw_field)(GW_F_ROLE_FIRST + (r)*GW_F_ROLE_FIELDS + (k)))

/* Which file and record a field belongs to. */
typedef enum gw_field_group {
    GW_FG_GPU,  /* gw_gpu_sample, gpu.csv */
    GW_FG_HOST, /* gw_host_sample (host side), host.csv */
    GW_FG_JOB,  /* gw_host_sample (job side), host.csv */
    GW_FG_PROC, /* gw_gpu_process, processes.csv */
} gw_field_group;

/* How a value is written in our CSV files (and so how exact a read-back is). */
typedef enum gw_csv_style {
    GW_CSV_FIXED,  /* csv_decimals digits after the point, rounded to nearest */
    GW_CSV_UP,     /* whole number rounded up, as nvidia-smi shows MiB (13290.81 -> 13291) */
    GW_CSV_DOWN,   /* whole number rounded down */
    GW_CSV_HEX,    /* bit mask "0x%016llx" */
    GW_CSV_PSTATE, /* "P<n>" */
    GW_CSV_TEXT,   /* a string (process_name): not formatted by gw_field_format_csv */
} gw_csv_style;

/* A field's dcgm-exporter series (prom/prom_text.c writes one family per GPU field that has one).
 */
typedef struct gw_dcgm_name {
    const char *name; /* "DCGM_FI_DEV_MEM_CLOCK"; NULL: dcgm-exporter has no such series */
    const char *help; /* dcgm-exporter's HELP text, word for word */
    double scale;     /* the series' value = the field's value / scale (100: % -> ratio) */
    int rounding;     /* 1: up (nvidia-smi's MiB), -1: down, 0: none */
    bool counter;     /* TYPE counter (else gauge) */
} gw_dcgm_name;

/* How the sampler reads a GPU field whose NVML call has a common shape: the call is looked up by
 * its symbol when the devices open (gw_nvml_symbol), so such a field needs no code of its own.
 * GW_NVML_OWN: the sampler has code for the field (src/sampler/gpu_dev.c). */
typedef enum gw_nvml_shape {
    GW_NVML_OWN,         /* read by its own code, or not from NVML */
    GW_NVML_UINT,        /* nvmlReturn_t symbol(nvmlDevice_t, unsigned int *value) */
    GW_NVML_UINT_PERIOD, /* nvmlReturn_t symbol(nvmlDevice_t, unsigned int *value,
                            unsigned int *samplingPeriodUs): the period is not kept */
} gw_nvml_shape;
typedef struct gw_nvml_read {
    gw_nvml_shape shape;
    const char *symbol; /* "nvmlDeviceGetEncoderUtilization" */
} gw_nvml_read;

/* Description of one field: the ONE place that names it. Every reader and writer walks this table:
 * the gpu.csv / host.csv / processes.csv writer (csv_pos), `gpuwatch query` (the CSV header key as
 * --query-gpu name, alias, help), the Prometheus exporter (dcgm), the log reader (the CSV header
 * key and alias for nvidia-smi CSV, dmon for `nvidia-smi dmon`), the sampler's GPM read
 * (gpm_metric, nvml) and the fake NVML's scenario key (fake). docs/style.md "Recipe: adding a GPU
 * field" says how to add one; tests/unit/test_field_table.c checks that each reader sees it. */
typedef struct gw_field_info {
    gw_field_group group;
    const char *key;        /* stable short key: "util_gpu", "mem_used", ... */
    const char *csv_header; /* header in our CSV: "utilization.gpu [%]" (NULL: not in a CSV); the
                               part before " [" is nvidia-smi's --query-gpu name where it has one */
    const char *unit;       /* unit of the value in memory and in CSV ("MiB", "W", "%", "C",
                               "MHz", "mJ", "MiB/s"); "" for counts, masks and states */
    gw_csv_style csv_style;
    int csv_decimals;     /* GW_CSV_FIXED: digits after the point */
    double nvml_scale;    /* NVML's raw unit per `unit` (bytes per MiB, mW per W), 1 when the
                             same, 0 when the value does not come from NVML */
    const char *source;   /* NVML call or /proc file the value comes from, for docs and messages */
    int csv_pos;          /* GPU fields: gpu.csv column after timestamp and index, 1-based; 0: not
                             in gpu.csv. (host.csv and processes.csv hold their group's fields that
                             have a csv_header, in table order.) */
    const char *alias;    /* nvidia-smi's other --query-gpu name ("clocks.mem"), or NULL */
    const char *help;     /* `query --help-query-gpu` paragraph; NULL: not a --query-gpu field */
    bool bare_na;         /* query prints an absent value "N/A" without brackets */
    const char *dmon;     /* `nvidia-smi dmon` column ("mclk"), or NULL */
    gw_dcgm_name dcgm;    /* dcgm-exporter's series, or {NULL} */
    unsigned gpm_metric;  /* GPM metric id (nvmlGpmMetricId_t) the value is read as; 0: not GPM */
    gw_nvml_read nvml;    /* a call of a common shape that reads it in the tick, or {GW_NVML_OWN} */
    const char *fake;     /* the fake NVML's scenario timeline key that serves it, or NULL */
    const char *json;     /* its key in the live view's --json (docs/live-view.md), with its unit:
                             "memory_used_mib"; NULL: not in it. The view reads these fields. */
    const char *synonyms; /* column names home-made loggers give it, normalised (lower case, '_'
                             for ' ' and '-'), space-separated: "gpu_util util gpu_load"; the log
                             reader takes them for its CSV header key (logread/synonyms.c) */
    const char *nvsmi_q;  /* where `nvidia-smi -q` prints it, "Section/Key" (the key at indent 8
                             under the section at indent 4; "/Key" for a key at indent 4), '|'
                             between several: "FB Memory Usage/Used"; the -q reader (nvquery.c) */
    bool no_stats; /* the report's statistics table leaves it out: a mask, a state, a capacity, a
                      limit or a counter, whose mean and percentiles mean nothing */
} gw_field_info;

/* The field table, indexed by gw_field. */
extern const gw_field_info gw_fields[GW_F_TABLE_COUNT];

/* Formats value v of field f the way our CSV files hold it (see gw_csv_style) into buf. Returns
 * the length written. */
int gw_field_format_csv(gw_field f, double v, char *buf, size_t len);

/* Field f's name where text names it: its CSV header without " [unit]" ("power.draw"; nvidia-smi's
 * --query-gpu name where it has one), written into buf[size]. Returns buf. */
const char *gw_field_name(gw_field f, char *buf, size_t size);

/* The field of `group` whose CSV header key (the header before " [unit]") or alias is key, or -1.
 */
int gw_field_by_key(gw_field_group group, const char *key);

/* The range a reading of GPU field f can have, in the field's unit (inclusive). A value outside
 * is no reading of any GPU (a "blank" sentinel near 2^32 or 2^64, -273 C, a negative power): the
 * sampler drops it at the NVML read and the log reader (logread/nvsmi.c) drops and counts it when
 * reading a file, with the same numbers. docs/report.md lists them. */
typedef struct gw_field_bounds {
    double lo, hi;
} gw_field_bounds;
extern const gw_field_bounds gw_field_bounds_of[GW_F_COUNT];

/* True when v (in the field's unit) is within gw_field_bounds_of[f]; false for NAN and for
 * fields that are not GPU fields. */
bool gw_field_plausible(gw_field f, double v);

/* Raw NVML value of field f in the field's unit (bytes -> MiB, mW -> W). */
static inline double gw_field_from_nvml(gw_field f, double raw)
{
    return raw / gw_fields[f].nvml_scale;
}

/* A span of CLOCK_MONOTONIC time (ns, the clock of gw_sample.mono_ns); {0, 0} = none. */
typedef struct gw_time_span {
    int64_t start_ns;
    int64_t end_ns;
} gw_time_span;

/* One GPU's values at one tick. Fast values are read in the tick (at gw_sample.mono_ns, within
 * read_ns). The others carry the time span they describe, set exactly when their field is:
 * - gpm: GW_F_GPM_* are averages over [start_ns, end_ns]: from an earlier GPM sample (the previous
 *   tick's, or the newest one at least GW_GPM_MIN_WINDOW_MS older) to the one taken in this tick,
 *   so end_ns lies within the tick's read and the window is the interval that ends at the row.
 * - gpm_gr: GW_F_GPM_GR_ACTIVE_PCT (graphics activity, not a gpu.csv column) is the exception:
 *   GpmMetricsGet costs ~2 ms of CPU with it on an H200 and 6 us without (docs/performance.md),
 *   so it is averaged over windows of GW_GPM_GR_WINDOW_MS from sample to sample and held between.
 * - energy: GW_F_ENERGY_MJ is the counter's value at an instant inside [start_ns, end_ns] (the
 *   call; 4 ms on an H200), read on the slow thread and held until the next read (10 s).
 * - power_limit: GW_F_POWER_LIMIT_W was in force during [start_ns, end_ns] (the call), held
 *   likewise. A held value keeps its span, so consumers see how old it is. */
typedef struct gw_gpu_sample {
    uint64_t valid; /* GW_FIELD_BIT(f) set when v[f] holds a value */
    double v[GW_F_COUNT];
    bool lost; /* the GPU returned GPU_IS_LOST: every value is absent from now on */
    gw_time_span gpm;
    gw_time_span gpm_gr;
    gw_time_span energy;
    gw_time_span power_limit;
} gw_gpu_sample;

/* The shortest GPM window: NVML's metrics need samples at least 100 ms apart. Ticks closer than
 * that (-i 0.05) average over the last two ticks. Graphics activity's window (gpm_gr above). */
enum { GW_GPM_MIN_WINDOW_MS = 100, GW_GPM_GR_WINDOW_MS = 1000 };

static inline bool gw_has(const gw_gpu_sample *g, gw_gpu_field f)
{
    return (g->valid & GW_FIELD_BIT(f)) != 0;
}

static inline void gw_set(gw_gpu_sample *g, gw_gpu_field f, double value)
{
    g->v[f] = value;
    g->valid |= GW_FIELD_BIT(f);
}

/* Stores raw NVML value `raw` of field f in the field's unit (see gw_field_from_nvml). */
static inline void gw_set_nvml(gw_gpu_sample *g, gw_gpu_field f, double raw)
{
    gw_set(g, f, gw_field_from_nvml(f, raw));
}

/* Static facts about one GPU, read once when the sampler starts. Strings are owned by the info. */
typedef struct gw_device_info {
    unsigned index;          /* NVML index (not CUDA's order) */
    char name[96];           /* GetName, "" when absent */
    char uuid[96];           /* GetUUID ("GPU-..."), "" when absent */
    char pci_bus_id[32];     /* GetPciInfo busId, "00000000:00:06.0" */
    double memory_total_mib; /* NAN when absent */
    double power_limit_w;    /* GetPowerManagementLimit at start, NAN when absent */
    double slowdown_temp_c;  /* GetTemperatureThreshold(SLOWDOWN), NAN when absent */
    double max_sm_clock_mhz; /* GetMaxClockInfo(SM), NAN when absent */
    bool gpm_supported;      /* GpmQueryDeviceSupport said yes */
    bool mig_enabled;        /* GetMigMode current == 1 */
} gw_device_info;

/* Static facts that gw_sampler_config.info_skip may leave unread at open, for commands that must
 * start fast (`gpuwatch query`: GetMaxClockInfo alone costs 1.4 ms per GPU on an H200). A skipped
 * fact stays absent (NAN / false); GW_INFO_GPM also leaves the GPM fields absent, GW_INFO_MIG the
 * MIG devices. index, name, uuid and pci_bus_id are always read. */
enum {
    GW_INFO_MEMORY = 1 << 0,      /* memory_total_mib */
    GW_INFO_POWER_LIMIT = 1 << 1, /* power_limit_w (163 us) */
    GW_INFO_THRESHOLDS = 1 << 2,  /* slowdown_temp_c */
    GW_INFO_MAX_CLOCK = 1 << 3,   /* max_sm_clock_mhz (1.4 ms) */
    GW_INFO_GPM = 1 << 4,         /* gpm_supported (and the GPM sample buffers) */
    GW_INFO_MIG = 1 << 5,         /* mig_enabled */
};

/* A MIG device (GPU instance) of a GPU in MIG mode: GetMigDeviceHandleByIndex over
 * GetMaxMigDeviceCount, then GetName, GetUUID and GetMemoryInfo(_v2) on its handle. */
typedef struct gw_mig_device {
    unsigned gpu;         /* the parent's NVML index */
    unsigned slot;        /* the index given to GetMigDeviceHandleByIndex */
    char name[96];        /* "NVIDIA H200 MIG 3g.71gb", "" when absent */
    char uuid[96];        /* "MIG-...", "" when absent */
    bool memory_valid;    /* false: the memory call failed (values are NAN) */
    double mem_used_mib;  /* MiB, like GW_F_MEM_USED_MIB */
    double mem_total_mib; /* MiB, like GW_F_MEM_TOTAL_MIB */
} gw_mig_device;

/* A process that holds memory on a GPU (Get{Compute,Graphics}RunningProcesses). */
typedef struct gw_gpu_process {
    unsigned gpu;    /* NVML index */
    unsigned pid;    /* host pid as NVML reports it */
    bool used_valid; /* false when NVML reports "not available" (WSL) */
    double used_mib; /* GW_F_PROC_USED_MIB */
    bool visible;    /* the pid exists in our /proc (false: another container, or gone) */
    bool in_job;     /* the pid belongs to the wrapped command's process tree */
    bool graphics;   /* from the graphics list rather than the compute list */
    /* GetProcessUtilization of the same slow read (GW_F_PROC_*_UTIL_PCT); util_valid false: the
     * call is not supported here (MIG, old GPU) or failed, and the four are absent. NVML lists
     * only processes with non-zero utilisation, so a listed process it leaves out has 0. */
    bool util_valid;
    double sm_util_pct, mem_util_pct, enc_util_pct, dec_util_pct;
    char name[64]; /* /proc/PID/comm, "" when not visible */
} gw_gpu_process;

/* Value of host or job field f (GW_FG_HOST, GW_FG_JOB) of h (gw_host_sample, host/host_sample.h:
 * each member is the host or job field its comment names); NAN when absent or not a host field. */
double gw_host_value(const gw_host_sample *h, gw_field f);

/* Value of process field f (GW_FG_PROC, not the name) of p; NAN when absent or not a number. */
double gw_proc_value(const gw_gpu_process *p, gw_field f);

/* One tick. Owned by the sampler and valid only during the sink callback. */
typedef struct gw_sample {
    uint64_t seq;    /* 0, 1, 2, ... per tick */
    int64_t wall_ms; /* CLOCK_REALTIME when the tick was read (ms since the epoch) */
    int64_t mono_ns; /* CLOCK_MONOTONIC when the tick was read */
    int64_t read_ns; /* how long reading this tick took */
    unsigned gpu_count;
    gw_gpu_sample *gpus; /* [gpu_count], indexed like the sampler's devices */
    gw_host_sample host;
    bool procs_fresh;      /* procs holds a new slow read (write processes.csv rows) */
    int64_t procs_wall_ms; /* when that slow read happened */
    unsigned proc_count;
    gw_gpu_process *procs; /* [proc_count] */
    unsigned mig_count;    /* MIG devices of the same slow read (gw_sampler_config.migs) */
    gw_mig_device *migs;   /* [mig_count], grouped by parent GPU in index order */
} gw_sample;

#endif
