/*
 * bench_tick: the cost of one sampler tick per GPU against the raw NVML calls it makes.
 *
 * For each GPU it times, over N iterations: the four core calls made directly (utilization,
 * memory_v2, temperature, power), gpuwatch's fast read of the same four fields, the raw calls behind
 * a whole `run` tick's fast fields, gpuwatch's fast read of them, and the /proc part of a tick
 * (host + a job tree). Prints microseconds per read and the ratios. NVML comes from
 * $GPUWATCH_NVML_LIB (the fake on a CPU-only machine) or libnvidia-ml.so.1.
 *
 *   build/bench_tick [iterations]
 */
#include "host/procfs.h"
#include "nvml/nvml_lib.h"
#include "sampler/gpu_dev.h"
#include "util/gw_time.h"

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define B(f) GW_FIELD_BIT(f)

static volatile unsigned sink;

static void raw_core(const gw_nvml *n, gwn_device h)
{
    gwn_utilization u;
    gwn_memory_v2 m = {.version = GWN_MEMORY_V2_VERSION};
    unsigned t = 0, p = 0;
    n->DeviceGetUtilizationRates(h, &u);
    n->DeviceGetMemoryInfo_v2(h, &m);
    n->DeviceGetTemperature(h, GWN_TEMPERATURE_GPU, &t);
    n->DeviceGetPowerUsage(h, &p);
    sink += u.gpu + t + p + (unsigned)m.used;
}

static void raw_record(const gw_nvml *n, gwn_device h)
{
    raw_core(n, h);
    unsigned v = 0;
    unsigned long long mask = 0;
    int ps = 0;
    n->DeviceGetPowerManagementLimit(h, &v);
    n->DeviceGetClockInfo(h, GWN_CLOCK_SM, &v);
    n->DeviceGetClockInfo(h, GWN_CLOCK_MEM, &v);
    n->DeviceGetCurrentClocksEventReasons(h, &mask);
    n->DeviceGetPerformanceState(h, &ps);
    sink += v + (unsigned)mask + (unsigned)ps;
}

int main(int argc, char **argv)
{
    int iters = argc > 1 ? atoi(argv[1]) : 20000;
    gw_nvml *n = NULL;
    gw_error err = {0};
    if (gw_nvml_open(NULL, &n, &err)) {
        fprintf(stderr, "bench_tick: %s\n", err.msg);
        return 1;
    }
    gw_gpu_dev *devs = NULL;
    unsigned count = 0;
    if (gw_gpu_devs_open(n, &devs, &count, &err)) {
        fprintf(stderr, "bench_tick: %s\n", err.msg);
        return 1;
    }
    if (!n->DeviceGetMemoryInfo_v2 || !n->DeviceGetCurrentClocksEventReasons) {
        fprintf(stderr, "bench_tick: this NVML lacks MemoryInfo_v2 or ClocksEventReasons\n");
        return 1;
    }
    const uint64_t core = B(GW_F_UTIL_GPU_PCT) | B(GW_F_UTIL_MEM_PCT) | B(GW_F_MEM_TOTAL_BYTES) |
                          B(GW_F_MEM_USED_BYTES) | B(GW_F_MEM_FREE_BYTES) |
                          B(GW_F_MEM_RESERVED_BYTES) | B(GW_F_TEMP_GPU_C) | B(GW_F_POWER_DRAW_MW);
    printf("NVML library: %s, %u GPU(s), %d iterations\n", n->path, count, iters);
    printf("%-4s %-28s %12s %12s %8s\n", "GPU", "what", "raw us/read", "gw us/read", "ratio");
    for (unsigned i = 0; i < count; i++) {
        gw_gpu_dev *d = &devs[i];
        gw_gpu_sample s;
        struct {
            const char *what;
            void (*raw)(const gw_nvml *, gwn_device);
            uint64_t fields;
        } cases[] = {{"4 core fields", raw_core, core},
                     {"a run tick's fast fields", raw_record, GW_FIELDS_RECORD}};
        for (int c = 0; c < 2; c++) {
            for (int w = 0; w < iters / 10; w++) /* warm-up */
                cases[c].raw(n, d->handle);
            int64_t t0 = gw_mono_ns();
            for (int k = 0; k < iters; k++)
                cases[c].raw(n, d->handle);
            int64_t t1 = gw_mono_ns();
            for (int k = 0; k < iters; k++)
                gw_gpu_read_fast(n, d, cases[c].fields, &s);
            int64_t t2 = gw_mono_ns();
            double raw = (t1 - t0) / 1e3 / iters, gw = (t2 - t1) / 1e3 / iters;
            printf("%-4u %-28s %12.2f %12.2f %7.2fx\n", d->info.index, cases[c].what, raw, gw,
                   gw / raw);
        }
    }
    gw_procfs *p = gw_procfs_new(NULL);
    gw_procfs_set_job(p, getppid(), 0);
    gw_host_sample h;
    int piters = iters / 10 > 0 ? iters / 10 : 1;
    int64_t t0 = gw_mono_ns();
    for (int k = 0; k < piters; k++)
        gw_procfs_sample(p, gw_mono_ns(), &h);
    int64_t t1 = gw_mono_ns();
    printf("%-4s %-28s %12s %12.2f %8s\n", "-", "/proc host + job tree", "", (t1 - t0) / 1e3 / piters,
           "");
    gw_procfs_free(p);
    gw_gpu_devs_close(n, devs, count);
    gw_nvml_close(n);
    return 0;
}
