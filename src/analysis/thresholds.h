/*
 * thresholds: every number the analysis compares against, in one table, so that code, docs
 * (docs/report.md) and summary.json ("thresholds") show the same values.
 *
 * A verdict fires only when its value passes the threshold strictly: a value equal to the
 * threshold does not fire (except where the table says ">=").
 * Must not: hold state; the table is constant.
 */
#ifndef GW_THRESHOLDS_H
#define GW_THRESHOLDS_H

typedef enum gw_threshold_id {
    GW_TH_WORK_UTIL_PCT,        /* util >= this: the GPU works (ends start-up, starts tail) */
    GW_TH_IDLE_UTIL_PCT,        /* util < this: an idle sample */
    GW_TH_BUSY_UTIL_PCT,        /* mean util of the work time >= this: busy; < this: starved */
    GW_TH_STARVED_CRITICAL_PCT, /* mean util < this: starved is critical */
    GW_TH_LAUNCH_QUIET_PCT,     /* starved, util < work_util_pct at most this % of the time */
    GW_TH_MIN_STEADY_S,         /* steady state shorter than this: too short to judge */
    GW_TH_MIN_STEADY_SAMPLES,   /* ... or with fewer samples than this (a 60 s log's 2 rows) */
    GW_TH_TAIL_RELEASE_PCT,     /* memory.used below this % of its peak to the end: job over */
    GW_TH_DIP_MIN_S,            /* an idle run at least this long inside steady state: a dip */
    GW_TH_DIP_ALIGN_S,          /* a dip within this of an epoch boundary is at the boundary */
    GW_TH_DIP_BURST_S,          /* busy bursts shorter than this do not split an idle run */
    GW_TH_DIP_PERIOD_CV,        /* dips without epochs: intervals' CV <= this is regular */
    GW_TH_DIP_MIN_REGULAR,      /* dips without epochs: at least this many to call them regular */
    GW_TH_DIP_SHARE_WARN_PCT,   /* expected dips taking more of the steady state: a warning */
    GW_TH_UNDERFILL_SM_ACTIVE_PCT, /* GPM SM active p50 < this at high util: underfilled */
    GW_TH_UNDERFILL_POWER_RATIO,   /* without GPM: power p50 / limit < this at high util */
    GW_TH_UNDERFILL_MIN_SHARE,     /* % of work time at util >= busy needed to judge kernels */
    GW_TH_LEAK_MIN_R2,             /* linear fit of memory.used: R^2 > this */
    GW_TH_LEAK_MIN_GROWTH_MIB,     /* growth over the fitted window > this */
    GW_TH_LEAK_LATE_RATIO,        /* slope of the second half / whole slope > this: still growing */
    GW_TH_LEAK_OOM_CRITICAL_S,    /* projected time to out-of-memory < this: critical */
    GW_TH_MEM_CAPACITY_PCT,       /* peak memory.used / total > this: near capacity */
    GW_TH_MEM_CAPACITY_CRIT_PCT,  /* > this: critical */
    GW_TH_MEM_MIN_SAMPLES,        /* memory verdicts need at least this many memory.used samples */
    GW_TH_THERMAL_SHARE_PCT,      /* share of steady time thermally slowed > this: throttling */
    GW_TH_THERMAL_CRIT_SHARE_PCT, /* > this: critical */
    GW_TH_HOT_TEMP_C,             /* without throttling: temperature > this ... */
    GW_TH_HOT_MIN_S,              /* ... for longer than this: info "running hot" */
    GW_TH_POWER_CAP_SHARE_PCT,    /* share of steady time at the SW power cap > this: info */
    GW_TH_POWER_BRAKE_SHARE_PCT,  /* share of steady time with HW power brake > this: warning */
    GW_TH_POWER_NEAR_LIMIT_RATIO, /* without the reasons column: power / limit >= this is capped */
    GW_TH_IDLE_HOLD_MIB,          /* idle stretch holding at least this much memory ... */
    GW_TH_IDLE_HOLD_S,            /* ... for longer than this: idle_holding_memory */
    GW_TH_IDLE_HOLD_SAMPLES,      /* ... over at least this many samples */
    GW_TH_IMBALANCE_GAP_PCT,      /* util mean this many points below the median of all GPUs */
    GW_TH_IMBALANCE_WINDOWS_PCT,  /* ... and below in more than this share of 10 windows */
    GW_TH_WORKER_BUSY_PCT,        /* job CPU per DataLoader worker > this: workers busy */
    GW_TH_MAIN_BUSY_PCT,          /* job CPU > this with no workers: the main process is busy */
    GW_TH_HOST_CPU_BUSY_PCT,      /* host CPU > this: CPUs saturated */
    GW_TH_ROLE_SATURATED_PCT,     /* a process at >= this % of a core is saturated (host.csv) */
    GW_TH_SATURATED_SHARE_PCT,    /* a role has a saturated member more of the work time */
    GW_TH_DISK_WAIT_PCT,          /* a role's members in state D more of the time: io_wait */
    GW_TH_IOWAIT_PCT,             /* host iowait above this: io_wait */
    GW_TH_OTHERS_CPU_PCT,         /* CPU outside the job above this (% of all CPUs) */
    GW_TH_STEAL_PCT,              /* steal above this: host_contention */
    GW_TH_EPOCH_START_WINDOW_S,   /* the first seconds of an epoch that count as its start */
    GW_TH_EPOCH_START_STALL_S,    /* an epoch idling this long at its start stalled */
    GW_TH_EPOCH_START_MIN_EPOCHS, /* epoch_start needs at least this many epochs ... */
    GW_TH_EPOCH_START_STALLED_PCT,    /* ... at least this % of them stalled ... */
    GW_TH_EPOCH_START_IDLE_SHARE_PCT, /* ... and their idle above this share of all idle */
    GW_TH_SM_UTIL_RATIO,              /* SM activity / GPU-Util below this while busy: small */
    GW_TH_PY_INPUT_BOUND_PCT,         /* in-job: data wait >= this share of a step: input-bound */
    GW_TH_PY_MAIN_BOUND_PCT,          /* ... <= this: the training process itself */
    GW_TH_PY_MIN_STEPS,               /* ... judged from at least this many training steps */
    GW_TH_PY_LEAK_MIN_MIB,            /* allocator: allocated grew at every epoch by >= this */
    GW_TH_PY_LEAK_MIN_PCT,            /* ... and by >= this share of the first */
    GW_TH_COUNT
} gw_threshold_id;

typedef struct gw_threshold {
    const char *key; /* stable name used in summary.json and docs: "busy_util_pct" */
    double value;
    const char *meaning; /* one line for docs and --help */
} gw_threshold;

extern const gw_threshold gw_thresholds[GW_TH_COUNT];

/* The value of threshold id. */
#define GW_TH(id) (gw_thresholds[(id)].value)

#endif
