#include "run/child.h"

#include "util/xalloc.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
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

gw_rc gw_child_spawn(gw_child *c, const char *path, char *const argv[], char *const env[],
                     bool use_pty, gw_error *err)
{
    memset(c, 0, sizeof *c);
    c->pty_master = c->out_fd = c->err_fd = -1;
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
    int child_errno = 0;
    ssize_t n;
    do
        n = read(report[0], &child_errno, sizeof child_errno);
    while (n < 0 && errno == EINTR);
    close(report[0]);
    if (n == (ssize_t)sizeof child_errno)
        return gw_error_set(err, child_errno == ENOENT ? GW_E_NOTFOUND : GW_E_USAGE,
                            "cannot execute %s: %s", path, strerror(child_errno));
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
    gw_child_restore_tty(c);
    if (c->pty_master >= 0)
        close(c->pty_master);
    if (c->out_fd >= 0)
        close(c->out_fd);
    if (c->err_fd >= 0)
        close(c->err_fd);
    c->pty_master = c->out_fd = c->err_fd = -1;
}
