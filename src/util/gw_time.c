#include "gw_time.h"

#include <errno.h>
#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { VCLOCK_MAX_WAITERS = 16 };

/* The virtual clock (gw_vclock_start). `on` and `now` are read without the lock by the clock
 * functions; the rest is under it. */
static struct {
    pthread_mutex_t lock;
    pthread_cond_t cond;
    atomic_bool on;
    _Atomic int64_t now;
    int64_t mono0, wall0_ms;
    unsigned threads;
    int64_t deadline[VCLOCK_MAX_WAITERS]; /* of the waiting threads; 0 = free slot */
    unsigned waiting;
    uint64_t gen; /* bumped by gw_clock_wake */
    gw_vclock_hook *hook;
    void *ctx;
} vc = {.lock = PTHREAD_MUTEX_INITIALIZER, .cond = PTHREAD_COND_INITIALIZER};

int64_t gw_mono_ns(void)
{
    if (atomic_load_explicit(&vc.on, memory_order_acquire))
        return atomic_load(&vc.now);
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

int64_t gw_wall_ms(void)
{
    if (atomic_load_explicit(&vc.on, memory_order_acquire))
        return vc.wall0_ms + (atomic_load(&vc.now) - vc.mono0) / 1000000;
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

char *gw_rfc3339_ms(int64_t wall_ms, char *buf)
{
    /* The date and time to the second, kept per thread: a sampler formats the same second again
     * and again (gmtime_r + strftime were a tenth of a recording tick's CSV formatting). */
    static _Thread_local int64_t cached_secs = INT64_MIN;
    static _Thread_local char cached[GW_RFC3339_LEN];
    int64_t secs = wall_ms / 1000;
    int ms = (int)(wall_ms % 1000);
    if (ms < 0) {
        ms += 1000;
        secs -= 1;
    }
    if (secs != cached_secs) {
        time_t t = (time_t)secs;
        struct tm tm;
        gmtime_r(&t, &tm);
        /* strftime bounds every field; years past 9999 are not a concern for sample times. */
        if (strftime(cached, sizeof cached, "%Y-%m-%dT%H:%M:%S", &tm) != 19) {
            size_t n = strftime(buf, GW_RFC3339_LEN, "%Y-%m-%dT%H:%M:%S", &tm);
            snprintf(buf + n, GW_RFC3339_LEN - n, ".%03dZ", ms);
            return buf;
        }
        cached_secs = secs;
    }
    memcpy(buf, cached, 19);
    buf[19] = '.';
    buf[20] = (char)('0' + ms / 100);
    buf[21] = (char)('0' + ms / 10 % 10);
    buf[22] = (char)('0' + ms % 10);
    buf[23] = 'Z';
    buf[24] = '\0';
    return buf;
}

int gw_utc_offset_s(int64_t wall_ms)
{
    time_t t = (time_t)(wall_ms / 1000);
    struct tm tm;
    return localtime_r(&t, &tm) ? (int)tm.tm_gmtoff : 0;
}

bool gw_parse_duration_ms(const char *s, double *out_ms)
{
    if (!s || !*s)
        return false;
    errno = 0;
    char *end = NULL;
    double v = strtod(s, &end);
    if (end == s || errno || !isfinite(v) || v < 0)
        return false;
    double scale = 1000.0;
    if (*end == '\0' || strcmp(end, "s") == 0)
        scale = 1000.0;
    else if (strcmp(end, "ms") == 0)
        scale = 1.0;
    else if (strcmp(end, "m") == 0 || strcmp(end, "min") == 0)
        scale = 60000.0;
    else if (strcmp(end, "h") == 0)
        scale = 3600000.0;
    else
        return false;
    *out_ms = v * scale;
    return true;
}

/* With vc.lock held: when every taking part thread waits, moves time to the earliest deadline and
 * wakes the waiters. */
static void vclock_advance_if_idle(void)
{
    if (vc.waiting < vc.threads)
        return;
    int64_t next = INT64_MAX;
    for (int i = 0; i < VCLOCK_MAX_WAITERS; i++)
        if (vc.deadline[i] && vc.deadline[i] < next)
            next = vc.deadline[i];
    if (next == INT64_MAX || next <= atomic_load(&vc.now))
        return;
    atomic_store(&vc.now, next);
    if (vc.hook)
        vc.hook(next, vc.ctx);
    pthread_cond_broadcast(&vc.cond);
}

/* Waits on the virtual clock until deadline or gw_clock_wake; mutex (may be NULL) is released
 * meanwhile, as a condition variable would. True when the deadline has come. */
static bool vclock_wait(pthread_mutex_t *mutex, int64_t deadline_ns)
{
    pthread_mutex_lock(&vc.lock);
    if (mutex)
        pthread_mutex_unlock(mutex);
    int slot = 0;
    while (slot < VCLOCK_MAX_WAITERS - 1 && vc.deadline[slot])
        slot++;
    vc.deadline[slot] = deadline_ns > 0 ? deadline_ns : 1;
    vc.waiting++;
    uint64_t gen = vc.gen;
    vclock_advance_if_idle();
    while (atomic_load(&vc.now) < deadline_ns && vc.gen == gen && atomic_load(&vc.on))
        pthread_cond_wait(&vc.cond, &vc.lock);
    vc.deadline[slot] = 0;
    vc.waiting--;
    bool due = atomic_load(&vc.now) >= deadline_ns;
    pthread_mutex_unlock(&vc.lock);
    if (mutex)
        pthread_mutex_lock(mutex);
    return due;
}

bool gw_cond_wait_until(pthread_cond_t *cond, pthread_mutex_t *mutex, int64_t deadline_ns)
{
    if (atomic_load_explicit(&vc.on, memory_order_acquire))
        return vclock_wait(mutex, deadline_ns);
    struct timespec ts = {.tv_sec = deadline_ns / 1000000000, .tv_nsec = deadline_ns % 1000000000};
    return pthread_cond_timedwait(cond, mutex, &ts) == ETIMEDOUT;
}

void gw_clock_wake(void)
{
    if (!atomic_load_explicit(&vc.on, memory_order_acquire))
        return;
    pthread_mutex_lock(&vc.lock);
    vc.gen++;
    pthread_cond_broadcast(&vc.cond);
    pthread_mutex_unlock(&vc.lock);
}

void gw_clock_thread_add(void)
{
    if (!atomic_load_explicit(&vc.on, memory_order_acquire))
        return;
    pthread_mutex_lock(&vc.lock);
    vc.threads++;
    pthread_mutex_unlock(&vc.lock);
}

void gw_clock_thread_done(void)
{
    if (!atomic_load_explicit(&vc.on, memory_order_acquire))
        return;
    pthread_mutex_lock(&vc.lock);
    vc.threads--;
    vclock_advance_if_idle();
    pthread_mutex_unlock(&vc.lock);
}

void gw_vclock_start(int64_t mono_ns, int64_t wall_ms, gw_vclock_hook *hook, void *ctx)
{
    pthread_mutex_lock(&vc.lock);
    atomic_store(&vc.now, mono_ns);
    vc.mono0 = mono_ns;
    vc.wall0_ms = wall_ms;
    vc.threads = 1; /* the caller */
    vc.waiting = 0;
    memset(vc.deadline, 0, sizeof vc.deadline);
    vc.hook = hook;
    vc.ctx = ctx;
    if (hook)
        hook(mono_ns, ctx);
    atomic_store_explicit(&vc.on, true, memory_order_release);
    pthread_mutex_unlock(&vc.lock);
}

void gw_vclock_stop(void)
{
    pthread_mutex_lock(&vc.lock);
    atomic_store_explicit(&vc.on, false, memory_order_release);
    vc.hook = NULL;
    pthread_cond_broadcast(&vc.cond);
    pthread_mutex_unlock(&vc.lock);
}

void gw_sleep_until_mono_ns(int64_t deadline_ns)
{
    if (atomic_load_explicit(&vc.on, memory_order_acquire)) {
        while (!vclock_wait(NULL, deadline_ns) && atomic_load(&vc.on)) {
        }
        return;
    }
    struct timespec ts = {.tv_sec = deadline_ns / 1000000000, .tv_nsec = deadline_ns % 1000000000};
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR) {
    }
}
