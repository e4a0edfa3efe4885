/*
 * child: starts the wrapped command and owns its terminal plumbing.
 *
 * Owns: the command's pid and process group, the pseudo-terminal (when gpuwatch's own stdin and
 * stdout are terminals: progress bars and colours keep working) or the stdout/stderr pipes
 * (otherwise), and the state of gpuwatch's own terminal while it is in raw mode. The command
 * starts in its own session (pty) or process group (pipes), with the given environment, through
 * execve of a path resolved beforehand: between fork and exec the child only makes
 * async-signal-safe calls, since gpuwatch's sampling threads are already running.
 *
 * The job's fate if gpuwatch dies (even by SIGKILL): a small guard process, forked with the job
 * and stopped by gw_child_close, sends SIGTERM to the job's process group (docs/run-directory.md)
 * and then reads (and drops) the job's output for up to GW_GUARD_GRACE_S, so that a job printing
 * while it saves a checkpoint is not killed by SIGPIPE.
 *
 * Must not: read the command's output (the session relays it) or wait for it.
 */
#ifndef GW_CHILD_H
#define GW_CHILD_H

#include "host/exec.h"
#include "util/gw_error.h"

#include <stdbool.h>
#include <sys/types.h>
#include <termios.h>

/* Seconds the guard keeps the job's output pipes read after gpuwatch died (Slurm's KillWait). */
#define GW_GUARD_GRACE_S 30

typedef struct gw_child {
    pid_t pid;
    bool use_pty;
    int pty_master; /* pty mode: the command's terminal (read output, write input) */
    int out_fd;     /* pipe mode: the command's stdout; -1 in pty mode */
    int err_fd;     /* pipe mode: the command's stderr; -1 in pty mode */
    bool tty_raw;   /* gpuwatch's stdin terminal was put in raw mode */
    pid_t guard;    /* the guard process (0: none): SIGTERMs the job if gpuwatch dies */
    int guard_fd;   /* its pidfd, -1 when none */
    struct termios saved_tty;
} gw_child;

/* Starts path with argv and env. With use_pty, the command gets a new pseudo-terminal sized like
 * gpuwatch's stdout and gpuwatch's stdin terminal goes raw (gw_child_restore_tty undoes it).
 * Exec failures are reported here (the child tells the parent through a close-on-exec pipe). */
GW_MUST_USE gw_rc gw_child_spawn(gw_child *c, const char *path, char *const argv[],
                                 char *const env[], bool use_pty, gw_error *err);

/* Sends sig to the command's foreground process group (pty) or its process group. */
void gw_child_signal(const gw_child *c, int sig);

/* Copies gpuwatch's terminal size to the command's terminal (after SIGWINCH). */
void gw_child_resize(const gw_child *c);

/* Restores gpuwatch's terminal if it was made raw. Safe to call more than once. */
void gw_child_restore_tty(gw_child *c);

/* Closes the descriptors (after the command exited and its output was drained). */
void gw_child_close(gw_child *c);

/* True when stdin and stdout are both terminals (then `run` uses a pseudo-terminal). */
bool gw_child_want_pty(void);

#endif
