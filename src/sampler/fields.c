/* The one field table: unit, source and CSV header of every field (see sample.h). */
#include "sample.h"

#include "util/gw_fmt.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define MIB (1024.0 * 1024.0)

/* GPU fields: the NVML call, the unit NVML reports in (scale) and our CSV form. */
#define GPU(key, header, unit, style, dec, scale, call)                                            \
    {                                                                                              \
        GW_FG_GPU, key, header, unit, style, dec, scale, call                                      \
    }
#define PCT(key, header, dec, call)    GPU(key, header, "%", GW_CSV_FIXED, dec, 1, call)
#define MIB_F(key, header, call)       GPU(key, header, "MiB", GW_CSV_UP, 0, MIB, call)
#define WATT(key, header, call)        GPU(key, header, "W", GW_CSV_FIXED, 2, 1000, call)
#define WHOLE(key, header, unit, call) GPU(key, header, unit, GW_CSV_FIXED, 0, 1, call)
/* Host, job and process fields: read from /proc (nvml_scale 0) unless said otherwise. */
#define PROCFS(group, key, header, unit, style, dec, file)                                         \
    {                                                                                              \
        group, key, header, unit, style, dec, 0, file                                              \
    }

const gw_field_info gw_fields[GW_F_TABLE_COUNT] = {
    [GW_F_UTIL_GPU_PCT] =
        PCT("util_gpu", "utilization.gpu [%]", 0, "nvmlDeviceGetUtilizationRates"),
    [GW_F_UTIL_MEM_PCT] =
        PCT("util_mem", "utilization.memory [%]", 0, "nvmlDeviceGetUtilizationRates"),
    [GW_F_MEM_TOTAL_MIB] = MIB_F("mem_total", "memory.total [MiB]", "nvmlDeviceGetMemoryInfo_v2"),
    [GW_F_MEM_USED_MIB] = MIB_F("mem_used", "memory.used [MiB]", "nvmlDeviceGetMemoryInfo_v2"),
    [GW_F_MEM_FREE_MIB] = MIB_F("mem_free", "memory.free [MiB]", "nvmlDeviceGetMemoryInfo_v2"),
    [GW_F_MEM_RESERVED_MIB] =
        MIB_F("mem_reserved", "memory.reserved [MiB]", "nvmlDeviceGetMemoryInfo_v2"),
    [GW_F_TEMP_GPU_C] = WHOLE("temp_gpu", "temperature.gpu", "C", "nvmlDeviceGetTemperature"),
    [GW_F_TEMP_MEM_C] = WHOLE("temp_mem", "temperature.memory", "C",
                              "nvmlDeviceGetFieldValues(NVML_FI_DEV_MEMORY_TEMP)"),
    [GW_F_POWER_DRAW_W] = WATT("power_draw", "power.draw [W]", "nvmlDeviceGetPowerUsage"),
    [GW_F_POWER_LIMIT_W] =
        WATT("power_limit", "power.limit [W]", "nvmlDeviceGetPowerManagementLimit"),
    [GW_F_POWER_ENFORCED_W] =
        WATT("power_enforced", "enforced.power.limit [W]", "nvmlDeviceGetEnforcedPowerLimit"),
    [GW_F_CLOCK_SM_MHZ] =
        WHOLE("clock_sm", "clocks.current.sm [MHz]", "MHz", "nvmlDeviceGetClockInfo(SM)"),
    [GW_F_CLOCK_MEM_MHZ] =
        WHOLE("clock_mem", "clocks.current.memory [MHz]", "MHz", "nvmlDeviceGetClockInfo(MEM)"),
    [GW_F_CLOCK_GR_MHZ] = WHOLE("clock_gr", "clocks.current.graphics [MHz]", "MHz",
                                "nvmlDeviceGetClockInfo(GRAPHICS)"),
    [GW_F_CLOCK_MAX_SM_MHZ] =
        WHOLE("clock_max_sm", "clocks.max.sm [MHz]", "MHz", "nvmlDeviceGetMaxClockInfo(SM)"),
    [GW_F_CLOCK_MAX_MEM_MHZ] =
        WHOLE("clock_max_mem", "clocks.max.memory [MHz]", "MHz", "nvmlDeviceGetMaxClockInfo(MEM)"),
    [GW_F_CLOCKS_EVENT_REASONS] = GPU("clocks_event_reasons", "clocks_event_reasons.active", "",
                                      GW_CSV_HEX, 0, 1, "nvmlDeviceGetCurrentClocksEventReasons"),
    [GW_F_PSTATE] =
        GPU("pstate", "pstate", "", GW_CSV_PSTATE, 0, 1, "nvmlDeviceGetPerformanceState"),
    [GW_F_FAN_PCT] = PCT("fan", "fan.speed [%]", 0, "nvmlDeviceGetFanSpeed"),
    [GW_F_PCIE_GEN] =
        WHOLE("pcie_gen", "pcie.link.gen.current", "", "nvmlDeviceGetCurrPcieLinkGeneration"),
    [GW_F_PCIE_GEN_MAX] =
        WHOLE("pcie_gen_max", "pcie.link.gen.max", "", "nvmlDeviceGetMaxPcieLinkGeneration"),
    [GW_F_PCIE_WIDTH] =
        WHOLE("pcie_width", "pcie.link.width.current", "", "nvmlDeviceGetCurrPcieLinkWidth"),
    [GW_F_PCIE_WIDTH_MAX] =
        WHOLE("pcie_width_max", "pcie.link.width.max", "", "nvmlDeviceGetMaxPcieLinkWidth"),
    [GW_F_ECC_UNCORRECTED] = WHOLE("ecc_uncorrected", "ecc.errors.uncorrected.volatile.total", "",
                                   "nvmlDeviceGetTotalEccErrors(UNCORRECTED, VOLATILE)"),
    [GW_F_ENERGY_MJ] = WHOLE("energy", "total_energy_consumption [mJ]", "mJ",
                             "nvmlDeviceGetTotalEnergyConsumption"),
    [GW_F_GPM_SM_ACTIVE_PCT] =
        PCT("gpm_sm_active", "gpm.sm_active [%]", 2, "nvmlGpmMetricsGet(SM_UTIL)"),
    [GW_F_GPM_SM_OCCUPANCY_PCT] =
        PCT("gpm_sm_occupancy", "gpm.sm_occupancy [%]", 2, "nvmlGpmMetricsGet(SM_OCCUPANCY)"),
    [GW_F_GPM_TENSOR_ACTIVE_PCT] =
        PCT("gpm_tensor_active", "gpm.tensor_active [%]", 2, "nvmlGpmMetricsGet(ANY_TENSOR_UTIL)"),
    [GW_F_GPM_DRAM_ACTIVE_PCT] =
        PCT("gpm_dram_active", "gpm.dram_active [%]", 2, "nvmlGpmMetricsGet(DRAM_BW_UTIL)"),
    [GW_F_GPM_GR_ACTIVE_PCT] =
        PCT("gpm_gr_active", "gpm.graphics_active [%]", 2, "nvmlGpmMetricsGet(GRAPHICS_UTIL)"),

    [GW_F_HOST_CPU_UTIL_PCT] = PROCFS(GW_FG_HOST, "cpu_util", "cpu.util [%]", "%", GW_CSV_FIXED, 1,
                                      "/proc/stat (deltas between ticks)"),
    [GW_F_HOST_MEM_USED_MIB] = PROCFS(GW_FG_HOST, "host_mem_used", "memory.used [MiB]", "MiB",
                                      GW_CSV_DOWN, 0, "/proc/meminfo MemTotal - MemAvailable"),
    [GW_F_HOST_MEM_TOTAL_MIB] =
        PROCFS(GW_FG_HOST, "host_mem_total", NULL, "MiB", GW_CSV_DOWN, 0, "/proc/meminfo MemTotal"),
    [GW_F_JOB_CPU_PCT] = PROCFS(GW_FG_JOB, "job_cpu", "job.cpu [%]", "%", GW_CSV_FIXED, 1,
                                "/proc/PID/stat utime + stime over the job tree"),
    [GW_F_JOB_RSS_MIB] = PROCFS(GW_FG_JOB, "job_rss", "job.rss [MiB]", "MiB", GW_CSV_FIXED, 1,
                                "/proc/PID/stat rss over the job tree"),
    [GW_F_JOB_PROCESSES] = PROCFS(GW_FG_JOB, "job_processes", "job.processes", "", GW_CSV_FIXED, 0,
                                  "/proc/PID/stat: processes in the job tree"),
    [GW_F_HOST_IOWAIT_PCT] = PROCFS(GW_FG_HOST, "cpu_iowait", "cpu.iowait [%]", "%", GW_CSV_FIXED,
                                    1, "/proc/stat iowait (deltas between ticks)"),
    [GW_F_HOST_STEAL_PCT] = PROCFS(GW_FG_HOST, "cpu_steal", "cpu.steal [%]", "%", GW_CSV_FIXED, 1,
                                   "/proc/stat steal (deltas between ticks)"),
    [GW_F_HOST_OTHERS_PCT] = PROCFS(GW_FG_HOST, "cpu_others", "cpu.others [%]", "%", GW_CSV_FIXED,
                                    1, "/proc/stat busy minus the job tree's CPU, % of all CPUs"),
    [GW_F_TRAIN_CPU_PCT] = PROCFS(
        GW_FG_JOB, "train_cpu", "job.train.cpu [%]", "%", GW_CSV_FIXED, 1,
        "/proc/PID/stat of the processes holding a GPU context: utime + stime, sum over the role"),
    [GW_F_TRAIN_CPU_MAX_PCT] =
        PROCFS(GW_FG_JOB, "train_cpu_max", "job.train.cpu_max [%]", "%", GW_CSV_FIXED, 1,
               "/proc/PID/stat of the processes holding a GPU context: utime + stime of the role's "
               "busiest member"),
    [GW_F_TRAIN_SATURATED] = PROCFS(
        GW_FG_JOB, "train_saturated", "job.train.saturated", "", GW_CSV_FIXED, 0,
        "/proc/PID/stat of the processes holding a GPU context: members at >= 85 % of a core"),
    [GW_F_TRAIN_PROCESSES] =
        PROCFS(GW_FG_JOB, "train_processes", "job.train.processes", "", GW_CSV_FIXED, 0,
               "/proc/PID/stat of the processes holding a GPU context: members"),
    [GW_F_TRAIN_RUNNING_PCT] =
        PROCFS(GW_FG_JOB, "train_running", "job.train.running [%]", "%", GW_CSV_FIXED, 0,
               "/proc/PID/stat of the processes holding a GPU context: state R, % of the members"),
    [GW_F_TRAIN_SLEEPING_PCT] = PROCFS(
        GW_FG_JOB, "train_sleeping", "job.train.sleeping [%]", "%", GW_CSV_FIXED, 0,
        "/proc/PID/stat of the processes holding a GPU context: state S or I, % of the members"),
    [GW_F_TRAIN_DISK_WAIT_PCT] =
        PROCFS(GW_FG_JOB, "train_disk_wait", "job.train.disk_wait [%]", "%", GW_CSV_FIXED, 0,
               "/proc/PID/stat of the processes holding a GPU context: state D, % of the members"),
    [GW_F_WORKERS_CPU_PCT] = PROCFS(
        GW_FG_JOB, "workers_cpu", "job.workers.cpu [%]", "%", GW_CSV_FIXED, 1,
        "/proc/PID/stat of the their descendants without one: utime + stime, sum over the role"),
    [GW_F_WORKERS_CPU_MAX_PCT] =
        PROCFS(GW_FG_JOB, "workers_cpu_max", "job.workers.cpu_max [%]", "%", GW_CSV_FIXED, 1,
               "/proc/PID/stat of the their descendants without one: utime + stime of the role's "
               "busiest member"),
    [GW_F_WORKERS_SATURATED] =
        PROCFS(GW_FG_JOB, "workers_saturated", "job.workers.saturated", "", GW_CSV_FIXED, 0,
               "/proc/PID/stat of the their descendants without one: members at >= 85 % of a core"),
    [GW_F_WORKERS_PROCESSES] =
        PROCFS(GW_FG_JOB, "workers_processes", "job.workers.processes", "", GW_CSV_FIXED, 0,
               "/proc/PID/stat of the their descendants without one: members"),
    [GW_F_WORKERS_RUNNING_PCT] =
        PROCFS(GW_FG_JOB, "workers_running", "job.workers.running [%]", "%", GW_CSV_FIXED, 0,
               "/proc/PID/stat of the their descendants without one: state R, % of the members"),
    [GW_F_WORKERS_SLEEPING_PCT] = PROCFS(
        GW_FG_JOB, "workers_sleeping", "job.workers.sleeping [%]", "%", GW_CSV_FIXED, 0,
        "/proc/PID/stat of the their descendants without one: state S or I, % of the members"),
    [GW_F_WORKERS_DISK_WAIT_PCT] =
        PROCFS(GW_FG_JOB, "workers_disk_wait", "job.workers.disk_wait [%]", "%", GW_CSV_FIXED, 0,
               "/proc/PID/stat of the their descendants without one: state D, % of the members"),
    [GW_F_REST_CPU_PCT] =
        PROCFS(GW_FG_JOB, "rest_cpu", "job.rest.cpu [%]", "%", GW_CSV_FIXED, 1,
               "/proc/PID/stat of the the other job members: utime + stime, sum over the role"),
    [GW_F_REST_CPU_MAX_PCT] = PROCFS(
        GW_FG_JOB, "rest_cpu_max", "job.rest.cpu_max [%]", "%", GW_CSV_FIXED, 1,
        "/proc/PID/stat of the the other job members: utime + stime of the role's busiest member"),
    [GW_F_REST_SATURATED] =
        PROCFS(GW_FG_JOB, "rest_saturated", "job.rest.saturated", "", GW_CSV_FIXED, 0,
               "/proc/PID/stat of the the other job members: members at >= 85 % of a core"),
    [GW_F_REST_PROCESSES] =
        PROCFS(GW_FG_JOB, "rest_processes", "job.rest.processes", "", GW_CSV_FIXED, 0,
               "/proc/PID/stat of the the other job members: members"),
    [GW_F_REST_RUNNING_PCT] =
        PROCFS(GW_FG_JOB, "rest_running", "job.rest.running [%]", "%", GW_CSV_FIXED, 0,
               "/proc/PID/stat of the the other job members: state R, % of the members"),
    [GW_F_REST_SLEEPING_PCT] =
        PROCFS(GW_FG_JOB, "rest_sleeping", "job.rest.sleeping [%]", "%", GW_CSV_FIXED, 0,
               "/proc/PID/stat of the the other job members: state S or I, % of the members"),
    [GW_F_REST_DISK_WAIT_PCT] =
        PROCFS(GW_FG_JOB, "rest_disk_wait", "job.rest.disk_wait [%]", "%", GW_CSV_FIXED, 0,
               "/proc/PID/stat of the the other job members: state D, % of the members"),
    [GW_F_PROC_PID] = {GW_FG_PROC, "pid", "pid", "", GW_CSV_FIXED, 0, 1,
                       "nvmlDeviceGet{Compute,Graphics}RunningProcesses .pid"},
    [GW_F_PROC_NAME] =
        PROCFS(GW_FG_PROC, "process_name", "process_name", "", GW_CSV_TEXT, 0, "/proc/PID/comm"),
    [GW_F_PROC_USED_MIB] = {GW_FG_PROC, "used_memory", "used_memory [MiB]", "MiB", GW_CSV_UP, 0,
                            MIB, "nvmlDeviceGet{Compute,Graphics}RunningProcesses .usedGpuMemory"},
    [GW_F_PROC_IN_JOB] = PROCFS(GW_FG_PROC, "in_job", "in_job", "", GW_CSV_FIXED, 0,
                                "/proc/PID/stat: the pid descends from the wrapped command"),
};

/* 2^52: counters and masks are exact in a double below it; NVML's sentinels are above. */
#define EXACT 4503599627370495.0

/* The bounds of every GPU field (see sample.h): what NVML can report, with room for rounding.
 * Energy: 1e14 mJ is 4.5 years at 700 W since the driver loaded; NVML's blank sentinels
 * (2^47 = 1.407e14, 2^63 - 14) lie above it. */
const gw_field_bounds gw_field_bounds_of[GW_F_COUNT] = {
    [GW_F_UTIL_GPU_PCT] = {0, 100},
    [GW_F_UTIL_MEM_PCT] = {0, 100},
    [GW_F_MEM_TOTAL_MIB] = {1, 1e9}, /* a capacity of 0 divides into infinity */
    [GW_F_MEM_USED_MIB] = {0, 1e9},
    [GW_F_MEM_FREE_MIB] = {0, 1e9},
    [GW_F_MEM_RESERVED_MIB] = {0, 1e9},
    [GW_F_TEMP_GPU_C] = {0, 299},
    [GW_F_TEMP_MEM_C] = {1, 299}, /* the field value reads 0 where there is no sensor */
    [GW_F_POWER_DRAW_W] = {0, 10000},
    [GW_F_POWER_LIMIT_W] = {1, 10000},
    [GW_F_POWER_ENFORCED_W] = {1, 10000},
    [GW_F_CLOCK_SM_MHZ] = {1, 99999},
    [GW_F_CLOCK_MEM_MHZ] = {1, 99999},
    [GW_F_CLOCK_GR_MHZ] = {1, 99999},
    [GW_F_CLOCK_MAX_SM_MHZ] = {1, 99999},
    [GW_F_CLOCK_MAX_MEM_MHZ] = {1, 99999},
    [GW_F_CLOCKS_EVENT_REASONS] = {0, EXACT},
    [GW_F_PSTATE] = {0, 15},
    [GW_F_FAN_PCT] = {0, 200},
    [GW_F_PCIE_GEN] = {0, 32},
    [GW_F_PCIE_GEN_MAX] = {0, 32},
    [GW_F_PCIE_WIDTH] = {0, 64},
    [GW_F_PCIE_WIDTH_MAX] = {0, 64},
    [GW_F_ECC_UNCORRECTED] = {0, EXACT},
    [GW_F_ENERGY_MJ] = {0, 1e14},
    [GW_F_GPM_SM_ACTIVE_PCT] = {0, 100.5}, /* GPM ratios overshoot 100 by rounding */
    [GW_F_GPM_SM_OCCUPANCY_PCT] = {0, 100.5},
    [GW_F_GPM_TENSOR_ACTIVE_PCT] = {0, 100.5},
    [GW_F_GPM_DRAM_ACTIVE_PCT] = {0, 100.5},
    [GW_F_GPM_GR_ACTIVE_PCT] = {0, 100.5},
};

bool gw_field_plausible(gw_field f, double v)
{
    if ((unsigned)f >= GW_F_COUNT)
        return false;
    return v >= gw_field_bounds_of[f].lo && v <= gw_field_bounds_of[f].hi;
}

/* v with `decimals` digits, through the formatter: "" (absent) when it is no number to show. */
static int csv_fixed(char *buf, size_t len, double v, int decimals)
{
    gw_fmt_fixed(buf, len, v, decimals, 0, "");
    return len ? (int)strlen(buf) : 0;
}

int gw_field_format_csv(gw_field f, double v, char *buf, size_t len)
{
    const gw_field_info *fi = &gw_fields[f];
    switch (fi->csv_style) {
    case GW_CSV_HEX:
        return snprintf(buf, len, "0x%016llx", (unsigned long long)v);
    case GW_CSV_PSTATE:
        return snprintf(buf, len, "P%d", (int)v);
    case GW_CSV_UP:
        /* nvidia-smi rounds MiB up (used 13290.81 MiB shows as 13291, measured on an H200) */
        return csv_fixed(buf, len, ceil(v), 0);
    case GW_CSV_DOWN:
        return csv_fixed(buf, len, floor(v), 0);
    case GW_CSV_FIXED:
    case GW_CSV_TEXT:
        break;
    }
    return csv_fixed(buf, len, v, fi->csv_decimals);
}

int gw_field_by_key(gw_field_group group, const char *key)
{
    for (int f = 0; f < GW_F_TABLE_COUNT; f++) {
        const char *h = gw_fields[f].csv_header;
        if (gw_fields[f].group != group || !h)
            continue;
        size_t n = strcspn(h, " [");
        if (strlen(key) == n && strncmp(h, key, n) == 0)
            return f;
    }
    return -1;
}

double gw_host_value(const gw_host_sample *h, gw_field f)
{
    switch (f) {
    case GW_F_HOST_CPU_UTIL_PCT:
        return h->cpu_util_pct;
    case GW_F_HOST_MEM_USED_MIB:
        return h->mem_used_mib;
    case GW_F_HOST_MEM_TOTAL_MIB:
        return h->mem_total_mib;
    case GW_F_JOB_CPU_PCT:
        return h->job_cpu_pct;
    case GW_F_JOB_RSS_MIB:
        return h->job_rss_mib;
    case GW_F_JOB_PROCESSES:
        return h->job_processes;
    case GW_F_HOST_IOWAIT_PCT:
        return h->iowait_pct;
    case GW_F_HOST_STEAL_PCT:
        return h->steal_pct;
    case GW_F_HOST_OTHERS_PCT:
        return h->others_pct;
    default:
        break;
    }
    if (f < GW_F_ROLE_FIRST || f >= GW_F_ROLE(GW_ROLE_COUNT, 0))
        return NAN;
    const gw_role_sample *r = &h->role[(f - GW_F_ROLE_FIRST) / GW_F_ROLE_FIELDS];
    const double v[GW_F_ROLE_FIELDS] = {r->cpu_pct,      r->cpu_max_pct, r->saturated,
                                        r->processes,    r->running_pct, r->sleeping_pct,
                                        r->disk_wait_pct};
    return v[(f - GW_F_ROLE_FIRST) % GW_F_ROLE_FIELDS];
}
