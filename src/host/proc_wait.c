/* What a process is doing, from /proc (see proc_wait.h). */
#include "host/proc_wait.h"

#include "host/procfs.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>

typedef struct syscall_name {
    long nr;
    const char *name;
} syscall_name;

/* SYS_* differ between architectures (aarch64 has no poll, select, pause, ...): each entry exists
 * only where the architecture defines it. */
static const syscall_name syscalls[] = {
    {SYS_read, "read"},
    {SYS_write, "write"},
#ifdef SYS_poll
    {SYS_poll, "poll"},
#endif
#ifdef SYS_select
    {SYS_select, "select"},
#endif
#ifdef SYS_pause
    {SYS_pause, "pause"},
#endif
#ifdef SYS_nanosleep
    {SYS_nanosleep, "nanosleep"},
#endif
#ifdef SYS_epoll_wait
    {SYS_epoll_wait, "epoll_wait"},
#endif
#ifdef SYS_wait4
    {SYS_wait4, "wait4"},
#endif
    {SYS_readv, "readv"},
    {SYS_writev, "writev"},
    {SYS_pread64, "pread64"},
    {SYS_ioctl, "ioctl"},
    {SYS_sched_yield, "sched_yield"},
    {SYS_accept, "accept"},
    {SYS_accept4, "accept4"},
    {SYS_connect, "connect"},
    {SYS_recvfrom, "recvfrom"},
    {SYS_recvmsg, "recvmsg"},
    {SYS_sendto, "sendto"},
    {SYS_sendmsg, "sendmsg"},
    {SYS_futex, "futex"},
#ifdef SYS_futex_waitv
    {SYS_futex_waitv, "futex_waitv"},
#endif
    {SYS_clock_nanosleep, "clock_nanosleep"},
    {SYS_waitid, "waitid"},
    {SYS_ppoll, "ppoll"},
    {SYS_pselect6, "pselect6"},
    {SYS_epoll_pwait, "epoll_pwait"},
#ifdef SYS_epoll_pwait2
    {SYS_epoll_pwait2, "epoll_pwait2"},
#endif
    {SYS_rt_sigtimedwait, "rt_sigtimedwait"},
    {SYS_rt_sigsuspend, "rt_sigsuspend"},
    {SYS_flock, "flock"},
    {SYS_fcntl, "fcntl"},
    {SYS_fsync, "fsync"},
    {SYS_openat, "openat"},
    {SYS_mmap, "mmap"},
    {SYS_munmap, "munmap"},
    {SYS_msgrcv, "msgrcv"},
    {SYS_semtimedop, "semtimedop"},
    {SYS_io_getevents, "io_getevents"},
};

const char *gw_syscall_name(long nr)
{
    for (size_t i = 0; i < sizeof syscalls / sizeof syscalls[0]; i++)
        if (syscalls[i].nr == nr)
            return syscalls[i].name;
    return NULL;
}

const char *gw_proc_wait_syscall_text(const gw_proc_wait *w, char *buf, unsigned len)
{
    const char *name = w->syscall_nr >= 0 ? gw_syscall_name(w->syscall_nr) : NULL;
    if (w->syscall_nr == GW_SYSCALL_UNKNOWN)
        snprintf(buf, len, "%s", "");
    else if (w->syscall_nr == GW_SYSCALL_RUNNING)
        snprintf(buf, len, "%s", "running");
    else if (name)
        snprintf(buf, len, "%s", name);
    else
        snprintf(buf, len, "syscall %ld", w->syscall_nr);
    return buf;
}

/* The first line of PROC_ROOT/PID/NAME into buf (no newline); false when unreadable or empty. */
static bool read_line(const char *root, pid_t pid, const char *name, char *buf, size_t len)
{
    char path[256];
    snprintf(path, sizeof path, "%s/%d/%s", root, (int)pid, name);
    if (gw_procfs_read_small(path, buf, len) <= 0)
        return false;
    buf[strcspn(buf, "\n")] = '\0';
    return buf[0] != '\0';
}

/* /proc/PID/syscall: "running", or "NR arg... sp pc" where NR is -1 outside a system call. */
static long parse_syscall(const char *text)
{
    if (strncmp(text, "running", 7) == 0)
        return GW_SYSCALL_RUNNING;
    char *end = NULL;
    long nr = strtol(text, &end, 10);
    if (end == text)
        return GW_SYSCALL_UNKNOWN;
    return nr < 0 ? GW_SYSCALL_RUNNING : nr;
}

bool gw_proc_wait_read(const char *proc_root, pid_t pid, gw_proc_wait *out)
{
    const char *root = proc_root ? proc_root : "/proc";
    memset(out, 0, sizeof *out);
    out->pid = pid;
    out->syscall_nr = GW_SYSCALL_UNKNOWN;
    char buf[1024];
    gw_proc_stat st;
    if (!read_line(root, pid, "stat", buf, sizeof buf) || !gw_proc_stat_parse(buf, &st))
        return false;
    out->ppid = st.ppid;
    out->state = st.state;
    gw_procfs_comm(root, (unsigned)pid, out->name, sizeof out->name);
    /* The kernel shows "0" for a running process, and to readers it does not trust. */
    char wchan[sizeof out->wchan];
    if (read_line(root, pid, "wchan", wchan, sizeof wchan) && strcmp(wchan, "0") != 0)
        memcpy(out->wchan, wchan, sizeof wchan);
    if (read_line(root, pid, "syscall", buf, sizeof buf))
        out->syscall_nr = parse_syscall(buf);
    return true;
}
