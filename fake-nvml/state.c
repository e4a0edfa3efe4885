/* Global state, the scenario clock, handles and the call discipline; see state.h. */
#include "state.h"

#include "events.h"
#include "gpm.h"
#include "timeline.h"
#include "util/gw_time.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static struct {
    pthread_mutex_t lock;
    pthread_cond_t wake; /* signalled at shutdown and when an event set is freed */
    unsigned int refs;   /* nvmlInit references */
    unsigned long gen;   /* bumped at every first nvmlInit */
    fake_scenario *sc;   /* while refs > 0 */
    int64_t t0_ns;       /* CLOCK_MONOTONIC at the first nvmlInit */
    double scale;        /* scenario seconds per real second */
    double offset;       /* scenario time at t0_ns */
    double t_init;       /* scenario time at nvmlInit (the energy counter's zero) */
} st = {.lock = PTHREAD_MUTEX_INITIALIZER};

/* The condition variable must wait on CLOCK_MONOTONIC like the rest of the clock, which needs an
 * attribute, hence a constructor instead of a static initialiser. */
__attribute__((constructor)) static void state_loaded(void)
{
    pthread_condattr_t attr;
    pthread_condattr_init(&attr);
    pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
    pthread_cond_init(&st.wake, &attr);
    pthread_condattr_destroy(&attr);
}

__attribute__((destructor)) static void state_unloaded(void)
{
    /* A process that exits without nvmlShutdown leaves the scenario to the OS; a dlclose()d
     * library must not leak it, or every test that reloads the library would. */
    pthread_mutex_lock(&st.lock);
    fake_gpm_release_all();
    fake_events_release_all();
    fake_scenario_free(st.sc);
    st.sc = NULL;
    st.refs = 0;
    pthread_mutex_unlock(&st.lock);
    pthread_cond_destroy(&st.wake);
}

static double now_t(void)
{
    return st.offset + (double)(gw_mono_ns() - st.t0_ns) * 1e-9 * st.scale;
}

int64_t fake_mono_ns_at(double t)
{
    if (st.scale == 0) /* time is frozen: t never comes */
        return INT64_MAX;
    double ns = (t - st.offset) / st.scale * 1e9;
    /* Clamped before the conversion, which would overflow under a tiny scale. */
    if (ns >= 9e18 - (double)st.t0_ns)
        return INT64_MAX;
    if (ns <= -(double)st.t0_ns)
        return 0;
    return st.t0_ns + (int64_t)ns;
}

/* Not an NVML function: pins the scenario clock at t seconds (time then stands still until the
 * next call, as with FAKE_NVML_TIME_SCALE=0). Tests that run gpuwatch on a virtual clock
 * (gw_vclock_start) call it from the clock's hook, so the scenario's timeline is their time. */
FAKE_EXPORT void fakeNvmlSetTime(double t)
{
    pthread_mutex_lock(&st.lock);
    st.offset = t;
    st.scale = 0;
    st.t0_ns = gw_mono_ns();
    pthread_mutex_unlock(&st.lock);
}

/* Reads a time variable; false (with msg) when it is set but not a number in [lo, hi]. */
static bool env_number(const char *name, double lo, double hi, const char *example, double *out,
                       char *msg)
{
    const char *s = getenv(name);
    if (!s || !*s)
        return true;
    char *end = NULL;
    errno = 0;
    double v = strtod(s, &end);
    if (errno == 0 && end != s && *end == '\0' && v >= lo && v <= hi) {
        *out = v;
        return true;
    }
    snprintf(msg, FAKE_MSG_MAX, "%s=%s is not a number from %g to %g: unset it, or set e.g. %s",
             name, s, lo, hi, example);
    return false;
}

/* Reads the environment and the scenario; NULL with msg filled on error. */
static fake_scenario *load(double *scale, double *offset, char *msg)
{
    *scale = 1;
    *offset = 0;
    const char *path = getenv("FAKE_NVML_SCENARIO");
    if (!path || !*path) {
        snprintf(msg, FAKE_MSG_MAX,
                 "FAKE_NVML_SCENARIO is not set: set it to the path of a JSON scenario (see "
                 "docs/fake-nvml.md and tests/scenarios/), or point GPUWATCH_NVML_LIB at the real "
                 "libnvidia-ml.so.1");
        return NULL;
    }
    if (!env_number("FAKE_NVML_TIME_SCALE", 0, 1e6, "10 (scenario time runs 10x faster)", scale,
                    msg) ||
        !env_number("FAKE_NVML_TIME_OFFSET", 0, 1e9, "30 (start 30 s into the scenario)", offset,
                    msg))
        return NULL;
    return fake_scenario_load(path, msg);
}

gwn_return fake_state_init(void)
{
    pthread_mutex_lock(&st.lock);
    gwn_return r = GWN_SUCCESS;
    if (st.refs > 0) {
        st.refs++;
    } else {
        char msg[FAKE_MSG_MAX];
        double scale, offset;
        fake_scenario *sc = load(&scale, &offset, msg);
        if (!sc) {
            fprintf(stderr, "fake-nvml: %s\n", msg);
            r = GWN_ERROR_UNKNOWN;
        } else if (sc->init_error != GWN_SUCCESS) {
            r = sc->init_error;
            fake_scenario_free(sc);
        } else {
            st.sc = sc;
            st.scale = scale;
            st.offset = st.t_init = offset;
            st.t0_ns = gw_mono_ns();
            st.gen++;
            st.refs = 1;
        }
    }
    pthread_mutex_unlock(&st.lock);
    return r;
}

gwn_return fake_state_shutdown(void)
{
    pthread_mutex_lock(&st.lock);
    if (st.refs == 0) {
        pthread_mutex_unlock(&st.lock);
        return GWN_ERROR_UNINITIALIZED;
    }
    bool last = --st.refs == 0;
    if (last) {
        fake_gpm_release_all();
        fake_events_release_all();
        fake_scenario_free(st.sc);
        st.sc = NULL;
        pthread_cond_broadcast(&st.wake);
    }
    pthread_mutex_unlock(&st.lock);
    if (last)
        fake_stats_write();
    return GWN_SUCCESS;
}

gwn_return fake_begin(fake_call *c, fake_call_id id)
{
    fake_stats_count(id);
    pthread_mutex_lock(&st.lock);
    if (st.refs == 0) {
        pthread_mutex_unlock(&st.lock);
        return GWN_ERROR_UNINITIALIZED;
    }
    *c = (fake_call){.sc = st.sc, .mig = -1, .t = now_t(), .t_init = st.t_init, .gen = st.gen};
    return GWN_SUCCESS;
}

gwn_return fake_end(fake_call *c, gwn_return r)
{
    (void)c;
    pthread_mutex_unlock(&st.lock);
    return r;
}

void fake_pause(fake_call *c)
{
    (void)c;
    pthread_mutex_unlock(&st.lock);
}

/* After the lock was released: is the scenario the call started with still loaded? */
static gwn_return still_initialised(fake_call *c)
{
    if (st.refs == 0 || st.gen != c->gen) {
        pthread_mutex_unlock(&st.lock);
        return GWN_ERROR_UNINITIALIZED;
    }
    c->t = now_t();
    return GWN_SUCCESS;
}

gwn_return fake_resume(fake_call *c)
{
    pthread_mutex_lock(&st.lock);
    return still_initialised(c);
}

gwn_return fake_wait(fake_call *c, int64_t deadline_ns)
{
    struct timespec ts = {.tv_sec = deadline_ns / 1000000000, .tv_nsec = deadline_ns % 1000000000};
    int rc = pthread_cond_timedwait(&st.wake, &st.lock, &ts);
    (void)rc; /* timeouts and wake-ups are told apart by the caller's own checks */
    return still_initialised(c);
}

void fake_wake_all(void)
{
    pthread_cond_broadcast(&st.wake);
}

/* Handle encoding: bits 24-31 a tag, 16-23 the MIG instance + 1 (0 = physical GPU), 0-15 the GPU
 * index + 1. Zero (NULL) and ordinary pointers never decode. */
#define HANDLE_TAG      ((uintptr_t)0xF0u << 24)
#define HANDLE_TAG_MASK ((uintptr_t)0xFFu << 24)

gwn_device fake_handle(unsigned int index, int mig)
{
    uintptr_t code = HANDLE_TAG | ((uintptr_t)(mig + 1) << 16) | (uintptr_t)(index + 1);
    return (gwn_device)code;
}

static bool decode_handle(fake_call *c, gwn_device h)
{
    uintptr_t code = (uintptr_t)h;
    if ((code & ~(uintptr_t)0xFFFFFFFFu) != 0 || (code & HANDLE_TAG_MASK) != HANDLE_TAG)
        return false;
    size_t index = (code & 0xFFFFu), mig = (code >> 16) & 0xFFu;
    if (index == 0 || index > c->sc->ndevices)
        return false;
    c->index = (unsigned int)(index - 1);
    c->dev = &c->sc->devices[index - 1];
    c->mig = (int)mig - 1;
    return mig == 0 || (c->dev->mig_enabled && mig <= c->dev->nmig);
}

/* fakeNvmlSetSleep's function, NULL: nanosleep. */
static void (*sleep_hook)(double ms);

FAKE_EXPORT void fakeNvmlSetSleep(void (*fn)(double ms))
{
    pthread_mutex_lock(&st.lock);
    sleep_hook = fn;
    pthread_mutex_unlock(&st.lock);
}

static void sleep_ms(double ms)
{
    pthread_mutex_lock(&st.lock);
    void (*hook)(double) = sleep_hook;
    pthread_mutex_unlock(&st.lock);
    if (hook) {
        hook(ms);
        return;
    }
    int64_t ns = (int64_t)(ms * 1e6);
    struct timespec ts = {.tv_sec = ns / 1000000000, .tv_nsec = ns % 1000000000};
    while (nanosleep(&ts, &ts) == -1 && errno == EINTR) {
    }
}

gwn_return fake_begin_device(fake_call *c, fake_call_id id, gwn_device h, fake_group g)
{
    gwn_return r = fake_begin(c, id);
    if (r)
        return r;
    if (!decode_handle(c, h))
        return fake_end(c, GWN_ERROR_INVALID_ARGUMENT);
    double latency = c->dev->latency_ms[g];
    if (latency > 0) {
        fake_pause(c);
        sleep_ms(latency);
        r = fake_resume(c);
        if (r)
            return r;
    }
    if (c->t >= c->dev->lost_after_s)
        return fake_end(c, GWN_ERROR_GPU_IS_LOST);
    if (c->mig >= 0 && g != FG_INFO && g != FG_MEMORY)
        return fake_end(c, GWN_ERROR_NOT_SUPPORTED);
    if (c->dev->unsupported & (1u << g))
        return fake_end(c, GWN_ERROR_NOT_SUPPORTED);
    return GWN_SUCCESS;
}

bool fake_value(const fake_call *c, fake_key k, double *out)
{
    const fake_series *s = &c->dev->series[k];
    if (s->n == 0)
        return false;
    *out = fake_series_at(s, c->t, fake_keys[k].step);
    return true;
}

gwn_return fake_copy_string(char *buf, unsigned int len, const char *s)
{
    if (!buf)
        return GWN_ERROR_INVALID_ARGUMENT;
    size_t n = strlen(s);
    if (n + 1 > len)
        return GWN_ERROR_INSUFFICIENT_SIZE;
    memcpy(buf, s, n + 1);
    return GWN_SUCCESS;
}
