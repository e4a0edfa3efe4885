/*
 * bench_tick: the cost of one sampler tick per GPU against the raw NVML calls it makes.
 *
 * For each GPU it times, over N iterations: the four core calls made directly (utilization,
 * memory_v2, temperature, power), gpuwatch's fast read of the same four fields, the raw calls
 * behind a whole `run` tick's fast fields, gpuwatch's fast read of them, and the /proc part of a
 * tick (host + a job tree). Prints microseconds per read and the ratios. With spaced-calls, also
 * each call alone with calls 100 ms apart, and GPM as a tick reads it, metric by metric. NVML comes
 * from $GPUWATCH_NVML_LIB (the fake on a CPU-only machine) or libnvidia-ml.so.1.
 *
 *   build/bench_tick [iterations [spaced-calls]]
 */
#include "host/procfs.h"
#include "nvml/nvml_lib.h"
#include "sampler/gpu_dev.h"
#include "util/gw_time.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define B(f) GW_FIELD_BIT(f)

static volatile unsigned sink;

static int64_t cpu_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* Prints this process's resident memory (VmRSS, RssAnon, RssFile) after a stage. */
static void rss(const char *stage)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256], out[256] = "";
    while (f && fgets(line, sizeof line, f)) {
        if (strncmp(line, "VmRSS:", 6) == 0 || strncmp(line, "RssAnon:", 8) == 0 ||
            strncmp(line, "RssFile:", 8) == 0) {
            line[strcspn(line, "\n")] = '\0';
            strncat(out, line, sizeof out - strlen(out) - 2);
            strncat(out, "  ", sizeof out - strlen(out) - 1);
        }
    }
    if (f)
        fclose(f);
    printf("memory after %-22s %s\n", stage, out);
}

/* One NVML call, timed alone. */
typedef struct one_call {
    const char *name;
    int which;
} one_call;

static gwn_gpm_sample gpm_a, gpm_b;
static gwn_gpm_metrics_get gpm_mg;

static void do_call(const gw_nvml *n, gwn_device h, int which)
{
    unsigned v = 0;
    unsigned long long u = 0;
    int ps = 0;
    switch (which) {
    case 0: {
        gwn_utilization x;
        n->DeviceGetUtilizationRates(h, &x);
        v = x.gpu;
        break;
    }
    case 1: {
        gwn_memory_v2 m = {.version = GWN_MEMORY_V2_VERSION};
        n->DeviceGetMemoryInfo_v2(h, &m);
        v = (unsigned)m.used;
        break;
    }
    case 2:
        n->DeviceGetTemperature(h, GWN_TEMPERATURE_GPU, &v);
        break;
    case 3:
        n->DeviceGetPowerUsage(h, &v);
        break;
    case 4:
        n->DeviceGetPowerManagementLimit(h, &v);
        break;
    case 5:
        n->DeviceGetEnforcedPowerLimit(h, &v);
        break;
    case 6:
        n->DeviceGetClockInfo(h, GWN_CLOCK_SM, &v);
        break;
    case 7:
        n->DeviceGetClockInfo(h, GWN_CLOCK_MEM, &v);
        break;
    case 8:
        n->DeviceGetCurrentClocksEventReasons(h, &u);
        break;
    case 9:
        n->DeviceGetPerformanceState(h, &ps);
        break;
    case 10:
        if (n->DeviceGetTotalEnergyConsumption)
            n->DeviceGetTotalEnergyConsumption(h, &u);
        break;
    case 11: {
        unsigned c = 0;
        if (n->DeviceGetComputeRunningProcesses)
            n->DeviceGetComputeRunningProcesses(h, &c, NULL);
        v = c;
        break;
    }
    case 12:
        if (n->GpmSampleGet && gpm_a)
            n->GpmSampleGet(h, gpm_a);
        break;
    case 13:
        if (n->GpmMetricsGet && gpm_a && gpm_b) {
            memset(&gpm_mg, 0, 24 + 4 * sizeof gpm_mg.metrics[0]);
            gpm_mg.version = GWN_GPM_METRICS_GET_VERSION;
            gpm_mg.numMetrics = 4;
            gpm_mg.sample1 = gpm_b;
            gpm_mg.sample2 = gpm_a;
            gpm_mg.metrics[0].metricId = 2;
            gpm_mg.metrics[1].metricId = 3;
            gpm_mg.metrics[2].metricId = 5;
            gpm_mg.metrics[3].metricId = 10;
            n->GpmMetricsGet(&gpm_mg);
        }
        break;
    case 14: {
        gwn_field_value fv = {.fieldId = GWN_FI_DEV_MEMORY_TEMP};
        if (n->DeviceGetFieldValues)
            n->DeviceGetFieldValues(h, 1, &fv);
        break;
    }
    case 16: {
        gwn_memory m;
        n->DeviceGetMemoryInfo(h, &m);
        v = (unsigned)m.used;
        break;
    }
    case 15:
        n->DeviceGetMaxClockInfo(h, GWN_CLOCK_SM, &v);
        break;
    default:
        break;
    }
    sink += v + (unsigned)u + (unsigned)ps;
}

/* Times each call alone: `spaced` calls 100 ms apart (as in a 10 Hz tick, where NVML's caches
 * have expired) and, for comparison, back to back. Wall and thread-CPU microseconds per call. */
static void per_call(const gw_nvml *n, gwn_device h, int iters, int spaced)
{
    static const one_call calls[] = {{"GetUtilizationRates", 0},
                                     {"GetMemoryInfo_v2", 1},
                                     {"GetMemoryInfo (v1)", 16},
                                     {"GetTemperature", 2},
                                     {"GetPowerUsage", 3},
                                     {"GetPowerManagementLimit", 4},
                                     {"GetEnforcedPowerLimit", 5},
                                     {"GetClockInfo(SM)", 6},
                                     {"GetClockInfo(MEM)", 7},
                                     {"GetCurrentClocksEventReasons", 8},
                                     {"GetPerformanceState", 9},
                                     {"GetMaxClockInfo(SM)", 15},
                                     {"GetTotalEnergyConsumption", 10},
                                     {"GetComputeRunningProcesses", 11},
                                     {"GpmSampleGet", 12},
                                     {"GpmMetricsGet (4 metrics)", 13},
                                     {"GetFieldValues(mem temp)", 14}};
    if (n->GpmSampleAlloc) {
        n->GpmSampleAlloc(&gpm_a);
        n->GpmSampleAlloc(&gpm_b);
        if (n->GpmSampleGet) {
            n->GpmSampleGet(h, gpm_b);
            usleep(200000);
            n->GpmSampleGet(h, gpm_a);
        }
    }
    printf("%-30s %13s %13s %13s %13s\n", "NVML call", "loop wall us", "loop CPU us", "spaced wall",
           "spaced CPU");
    for (size_t c = 0; c < sizeof calls / sizeof calls[0]; c++) {
        int k = calls[c].which >= 10 && calls[c].which <= 13 ? iters / 100 + 1 : iters / 10 + 1;
        int64_t w0 = gw_mono_ns(), c0 = cpu_ns();
        for (int i = 0; i < k; i++)
            do_call(n, h, calls[c].which);
        int64_t w1 = gw_mono_ns(), c1 = cpu_ns();
        int64_t sw = 0, sc = 0;
        for (int i = 0; i < spaced; i++) {
            usleep(100000);
            int64_t a = gw_mono_ns(), b = cpu_ns();
            do_call(n, h, calls[c].which);
            sw += gw_mono_ns() - a;
            sc += cpu_ns() - b;
        }
        printf("%-30s %13.2f %13.2f %13.2f %13.2f\n", calls[c].name, (w1 - w0) / 1e3 / k,
               (c1 - c0) / 1e3 / k, spaced ? sw / 1e3 / spaced : 0.0,
               spaced ? sc / 1e3 / spaced : 0.0);
    }
}

/* A whole tick's fast reads every 100 ms, as the sampler does: wall and CPU per tick. */
static void spaced_ticks(const gw_nvml *n, gw_gpu_dev *d, uint64_t fields, const char *what,
                         int ticks)
{
    gw_gpu_sample s;
    int64_t sw = 0, sc = 0;
    for (int i = 0; i < ticks; i++) {
        usleep(100000);
        int64_t a = gw_mono_ns(), b = cpu_ns();
        gw_gpu_read_fast(n, d, fields, &s);
        sw += gw_mono_ns() - a;
        sc += cpu_ns() - b;
    }
    printf("%-4u %-40s wall %8.2f us  CPU %8.2f us per tick (%d ticks 100 ms apart)\n",
           d->info.index, what, sw / 1e3 / ticks, sc / 1e3 / ticks, ticks);
}

/* GPM as the sampler reads it in every tick: GpmSampleGet every 200 ms (-i 0.2) and
 * GpmMetricsGet over the last two samples for the GPM fields in `fields`, each call timed alone,
 * then gw_gpu_read_gpm as a whole. A metrics call on a new pair of samples costs more than one
 * on a pair already computed (per_call's figure), and what it costs depends on the metrics. */
static void spaced_gpm(const gw_nvml *n, gw_gpu_dev *d, int ticks, uint64_t fields,
                       const char *what)
{
    gwn_gpm_sample smp[2] = {NULL, NULL};
    if (!d->info.gpm_supported || n->GpmSampleAlloc(&smp[0]) || n->GpmSampleAlloc(&smp[1]))
        return;
    int64_t get_cpu = 0, metrics_cpu = 0, read_cpu = 0;
    n->GpmSampleGet(d->handle, smp[0]);
    for (int i = 1; i <= ticks; i++) {
        usleep(200000);
        int64_t a = cpu_ns();
        n->GpmSampleGet(d->handle, smp[i & 1]);
        int64_t b = cpu_ns();
        memset(&gpm_mg, 0, sizeof gpm_mg);
        gpm_mg.version = GWN_GPM_METRICS_GET_VERSION;
        gpm_mg.sample1 = smp[(i - 1) & 1];
        gpm_mg.sample2 = smp[i & 1];
        for (int f = 0; f < GW_F_COUNT; f++) /* the GPM fields of the table */
            if (gw_fields[f].gpm_metric && (fields & B(f)))
                gpm_mg.metrics[gpm_mg.numMetrics++].metricId = gw_fields[f].gpm_metric;
        n->GpmMetricsGet(&gpm_mg);
        metrics_cpu += cpu_ns() - b;
        get_cpu += b - a;
    }
    gw_gpu_sample s;
    memset(&s, 0, sizeof s);
    gw_gpu_read_gpm(n, d, &gpm_mg, fields, &s);
    for (int i = 0; i < ticks; i++) {
        usleep(200000);
        int64_t a = cpu_ns();
        gw_gpu_read_gpm(n, d, &gpm_mg, fields, &s);
        read_cpu += cpu_ns() - a;
    }
    printf("%-4u GPM 200 ms apart, %-22s GpmSampleGet %7.1f us, GpmMetricsGet %7.1f us, "
           "gw_gpu_read_gpm %7.1f us CPU\n",
           d->info.index, what, get_cpu / 1e3 / ticks, metrics_cpu / 1e3 / ticks,
           read_cpu / 1e3 / ticks);
    n->GpmSampleFree(smp[0]);
    n->GpmSampleFree(smp[1]);
}

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

/* The raw calls behind a `run` tick's fast fields (see gpu_dev.c). */
static void raw_record(const gw_nvml *n, gwn_device h)
{
    raw_core(n, h);
    unsigned v = 0;
    unsigned long long mask = 0;
    int ps = 0;
    n->DeviceGetEnforcedPowerLimit(h, &v);
    n->DeviceGetClockInfo(h, GWN_CLOCK_SM, &v);
    n->DeviceGetClockInfo(h, GWN_CLOCK_MEM, &v);
    n->DeviceGetCurrentClocksEventReasons(h, &mask);
    n->DeviceGetPerformanceState(h, &ps);
    sink += v + (unsigned)mask + (unsigned)ps;
}

int main(int argc, char **argv)
{
    int iters = argc > 1 ? atoi(argv[1]) : 20000;
    int spaced = argc > 2 ? atoi(argv[2]) : 0; /* calls 100 ms apart per NVML call */
    gw_nvml *n = NULL;
    gw_error err = {0};
    rss("start");
    if (gw_nvml_open(NULL, &n, &err)) {
        fprintf(stderr, "bench_tick: %s\n", err.msg);
        return 1;
    }
    gw_gpu_dev *devs = NULL;
    unsigned count = 0;
    rss("dlopen + nvmlInit");
    if (gw_gpu_devs_open(n, &devs, &count, &err)) {
        fprintf(stderr, "bench_tick: %s\n", err.msg);
        return 1;
    }
    rss("opening the devices");
    if (!n->DeviceGetMemoryInfo_v2 || !n->DeviceGetCurrentClocksEventReasons) {
        fprintf(stderr, "bench_tick: this NVML lacks MemoryInfo_v2 or ClocksEventReasons\n");
        return 1;
    }
    const uint64_t core = B(GW_F_UTIL_GPU_PCT) | B(GW_F_UTIL_MEM_PCT) | B(GW_F_MEM_TOTAL_MIB) |
                          B(GW_F_MEM_USED_MIB) | B(GW_F_MEM_FREE_MIB) | B(GW_F_MEM_RESERVED_MIB) |
                          B(GW_F_TEMP_GPU_C) | B(GW_F_POWER_DRAW_W);
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
    rss("the fast reads");
    for (unsigned i = 0; i < count; i++) {
        per_call(n, devs[i].handle, iters, spaced);
        if (spaced) {
            spaced_ticks(n, &devs[i], core, "4 core fields", spaced);
            spaced_ticks(n, &devs[i], GW_FIELDS_RECORD, "a run tick's fast fields", spaced);
            spaced_ticks(n, &devs[i], B(GW_F_UTIL_ENC_PCT) | B(GW_F_UTIL_DEC_PCT),
                         "encoder + decoder utilisation", spaced);
            if (n->GpmSampleGet && n->GpmMetricsGet) {
                const struct {
                    uint64_t fields;
                    const char *what;
                } sets[] = {
                    {B(GW_F_GPM_SM_ACTIVE_PCT), "SM active (2):"},
                    {B(GW_F_GPM_SM_OCCUPANCY_PCT), "SM occupancy (3):"},
                    {B(GW_F_GPM_TENSOR_ACTIVE_PCT), "tensor active (5):"},
                    {B(GW_F_GPM_DRAM_ACTIVE_PCT), "DRAM active (10):"},
                    {B(GW_F_GPM_GR_ACTIVE_PCT), "graphics active (1):"},
                    {B(GW_F_GPM_PCIE_TX_MIB_S) | B(GW_F_GPM_PCIE_RX_MIB_S), "PCIe TX+RX (20, 21):"},
                    {B(GW_F_GPM_NVLINK_TX_MIB_S) | B(GW_F_GPM_NVLINK_RX_MIB_S),
                     "NVLink TX+RX (61, 60):"},
                    {GW_FIELDS_GPM & GW_FIELDS_RECORD, "gpu.csv's GPM:"},
                    {GW_FIELDS_GPM, "all GPM:"}};
                for (size_t k = 0; k < sizeof sets / sizeof sets[0]; k++)
                    spaced_gpm(n, &devs[i], spaced, sets[k].fields, sets[k].what);
            }
        }
    }
    rss("every call once");
    gw_procfs *p = gw_procfs_new(NULL);
    gw_procfs_set_job(p, getppid(), 0);
    gw_host_sample h;
    int piters = iters / 10 > 0 ? iters / 10 : 1;
    int64_t t0 = gw_mono_ns();
    for (int k = 0; k < piters; k++)
        gw_procfs_sample(p, gw_mono_ns(), &h);
    int64_t t1 = gw_mono_ns();
    printf("%-4s %-28s %12s %12.2f %8s\n", "-", "/proc host + job tree", "",
           (t1 - t0) / 1e3 / piters, "");
    gw_procfs_free(p);
    gw_gpu_devs_close(n, devs, count);
    gw_nvml_close(n);
    return 0;
}
