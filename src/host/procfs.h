/*
 * procfs: the CPU side of a tick, read from /proc.
 *
 * Owns: the host's CPU utilisation and memory (/proc/stat, /proc/meminfo), and the wrapped job's
 * process tree — every descendant of the job's root pid (DataLoader workers included), found
 * through /proc/PID/task/PID/children on each tick and a full scan of /proc/[pid]/stat every
 * `rescan_ms` (children of other threads, processes re-parented to us as child subreaper) — with
 * its CPU % and resident memory. CPU % needs two reads, so the first tick has no CPU values.
 *
 * On the real /proc, the stat and children files of up to 128 members stay open between ticks
 * (pread; O_CLOEXEC), closed when the member leaves the job and by gw_procfs_free.
 *
 * A pid that vanishes between listing and reading is skipped; a pid with no /proc entry (another
 * PID namespace) is reported as not visible. Must not: call NVML, print, or allocate per tick
 * beyond amortised growth of its tables. Not thread-safe: one owner thread (the sampler's).
 */
#ifndef GW_PROCFS_H
#define GW_PROCFS_H

#include "host/host_sample.h"

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

typedef struct gw_procfs gw_procfs;

/* proc_root: "/proc" when NULL (tests point it at a fake tree). The caller frees with
 * gw_procfs_free. */
gw_procfs *gw_procfs_new(const char *proc_root);
void gw_procfs_free(gw_procfs *p);

/* The job's root pid (0 = no job: job fields are absent). The tree is rooted at the job: its
 * descendants, and processes re-parented to `self` (gpuwatch as child subreaper adopts the job's
 * orphans; 0 = none) only when they are in the job's process group or session (both the root's
 * pid: the command starts as a group or session leader). gpuwatch's other children and their
 * orphans (alert hooks, which run in their own process groups) are never members. */
void gw_procfs_set_job(gw_procfs *p, pid_t root, pid_t self);
/* Replaces the set of pids that are never job members, with every process of the process groups
 * they lead (alert hook supervisors); 0 entries are ignored, at most 16 are kept. */
void gw_procfs_set_excluded(gw_procfs *p, const pid_t *pids, size_t n);
/* How often the whole of /proc is scanned for job members (ms, default 2000). */
void gw_procfs_set_rescan_ms(gw_procfs *p, int64_t rescan_ms);

/* The pids that hold a GPU context (the sampler's process list): job members among them are the
 * training role, their descendants the workers, other members the rest (host_sample.h). */
void gw_procfs_set_gpu_pids(gw_procfs *p, const unsigned *pids, size_t n);

/* Reads host and job values at monotonic time mono_ns into *h (absent values are NAN). */
void gw_procfs_sample(gw_procfs *p, int64_t mono_ns, gw_host_sample *h);

/* True when pid was in the job tree at the last gw_procfs_sample. */
bool gw_procfs_in_job(const gw_procfs *p, unsigned pid);

/* Copies the job's member pids at the last sample into out (up to cap); returns the count. */
size_t gw_procfs_job_pids(const gw_procfs *p, pid_t *out, size_t cap);

/* /PROC_ROOT/PID/comm into buf (newline stripped). Returns false when the pid has no /proc entry.
 * Thread-safe (no state). */
bool gw_procfs_comm(const char *proc_root, unsigned pid, char *buf, size_t len);

/* False when /PROC_ROOT/PID/fd is readable and holds no /dev/nvidia* file: that pid is not the
 * process NVML means (inside a container without the host's pid namespace NVML names host pids,
 * which here are other processes). True when it holds one, or cannot be read (unknown: trusted).
 * Only meaningful where the driver's devices exist (/dev/nvidiactl): the caller checks. */
bool gw_procfs_may_use_gpu(const char *proc_root, unsigned pid);

/* Reads a small file (a /proc entry) into buf, NUL-terminated, at most len - 1 bytes. Returns the
 * bytes read, or -1 when it cannot be opened or read. Thread-safe (no state). */
ssize_t gw_procfs_read_small(const char *path, char *buf, size_t len);

/* Fields of /proc/PID/stat that gpuwatch uses. */
typedef struct gw_proc_stat {
    pid_t pid;
    pid_t ppid;
    pid_t pgrp;               /* process group */
    pid_t session;            /* session id */
    char state;               /* R, S, D, Z, T, ... */
    unsigned long long utime; /* clock ticks */
    unsigned long long stime;
    unsigned long long starttime;
    long rss_pages;
} gw_proc_stat;

/* Parses one /proc/PID/stat line (comm may hold spaces and parentheses). Returns false on a
 * malformed line. */
bool gw_proc_stat_parse(const char *line, gw_proc_stat *out);

#endif
