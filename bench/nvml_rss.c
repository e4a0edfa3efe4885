/*
 * nvml_rss: how much resident memory the NVML library itself costs a process, stage by stage
 * (dlopen, nvmlInit_v2, a handle per GPU), so that gpuwatch's own share of its RSS can be told
 * apart from NVML's (bench/h200/serve.sh). Prints one JSON line with VmRSS in KiB per stage.
 *
 *   nvml_rss [LIBRARY]      (default: $GPUWATCH_NVML_LIB, else libnvidia-ml.so.1)
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static long rss_kib(void)
{
    char line[256];
    long kib = -1;
    FILE *f = fopen("/proc/self/status", "r");
    while (f && fgets(line, sizeof line, f))
        if (strncmp(line, "VmRSS:", 6) == 0)
            kib = strtol(line + 6, NULL, 10);
    if (f)
        fclose(f);
    return kib;
}

int main(int argc, char **argv)
{
    const char *lib = argc > 1 ? argv[1] : getenv("GPUWATCH_NVML_LIB");
    if (!lib || !*lib)
        lib = "libnvidia-ml.so.1";
    long start = rss_kib();
    void *dl = dlopen(lib, RTLD_NOW);
    if (!dl) {
        fprintf(stderr, "nvml_rss: %s\n", dlerror());
        return 1;
    }
    long opened = rss_kib();
    int (*init)(void) = (int (*)(void))dlsym(dl, "nvmlInit_v2");
    int (*count)(unsigned *) = (int (*)(unsigned *))dlsym(dl, "nvmlDeviceGetCount_v2");
    int (*handle)(unsigned, void **) =
        (int (*)(unsigned, void **))dlsym(dl, "nvmlDeviceGetHandleByIndex_v2");
    int (*shutdown)(void) = (int (*)(void))dlsym(dl, "nvmlShutdown");
    if (!init || !count || !handle || !shutdown || init() != 0) {
        fprintf(stderr, "nvml_rss: nvmlInit_v2 failed\n");
        return 1;
    }
    long inited = rss_kib();
    unsigned n = 0;
    count(&n);
    for (unsigned i = 0; i < n; i++) {
        void *h = NULL;
        handle(i, &h);
    }
    long handles = rss_kib();
    printf("{\"library\": \"%s\", \"gpus\": %u, \"start_kib\": %ld, \"dlopen_kib\": %ld, "
           "\"init_kib\": %ld, \"handles_kib\": %ld, \"nvml_cost_kib\": %ld}\n",
           lib, n, start, opened, inited, handles, handles - start);
    shutdown();
    return 0;
}
