/* Unit tests for src/host/procfs.c against a fake /proc tree in a temporary directory. */
#include "test_helpers.h"

#include "host/procfs.h"

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* Writes ROOT/PID/stat with the fields procfs reads: ppid, process group, session, state, utime,
 * stime, starttime, rss. */
static void fake_proc_in(const char *root, int pid, int ppid, int pgrp, int session, char state,
                         unsigned long long utime, unsigned long long stime,
                         unsigned long long start, long rss_pages, const char *children)
{
    char name[64], text[512];
    snprintf(name, sizeof name, "%d/stat", pid);
    snprintf(text, sizeof text,
             "%d (py ) thon) %c %d %d %d 0 -1 4194304 100 0 0 0 %llu %llu 0 0 20 0 1 0 %llu "
             "1000000 %ld 18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 17 3 0 0 0 0 0\n",
             pid, state, ppid, pgrp, session, utime, stime, start, rss_pages);
    th_write(root, name, text);
    snprintf(name, sizeof name, "%d/task/%d/children", pid, pid);
    th_write(root, name, children ? children : "");
    snprintf(name, sizeof name, "%d/comm", pid);
    th_write(root, name, "python3\n");
}

/* A process that leads its own group and session. */
static void fake_proc(const char *root, int pid, int ppid, char state, unsigned long long utime,
                      unsigned long long stime, unsigned long long start, long rss_pages,
                      const char *children)
{
    fake_proc_in(root, pid, ppid, pid, pid, state, utime, stime, start, rss_pages, children);
}

static void fake_host(const char *root, unsigned long long busy, unsigned long long idle)
{
    char text[256];
    snprintf(text, sizeof text, "cpu  %llu 0 0 %llu 0 0 0 0 0 0\ncpu0 1 0 0 1 0 0 0 0 0 0\n", busy,
             idle);
    th_write(root, "stat", text);
    th_write(root, "meminfo",
             "MemTotal:       16384000 kB\nMemFree:         1000 kB\nMemAvailable:    "
             "12288000 kB\n");
}

static void test_stat_parse(void **state)
{
    (void)state;
    gw_proc_stat st;
    const char *line = "4242 (a) b (c)) S 1 4240 4200 0 -1 0 0 0 0 0 150 50 0 0 20 0 3 0 777 "
                       "123 456 0\n";
    assert_true(gw_proc_stat_parse(line, &st));
    assert_int_equal(st.pid, 4242);
    assert_int_equal(st.ppid, 1);
    assert_int_equal(st.pgrp, 4240);
    assert_int_equal(st.session, 4200);
    assert_int_equal(st.state, 'S');
    assert_int_equal(st.utime, 150);
    assert_int_equal(st.stime, 50);
    assert_int_equal(st.starttime, 777);
    assert_int_equal(st.rss_pages, 456);
    assert_false(gw_proc_stat_parse("garbage", &st));
    assert_false(gw_proc_stat_parse("12 (x) S 1", &st));
}

static void test_host_and_job(void **state)
{
    (void)state;
    char *root = th_tmpdir();
    long tck = sysconf(_SC_CLK_TCK);
    long page = sysconf(_SC_PAGESIZE);
    fake_host(root, 1000, 3000);
    /* job 100 -> workers 101, 102 (via children); 103 is a child of 101 found by children too */
    fake_proc(root, 100, 1, 'S', 100, 0, 5000, 1000, "101 102");
    fake_proc(root, 101, 100, 'R', 10, 0, 5001, 500, "103");
    fake_proc(root, 102, 100, 'S', 0, 0, 5002, 500, "");
    fake_proc(root, 103, 101, 'S', 0, 0, 5003, 0, "");
    fake_proc(root, 200, 1, 'S', 999, 0, 10, 99999, ""); /* not in the job */
    gw_procfs *p = gw_procfs_new(root);
    gw_procfs_set_job(p, 100, 0);
    gw_host_sample h;
    gw_procfs_sample(p, INT64_C(1000000000), &h);
    assert_true(isnan(h.cpu_util_pct)); /* needs two reads */
    assert_true(isnan(h.job_cpu_pct));
    assert_float_equal(h.mem_total_mib, 16000.0, 1e-6);
    assert_float_equal(h.mem_used_mib, 4000.0, 1e-6);
    assert_float_equal(h.job_processes, 4, 0);
    assert_float_equal(h.job_rss_mib, 2000.0 * page / 1048576.0, 1e-9);
    assert_true(gw_procfs_in_job(p, 103));
    assert_false(gw_procfs_in_job(p, 200));

    /* One second later: host 50% busy; job used 2 cores' worth of ticks; 102 exited; 104 new. */
    char gone[1100];
    snprintf(gone, sizeof gone, "%s/102", root);
    th_rmrf(gone);
    fake_host(root, 1100, 3100);
    fake_proc(root, 100, 1, 'S', 100 + tck, 0, 5000, 1000, "101 104");
    fake_proc(root, 101, 100, 'R', 10 + tck / 2, 0, 5001, 500, "103");
    fake_proc(root, 103, 101, 'Z', 0, 0, 5003, 0, ""); /* zombie: not counted */
    fake_proc(root, 104, 100, 'R', tck / 2, 0, 5100, 100, "");
    gw_procfs_sample(p, INT64_C(2000000000), &h);
    assert_float_equal(h.cpu_util_pct, 50.0, 1e-9);
    assert_float_equal(h.job_processes, 3, 0);
    assert_float_equal(h.job_cpu_pct, 200.0, 1.0);
    assert_false(gw_procfs_in_job(p, 102));
    assert_true(gw_procfs_in_job(p, 104));
    gw_procfs_free(p);
    th_rmrf(root);
    free(root);
}

static void test_reused_pid_and_full_scan(void **state)
{
    (void)state;
    char *root = th_tmpdir();
    fake_host(root, 0, 0);
    /* 301 is a child of 300 created by another thread: not in the main thread's children file,
     * found by the full scan. `self` (pid 50) adopted 400 (the job's process group), 403 (the
     * job's session: another group of a pty job) and 402, 404, 405, which are not the job's: 402
     * leads its own group (a hook), 404 is in the group of the excluded 401 (what a hook left
     * behind), 405 shares gpuwatch's own group. 401 is excluded although in the job's group. */
    fake_proc(root, 300, 50, 'S', 0, 0, 1, 10, "");
    fake_proc(root, 301, 300, 'S', 0, 0, 2, 10, "");
    fake_proc_in(root, 400, 50, 300, 300, 'S', 0, 0, 3, 10, "");
    fake_proc_in(root, 401, 50, 300, 300, 'S', 0, 0, 4, 10, "");
    fake_proc(root, 402, 50, 'S', 0, 0, 5, 10, "");
    fake_proc_in(root, 403, 50, 403, 300, 'S', 0, 0, 6, 10, "");
    fake_proc_in(root, 404, 50, 401, 49, 'S', 0, 0, 7, 10, "");
    fake_proc_in(root, 405, 50, 49, 49, 'S', 0, 0, 8, 10, "");
    /* 406 is the job's child in an excluded group (a hook started by the job cannot be, but the
     * rule holds for every path into the tree) */
    fake_proc_in(root, 406, 300, 401, 300, 'S', 0, 0, 9, 10, "");
    gw_procfs *p = gw_procfs_new(root);
    gw_procfs_set_job(p, 300, 50);
    pid_t excl[] = {401};
    gw_procfs_set_excluded(p, excl, 1);
    gw_host_sample h;
    gw_procfs_sample(p, INT64_C(5000000000), &h);
    assert_true(gw_procfs_in_job(p, 300));
    assert_true(gw_procfs_in_job(p, 301));
    assert_true(gw_procfs_in_job(p, 400));
    assert_true(gw_procfs_in_job(p, 403));
    assert_false(gw_procfs_in_job(p, 401));
    assert_false(gw_procfs_in_job(p, 402));
    assert_false(gw_procfs_in_job(p, 404));
    assert_false(gw_procfs_in_job(p, 405));
    assert_false(gw_procfs_in_job(p, 406));
    assert_float_equal(h.job_processes, 4, 0);
    assert_float_equal(h.job_rss_mib, 4 * 10 * (double)sysconf(_SC_PAGESIZE) / 1048576.0, 1e-9);
    pid_t pids[8];
    assert_int_equal(gw_procfs_job_pids(p, pids, 8), 4);
    /* 301 dies and its pid is reused by an unrelated process with another start time: the
     * stale member must not be kept. */
    fake_proc(root, 301, 1, 'S', 0, 0, 99, 10, "");
    gw_procfs_set_rescan_ms(p, 1000000);
    gw_procfs_sample(p, INT64_C(5100000000), &h);
    assert_false(gw_procfs_in_job(p, 301));
    gw_procfs_free(p);
    th_rmrf(root);
    free(root);
}

/* Roles: 90 (a launcher) -> 100 (holds a GPU context) -> workers 101 (burning a core), 102 (in
 * state D) -> 103 (a worker's child); host iowait, steal and the CPU outside the job. */
static void test_roles(void **state)
{
    (void)state;
    char *root = th_tmpdir();
    long tck = sysconf(_SC_CLK_TCK);
    th_write(root, "stat",
             "cpu  1000 0 0 3000 0 0 0 0 0 0\ncpu0 1 0 0 1 0 0 0 0 0 0\n"
             "cpu1 1 0 0 1 0 0 0 0 0 0\ncpu2 1 0 0 1 0 0 0 0 0 0\ncpu3 1 0 0 1 0 0 0 0 0 0\n");
    th_write(root, "meminfo", "MemTotal: 1024 kB\nMemAvailable: 512 kB\n");
    fake_proc(root, 90, 1, 'S', 0, 0, 4000, 10, "100");
    fake_proc(root, 100, 90, 'S', 0, 0, 5000, 10, "101 102");
    fake_proc(root, 101, 100, 'R', 0, 0, 5001, 10, "103");
    fake_proc(root, 102, 100, 'D', 0, 0, 5002, 10, "");
    fake_proc(root, 103, 101, 'S', 0, 0, 5003, 10, "");
    gw_procfs *p = gw_procfs_new(root);
    gw_procfs_set_job(p, 90, 0);
    const unsigned gpu[] = {100, 777}; /* 777: another job's process */
    gw_procfs_set_gpu_pids(p, gpu, 2);
    gw_host_sample h;
    gw_procfs_sample(p, INT64_C(1000000000), &h);
    assert_float_equal(h.role[GW_ROLE_TRAIN].processes, 1, 0);
    assert_float_equal(h.role[GW_ROLE_WORKERS].processes, 3, 0);
    assert_float_equal(h.role[GW_ROLE_REST].processes, 1, 0);
    assert_true(isnan(h.role[GW_ROLE_WORKERS].cpu_pct)); /* needs two reads */
    assert_float_equal(h.role[GW_ROLE_WORKERS].disk_wait_pct, 100.0 / 3, 1e-9);
    assert_float_equal(h.role[GW_ROLE_WORKERS].running_pct, 100.0 / 3, 1e-9);
    assert_float_equal(h.role[GW_ROLE_TRAIN].sleeping_pct, 100, 0);

    /* One second later: 101 used a whole core, 100 half of one, 90 nothing; the host's 4 CPUs
     * were 80 % busy (steal counts as busy; 1.5 cores the job's), 10 % iowait, 5 % steal. */
    th_write(root, "stat",
             "cpu  1300 0 0 3040 40 0 0 20 0 0\ncpu0 1 0 0 1 0 0 0 0 0 0\n"
             "cpu1 1 0 0 1 0 0 0 0 0 0\ncpu2 1 0 0 1 0 0 0 0 0 0\ncpu3 1 0 0 1 0 0 0 0 0 0\n");
    fake_proc(root, 100, 90, 'S', tck / 2, 0, 5000, 10, "101 102");
    fake_proc(root, 101, 100, 'R', tck, 0, 5001, 10, "103");
    gw_procfs_sample(p, INT64_C(2000000000), &h);
    const gw_role_sample *w = &h.role[GW_ROLE_WORKERS], *t = &h.role[GW_ROLE_TRAIN];
    assert_float_equal(w->cpu_pct, 100, 1);
    assert_float_equal(w->cpu_max_pct, 100, 1);
    assert_float_equal(w->saturated, 1, 0);
    assert_float_equal(t->cpu_pct, 50, 1);
    assert_float_equal(t->saturated, 0, 0);
    assert_float_equal(h.role[GW_ROLE_REST].cpu_pct, 0, 0);
    assert_float_equal(h.iowait_pct, 10, 1e-9);
    assert_float_equal(h.steal_pct, 5, 1e-9);
    /* the job: 150 % of one core of 4 */
    assert_float_equal(h.cpu_util_pct, 80, 1e-9);
    assert_float_equal(h.others_pct, 80 - 150.0 / 4, 1);

    /* Without a process list nobody trains: every member is the rest. */
    gw_procfs_set_gpu_pids(p, NULL, 0);
    gw_procfs_sample(p, INT64_C(3000000000), &h);
    assert_float_equal(h.role[GW_ROLE_TRAIN].processes, 0, 0);
    assert_true(isnan(h.role[GW_ROLE_TRAIN].cpu_pct));
    assert_float_equal(h.role[GW_ROLE_REST].processes, 5, 0);
    gw_procfs_free(p);
    th_rmrf(root);
    free(root);
}

static int open_fds(void)
{
    DIR *d = opendir("/proc/self/fd");
    int n = 0;
    for (struct dirent *de; d && (de = readdir(d)) != NULL;)
        n += de->d_name[0] != '.';
    if (d)
        closedir(d);
    return n;
}

/* On the real /proc the members' files stay open between ticks: a member that dies leaves the
 * job at the next tick (its held file reads ESRCH), and every descriptor is closed again. */
static void test_held_files_on_real_proc(void **state)
{
    (void)state;
    int ready[2];
    assert_int_equal(pipe(ready), 0);
    pid_t job = fork();
    if (job == 0) {
        /* the job: a worker that sleeps, reaped as soon as it dies */
        if (fork() == 0) {
            for (;;)
                pause();
        }
        if (write(ready[1], "x", 1) != 1)
            _exit(1);
        while (wait(NULL) > 0 || errno == EINTR)
            ;
        for (;;)
            pause();
    }
    char c;
    assert_int_equal(read(ready[0], &c, 1), 1);
    close(ready[0]);
    close(ready[1]);
    int fds = open_fds();
    gw_procfs *p = gw_procfs_new(NULL);
    gw_procfs_set_job(p, job, 0);
    const unsigned gpu[] = {(unsigned)job};
    gw_procfs_set_gpu_pids(p, gpu, 1);
    gw_host_sample h;
    gw_procfs_sample(p, INT64_C(1000000000), &h);
    assert_float_equal(h.job_processes, 2, 0);
    assert_float_equal(h.role[GW_ROLE_WORKERS].processes, 1, 0);
    assert_true(open_fds() > fds); /* held between ticks */
    pid_t pids[2];
    assert_int_equal(gw_procfs_job_pids(p, pids, 2), 2);
    pid_t worker = pids[0] == job ? pids[1] : pids[0];
    kill(worker, SIGKILL);
    for (int i = 0; i < 200 && kill(worker, 0) == 0; i++)
        usleep(5000); /* until the job has reaped it */
    gw_procfs_sample(p, INT64_C(2000000000), &h);
    assert_float_equal(h.job_processes, 1, 0);
    assert_float_equal(h.role[GW_ROLE_WORKERS].processes, 0, 0);
    assert_float_equal(h.role[GW_ROLE_TRAIN].processes, 1, 0);
    kill(job, SIGKILL);
    waitpid(job, NULL, 0);
    gw_procfs_sample(p, INT64_C(3000000000), &h);
    assert_float_equal(h.job_processes, 0, 0);
    gw_procfs_free(p);
    assert_int_equal(open_fds(), fds);
}

/* On the real /proc, /proc/stat and /proc/meminfo are opened once and re-read through the same
 * descriptors: the second tick opens nothing, reads the CPU share over the ticks between, and
 * the memory total is /proc/meminfo's. */
static void test_host_files_held(void **state)
{
    (void)state;
    int fds = open_fds();
    gw_procfs *p = gw_procfs_new(NULL);
    gw_host_sample h;
    gw_procfs_sample(p, INT64_C(1000000000), &h);
    assert_true(isnan(h.cpu_util_pct));
    int held = open_fds();
    assert_int_equal(held, fds + 2);
    volatile double x = 0;
    for (int i = 0; i < 20000000; i++) /* CPU time between the ticks */
        x += i;
    gw_procfs_sample(p, INT64_C(2000000000), &h);
    assert_int_equal(open_fds(), held);
    assert_false(isnan(h.cpu_util_pct));
    assert_true(h.cpu_util_pct > 0 && h.cpu_util_pct <= 100);
    FILE *f = fopen("/proc/meminfo", "r");
    assert_non_null(f);
    double total_kb = 0;
    assert_int_equal(fscanf(f, "MemTotal: %lf", &total_kb), 1);
    fclose(f);
    assert_float_equal(h.mem_total_mib, total_kb / 1024.0, 1e-9);
    assert_true(h.mem_used_mib > 0 && h.mem_used_mib < h.mem_total_mib);
    gw_procfs_free(p);
    assert_int_equal(open_fds(), fds);
}

static void test_comm(void **state)
{
    (void)state;
    char *root = th_tmpdir();
    th_write(root, "77/comm", "pt_main_thread\n");
    char name[64];
    assert_true(gw_procfs_comm(root, 77, name, sizeof name));
    assert_string_equal(name, "pt_main_thread");
    assert_false(gw_procfs_comm(root, 78, name, sizeof name));
    assert_string_equal(name, "");
    th_rmrf(root);
    free(root);
}

/* Issue 25: in a container without the host's pid namespace NVML's host pid 2 is, here, the
 * container's own `sleep`: it holds no /dev/nvidia* file, so it is not the GPU's process. */
static void test_host_pid_in_container(void **state)
{
    (void)state;
    char *root = th_tmpdir();
    th_write(root, "2/comm", "sleep\n");
    th_write(root, "3/comm", "python3\n");
    char dir2[512], dir3[512], l2[600], l3[600];
    snprintf(dir2, sizeof dir2, "%s/2/fd", root);
    snprintf(dir3, sizeof dir3, "%s/3/fd", root);
    assert_int_equal(mkdir(dir2, 0700), 0);
    assert_int_equal(mkdir(dir3, 0700), 0);
    snprintf(l2, sizeof l2, "%s/0", dir2);
    snprintf(l3, sizeof l3, "%s/4", dir3);
    assert_int_equal(symlink("/dev/null", l2), 0);
    assert_int_equal(symlink("/dev/nvidia0", l3), 0);
    assert_false(gw_procfs_may_use_gpu(root, 2));
    assert_true(gw_procfs_may_use_gpu(root, 3));
    assert_true(gw_procfs_may_use_gpu(root, 4)); /* no fd directory to read: unknown, trusted */
    char dir5[512];
    snprintf(dir5, sizeof dir5, "%s/5/fd", root);
    th_write(root, "5/comm", "zombie\n");
    assert_int_equal(mkdir(dir5, 0700), 0);
    assert_true(gw_procfs_may_use_gpu(root, 5)); /* no descriptors at all: unknown, trusted */
    th_rmrf(root);
    free(root);
}

static void test_no_job(void **state)
{
    (void)state;
    char *root = th_tmpdir();
    fake_host(root, 10, 10);
    gw_procfs *p = gw_procfs_new(root);
    gw_host_sample h;
    gw_procfs_sample(p, 1, &h);
    assert_true(isnan(h.job_cpu_pct));
    assert_true(isnan(h.job_rss_mib));
    assert_true(isnan(h.job_processes));
    assert_false(isnan(h.mem_used_mib));
    gw_procfs_free(p);
    th_rmrf(root);
    free(root);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_stat_parse),
        cmocka_unit_test(test_host_and_job),
        cmocka_unit_test(test_reused_pid_and_full_scan),
        cmocka_unit_test(test_roles),
        cmocka_unit_test(test_held_files_on_real_proc),
        cmocka_unit_test(test_host_files_held),
        cmocka_unit_test(test_comm),
        cmocka_unit_test(test_host_pid_in_container),
        cmocka_unit_test(test_no_job),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
