/* The alert hook runner and its supervisor processes; see hook.h. */
#include "alerts/hook.h"

#include "host/exec.h"
#include "util/gw_fmt.h"
#include "util/gw_time.h"
#include "util/xalloc.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

struct gw_hook_runner {
    char *path;
    char **argv;
    int64_t timeout_ms;
    FILE *log;
    gw_sampler *sampler;
    char *run_dir;
    pthread_mutex_t lock;
    pthread_cond_t cond;
    gw_hook_alert queue[GW_HOOK_QUEUE_MAX];
    int head, n;
    bool stopping, joined, thread_ok;
    int64_t stop_deadline_ns;
    pthread_t thr;
    gw_hook_stats stats;
};

/* How a hook ended, as the supervisor writes it into the pipe. */
typedef struct outcome {
    int how;    /* OUT_* */
    int status; /* waitpid status of the hook (OUT_ENDED, OUT_KILLED) */
    int err;    /* errno of a failed fork */
    int left;   /* processes the hook left behind, stopped by the supervisor */
} outcome;
enum { OUT_ENDED, OUT_KILLED, OUT_NO_FORK };

/* How long what a hook leaves behind, or a hook at its timeout, has between SIGTERM and SIGKILL. */
#define GW_HOOK_GRACE_NS INT64_C(1000000000)

/* Closes every descriptor from `from` on except `keep` (-1: none). Async-signal-safe. */
static void close_from(int from, int keep)
{
    if (keep >= from) {
        if (keep > from && syscall(SYS_close_range, (unsigned)from, (unsigned)keep - 1, 0U) != 0)
            for (int i = from; i < keep; i++)
                close(i);
        from = keep + 1;
    }
    if (syscall(SYS_close_range, (unsigned)from, ~0U, 0U) != 0)
        for (int i = from; i < 4096; i++)
            close(i);
}

/* In the hook process: only async-signal-safe calls until execve. */
static void exec_hook(const char *path, char *const argv[], char *const env[])
{
    setpgid(0, 0);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    struct sigaction dfl;
    memset(&dfl, 0, sizeof dfl);
    dfl.sa_handler = SIG_DFL;
    sigaction(SIGPIPE, &dfl, NULL);
    sigaction(SIGXFSZ, &dfl, NULL); /* gpuwatch ignores it (cli/main.c); the hook gets it back */
    int fd = open("/dev/null", O_RDONLY);
    if (fd > 0) {
        dup2(fd, STDIN_FILENO);
        close(fd);
    }
    close_from(3, -1);
    execve(path, argv, env);
    _exit(127);
}

/* Sends sig to the hook's process group and to every child of the calling supervisor (the hook's
 * orphans, whatever group they moved to). Async-signal-safe. */
static void signal_all(pid_t hook, int sig)
{
    kill(-hook, sig);
    char path[64] = "/proc/self/task/";
    /* the supervisor is single-threaded: its pid is its only thread id */
    char num[16];
    int n = 0;
    for (unsigned v = (unsigned)getpid(); v; v /= 10)
        num[n++] = (char)('0' + v % 10);
    size_t k = strlen(path);
    while (n)
        path[k++] = num[--n];
    memcpy(path + k, "/children", sizeof "/children");
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return;
    char buf[4096];
    ssize_t got = read(fd, buf, sizeof buf - 1);
    close(fd);
    long pid = 0;
    for (ssize_t i = 0; i < got; i++) {
        if (buf[i] >= '0' && buf[i] <= '9') {
            pid = pid * 10 + (buf[i] - '0');
        } else {
            if (pid > 0)
                kill((pid_t)pid, sig);
            pid = 0;
        }
    }
    if (pid > 0)
        kill((pid_t)pid, sig);
}

/* True when SIGTERM (gpuwatch's end through PR_SET_PDEATHSIG) is pending. */
static bool term_pending(void)
{
    sigset_t pend;
    return sigpending(&pend) == 0 && sigismember(&pend, SIGTERM) == 1;
}

/* Reaps the supervisor's children without waiting; notes the hook's status. Returns false when no
 * child is left. */
static bool reap_some(pid_t hook, outcome *o, bool *hook_done, bool count_left)
{
    for (;;) {
        int st;
        pid_t w = waitpid(-1, &st, WNOHANG);
        if (w < 0)
            return errno == EINTR;
        if (w == 0)
            return true;
        if (w == hook) {
            o->status = st;
            *hook_done = true;
        } else if (count_left) {
            o->left++;
        }
    }
}

/* Stops the hook's processes: SIGTERM, then SIGKILL after the grace, until no child is left. */
static void stop_all(pid_t hook, outcome *o, bool *hook_done)
{
    /* No child left means nothing of the hook's is left: every process it started is below us. */
    if (!reap_some(hook, o, hook_done, true))
        return;
    signal_all(hook, SIGTERM);
    int64_t kill_at = gw_mono_ns() + GW_HOOK_GRACE_NS;
    for (int round = 0; round < 2000; round++) {
        if (!reap_some(hook, o, hook_done, true))
            return;
        if (gw_mono_ns() >= kill_at)
            signal_all(hook, SIGKILL);
        struct timespec ts = {0, 5000000};
        nanosleep(&ts, NULL);
    }
}

/* In the supervisor process (forked from a threaded program): async-signal-safe calls only.
 * It is a child subreaper, so everything the hook starts stays below it; it ends only when the
 * hook and all of that are gone. parent: gpuwatch's pid. */
static void supervise(int wfd, const char *path, char *const argv[], char *const env[],
                      int64_t deadline_ns, pid_t parent)
{
    outcome o = {OUT_ENDED, 0, 0, 0};
    /* Hold nothing of gpuwatch's: a pipe's write end kept open here would delay its reader's
     * end of file (the job's exec-error pipe) until this process exits. */
    close_from(3, wfd);
    /* A group of its own: a signal to gpuwatch's group (`timeout -s KILL`) must not kill the
     * supervisor and leave the hook running. */
    setpgid(0, 0);
    /* SIGTERM (blocked, like in gpuwatch's threads, and polled) when the runner thread or
     * gpuwatch ends, even by SIGKILL; checked again in case that happened before. */
    sigset_t term;
    sigemptyset(&term);
    sigaddset(&term, SIGTERM);
    sigprocmask(SIG_BLOCK, &term, NULL);
    prctl(PR_SET_PDEATHSIG, SIGTERM);
    prctl(PR_SET_CHILD_SUBREAPER, 1);
    if (getppid() != parent)
        _exit(1);
    pid_t h = fork();
    if (h == 0)
        exec_hook(path, argv, env);
    if (h < 0) {
        o.how = OUT_NO_FORK;
        o.err = errno;
    } else {
        setpgid(h, h); /* also here, so that the group exists whoever runs first */
        bool done = false;
        while (!done && reap_some(h, &o, &done, false)) {
            if (gw_mono_ns() >= deadline_ns || term_pending()) {
                o.how = OUT_KILLED;
                break;
            }
            struct timespec ts = {0, 5000000};
            nanosleep(&ts, NULL);
        }
        /* At the timeout the hook's group goes too; after a normal end, what the hook left
         * behind (counted in o.left) does not outlive it. */
        stop_all(h, &o, &done);
    }
    ssize_t wr = write(wfd, &o, sizeof o);
    _exit(wr == (ssize_t)sizeof o ? 0 : 1);
}

static char **hook_env(const gw_hook_runner *r, const gw_hook_alert *a)
{
    char ts[GW_RFC3339_LEN];
    char *extra[11];
    int n = 0;
    extra[n++] = xasprintf("GPUWATCH_ALERT=%s", a->rule);
    extra[n++] = xasprintf("GPUWATCH_SEVERITY=%s", a->severity);
    extra[n++] = xasprintf("GPUWATCH_GPU=%s", a->gpu);
    extra[n++] = xasprintf("GPUWATCH_VALUE=%s", a->value);
    extra[n++] = xasprintf("GPUWATCH_THRESHOLD=%s", a->threshold);
    extra[n++] = xasprintf("GPUWATCH_STATE=%s", a->state);
    extra[n++] = xasprintf("GPUWATCH_METRIC=%s", a->metric);
    extra[n++] = xasprintf("GPUWATCH_MESSAGE=%s", a->message);
    extra[n++] = xasprintf("GPUWATCH_TIMESTAMP=%s", gw_rfc3339_ms(a->wall_ms, ts));
    if (r->run_dir)
        extra[n++] = xasprintf("GPUWATCH_RUN_DIR=%s", r->run_dir);
    extra[n] = NULL;
    char **env = gw_child_env((const char *const *)extra);
    for (int i = 0; i < n; i++)
        free(extra[i]);
    return env;
}

static void say(gw_hook_runner *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void say(gw_hook_runner *r, const char *fmt, ...)
{
    if (!r->log)
        return;
    char line[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    fprintf(r->log, "gpuwatch: %s\n", line);
}

static void count(gw_hook_runner *r, unsigned *field)
{
    pthread_mutex_lock(&r->lock);
    (*field)++;
    pthread_mutex_unlock(&r->lock);
}

/* Says how the hook ended, when that is worth a line. */
static void report(gw_hook_runner *r, const gw_hook_alert *a, const outcome *o, int64_t limit_ms)
{
    const char *prog = r->argv[0];
    if (!o) {
        say(r, "alert hook %s for %s (%s): its supervisor ended without a word", prog, a->rule,
            a->state);
        count(r, &r->stats.failed);
        return;
    }
    if (o->how == OUT_NO_FORK) {
        say(r, "alert hook %s for %s: cannot start it: %s", prog, a->rule, strerror(o->err));
        count(r, &r->stats.failed);
        return;
    }
    if (o->how == OUT_KILLED) {
        say(r,
            "alert hook %s for %s (%s) still ran after %s s: killed (the limit is [hook] "
            "timeout or --on-alert-timeout)",
            prog, a->rule, a->state, GW_SIG((double)limit_ms / 1000.0, 3));
        count(r, &r->stats.killed);
        return;
    }
    if (o->left > 0)
        say(r,
            "alert hook %s for %s (%s) left %d process%s running: stopped (a hook ends when its "
            "program exits; wait for what it starts)",
            prog, a->rule, a->state, o->left, o->left == 1 ? "" : "es");
    if (WIFEXITED(o->status) && WEXITSTATUS(o->status) != 0) {
        say(r, "alert hook %s for %s (%s) exited with status %d", prog, a->rule, a->state,
            WEXITSTATUS(o->status));
        count(r, &r->stats.failed);
    } else if (WIFSIGNALED(o->status)) {
        say(r, "alert hook %s for %s (%s) was killed by signal %d", prog, a->rule, a->state,
            WTERMSIG(o->status));
        count(r, &r->stats.failed);
    }
}

/* Runs one hook until it ends or deadline_ns, which is limit_ms after it was taken. */
static void run_one(gw_hook_runner *r, const gw_hook_alert *a, int64_t deadline_ns,
                    int64_t limit_ms)
{
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) < 0) {
        say(r, "alert hook for %s: cannot make a pipe: %s", a->rule, strerror(errno));
        count(r, &r->stats.failed);
        return;
    }
    char **env = hook_env(r, a);
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid == 0) {
        close(fds[0]);
        supervise(fds[1], r->path, r->argv, env, deadline_ns, parent);
    }
    if (pid > 0)
        setpgid(pid, pid); /* also here, so that the group exists whoever runs first */
    int fork_errno = errno;
    close(fds[1]);
    gw_child_free_env(env);
    if (pid < 0) {
        close(fds[0]);
        say(r, "alert hook for %s: cannot fork: %s", a->rule, strerror(fork_errno));
        count(r, &r->stats.failed);
        return;
    }
    if (r->sampler)
        gw_sampler_exclude_pid(r->sampler, pid, true);
    count(r, &r->stats.run);
    outcome o;
    size_t got = 0;
    while (got < sizeof o) {
        ssize_t k = read(fds[0], (char *)&o + got, sizeof o - got);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            break;
        got += (size_t)k;
    }
    close(fds[0]);
    /* The session may have reaped it already (ECHILD): either way it is gone. */
    while (waitpid(pid, NULL, 0) < 0 && errno == EINTR) {
    }
    if (r->sampler)
        gw_sampler_exclude_pid(r->sampler, pid, false);
    report(r, a, got == sizeof o ? &o : NULL, limit_ms);
}

static void *runner_main(void *arg)
{
    gw_hook_runner *r = arg;
    pthread_setname_np(pthread_self(), "gw-hooks");
    pthread_mutex_lock(&r->lock);
    for (;;) {
        while (r->n == 0 && !r->stopping)
            pthread_cond_wait(&r->cond, &r->lock);
        if (r->n == 0)
            break;
        gw_hook_alert a = r->queue[r->head];
        int64_t now = gw_mono_ns();
        int64_t deadline = now + r->timeout_ms * 1000000;
        if (r->stopping) {
            if (now >= r->stop_deadline_ns) {
                unsigned left = (unsigned)r->n;
                r->stats.dropped += left;
                r->n = 0;
                pthread_mutex_unlock(&r->lock);
                say(r, "%u alert hook%s not run: gpuwatch is stopping", left, left == 1 ? "" : "s");
                return NULL;
            }
            if (deadline > r->stop_deadline_ns)
                deadline = r->stop_deadline_ns;
        }
        r->head = (r->head + 1) % GW_HOOK_QUEUE_MAX;
        r->n--;
        pthread_mutex_unlock(&r->lock);
        run_one(r, &a, deadline, (deadline - now) / 1000000);
        pthread_mutex_lock(&r->lock);
    }
    pthread_mutex_unlock(&r->lock);
    return NULL;
}

gw_hook_runner *gw_hook_runner_new(const char *path, char *const argv[], int64_t timeout_ms,
                                   FILE *log)
{
    gw_hook_runner *r = xcalloc(1, sizeof *r);
    r->path = xstrdup(path);
    int argc = 0;
    while (argv[argc])
        argc++;
    r->argv = xcalloc((size_t)argc + 1, sizeof *r->argv);
    for (int i = 0; i < argc; i++)
        r->argv[i] = xstrdup(argv[i]);
    r->timeout_ms = timeout_ms;
    r->log = log;
    pthread_mutex_init(&r->lock, NULL);
    pthread_cond_init(&r->cond, NULL);
    r->thread_ok = pthread_create(&r->thr, NULL, runner_main, r) == 0;
    if (!r->thread_ok)
        say(r, "cannot start the alert hook thread: %s: hooks will not run", strerror(errno));
    return r;
}

void gw_hook_runner_attach(gw_hook_runner *r, gw_sampler *sampler, const char *run_dir)
{
    pthread_mutex_lock(&r->lock);
    r->sampler = sampler;
    free(r->run_dir);
    r->run_dir = run_dir ? xstrdup(run_dir) : NULL;
    pthread_mutex_unlock(&r->lock);
}

bool gw_hook_runner_enqueue(gw_hook_runner *r, const gw_hook_alert *a)
{
    pthread_mutex_lock(&r->lock);
    bool ok = r->thread_ok && !r->stopping && r->n < GW_HOOK_QUEUE_MAX;
    if (ok) {
        r->queue[(r->head + r->n) % GW_HOOK_QUEUE_MAX] = *a;
        r->n++;
        pthread_cond_signal(&r->cond);
    } else {
        r->stats.dropped++;
    }
    bool first_drop = !ok && r->stats.dropped == 1;
    pthread_mutex_unlock(&r->lock);
    if (first_drop)
        say(r,
            "alert hook for %s not run: %d alerts already wait for the hook (it is slower "
            "than alerts come; later drops are counted silently)",
            a->rule, GW_HOOK_QUEUE_MAX);
    return ok;
}

void gw_hook_runner_get_stats(gw_hook_runner *r, gw_hook_stats *out)
{
    pthread_mutex_lock(&r->lock);
    *out = r->stats;
    pthread_mutex_unlock(&r->lock);
}

void gw_hook_runner_stop(gw_hook_runner *r)
{
    pthread_mutex_lock(&r->lock);
    bool join = r->thread_ok && !r->joined;
    if (!r->stopping) {
        r->stopping = true;
        r->stop_deadline_ns = gw_mono_ns() + r->timeout_ms * 1000000;
        pthread_cond_broadcast(&r->cond);
    }
    r->joined = true;
    pthread_mutex_unlock(&r->lock);
    if (join)
        pthread_join(r->thr, NULL);
}

void gw_hook_runner_free(gw_hook_runner *r)
{
    if (!r)
        return;
    gw_hook_runner_stop(r);
    pthread_mutex_destroy(&r->lock);
    pthread_cond_destroy(&r->cond);
    for (int i = 0; r->argv[i]; i++)
        free(r->argv[i]);
    free(r->argv);
    free(r->path);
    free(r->run_dir);
    free(r);
}
