/*
 * nvml_init: where a one-shot command's NVML time goes, in a fresh process: dlopen of the library,
 * nvmlInitWithFlags (0, or 2 = NVML_INIT_FLAG_NO_ATTACH), the GPU count, a handle per GPU, and a
 * first read (utilization) per GPU; each stage in milliseconds with its return code, one line.
 * Run it many times from a shell: the first initialisation of a process is what `gpuwatch query`
 * and nvidia-smi pay (bench/h200/oneshot.sh). Every mode ends with nvmlShutdown, timed too.
 *
 *   nvml_init [FLAGS [LIBRARY]]      (default 0, $GPUWATCH_NVML_LIB, else libnvidia-ml.so.1)
 *   nvml_init floor [LIBRARY]        only nvmlInit, the first GPU's handle and nvmlShutdown: the
 *                                    least any NVML one-shot command pays (bench/query_oneshot.py
 *                                    --floor, bench/h200/issue16.sh)
 *   nvml_init floor-noshut [LIBRARY] the same without nvmlShutdown: the process's exit releases
 *                                    NVML (what a one-shot command saves by not calling it)
 */
#include <dlfcn.h>
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

typedef struct {
    unsigned gpu, memory;
} util_t;

int main(int argc, char **argv)
{
    int no_shutdown = argc > 1 && strcmp(argv[1], "floor-noshut") == 0;
    int floor_only = argc > 1 && (strcmp(argv[1], "floor") == 0 || no_shutdown);
    unsigned flags = argc > 1 && !floor_only ? (unsigned)strtoul(argv[1], NULL, 0) : 0;
    const char *lib = argc > 2 ? argv[2] : getenv("GPUWATCH_NVML_LIB");
    if (!lib || !*lib)
        lib = "libnvidia-ml.so.1";
    double t0 = now_ms();
    void *dl = dlopen(lib, RTLD_NOW);
    if (!dl) {
        fprintf(stderr, "nvml_init: %s\n", dlerror());
        return 1;
    }
    double t1 = now_ms();
    int (*init_flags)(unsigned) = (int (*)(unsigned))dlsym(dl, "nvmlInitWithFlags");
    int (*init)(void) = (int (*)(void))dlsym(dl, "nvmlInit_v2");
    int (*count)(unsigned *) = (int (*)(unsigned *))dlsym(dl, "nvmlDeviceGetCount_v2");
    int (*handle)(unsigned, void **) =
        (int (*)(unsigned, void **))dlsym(dl, "nvmlDeviceGetHandleByIndex_v2");
    int (*util)(void *, util_t *) =
        (int (*)(void *, util_t *))dlsym(dl, "nvmlDeviceGetUtilizationRates");
    int (*shutdown)(void) = (int (*)(void))dlsym(dl, "nvmlShutdown");
    if (!init || !count || !handle || !util || !shutdown) {
        fprintf(stderr, "nvml_init: %s lacks an NVML function\n", lib);
        return 1;
    }
    int rc_init = init_flags ? init_flags(flags) : init();
    double t2 = now_ms();
    if (floor_only) {
        void *h0 = NULL;
        int rc_h0 = handle(0, &h0);
        double t3 = now_ms();
        int rc_shut = no_shutdown ? 0 : shutdown();
        double t4 = now_ms();
        printf(
            "floor dlopen %.2f init %.2f (rc %d) handle 0 %.2f (rc %d) shutdown %.2f (rc %d) ms\n",
            t1 - t0, t2 - t1, rc_init, t3 - t2, rc_h0, t4 - t3, rc_shut);
        return rc_init || rc_h0 ? 1 : 0;
    }
    unsigned n = 0;
    int rc_count = count(&n);
    double t3 = now_ms();
    void *h[64] = {0};
    int rc_handle = 0;
    for (unsigned i = 0; i < n && i < 64; i++)
        if (handle(i, &h[i]) != 0)
            rc_handle = handle(i, &h[i]);
    double t4 = now_ms();
    int rc_util = 0;
    util_t u = {0, 0};
    for (unsigned i = 0; i < n && i < 64; i++)
        if (util(h[i], &u) != 0)
            rc_util = util(h[i], &u);
    double t5 = now_ms();
    int rc_shut = shutdown();
    double t6 = now_ms();
    printf("flags %u gpus %u dlopen %.2f init %.2f (rc %d) count %.2f (rc %d) handles %.2f "
           "(rc %d) utilization %.2f (rc %d, gpu %u %%) shutdown %.2f (rc %d) ms\n",
           flags, n, t1 - t0, t2 - t1, rc_init, t3 - t2, rc_count, t4 - t3, rc_handle, t5 - t4,
           rc_util, u.gpu, t6 - t5, rc_shut);
    return 0;
}
