/* bench_alerts: the alert engine's cost per tick, against the tick it judges.
 *
 *   build/bench_alerts [TICKS [GPUS]]     (default 200000 ticks, 8 GPUs)
 *
 * Feeds the engine synthetic ticks with every built-in rule enabled (job_memory_critical with
 * its trend window) and values that move around the thresholds, so
 * that states change, trend windows fill and alerts fire and resolve (the events go to a bus with
 * no listener, the stderr lines nowhere). Prints ns per tick and per rule instance; a tick's NVML
 * reads cost about 4.7 us per GPU on an H200 (bench_tick). */
#include "alerts/alerts.h"
#include "util/gw_time.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    long ticks = argc > 1 ? atol(argv[1]) : 200000;
    unsigned ngpu = argc > 2 ? (unsigned)atoi(argv[2]) : 8;
    if (ticks < 1 || ngpu < 1 || ngpu > 64) {
        fprintf(stderr, "usage: bench_alerts [TICKS [GPUS (1-64)]]\n");
        return 2;
    }
    gw_alerts_config cfg;
    gw_alerts_config_defaults(&cfg);
    gw_events *bus = gw_events_new();
    gw_alerts *a = gw_alerts_new(&cfg, bus);
    gw_alerts_set_log(a, NULL);
    gw_sink sink = gw_alerts_as_sink(a);
    gw_device_info dev[64];
    memset(dev, 0, sizeof dev);
    gw_gpu_sample gpus[64];
    memset(gpus, 0, sizeof gpus);
    for (unsigned i = 0; i < ngpu; i++)
        dev[i].index = i;
    sink.on_start(sink.ctx, dev, ngpu);
    gw_sample s;
    memset(&s, 0, sizeof s);
    s.gpus = gpus;
    s.gpu_count = ngpu;
    s.host = (gw_host_sample){NAN, NAN, NAN, NAN, NAN, NAN};
    int64_t t0 = gw_mono_ns();
    for (long k = 0; k < ticks; k++) {
        double phase = (double)k / 5000.0; /* a slow wave crossing every threshold */
        for (unsigned i = 0; i < ngpu; i++) {
            gw_set(&gpus[i], GW_F_TEMP_GPU_C, 78 + 8 * sin(phase + i));
            gw_set(&gpus[i], GW_F_MEM_TOTAL_MIB, 143771.0);
            gw_set(&gpus[i], GW_F_MEM_USED_MIB, (0.90 + 0.09 * sin(phase * 1.3 + i)) * 143771.0);
        }
        s.host.job_rss_mib = 4000 + 2000 * sin(phase * 0.7);
        s.read_ns = (int64_t)(300e6 + 300e6 * sin(phase * 2));
        s.mono_ns = k * 100000000LL; /* 10 Hz */
        s.wall_ms = 1800000000000LL + k * 100;
        s.seq = (uint64_t)k;
        sink.on_sample(sink.ctx, &s);
    }
    int64_t ns = gw_mono_ns() - t0;
    gw_alerts_stats st;
    gw_alerts_get_stats(a, &st);
    unsigned instances = 0;
    for (int r = 0; r < cfg.nrules; r++)
        instances += gw_alert_metrics[cfg.rules[r].metric].scope == GW_SCOPE_GPU ? ngpu : 1;
    printf("%ld ticks, %u GPUs, %u rule instances: %.0f ns per tick, %.1f ns per instance; "
           "%u alerts fired, %u resolved\n",
           ticks, ngpu, instances, (double)ns / (double)ticks,
           (double)ns / (double)ticks / instances, st.fired, st.resolved);
    printf("against the tick's NVML reads (~4.7 us per GPU on an H200): %.2f %% of a tick\n",
           100.0 * ((double)ns / (double)ticks) / (4700.0 * ngpu));
    gw_alerts_free(a);
    gw_events_free(bus);
    return 0;
}
