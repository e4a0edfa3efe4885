/*
 * nvml_parallel: whether a one-shot command could read its values faster from several threads. In
 * a fresh process the first call of each kind of value costs milliseconds on an H200 (2-4 ms each,
 * docs/performance.md), 15 ms for `query`'s 38 fields on top of nvmlInit and the first handle.
 * This program initialises NVML, takes GPU 0's handle, then makes the first call of 14 kinds of
 * value (those of the 38 fields) either one after the other or each in a thread of its own, all
 * started together, and prints the stages in milliseconds on one line. Run it many times, the
 * two modes alternating (bench/h200/issue16.sh): when `threads` is much below `serial`, the
 * driver answers first calls concurrently and a threaded `query` would gain that much.
 *
 *   nvml_parallel serial|threads [LIBRARY]    ($GPUWATCH_NVML_LIB, else libnvidia-ml.so.1)
 *   nvml_parallel open [LIBRARY]    each call `gpuwatch query --query-gpu=index` makes besides
 *                                   nvmlInit and the handle, timed one by one (what it pays on
 *                                   top of build/nvml_init floor)
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

typedef int (*fn_h)(void *, void *);             /* (handle, out) */
typedef int (*fn_hi)(void *, int, void *);       /* (handle, type, out) */
typedef int (*fn_hoo)(void *, void *, void *);   /* (handle, out, out) */
typedef int (*fn_hsn)(void *, char *, unsigned); /* (handle, buffer, length) */

enum shape { H, HI, HOO, HSN };

typedef struct {
    const char *sym;
    enum shape shape;
    int arg; /* the type argument of HI calls */
    void *fn;
    void *dev;
    int rc;
    double ms;
} kind;

static kind kinds[] = {
    {"nvmlDeviceGetUtilizationRates", H, 0, NULL, NULL, 0, 0},
    {"nvmlDeviceGetPowerUsage", H, 0, NULL, NULL, 0, 0},
    {"nvmlDeviceGetClockInfo", HI, 1 /* SM */, NULL, NULL, 0, 0},
    {"nvmlDeviceGetCurrentClocksEventReasons", H, 0, NULL, NULL, 0, 0},
    {"nvmlDeviceGetEccMode", HOO, 0, NULL, NULL, 0, 0},
    {"nvmlDeviceGetEnforcedPowerLimit", H, 0, NULL, NULL, 0, 0},
    {"nvmlDeviceGetMaxClockInfo", HI, 1, NULL, NULL, 0, 0},
    {"nvmlDeviceGetCurrPcieLinkGeneration", H, 0, NULL, NULL, 0, 0},
    {"nvmlDeviceGetTemperature", HI, 0 /* GPU */, NULL, NULL, 0, 0},
    {"nvmlDeviceGetPerformanceState", H, 0, NULL, NULL, 0, 0},
    {"nvmlDeviceGetFanSpeed", H, 0, NULL, NULL, 0, 0},
    {"nvmlDeviceGetCurrPcieLinkWidth", H, 0, NULL, NULL, 0, 0},
    {"nvmlDeviceGetMemoryInfo", H, 0, NULL, NULL, 0, 0},
    {"nvmlDeviceGetName", HSN, 0, NULL, NULL, 0, 0},
};
enum { NKINDS = sizeof kinds / sizeof kinds[0] };

static void *call(void *arg)
{
    kind *k = arg;
    unsigned char out[256], out2[256]; /* larger than any of these calls writes */
    char name[96];
    double t0 = now_ms();
    switch (k->shape) {
    case H:
        k->rc = ((fn_h)k->fn)(k->dev, out);
        break;
    case HI:
        k->rc = ((fn_hi)k->fn)(k->dev, k->arg, out);
        break;
    case HOO:
        k->rc = ((fn_hoo)k->fn)(k->dev, out, out2);
        break;
    case HSN:
        k->rc = ((fn_hsn)k->fn)(k->dev, name, sizeof name);
        break;
    }
    k->ms = now_ms() - t0;
    return NULL;
}

/* `query index`'s other calls: the system's versions, the count, the device's identity. */
static void open_calls(void *dl, void *dev)
{
    char text[96];
    unsigned char out[256];
    static const char *const sys_text[] = {"nvmlSystemGetDriverVersion",
                                           "nvmlSystemGetNVMLVersion"};
    static const char *const sys_int[] = {"nvmlSystemGetCudaDriverVersion_v2",
                                          "nvmlDeviceGetCount_v2"};
    static const char *const dev_text[] = {"nvmlDeviceGetName", "nvmlDeviceGetUUID"};
    static const char *const dev_out[] = {"nvmlDeviceGetIndex", "nvmlDeviceGetPciInfo_v3"};
    printf("open");
    for (size_t i = 0; i < 2; i++) {
        int (*f)(char *, unsigned) = (int (*)(char *, unsigned))dlsym(dl, sys_text[i]);
        double t = now_ms();
        int rc = f ? f(text, sizeof text) : -1;
        printf(" %s %.2f (rc %d)", sys_text[i] + 4, now_ms() - t, rc);
    }
    for (size_t i = 0; i < 2; i++) {
        int (*f)(void *) = (int (*)(void *))dlsym(dl, sys_int[i]);
        double t = now_ms();
        int rc = f ? f(out) : -1;
        printf(" %s %.2f (rc %d)", sys_int[i] + 4, now_ms() - t, rc);
    }
    for (size_t i = 0; i < 2; i++) {
        fn_hsn f = (fn_hsn)dlsym(dl, dev_text[i]);
        double t = now_ms();
        int rc = f ? f(dev, text, sizeof text) : -1;
        printf(" %s %.2f (rc %d)", dev_text[i] + 4, now_ms() - t, rc);
    }
    for (size_t i = 0; i < 2; i++) {
        fn_h f = (fn_h)dlsym(dl, dev_out[i]);
        double t = now_ms();
        int rc = f ? f(dev, out) : -1;
        printf(" %s %.2f (rc %d)", dev_out[i] + 4, now_ms() - t, rc);
    }
    printf(" ms\n");
}

int main(int argc, char **argv)
{
    int threaded = argc > 1 && strcmp(argv[1], "threads") == 0;
    int open_only = argc > 1 && strcmp(argv[1], "open") == 0;
    if (argc < 2 || (!threaded && !open_only && strcmp(argv[1], "serial") != 0)) {
        fprintf(stderr, "usage: nvml_parallel serial|threads|open [LIBRARY]\n");
        return 2;
    }
    const char *lib = argc > 2 ? argv[2] : getenv("GPUWATCH_NVML_LIB");
    if (!lib || !*lib)
        lib = "libnvidia-ml.so.1";
    double t0 = now_ms();
    void *dl = dlopen(lib, RTLD_NOW);
    if (!dl) {
        fprintf(stderr, "nvml_parallel: %s\n", dlerror());
        return 1;
    }
    int (*init)(void) = (int (*)(void))dlsym(dl, "nvmlInit_v2");
    int (*handle)(unsigned, void **) =
        (int (*)(unsigned, void **))dlsym(dl, "nvmlDeviceGetHandleByIndex_v2");
    int (*shutdown)(void) = (int (*)(void))dlsym(dl, "nvmlShutdown");
    if (!init || !handle || !shutdown) {
        fprintf(stderr, "nvml_parallel: %s lacks nvmlInit_v2, a handle or nvmlShutdown\n", lib);
        return 1;
    }
    int rc = init();
    double t1 = now_ms();
    void *dev = NULL;
    int rc_h = rc == 0 ? handle(0, &dev) : rc;
    double t2 = now_ms();
    if (rc || rc_h) {
        fprintf(stderr, "nvml_parallel: nvmlInit %d, handle of GPU 0 %d\n", rc, rc_h);
        return 1;
    }
    if (open_only) {
        printf("init+dlopen %.2f handle %.2f ", t1 - t0, t2 - t1);
        open_calls(dl, dev);
        shutdown();
        return 0;
    }
    unsigned n = 0;
    for (unsigned i = 0; i < NKINDS; i++) {
        kinds[i].fn = dlsym(dl, kinds[i].sym);
        kinds[i].dev = dev;
        n += kinds[i].fn != NULL;
    }
    pthread_t th[NKINDS];
    int started[NKINDS] = {0};
    double t3 = now_ms();
    for (unsigned i = 0; i < NKINDS; i++) {
        if (!kinds[i].fn)
            continue;
        if (!threaded)
            call(&kinds[i]);
        else
            started[i] = pthread_create(&th[i], NULL, call, &kinds[i]) == 0;
    }
    for (unsigned i = 0; i < NKINDS; i++)
        if (started[i])
            pthread_join(th[i], NULL);
    double t4 = now_ms();
    shutdown();
    double t5 = now_ms();
    double sum = 0, longest = 0;
    unsigned failed = 0;
    for (unsigned i = 0; i < NKINDS; i++) {
        if (!kinds[i].fn)
            continue;
        sum += kinds[i].ms;
        longest = kinds[i].ms > longest ? kinds[i].ms : longest;
        failed += kinds[i].rc != 0;
    }
    printf("%-7s init+dlopen %.2f handle %.2f %u kinds %.2f (sum of calls %.2f, longest %.2f, "
           "%u not supported) shutdown %.2f ms\n",
           threaded ? "threads" : "serial", t1 - t0, t2 - t1, n, t4 - t3, sum, longest, failed,
           t5 - t4);
    return 0;
}
