/* The verdict registry (see registry.h; docs/style.md, "Recipe: adding a verdict"). */
#include "analysis/registry.h"

#include "analysis/checks.h"

/* A row's thresholds, ended by -1; NO_TH: a verdict decided by events or the job's output. */
#define TH(...) ((const int[]){__VA_ARGS__, -1})
#define NO_TH   ((const int[]){-1})

const gw_verdict_def gw_verdict_registry[GW_V_COUNT] = {
    {GW_V_GPU_LOST, "gpu_lost", gw_check_gpu_lost, NULL, GW_SEV_CRITICAL, NO_TH,
     "report.md#how-the-report-decides", "tests/unit/test_verdicts.c:test_gpu_lost"},
    {GW_V_JOB_STALLED, "job_stalled", gw_check_job_stalled, NULL, GW_SEV_WARNING, NO_TH,
     "stalls-and-crashes.md#the-report-job_stalled",
     "tests/unit/test_job_verdicts.c:test_job_stalled_verdict"},
    {GW_V_OOM_CRASH, "oom_crash", gw_check_job_exit, NULL, GW_SEV_CRITICAL, NO_TH,
     "stalls-and-crashes.md#crashes-oom_crash-and-job_failed",
     "tests/unit/test_job_verdicts.c:test_oom_crash_verdict"},
    {GW_V_JOB_FAILED, "job_failed", gw_check_job_exit, NULL, GW_SEV_WARNING, NO_TH,
     "stalls-and-crashes.md#crashes-oom_crash-and-job_failed",
     "tests/unit/test_job_verdicts.c:test_failed_causes"},
    {GW_V_GPU_STARVED, "gpu_starved", NULL, gw_check_starved, GW_SEV_WARNING,
     TH(GW_TH_MIN_STEADY_S, GW_TH_MIN_STEADY_SAMPLES, GW_TH_BUSY_UTIL_PCT,
        GW_TH_STARVED_CRITICAL_PCT, GW_TH_LAUNCH_QUIET_PCT, GW_TH_WORKER_BUSY_PCT,
        GW_TH_MAIN_BUSY_PCT, GW_TH_HOST_CPU_BUSY_PCT, GW_TH_ROLE_SATURATED_PCT,
        GW_TH_SATURATED_SHARE_PCT, GW_TH_DISK_WAIT_PCT, GW_TH_IOWAIT_PCT, GW_TH_OTHERS_CPU_PCT,
        GW_TH_STEAL_PCT, GW_TH_EPOCH_START_WINDOW_S, GW_TH_EPOCH_START_STALL_S,
        GW_TH_EPOCH_START_MIN_EPOCHS, GW_TH_EPOCH_START_STALLED_PCT, GW_TH_PY_INPUT_BOUND_PCT,
        GW_TH_PY_MAIN_BOUND_PCT, GW_TH_PY_MIN_STEPS, GW_TH_EPOCH_START_IDLE_SHARE_PCT,
        GW_TH_SM_UTIL_RATIO),
     "report.md#why-the-gpu-waits-gpu_starved-evidence",
     "tests/unit/test_verdicts.c:test_starved_thresholds"},
    {GW_V_UNDERFILLED_KERNELS, "underfilled_kernels", NULL, gw_check_underfilled, GW_SEV_WARNING,
     TH(GW_TH_MIN_STEADY_S, GW_TH_MIN_STEADY_SAMPLES, GW_TH_BUSY_UTIL_PCT,
        GW_TH_UNDERFILL_MIN_SHARE, GW_TH_UNDERFILL_SM_ACTIVE_PCT, GW_TH_UNDERFILL_POWER_RATIO),
     "report.md#how-the-report-decides", "tests/unit/test_verdicts.c:test_underfilled_gpm"},
    {GW_V_MEMORY_LEAK, "memory_leak", NULL, gw_check_memory_leak, GW_SEV_WARNING,
     TH(GW_TH_MIN_STEADY_S, GW_TH_LEAK_MIN_R2, GW_TH_LEAK_MIN_GROWTH_MIB, GW_TH_LEAK_LATE_RATIO,
        GW_TH_LEAK_OOM_CRITICAL_S, GW_TH_PY_LEAK_MIN_MIB, GW_TH_PY_LEAK_MIN_PCT),
     "report.md#how-the-report-decides", "tests/unit/test_verdicts.c:test_memory_leak"},
    {GW_V_MEMORY_NEAR_CAPACITY, "memory_near_capacity", NULL, gw_check_memory_capacity,
     GW_SEV_WARNING, TH(GW_TH_MEM_CAPACITY_PCT, GW_TH_MEM_CAPACITY_CRIT_PCT, GW_TH_MEM_MIN_SAMPLES),
     "report.md#how-the-report-decides", "tests/unit/test_verdicts.c:test_memory_capacity"},
    {GW_V_IDLE_HOLDING_MEMORY, "idle_holding_memory", NULL, gw_check_idle_holding, GW_SEV_WARNING,
     TH(GW_TH_IDLE_UTIL_PCT, GW_TH_IDLE_HOLD_MIB, GW_TH_IDLE_HOLD_S, GW_TH_IDLE_HOLD_SAMPLES),
     "report.md#how-the-report-decides", "tests/unit/test_verdicts.c:test_idle_holding_memory"},
    {GW_V_THERMAL_THROTTLING, "thermal_throttling", NULL, gw_check_thermal, GW_SEV_WARNING,
     TH(GW_TH_MIN_STEADY_SAMPLES, GW_TH_THERMAL_SHARE_PCT, GW_TH_THERMAL_CRIT_SHARE_PCT,
        GW_TH_HOT_TEMP_C, GW_TH_HOT_MIN_S),
     "report.md#how-the-report-decides", "tests/unit/test_verdicts.c:test_thermal"},
    {GW_V_POWER_CAPPED, "power_capped", NULL, gw_check_power, GW_SEV_INFO,
     TH(GW_TH_MIN_STEADY_SAMPLES, GW_TH_POWER_CAP_SHARE_PCT, GW_TH_POWER_BRAKE_SHARE_PCT,
        GW_TH_POWER_NEAR_LIMIT_RATIO),
     "report.md#how-the-report-decides", "tests/unit/test_verdicts.c:test_power_capped"},
    {GW_V_EXPECTED_DIPS, "expected_dips", NULL, gw_check_expected_dips, GW_SEV_INFO,
     TH(GW_TH_DIP_MIN_S, GW_TH_DIP_ALIGN_S, GW_TH_DIP_BURST_S, GW_TH_DIP_PERIOD_CV,
        GW_TH_DIP_MIN_REGULAR, GW_TH_DIP_SHARE_WARN_PCT, GW_TH_BUSY_UTIL_PCT),
     "report.md#how-the-report-decides", "tests/unit/test_verdicts.c:test_expected_dips"},
    {GW_V_MULTI_GPU_IMBALANCE, "multi_gpu_imbalance", gw_check_imbalance, NULL, GW_SEV_WARNING,
     TH(GW_TH_MIN_STEADY_S, GW_TH_IMBALANCE_GAP_PCT, GW_TH_IMBALANCE_WINDOWS_PCT),
     "report.md#how-the-report-decides", "tests/unit/test_verdicts.c:test_imbalance"},
    {GW_V_GPU_SATURATED, "gpu_saturated", gw_check_saturated, NULL, GW_SEV_INFO,
     TH(GW_TH_MIN_STEADY_S, GW_TH_MIN_STEADY_SAMPLES, GW_TH_BUSY_UTIL_PCT),
     "report.md#how-the-report-decides", "tests/unit/test_verdicts.c:test_saturated"},
};

const gw_verdict_def *gw_verdict_def_of(gw_verdict_id id)
{
    for (size_t i = 0; i < GW_V_COUNT; i++)
        if (gw_verdict_registry[i].id == id)
            return &gw_verdict_registry[i];
    return NULL;
}
