/* The threshold table (see thresholds.h and docs/report.md for where each value comes from). */
#include "analysis/thresholds.h"

#include "host/host_sample.h"
#include "util/gw_severity.h"

const gw_threshold gw_thresholds[GW_TH_COUNT] = {
    [GW_TH_WORK_UTIL_PCT] = {"work_util_pct", 5, "utilization.gpu >= this: the GPU works"},
    [GW_TH_IDLE_UTIL_PCT] = {"idle_util_pct", 10, "utilization.gpu < this: an idle sample"},
    [GW_TH_BUSY_UTIL_PCT] = {"busy_util_pct", 80,
                             "mean utilization.gpu of the work time >= this: busy, < this: "
                             "starved"},
    [GW_TH_STARVED_CRITICAL_PCT] = {"starved_critical_util_pct", 50,
                                    "mean utilization.gpu < this: starvation is critical"},
    [GW_TH_LAUNCH_QUIET_PCT] = {"launch_quiet_share_pct", 5,
                                "starved, yet utilization.gpu below work_util_pct in at most "
                                "this share of the work time: never left waiting, only lightly "
                                "used - launch-bound"},
    [GW_TH_MIN_STEADY_S] = {"min_steady_s", 10, "shorter steady states are not judged"},
    [GW_TH_MIN_STEADY_SAMPLES] = {"min_steady_samples", 10,
                                  "steady states with fewer samples are not judged (busy, "
                                  "starved, thermal, power verdicts)"},
    [GW_TH_TAIL_RELEASE_PCT] = {"tail_release_pct", 25,
                                "memory.used below this share of its steady-state peak from "
                                "some row to the end, with utilization.gpu below busy_util_pct "
                                "on average: the job let go of the GPU, the tail starts there"},
    [GW_TH_DIP_MIN_S] = {"dip_min_s", 2, "idle runs at least this long in steady state are dips"},
    [GW_TH_DIP_ALIGN_S] = {"dip_align_s", 3,
                           "a dip within this many seconds of an epoch boundary belongs to it"},
    [GW_TH_DIP_BURST_S] = {"dip_burst_s", 1,
                           "busy bursts shorter than this between idle runs (a validation "
                           "pass's forward steps) do not split them: one dip"},
    [GW_TH_DIP_PERIOD_CV] = {"dip_period_cv", 0.25,
                             "without epochs, dips whose intervals vary by at most this "
                             "(coefficient of variation) are regular"},
    [GW_TH_DIP_MIN_REGULAR] = {"dip_min_regular", 3,
                               "without epochs, at least this many dips to call them regular"},
    [GW_TH_DIP_SHARE_WARN_PCT] = {"dip_share_warn_pct", 30,
                                  "expected dips taking more than this share of the steady "
                                  "state: expected_dips becomes a warning"},
    [GW_TH_UNDERFILL_SM_ACTIVE_PCT] = {"underfill_sm_active_pct", 25,
                                       "GPM SM activity (p50) below this while utilization.gpu "
                                       ">= busy: underfilled kernels"},
    [GW_TH_UNDERFILL_POWER_RATIO] = {"underfill_power_ratio", 0.30,
                                     "without GPM: power.draw p50 / power.limit below this while "
                                     "utilization.gpu >= busy: underfilled kernels"},
    [GW_TH_UNDERFILL_MIN_SHARE] = {"underfill_min_busy_share_pct", 50,
                                   "share of the work time at utilization.gpu >= busy needed to "
                                   "judge kernel size"},
    [GW_TH_LEAK_MIN_R2] = {"leak_min_r2", 0.9, "memory.used grows linearly: fit R^2 above this"},
    [GW_TH_LEAK_MIN_GROWTH_MIB] = {"leak_min_growth_mib", 1024,
                                   "memory.used grows by more than this over the window"},
    [GW_TH_LEAK_LATE_RATIO] = {"leak_late_ratio", 0.5,
                               "slope of the second half / slope of the window above this: "
                               "still growing at the end"},
    [GW_TH_LEAK_OOM_CRITICAL_S] = {"leak_oom_critical_s", 3600,
                                   "projected time to out-of-memory below this: critical"},
    [GW_TH_MEM_CAPACITY_PCT] = {"memory_capacity_pct", GW_MEMORY_WARNING_PCT,
                                "peak memory.used / memory.total above this: near capacity"},
    [GW_TH_MEM_CAPACITY_CRIT_PCT] = {"memory_capacity_critical_pct", GW_MEMORY_CRITICAL_PCT,
                                     "peak memory.used / memory.total above this: critical"},
    [GW_TH_MEM_MIN_SAMPLES] = {"memory_min_samples", 5,
                               "memory verdicts need at least this many memory.used samples"},
    [GW_TH_THERMAL_SHARE_PCT] = {"thermal_share_pct", 5,
                                 "share of steady time with thermal slowdown above this: "
                                 "throttling"},
    [GW_TH_THERMAL_CRIT_SHARE_PCT] = {"thermal_critical_share_pct", 50,
                                      "share of steady time with thermal slowdown above this: "
                                      "critical"},
    [GW_TH_HOT_TEMP_C] = {"hot_temp_c", 83, "temperature.gpu above this is hot"},
    [GW_TH_HOT_MIN_S] = {"hot_min_s", 180, "hot for longer than this without throttling: info"},
    [GW_TH_POWER_CAP_SHARE_PCT] = {"power_cap_share_pct", 20,
                                   "share of steady time at the software power cap above this"},
    [GW_TH_POWER_BRAKE_SHARE_PCT] = {"power_brake_share_pct", 1,
                                     "share of steady time with the hardware power brake above "
                                     "this"},
    [GW_TH_POWER_NEAR_LIMIT_RATIO] = {"power_near_limit_ratio", 0.97,
                                      "without clocks_event_reasons: power.draw / power.limit at "
                                      "or above this counts as capped"},
    [GW_TH_IDLE_HOLD_MIB] = {"idle_hold_mib", 1024,
                             "an idle stretch holding at least this much memory"},
    [GW_TH_IDLE_HOLD_S] = {"idle_hold_s", 60,
                           "idle stretch holding memory longer than this: idle_holding_memory"},
    [GW_TH_IDLE_HOLD_SAMPLES] = {"idle_hold_samples", 3,
                                 "... and over at least this many samples (one reading is no "
                                 "stretch)"},
    [GW_TH_IMBALANCE_GAP_PCT] = {"imbalance_gap_pct", 15,
                                 "a GPU's mean utilization.gpu more than this many points below "
                                 "the median of all GPUs"},
    [GW_TH_IMBALANCE_WINDOWS_PCT] = {"imbalance_windows_pct", 70,
                                     "... and below the median in more than this share of 10 "
                                     "equal windows: consistently"},
    [GW_TH_WORKER_BUSY_PCT] = {"worker_busy_pct", 60,
                               "job CPU per DataLoader worker above this: workers are busy"},
    [GW_TH_MAIN_BUSY_PCT] = {"main_busy_pct", 80,
                             "job CPU above this with no worker: the main process is busy"},
    [GW_TH_HOST_CPU_BUSY_PCT] = {"host_cpu_busy_pct", 90,
                                 "host CPU above this: the CPUs are saturated"},
    [GW_TH_ROLE_SATURATED_PCT] = {"role_saturated_pct", GW_ROLE_SATURATED_PCT,
                                  "a process at or above this share of one core is saturated "
                                  "(host.csv counts them per role while recording)"},
    [GW_TH_SATURATED_SHARE_PCT] = {"saturated_share_pct", 50,
                                   "a role (training process, workers) has a member at >= 85 % "
                                   "of a core in more than this share of the steady state"},
    [GW_TH_DISK_WAIT_PCT] = {"disk_wait_pct", 20,
                             "job processes in uninterruptible wait (D) more than this share "
                             "of the time: io_wait"},
    [GW_TH_IOWAIT_PCT] = {"iowait_pct", 20, "host iowait above this: io_wait"},
    [GW_TH_OTHERS_CPU_PCT] = {"others_cpu_pct", 50,
                              "with the host CPUs saturated, CPU used outside the job above this "
                              "(% of all CPUs): host_contention"},
    [GW_TH_STEAL_PCT] = {"steal_pct", 10, "CPU steal above this: host_contention"},
    [GW_TH_EPOCH_START_WINDOW_S] = {"epoch_start_window_s", 15,
                                    "the first this many seconds of an epoch (at most half of "
                                    "it) are its start"},
    [GW_TH_EPOCH_START_STALL_S] = {"epoch_start_stall_s", 1,
                                   "an epoch whose GPU idles at least this long in its start "
                                   "window stalled at its start"},
    [GW_TH_EPOCH_START_MIN_EPOCHS] = {"epoch_start_min_epochs", 2,
                                      "epoch_start needs at least this many epochs in the steady "
                                      "state"},
    [GW_TH_EPOCH_START_STALLED_PCT] = {"epoch_start_stalled_pct", 200.0 / 3,
                                       "... of which at least this share (two thirds) stalled at "
                                       "their start"},
    [GW_TH_EPOCH_START_IDLE_SHARE_PCT] = {"epoch_start_idle_share_pct", 50,
                                          "idle time at epoch starts above this share of all "
                                          "idle time (in 2/3 of at least 2 epochs): "
                                          "epoch_start"},
    [GW_TH_SM_UTIL_RATIO] = {"sm_util_ratio", 0.5,
                             "GPM SM activity below this fraction of GPU-Util while busy: the "
                             "kernels fill little of the GPU"},
    [GW_TH_PY_INPUT_BOUND_PCT] = {"python_input_bound_pct", 30,
                                  "in-job data: the training loop waiting for its DataLoader at "
                                  "least this share of its step time is input-bound"},
    [GW_TH_PY_MAIN_BOUND_PCT] = {"python_main_bound_pct", 10,
                                 "in-job data: waiting at most this share, the training process "
                                 "itself is the bound"},
    [GW_TH_PY_MIN_STEPS] = {"python_min_steps", 10,
                            "in-job data: the data-wait share is judged from at least this many "
                            "training steps"},
    [GW_TH_PY_LEAK_MIN_MIB] = {"python_leak_min_mib", 64,
                               "in-job data: torch's allocated memory growing at every epoch end "
                               "(at least 3) by at least this much in all is a leak"},
    [GW_TH_PY_LEAK_MIN_PCT] = {"python_leak_min_pct", 5,
                               "... and by at least this share of the first value"},
};
