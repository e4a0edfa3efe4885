/*
 * bench_roles: the /proc part of a tick with the job's processes by role (issue 13) on a job of
 * PROCS processes: a "training" process (given as the GPU context holder) whose children are the
 * "workers", like a DataLoader with PROCS - 1 workers. Prints microseconds of CPU per tick for the
 * whole host + job + roles read; compare with the tick's NVML reads (build/bench_tick).
 *
 *   build/bench_roles [iterations [processes]]      (defaults 2000, 24)
 */
#include "host/procfs.h"
#include "util/gw_time.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static int64_t cpu_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

int main(int argc, char **argv)
{
    int iters = argc > 1 ? atoi(argv[1]) : 2000;
    int procs = argc > 2 ? atoi(argv[2]) : 24;
    if (iters < 1 || procs < 1 || procs > 4096) {
        fprintf(stderr, "usage: bench_roles [iterations [processes 1-4096]]\n");
        return 2;
    }
    int ready[2];
    prctl(PR_SET_CHILD_SUBREAPER, 1); /* the workers' zombies come back to us to reap */
    if (pipe(ready) != 0)
        return 1;
    pid_t train = fork();
    if (train == 0) {
        setpgid(0, 0); /* its own group, so that one kill ends the job */
        /* the training process: forks its workers, then waits to be killed */
        for (int i = 1; i < procs; i++)
            if (fork() == 0) {
                for (;;)
                    pause();
            }
        if (write(ready[1], "x", 1) != 1)
            _exit(1);
        for (;;)
            pause();
    }
    char c;
    if (train < 0 || read(ready[0], &c, 1) != 1)
        return 1;
    gw_procfs *p = gw_procfs_new(NULL);
    gw_procfs_set_job(p, train, 0);
    const unsigned gpu[] = {(unsigned)train};
    gw_procfs_set_gpu_pids(p, gpu, 1);
    gw_host_sample h;
    gw_procfs_sample(p, gw_mono_ns(), &h);
    int64_t c0 = cpu_ns(), w0 = gw_mono_ns();
    for (int i = 0; i < iters; i++)
        gw_procfs_sample(p, gw_mono_ns(), &h);
    int64_t c1 = cpu_ns(), w1 = gw_mono_ns();
    printf("job of %d processes (train %.0f, workers %.0f, rest %.0f), %d ticks\n", procs,
           h.role[GW_ROLE_TRAIN].processes, h.role[GW_ROLE_WORKERS].processes,
           h.role[GW_ROLE_REST].processes, iters);
    printf("/proc host + job + roles: %.1f us CPU, %.1f us wall per tick\n",
           (double)(c1 - c0) / 1e3 / iters, (double)(w1 - w0) / 1e3 / iters);
    gw_procfs_free(p);
    kill(-train, SIGKILL);
    while (waitpid(-1, NULL, 0) > 0)
        ;
    return 0;
}
