/*
 * host_sample: the host and job side of one tick, as src/host/procfs.c reads it from /proc and
 * src/sampler carries it in gw_sample (sampler/sample.h). Its own header so that host/ does not
 * include the sampler above it.
 */
#ifndef GW_HOST_SAMPLE_H
#define GW_HOST_SAMPLE_H

/* Host and job CPU side for one tick (/proc). NAN = absent (e.g. job fields in `record`). */
typedef struct gw_host_sample {
    double cpu_util_pct;  /* GW_F_HOST_CPU_UTIL_PCT: all CPUs, 0-100, /proc/stat deltas */
    double mem_used_mib;  /* GW_F_HOST_MEM_USED_MIB: MemTotal - MemAvailable */
    double mem_total_mib; /* GW_F_HOST_MEM_TOTAL_MIB */
    double job_cpu_pct;   /* GW_F_JOB_CPU_PCT: job tree's CPU per wall time, 100 = one core */
    double job_rss_mib;   /* GW_F_JOB_RSS_MIB (shared pages counted per process) */
    double job_processes; /* GW_F_JOB_PROCESSES: processes in the job tree */
} gw_host_sample;

#endif
