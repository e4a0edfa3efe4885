/*
 * bench_inproc: reading and analysing the in-job data of a large job (issue 22): a training
 * process and WORKERS DataLoader workers, each with a stacks file of STACKS distinct stacks 30
 * frames deep, and HOURS of "steps" records every 2 s. Prints the files' size, the time of
 * gw_inproc_read + gw_inproc_analyze and the peak RSS.
 *
 *   build/bench_inproc [workers [stacks [hours]]]      (defaults 64, 2000, 10)
 */
#include "analysis/inproc.h"
#include "logread/inproc.h"
#include "logread/series.h"

#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static long write_stacks(const char *path, int stacks, int seed)
{
    FILE *f = fopen(path, "w");
    if (!f)
        exit(1);
    for (int s = 0; s < stacks; s++) {
        for (int d = 0; d < 30; d++)
            fprintf(f, "%sfn_%d_%d (pkg/module_%d.py:%d)", d ? ";" : "", d, (s * 7 + d) % 97,
                    d % 13, 10 + d);
        fprintf(f, ";leaf_%d (pkg/leaf.py:%d) %d\n", (s + seed) % 500, s % 50, 1 + s % 40);
    }
    long size = ftell(f);
    fclose(f);
    return size;
}

int main(int argc, char **argv)
{
    int workers = argc > 1 ? atoi(argv[1]) : 64;
    int stacks = argc > 2 ? atoi(argv[2]) : 2000;
    double hours = argc > 3 ? atof(argv[3]) : 10;
    char dir[] = "/tmp/bench-inproc-XXXXXX";
    if (!mkdtemp(dir))
        return 1;
    char path[256];
    snprintf(path, sizeof path, "%s/python", dir);
    mkdir(path, 0755);
    long bytes = 0;
    const double t0 = 1796138450.0;
    snprintf(path, sizeof path, "%s/python/100.jsonl", dir);
    FILE *f = fopen(path, "w");
    fprintf(f, "{\"t\":%.1f,\"kind\":\"process\",\"pid\":100,\"role\":\"main\"}\n", t0);
    fprintf(f, "{\"t\":%.1f,\"kind\":\"loader\",\"loader\":0,\"num_workers\":%d}\n", t0, workers);
    int epochs = 20, per_epoch = (int)(hours * 1800 / epochs);
    for (int e = 0; e < epochs; e++) {
        double start = t0 + 10 + e * per_epoch * 2.0;
        for (int k = 0; k < per_epoch; k++)
            fprintf(f,
                    "{\"t\":%.3f,\"kind\":\"steps\",\"loader\":0,\"pass\":%d,\"t0\":%.3f,"
                    "\"t1\":%.3f,\"steps\":20,\"wait_s\":0.8,\"between_s\":1.2}\n",
                    start + 2.0 * (k + 1), e, start + 2.0 * k, start + 2.0 * (k + 1));
        fprintf(f,
                "{\"t\":%.3f,\"kind\":\"pass\",\"loader\":0,\"pass\":%d,\"t_start\":%.3f,"
                "\"t_end\":%.3f,\"steps\":%d,\"wait_s\":%g,\"between_s\":%g}\n",
                start + 2.0 * per_epoch, e, start, start + 2.0 * per_epoch, 20 * per_epoch,
                0.8 * per_epoch, 1.2 * per_epoch);
    }
    bytes += ftell(f);
    fclose(f);
    snprintf(path, sizeof path, "%s/python/100.stacks", dir);
    bytes += write_stacks(path, stacks, 0);
    for (int w = 0; w < workers; w++) {
        snprintf(path, sizeof path, "%s/python/%d.jsonl", dir, 1000 + w);
        f = fopen(path, "w");
        fprintf(f, "{\"t\":%.1f,\"kind\":\"process\",\"pid\":%d,\"role\":\"worker\"}\n", t0,
                1000 + w);
        bytes += ftell(f);
        fclose(f);
        snprintf(path, sizeof path, "%s/python/%d.stacks", dir, 1000 + w);
        bytes += write_stacks(path, stacks, w);
    }
    double a = now_s();
    gw_series *s = gw_series_new();
    size_t in = gw_series_add_input(s, dir, NULL, GW_INPUT_RUN_DIR);
    s->inputs[in].inproc = gw_inproc_read(dir, "on");
    double b = now_s();
    gw_inproc_analysis *ia = gw_inproc_analyze(s);
    double c = now_s();
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    printf("%d workers, %d stacks each, %.0f h of steps: %.1f MiB read; read %.3f s, analyse "
           "%.3f s; %zu epochs, %zu worker functions; peak RSS %.1f MiB\n",
           workers, stacks, hours, (double)bytes / 1048576.0, b - a, c - b, ia->nepochs,
           ia->roles[GW_INPROC_WORKER].nfns, (double)ru.ru_maxrss / 1024.0);
    gw_inproc_analysis_free(ia);
    gw_series_free(s);
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    return system(cmd) == 0 ? 0 : 1;
}
