/*
 * proc_wait: what one process is doing right now, from /proc — for the evidence of a stalled job.
 *
 * Owns: reading /proc/PID/stat (state, parent), /proc/PID/comm (name), /proc/PID/wchan (the kernel
 * function a sleeping process waits in) and /proc/PID/syscall (the system call it is blocked in,
 * when the kernel lets us read it: same user and ptrace access, which gpuwatch has over the job it
 * started), and the names of the system calls a hung job usually waits in (futex, poll, read, ...).
 * These are the main thread's values (the thread-group leader). Must not: keep state, print, or
 * walk process trees (procfs.h does).
 */
#ifndef GW_PROC_WAIT_H
#define GW_PROC_WAIT_H

#include <stdbool.h>
#include <sys/types.h>

enum {
    GW_SYSCALL_RUNNING = -1, /* /proc/PID/syscall says "running" or "-1": not in a system call */
    GW_SYSCALL_UNKNOWN = -2, /* /proc/PID/syscall could not be read (permission, old kernel) */
};

typedef struct gw_proc_wait {
    pid_t pid;
    pid_t ppid;
    char name[64];   /* comm, "" when unknown */
    char state;      /* R running, S sleeping, D uninterruptible (disk/driver), Z zombie, T stopped,
                        t traced, I idle kernel thread, ... ; 0 when unknown */
    char wchan[64];  /* kernel wait function ("futex_wait_queue", "pipe_read"); "" when the process
                        runs, or the kernel hides it (it then shows "0") */
    long syscall_nr; /* system call number, or GW_SYSCALL_RUNNING / GW_SYSCALL_UNKNOWN */
} gw_proc_wait;

/* Reads what process pid is doing from PROC_ROOT (NULL: /proc) into *out. Returns false when the
 * process has no /proc entry (it exited); the wchan and syscall parts are optional (left empty /
 * GW_SYSCALL_UNKNOWN when unreadable). Thread-safe. */
bool gw_proc_wait_read(const char *proc_root, pid_t pid, gw_proc_wait *out);

/* The name of a system call number of this architecture ("futex"), or NULL when it is not one of
 * the calls this table knows (the blocking ones and the common ones). */
const char *gw_syscall_name(long nr);

/* Writes the system call of w as text into buf: its name, "syscall N" for a number without a
 * name, "running", or "" when unknown. Returns buf. */
const char *gw_proc_wait_syscall_text(const gw_proc_wait *w, char *buf, unsigned len);

#endif
