/*
 * procscan: finds the process that a scenario's "pid": "child" stands for — the first child of
 * the process calling NVML — by scanning /proc.
 *
 * "First" is the earliest start time (ties: the lower pid), so that the job gpuwatch started is
 * found even after it has forked workers of its own or gpuwatch has started helper processes.
 * Zombies are skipped: a GPU lists only live processes.
 * Must not: take the state lock (a scan reads hundreds of files; callers release the lock).
 */
#ifndef FAKE_PROCSCAN_H
#define FAKE_PROCSCAN_H

#include <sys/types.h>

/* The pid of parent's first live child, or 0 when it has none. */
pid_t fake_first_child(pid_t parent);

#endif
