/*
 * host_sample: the host and job side of one tick, as src/host/procfs.c reads it from /proc and
 * src/sampler carries it in gw_sample (sampler/sample.h). Its own header so that host/ does not
 * include the sampler above it.
 */
#ifndef GW_HOST_SAMPLE_H
#define GW_HOST_SAMPLE_H

#include <math.h>

/* The roles of the job's processes (gw_host_sample.role). */
typedef enum gw_role {
    GW_ROLE_TRAIN,   /* holds a GPU context (the training process, one per rank) */
    GW_ROLE_WORKERS, /* descends from a training process, no GPU context (DataLoader workers) */
    GW_ROLE_REST,    /* every other member (launchers, shells, helpers) */
    GW_ROLE_COUNT
} gw_role;

/* A member at or above this CPU % of one core is saturated. */
#define GW_ROLE_SATURATED_PCT 85.0

/* One role's CPU side for one tick; NAN = absent (no job, first tick, or no member yet). */
typedef struct gw_role_sample {
    double cpu_pct;       /* sum over the members, 100 = one core */
    double cpu_max_pct;   /* the busiest member, % of one core */
    double saturated;     /* members at >= GW_ROLE_SATURATED_PCT */
    double processes;     /* members */
    double running_pct;   /* % of the members runnable (state R) at the tick */
    double sleeping_pct;  /* % of the members sleeping (S, I) */
    double disk_wait_pct; /* % of the members in uninterruptible wait (D) */
} gw_role_sample;

/* Host and job CPU side for one tick (/proc). NAN = absent (e.g. job fields in `record`). */
typedef struct gw_host_sample {
    double cpu_util_pct;  /* GW_F_HOST_CPU_UTIL_PCT: all CPUs, 0-100, /proc/stat deltas */
    double mem_used_mib;  /* GW_F_HOST_MEM_USED_MIB: MemTotal - MemAvailable */
    double mem_total_mib; /* GW_F_HOST_MEM_TOTAL_MIB */
    double job_cpu_pct;   /* GW_F_JOB_CPU_PCT: job tree's CPU per wall time, 100 = one core */
    double job_rss_mib;   /* GW_F_JOB_RSS_MIB (shared pages counted per process) */
    double job_processes; /* GW_F_JOB_PROCESSES: processes in the job tree */
    double iowait_pct;    /* GW_F_HOST_IOWAIT_PCT: all CPUs' iowait share, /proc/stat deltas */
    double steal_pct;     /* GW_F_HOST_STEAL_PCT: all CPUs' steal share */
    double others_pct;    /* GW_F_HOST_OTHERS_PCT: CPU outside the job, % of all CPUs */
    gw_role_sample role[GW_ROLE_COUNT]; /* GW_F_ROLE_FIRST ...: the job's processes by role */
} gw_host_sample;

/* Every value absent. */
static inline gw_host_sample gw_host_sample_absent(void)
{
    gw_host_sample h = {NAN, NAN, NAN, NAN, NAN, NAN, NAN, NAN, NAN, {{0}}};
    for (int r = 0; r < GW_ROLE_COUNT; r++)
        h.role[r] = (gw_role_sample){NAN, NAN, NAN, NAN, NAN, NAN, NAN};
    return h;
}

#endif
