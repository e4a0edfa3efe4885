/* Unit tests for src/alerts/hook.c: the environment a hook receives, what it inherits, a hook
 * that hangs (killed with its process group at the timeout), failures, and a full queue. */
#include "test_helpers.h"

#include "alerts/hook.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>

static gw_hook_alert sample_alert(const char *rule)
{
    gw_hook_alert a;
    memset(&a, 0, sizeof a);
    snprintf(a.rule, sizeof a.rule, "%s", rule);
    snprintf(a.severity, sizeof a.severity, "critical");
    snprintf(a.state, sizeof a.state, "firing");
    snprintf(a.gpu, sizeof a.gpu, "1");
    snprintf(a.value, sizeof a.value, "84.5");
    snprintf(a.threshold, sizeof a.threshold, "83");
    snprintf(a.metric, sizeof a.metric, "temperature");
    snprintf(a.message, sizeof a.message, "GPU 1 temperature 84.5 C above 83 C for 3 min 0 s");
    a.wall_ms = 1800000000000LL;
    return a;
}

/* Reads the log written so far. */
static char *log_text(FILE *log)
{
    fflush(log);
    long n = ftell(log);
    char *s = calloc(1, (size_t)n + 1);
    rewind(log);
    size_t got = fread(s, 1, (size_t)n, log);
    s[got] = '\0';
    return s;
}

static bool file_exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

/* True when pid has exited (gone, or a zombie waiting for its new parent). */
static bool gone(pid_t pid)
{
    for (int i = 0; i < 200; i++) {
        char path[64], st[512] = "";
        snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
        FILE *f = fopen(path, "r");
        if (!f)
            return true;
        size_t n = fread(st, 1, sizeof st - 1, f);
        fclose(f);
        st[n] = '\0';
        const char *close_paren = strrchr(st, ')');
        if (close_paren && close_paren[2] == 'Z')
            return true;
        usleep(10000);
    }
    return false;
}

static void test_hook_gets_the_alert_and_nothing_else(void **state)
{
    (void)state;
    char *dir = th_tmpdir();
    int stray = open("/dev/null", O_RDONLY); /* not close-on-exec: must not reach the hook */
    assert_true(stray > 2);
    char script[2048];
    snprintf(script, sizeof script, "env > %s/env; ls /proc/self/fd > %s/fds; cat > %s/stdin", dir,
             dir, dir);
    char *argv[] = {"/bin/sh", "-c", script, NULL};
    FILE *log = tmpfile();
    gw_hook_runner *r = gw_hook_runner_new("/bin/sh", argv, 5000, log);
    gw_hook_runner_attach(r, NULL, "/data/runs/r1");
    gw_hook_alert a = sample_alert("temp_critical");
    assert_true(gw_hook_runner_enqueue(r, &a));
    gw_hook_runner_stop(r);
    char path[1100];
    snprintf(path, sizeof path, "%s/env", dir);
    char *env = th_read(path);
    assert_non_null(env);
    const char *want[] = {"GPUWATCH_ALERT=temp_critical\n",
                          "GPUWATCH_SEVERITY=critical\n",
                          "GPUWATCH_GPU=1\n",
                          "GPUWATCH_VALUE=84.5\n",
                          "GPUWATCH_THRESHOLD=83\n",
                          "GPUWATCH_STATE=firing\n",
                          "GPUWATCH_METRIC=temperature\n",
                          "GPUWATCH_MESSAGE=GPU 1 temperature 84.5 C above 83 C for 3 min 0 s\n",
                          "GPUWATCH_TIMESTAMP=2027-01-15T08:00:00.000Z\n",
                          "GPUWATCH_RUN_DIR=/data/runs/r1\n",
                          "PATH="};
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
        if (!strstr(env, want[i]))
            fail_msg("the hook's environment lacks %s:\n%s", want[i], env);
    snprintf(path, sizeof path, "%s/fds", dir);
    char *fds = th_read(path);
    /* ls's own: 0, 1 (the file), 2 and 3 (the directory it lists); the stray one stayed behind */
    assert_string_equal(fds, "0\n1\n2\n3\n");
    snprintf(path, sizeof path, "%s/stdin", dir);
    char *in = th_read(path);
    assert_string_equal(in, ""); /* stdin is /dev/null */
    gw_hook_stats st;
    gw_hook_runner_get_stats(r, &st);
    assert_int_equal(st.run, 1);
    assert_int_equal(st.failed + st.killed + st.dropped, 0);
    char *text = log_text(log);
    assert_string_equal(text, ""); /* a hook that succeeds is not mentioned */
    free(text);
    gw_hook_runner_free(r);
    fclose(log);
    close(stray);
    free(env);
    free(fds);
    free(in);
    th_rmrf(dir);
    free(dir);
}

static void test_hanging_hook_is_killed_with_its_children(void **state)
{
    (void)state;
    char *dir = th_tmpdir();
    char script[2048];
    snprintf(script, sizeof script,
             "sleep 60 & echo $! > %s/child; echo $$ > %s/pid.tmp; mv %s/pid.tmp %s/pid; wait", dir,
             dir, dir, dir);
    char *argv[] = {"/bin/sh", "-c", script, NULL};
    FILE *log = tmpfile();
    gw_hook_runner *r = gw_hook_runner_new("/bin/sh", argv, 400, log);
    gw_hook_alert a = sample_alert("xid");
    assert_true(gw_hook_runner_enqueue(r, &a));
    char pidfile[1100];
    snprintf(pidfile, sizeof pidfile, "%s/pid", dir);
    for (int i = 0; i < 500 && !file_exists(pidfile); i++)
        usleep(10000);
    assert_true(file_exists(pidfile)); /* the hook runs ... */
    /* ... and the queue still takes alerts at once (the tick thread is never held) */
    gw_hook_alert b = sample_alert("temp_warning");
    assert_true(gw_hook_runner_enqueue(r, &b));
    gw_hook_stats st;
    gw_hook_runner_get_stats(r, &st);
    assert_int_equal(st.killed, 0);
    gw_hook_runner_stop(r);
    gw_hook_runner_get_stats(r, &st);
    /* the second hook hangs the same way and is killed at the stop's deadline, or, when the first
     * one used all of that time, dropped */
    assert_true(st.killed >= 1);
    assert_int_equal(st.killed + st.dropped, 2);
    char *pid = th_read(pidfile);
    char childfile[1100];
    snprintf(childfile, sizeof childfile, "%s/child", dir);
    char *child = th_read(childfile);
    assert_true(gone((pid_t)atoi(pid)));
    assert_true(gone((pid_t)atoi(child))); /* the whole process group went */
    char *text = log_text(log);
    assert_non_null(strstr(text, "gpuwatch: alert hook /bin/sh for xid (firing) still ran after "
                                 "0.4 s: killed (the limit is [hook] timeout or "
                                 "--on-alert-timeout)\n"));
    free(text);
    free(pid);
    free(child);
    gw_hook_runner_free(r);
    fclose(log);
    th_rmrf(dir);
    free(dir);
}

static void test_failing_hook_is_reported(void **state)
{
    (void)state;
    char *argv[] = {"/bin/sh", "-c", "exit 3", NULL};
    FILE *log = tmpfile();
    gw_hook_runner *r = gw_hook_runner_new("/bin/sh", argv, 5000, log);
    gw_hook_alert a = sample_alert("gpu_lost");
    snprintf(a.state, sizeof a.state, "resolved");
    assert_true(gw_hook_runner_enqueue(r, &a));
    gw_hook_runner_stop(r);
    gw_hook_stats st;
    gw_hook_runner_get_stats(r, &st);
    assert_int_equal(st.run, 1);
    assert_int_equal(st.failed, 1);
    char *text = log_text(log);
    assert_string_equal(text,
                        "gpuwatch: alert hook /bin/sh for gpu_lost (resolved) exited with status "
                        "3\n");
    free(text);
    gw_hook_runner_free(r);
    fclose(log);
}

static void test_full_queue_drops_and_counts(void **state)
{
    (void)state;
    char *argv[] = {"/bin/sleep", "5", NULL};
    FILE *log = tmpfile();
    gw_hook_runner *r = gw_hook_runner_new("/bin/sleep", argv, 200, log);
    int accepted = 0;
    for (int i = 0; i < 40; i++) {
        gw_hook_alert a = sample_alert("slow_sample");
        accepted += gw_hook_runner_enqueue(r, &a);
    }
    assert_true(accepted >= GW_HOOK_QUEUE_MAX && accepted <= GW_HOOK_QUEUE_MAX + 1);
    gw_hook_runner_stop(r);
    gw_hook_stats st;
    gw_hook_runner_get_stats(r, &st);
    assert_int_equal(st.run + st.dropped, 40);
    assert_true(st.run >= 1);
    assert_int_equal(st.killed, st.run);
    char *text = log_text(log);
    assert_non_null(strstr(text, "gpuwatch: alert hook for slow_sample not run: 32 alerts "
                                 "already wait for the hook"));
    assert_non_null(strstr(text, "not run: gpuwatch is stopping\n"));
    free(text);
    /* after stop, nothing is queued */
    gw_hook_alert a = sample_alert("slow_sample");
    assert_false(gw_hook_runner_enqueue(r, &a));
    gw_hook_runner_free(r);
    fclose(log);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hook_gets_the_alert_and_nothing_else),
        cmocka_unit_test(test_hanging_hook_is_killed_with_its_children),
        cmocka_unit_test(test_failing_hook_is_reported),
        cmocka_unit_test(test_full_queue_drops_and_counts),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
