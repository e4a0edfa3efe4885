#include "run/child.h"

#include "util/xalloc.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

bool gw_child_want_pty(void)
{
    return isatty(STDIN_FILENO) && isatty(STDOUT_FILENO);
}

/* Puts gpuwatch's terminal in raw mode: keys go to the command's terminal unchanged (Ctrl-C
 * becomes the command's SIGINT through its own line discipline). Output processing stays on so
 * gpuwatch's own messages keep their line starts. */
static void make_raw(gw_child *c)
{
    if (tcgetattr(STDIN_FILENO, &c->saved_tty) != 0)
        return;
    struct termios raw = c->saved_tty;
    cfmakeraw(&raw);
    raw.c_oflag |= OPOST | ONLCR;
    if (tcsetattr(STDIN_FILENO, TCSAFLUSH, &raw) == 0)
        c->tty_raw = true;
}

void gw_child_restore_tty(gw_child *c)
{
    if (c->tty_raw) {
        tcsetattr(STDIN_FILENO, TCSAFLUSH, &c->saved_tty);
        c->tty_raw = false;
    }
}

void gw_child_resize(const gw_child *c)
{
    struct winsize ws;
    if (c->use_pty && ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0)
        ioctl(c->pty_master, TIOCSWINSZ, &ws);
}

/* In the forked child: only async-signal-safe calls until execve. */
static void child_exec(const char *path, char *const argv[], char *const env[], bool use_pty,
                       const char *slave_name, int out_w, int err_w, int report_w)
{
    sigset_t none;
    sigemptyset(&none);
    for (int sig = 1; sig < NSIG; sig++)
        if (sig != SIGKILL && sig != SIGSTOP)
            signal(sig, SIG_DFL);
    sigprocmask(SIG_SETMASK, &none, NULL);
    if (use_pty) {
        setsid();
        int slave = open(slave_name, O_RDWR);
        if (slave < 0)
            goto fail;
        ioctl(slave, TIOCSCTTY, 0);
        dup2(slave, STDIN_FILENO);
        dup2(slave, STDOUT_FILENO);
        dup2(slave, STDERR_FILENO);
        if (slave > STDERR_FILENO)
            close(slave);
    } else {
        setpgid(0, 0);
        dup2(out_w, STDOUT_FILENO);
        dup2(err_w, STDERR_FILENO);
        close(out_w);
        close(err_w);
    }
    execve(path, argv, env);
fail:;
    int e = errno;
    ssize_t n = write(report_w, &e, sizeof e);
    (void)n;
    _exit(127);
}

/* After gpuwatch died: reads and drops what the job writes to its stdout and stderr pipes (fds
 * 3 and 4, -1 when absent) until every writer closed them or GW_GUARD_GRACE_S passed. Without a
 * reader, the first line a job prints in its SIGTERM handler ("saving checkpoint...") killed it
 * with SIGPIPE (a BrokenPipeError in Python) before the checkpoint was saved. */
static void drain(int fds[2])
{
    struct timespec t0, now;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    char buf[4096];
    for (;;) {
        struct pollfd p[2];
        nfds_t n = 0;
        for (int i = 0; i < 2; i++)
            if (fds[i] >= 0)
                p[n++] = (struct pollfd){.fd = fds[i], .events = POLLIN};
        clock_gettime(CLOCK_MONOTONIC, &now);
        long left_ms = GW_GUARD_GRACE_S * 1000L - (now.tv_sec - t0.tv_sec) * 1000L -
                       (now.tv_nsec - t0.tv_nsec) / 1000000L;
        if (n == 0 || left_ms <= 0)
            return;
        int r = poll(p, n, (int)left_ms);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return;
        for (nfds_t k = 0; k < n; k++)
            if (p[k].revents && read(p[k].fd, buf, sizeof buf) <= 0)
                for (int i = 0; i < 2; i++)
                    if (fds[i] == p[k].fd) {
                        close(fds[i]);
                        fds[i] = -1;
                    }
    }
}

/* The guard process (forked from a threaded program: async-signal-safe calls only). It holds no
 * descriptor of gpuwatch's but the read ends of the job's output pipes (pipe mode; it reads them
 * only once gpuwatch is gone), and blocks every signal; PR_SET_PDEATHSIG turns gpuwatch's death
 * (the death of the thread that forked it, which is the session's thread that lives until
 * gpuwatch exits) into a SIGTERM here, and then the job's process group gets SIGTERM. A SIGTERM
 * from anyone else while gpuwatch lives (a kill of gpuwatch's process group) changes nothing. */
static void guard(pid_t parent, pid_t job, int out_fd, int err_fd)
{
    /* the job's pipes as fds 3 and 4 (copied above 64 first, so that neither overwrites the
     * other), everything else closed */
    int keep[2] = {out_fd >= 0 ? fcntl(out_fd, F_DUPFD, 64) : -1,
                   err_fd >= 0 ? fcntl(err_fd, F_DUPFD, 64) : -1};
    for (int i = 0; i < 2; i++)
        if (keep[i] >= 0)
            keep[i] = dup2(keep[i], 3 + i);
    for (int fd = 0; fd < 3; fd++)
        close(fd);
    if (syscall(SYS_close_range, 5U, ~0U, 0U) != 0)
        for (int fd = 5; fd < 4096; fd++)
            close(fd);
    sigset_t all, term;
    sigfillset(&all);
    sigprocmask(SIG_SETMASK, &all, NULL);
    sigemptyset(&term);
    sigaddset(&term, SIGTERM);
    /* A group of its own: a signal to gpuwatch's group (`timeout -s KILL gpuwatch run ...`) kills
     * gpuwatch, not its guard. */
    setpgid(0, 0);
    prctl(PR_SET_NAME, "gpuwatch-guard");
    prctl(PR_SET_PDEATHSIG, SIGTERM);
    /* gpuwatch may have died before the line above: then the parent is already another one. */
    while (getppid() == parent) {
        struct timespec wait = {1, 0};
        sigtimedwait(&term, NULL, &wait);
    }
    kill(-job, SIGTERM);
    drain(keep);
    _exit(0);
}

static void start_guard(gw_child *c)
{
    c->guard_fd = -1;
    pid_t parent = getpid();
    pid_t g = fork();
    if (g == 0)
        guard(parent, c->pid, c->out_fd, c->err_fd);
    if (g < 0)
        return;    /* the job still runs; only its fate if gpuwatch is killed is left to chance */
    setpgid(g, g); /* also here, so that the group exists whoever runs first */
    c->guard = g;
    /* A pidfd signals this process and no other, even if someone else reaped it. */
    c->guard_fd = (int)syscall(SYS_pidfd_open, g, 0U);
}

static void stop_guard(gw_child *c)
{
    if (c->guard <= 0)
        return;
    if (c->guard_fd >= 0) {
        syscall(SYS_pidfd_send_signal, c->guard_fd, SIGKILL, NULL, 0U);
        close(c->guard_fd);
    } else {
        kill(c->guard, SIGKILL);
    }
    while (waitpid(c->guard, NULL, 0) < 0 && errno == EINTR) {
    }
    c->guard = 0;
    c->guard_fd = -1;
}

gw_rc gw_child_spawn(gw_child *c, const char *path, char *const argv[], char *const env[],
                     bool use_pty, gw_error *err)
{
    memset(c, 0, sizeof *c);
    c->pty_master = c->out_fd = c->err_fd = c->guard_fd = -1;
    c->use_pty = use_pty;
    int report[2], outp[2] = {-1, -1}, errp[2] = {-1, -1};
    char slave_name[128] = "";
    if (pipe2(report, O_CLOEXEC) != 0)
        return gw_error_set(err, GW_E_SYSTEM, "pipe: %s", strerror(errno));
    if (use_pty) {
        c->pty_master = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
        if (c->pty_master < 0 || grantpt(c->pty_master) != 0 || unlockpt(c->pty_master) != 0 ||
            ptsname_r(c->pty_master, slave_name, sizeof slave_name) != 0) {
            int e = errno;
            close(report[0]);
            close(report[1]);
            if (c->pty_master >= 0)
                close(c->pty_master);
            return gw_error_set(err, GW_E_SYSTEM, "cannot create a pseudo-terminal: %s",
                                strerror(e));
        }
        gw_child_resize(c);
    } else if (pipe2(outp, O_CLOEXEC) != 0 || pipe2(errp, O_CLOEXEC) != 0) {
        int e = errno;
        close(report[0]);
        close(report[1]);
        return gw_error_set(err, GW_E_SYSTEM, "pipe: %s", strerror(e));
    }
    pid_t pid = fork();
    if (pid < 0) {
        int e = errno;
        close(report[0]);
        close(report[1]);
        gw_child_close(c);
        return gw_error_set(err, GW_E_SYSTEM, "fork: %s", strerror(e));
    }
    if (pid == 0)
        child_exec(path, argv, env, use_pty, slave_name, outp[1], errp[1], report[1]);
    close(report[1]);
    if (!use_pty) {
        setpgid(pid, pid); /* also in the parent, so signals work before the child runs */
        close(outp[1]);
        close(errp[1]);
        c->out_fd = outp[0];
        c->err_fd = errp[0];
    }
    c->pid = pid;
    start_guard(c);
    int child_errno = 0;
    ssize_t n;
    do
        n = read(report[0], &child_errno, sizeof child_errno);
    while (n < 0 && errno == EINTR);
    close(report[0]);
    if (n == (ssize_t)sizeof child_errno) {
        stop_guard(c);
        return gw_error_set(err, child_errno == ENOENT ? GW_E_NOTFOUND : GW_E_USAGE,
                            "cannot execute %s: %s", path, strerror(child_errno));
    }
    if (use_pty && isatty(STDIN_FILENO))
        make_raw(c);
    return GW_OK;
}

void gw_child_signal(const gw_child *c, int sig)
{
    if (c->pid <= 0)
        return;
    pid_t pgrp = -1;
    if (c->use_pty && c->pty_master >= 0)
        pgrp = tcgetpgrp(c->pty_master);
    if (pgrp <= 0)
        pgrp = c->pid;
    if (kill(-pgrp, sig) != 0)
        kill(c->pid, sig);
}

void gw_child_close(gw_child *c)
{
    stop_guard(c);
    gw_child_restore_tty(c);
    if (c->pty_master >= 0)
        close(c->pty_master);
    if (c->out_fd >= 0)
        close(c->out_fd);
    if (c->err_fd >= 0)
        close(c->err_fd);
    c->pty_master = c->out_fd = c->err_fd = -1;
}
