/* Unit tests for src/top without a terminal: history rings, throttle reasons, the low-SM flag,
 * the process table (sort, filter, tree, selection), keys, /proc details against a fake tree, and
 * the hosts' Prometheus text. */
#include "test_helpers.h"

#include "top/top.h"

#include <curses.h>
#include <math.h>
#include <signal.h>
#include <unistd.h>

static void test_ring_and_columns(void **state)
{
    (void)state;
    gw_top_ring r = {0};
    assert_true(isnan(gw_top_ring_ago(&r, 0)));
    for (int i = 1; i <= 10; i++)
        gw_top_ring_push(&r, i * 10.0);
    assert_int_equal(r.len, 10);
    assert_num(gw_top_ring_ago(&r, 0), 100.0, 0);
    assert_num(gw_top_ring_ago(&r, 9), 10.0, 0);
    assert_true(isnan(gw_top_ring_ago(&r, 10)));
    /* span 20 over 5 columns: 4 ticks a column, max of each; the oldest 10 are not held */
    double c[5];
    gw_top_ring_columns(&r, 20, 5, c);
    assert_true(isnan(c[0]) && isnan(c[1]));
    assert_num(c[2], 20.0, 0); /* ticks 8-11 of 20: the oldest two held, 10 and 20 */
    assert_num(c[3], 60.0, 0);
    assert_num(c[4], 100.0, 0);
    /* fewer ticks than columns: one a column, newest last */
    double w[12];
    gw_top_ring_columns(&r, 4, 12, w);
    assert_num(w[11], 100.0, 0);
    assert_num(w[10], 90.0, 0);
    assert_true(isnan(w[0]) && isnan(w[1]));
    /* a spike inside a bucket is kept */
    gw_top_ring_push(&r, NAN);
    gw_top_ring_push(&r, 0);
    gw_top_ring_columns(&r, 12, 1, c);
    assert_num(c[0], 100.0, 0);
    /* wraps after GW_TOP_HIST */
    for (int i = 0; i < GW_TOP_HIST + 5; i++)
        gw_top_ring_push(&r, i);
    assert_int_equal(r.len, GW_TOP_HIST);
    assert_num(gw_top_ring_ago(&r, 0), GW_TOP_HIST + 4.0, 0);
    assert_num(gw_top_ring_ago(&r, GW_TOP_HIST - 1), 5.0, 0);
}

static void test_reasons(void **state)
{
    (void)state;
    char buf[128];
    assert_string_equal(gw_top_reasons(0, buf, sizeof buf), "none");
    assert_string_equal(gw_top_reasons(0x1, buf, sizeof buf), "idle");
    assert_string_equal(gw_top_reasons(0x4 | 0x40, buf, sizeof buf), "power cap, HW thermal");
    assert_string_equal(gw_top_reasons(0x8 | 0x20 | 0x80, buf, sizeof buf),
                        "HW slowdown, SW thermal, power brake");
    assert_string_equal(gw_top_reasons(0x4 | 0x1000, buf, sizeof buf), "power cap, other 0x1000");
    char tiny[12];
    gw_top_reasons(0x4 | 0x40, tiny, sizeof tiny); /* cut, never past the buffer */
    assert_string_equal(tiny, "power cap");
}

static gw_top_gpu gpu_with(double util, double sm, bool has_sm)
{
    gw_top_gpu g = {.have = true};
    gw_set(&g.cur, GW_F_UTIL_GPU_PCT, util);
    if (has_sm)
        gw_set(&g.cur, GW_F_GPM_SM_ACTIVE_PCT, sm);
    return g;
}

static void test_low_sm_flag(void **state)
{
    (void)state;
    gw_top_gpu g = gpu_with(100, 3, true);
    assert_true(gw_top_low_sm(&g));
    g = gpu_with(80, 30, true);
    assert_true(gw_top_low_sm(&g)); /* both limits inclusive */
    g = gpu_with(79, 3, true);
    assert_false(gw_top_low_sm(&g));
    g = gpu_with(100, 31, true);
    assert_false(gw_top_low_sm(&g));
    g = gpu_with(100, 0, false); /* no GPM: nothing to judge */
    assert_false(gw_top_low_sm(&g));
    g = gpu_with(100, 3, true);
    g.cur.lost = true;
    assert_false(gw_top_low_sm(&g));
}

static void test_push_history(void **state)
{
    (void)state;
    gw_device_info dev = {.index = 0, .memory_total_mib = 1000, .power_limit_w = 500};
    gw_top_model m;
    gw_top_model_init(&m, &dev, 1, 0.5);
    gw_gpu_sample g = {0};
    gw_set(&g, GW_F_UTIL_GPU_PCT, 90);
    gw_set(&g, GW_F_MEM_USED_MIB, 250);
    gw_set(&g, GW_F_POWER_DRAW_W, 400);
    gw_set(&g, GW_F_POWER_LIMIT_W, 800); /* the sample's limit wins over the static one */
    gw_sample s = {.wall_ms = 1234, .gpu_count = 1, .gpus = &g};
    gw_top_model_push(&m, &s);
    assert_int_equal(m.wall_ms, 1234);
    assert_num(gw_top_ring_ago(&m.gpus[0].util, 0), 90.0, 0);
    assert_true(isnan(gw_top_ring_ago(&m.gpus[0].sm, 0))); /* absent, not 0 */
    assert_num(gw_top_ring_ago(&m.gpus[0].mem_pct, 0), 25.0, 1e-6);
    assert_num(gw_top_ring_ago(&m.gpus[0].power_pct, 0), 50.0, 1e-6);
    gw_top_model_free(&m);
}

static gw_top_proc proc(unsigned pid, unsigned ppid, double gpu_mib, double cpu, const char *user,
                        const char *cmd)
{
    gw_top_proc p = {.pid = pid,
                     .ppid = ppid,
                     .gpu_mib = gpu_mib,
                     .cpu_pct = cpu,
                     .rss_mib = pid / 10.0,
                     .elapsed_s = 1000.0 - pid,
                     .visible = true};
    snprintf(p.user, sizeof p.user, "%s", user);
    snprintf(p.cmd, sizeof p.cmd, "%s", cmd);
    return p;
}

static unsigned shown_pid(const gw_top_model *m, unsigned row)
{
    return m->procs[m->shown[row]].pid;
}

static void model_with_procs(gw_top_model *m)
{
    gw_top_model_init(m, NULL, 0, 1.0);
    gw_top_proc p[] = {
        proc(100, 1, 5000, 90, "alice", "python3 train.py --lr 0.1"),
        proc(101, 100, 300, 20, "alice", "python3 -c from multiprocessing"),
        proc(200, 1, 9000, NAN, "bob", "torchrun --nproc 2 fit.py"),
        proc(102, 101, NAN, 5, "alice", "python3 worker"),
    };
    gw_top_model_set_procs(m, p, 4);
}

static void test_sort_filter_tree_select(void **state)
{
    (void)state;
    gw_top_model m;
    model_with_procs(&m);
    /* default: GPU memory, largest first, absent last */
    assert_int_equal(m.nshown, 4);
    assert_int_equal(shown_pid(&m, 0), 200);
    assert_int_equal(shown_pid(&m, 1), 100);
    assert_int_equal(shown_pid(&m, 3), 102);
    assert_int_equal(m.sel_pid, 200); /* the first row is selected */
    m.reverse = true;
    gw_top_model_arrange(&m);
    assert_int_equal(shown_pid(&m, 0), 101); /* smallest first, absent still last */
    assert_int_equal(shown_pid(&m, 3), 102);
    m.reverse = false;
    m.sort = GW_TOP_SORT_CPU;
    gw_top_model_arrange(&m);
    assert_int_equal(shown_pid(&m, 0), 100);
    assert_int_equal(shown_pid(&m, 3), 200); /* no CPU value yet: last */
    m.sort = GW_TOP_SORT_USER;
    gw_top_model_arrange(&m);
    assert_int_equal(shown_pid(&m, 3), 200);
    /* the selection follows its pid */
    assert_int_equal(m.sel_pid, 200);
    assert_int_equal(m.sel, 3);
    /* filter: user, command or pid, case-insensitive */
    snprintf(m.filter, sizeof m.filter, "TRAIN");
    gw_top_model_arrange(&m);
    assert_int_equal(m.nshown, 1);
    assert_int_equal(shown_pid(&m, 0), 100);
    assert_int_equal(m.sel_pid, 100); /* the selected pid is gone: the nearest row */
    snprintf(m.filter, sizeof m.filter, "101");
    gw_top_model_arrange(&m);
    assert_int_equal(m.nshown, 1);
    assert_int_equal(shown_pid(&m, 0), 101);
    snprintf(m.filter, sizeof m.filter, "nobody");
    gw_top_model_arrange(&m);
    assert_int_equal(m.nshown, 0);
    assert_null(gw_top_model_selected(&m));
    /* tree: children under their parents with depth */
    m.filter[0] = '\0';
    m.sort = GW_TOP_SORT_GPU_MEM;
    m.tree = true;
    gw_top_model_arrange(&m);
    assert_int_equal(shown_pid(&m, 0), 200);
    assert_int_equal(shown_pid(&m, 1), 100);
    assert_int_equal(shown_pid(&m, 2), 101);
    assert_int_equal(shown_pid(&m, 3), 102);
    assert_int_equal(m.procs[m.shown[3]].depth, 2);
    assert_int_equal(m.procs[m.shown[1]].depth, 0);
    gw_top_model_free(&m);
}

static void test_keys(void **state)
{
    (void)state;
    gw_top_model m;
    model_with_procs(&m);
    assert_int_equal(gw_top_key(&m, 'j'), GW_TOP_REDRAW);
    assert_int_equal(m.sel_pid, 100);
    assert_int_equal(gw_top_key(&m, KEY_DOWN), GW_TOP_REDRAW);
    assert_int_equal(m.sel_pid, 101);
    gw_top_key(&m, 'G');
    assert_int_equal(m.sel_pid, 102);
    gw_top_key(&m, KEY_DOWN); /* stays on the last row */
    assert_int_equal(m.sel, 3);
    gw_top_key(&m, 'g');
    assert_int_equal(m.sel_pid, 200);
    gw_top_key(&m, 's');
    assert_int_equal(m.sort, GW_TOP_SORT_CPU);
    gw_top_key(&m, 'S');
    assert_int_equal(m.sort, GW_TOP_SORT_GPU_MEM);
    gw_top_key(&m, 'S');
    assert_int_equal(m.sort, GW_TOP_SORT_COMMAND);
    gw_top_key(&m, 'r');
    assert_true(m.reverse);
    gw_top_key(&m, 't');
    assert_true(m.tree);
    /* filter: typed, backspace, Enter keeps; Esc clears */
    gw_top_key(&m, '/');
    assert_int_equal(m.mode, GW_TOP_FILTER);
    assert_int_equal(gw_top_key(&m, 'q'), GW_TOP_REDRAW); /* a letter of the filter, not quit */
    gw_top_key(&m, KEY_BACKSPACE);
    const char *typed = "bob";
    for (const char *c = typed; *c; c++)
        gw_top_key(&m, *c);
    assert_string_equal(m.filter, "bob");
    assert_int_equal(m.nshown, 1);
    gw_top_key(&m, '\n');
    assert_int_equal(m.mode, GW_TOP_BROWSE);
    assert_string_equal(m.filter, "bob");
    gw_top_key(&m, 27);
    assert_string_equal(m.filter, "");
    assert_int_equal(m.nshown, 4);
    /* a signal only after y */
    gw_top_key(&m, 'g');
    unsigned pid = m.sel_pid;
    assert_int_equal(gw_top_key(&m, 'T'), GW_TOP_REDRAW);
    assert_int_equal(m.mode, GW_TOP_CONFIRM);
    assert_int_equal(m.confirm_pid, pid);
    assert_int_equal(m.confirm_sig, SIGTERM);
    assert_int_equal(gw_top_key(&m, 'n'), GW_TOP_REDRAW);
    assert_string_equal(m.message, "not sent");
    assert_int_equal(m.mode, GW_TOP_BROWSE);
    gw_top_key(&m, 'K');
    assert_int_equal(m.confirm_sig, SIGKILL);
    assert_int_equal(gw_top_key(&m, 'y'), GW_TOP_SIGNAL);
    gw_top_key(&m, 'I');
    assert_int_equal(m.confirm_sig, SIGINT);
    gw_top_key(&m, 'x');
    gw_top_key(&m, 'h');
    assert_int_equal(m.mode, GW_TOP_HELP);
    assert_int_equal(gw_top_key(&m, ' '), GW_TOP_REDRAW);
    assert_int_equal(gw_top_key(&m, 'q'), GW_TOP_QUIT);
    assert_int_equal(gw_top_key(&m, '~'), GW_TOP_NOTHING);
    gw_top_model_free(&m);
    /* no process: asking for a signal says so */
    gw_top_model_init(&m, NULL, 0, 1.0);
    gw_top_key(&m, 'T');
    assert_int_equal(m.mode, GW_TOP_BROWSE);
    assert_string_equal(m.message, "no process selected");
    gw_top_model_free(&m);
}

static void fake_proc(const char *root, unsigned pid, unsigned ppid, unsigned long long utime,
                      const char *env, size_t env_len)
{
    char name[64], text[512];
    snprintf(name, sizeof name, "%u/stat", pid);
    /* starttime 5000 ticks, rss 2560 pages (10 MiB with 4 KiB pages) */
    snprintf(text, sizeof text,
             "%u (py thon) S %u %u %u 0 -1 0 0 0 0 0 %llu 0 0 0 20 0 1 0 5000 100000 2560 0\n", pid,
             ppid, pid, pid, utime);
    th_write(root, name, text);
    snprintf(name, sizeof name, "%u/status", pid);
    th_write(root, name, "Name:\tpython3\nUid:\t0\t0\t0\t0\n");
    snprintf(name, sizeof name, "%u/cmdline", pid);
    char cmd[] = "python3\0train.py\0--epochs\0003";
    th_write_bytes(root, name, cmd, sizeof cmd - 1);
    snprintf(name, sizeof name, "%u/environ", pid);
    th_write_bytes(root, name, env, env_len);
}

static void test_procs_from_proc(void **state)
{
    (void)state;
    char *root = th_tmpdir();
    th_write(root, "uptime", "150.00 300.00\n");
    static const char env[] = "HOME=/root\0GPUWATCH_RUN_DIR=/runs/exp1\0PATH=/bin";
    fake_proc(root, 300, 1, 100, env, sizeof env);
    fake_proc(root, 301, 300, 50, "A=1", 4); /* a worker: inherits nothing readable */
    gw_gpu_process gp[] = {
        {.gpu = 0, .pid = 300, .used_valid = true, .used_mib = 4000},
        {.gpu = 1, .pid = 301, .used_valid = false},
        {.gpu = 1, .pid = 999999, .used_valid = true, .used_mib = 7, .name = "ghost"}};
    gw_sample s = {.proc_count = 3, .procs = gp};
    gw_top_model m;
    gw_top_model_init(&m, NULL, 0, 1.0);
    gw_top_procs *p = gw_top_procs_new(root);
    gw_top_procs_update(p, &m, &s);
    assert_int_equal(m.nproc, 3);
    const gw_top_proc *a = &m.procs[0], *b = &m.procs[1], *c = &m.procs[2];
    assert_true(a->visible);
    assert_int_equal(a->ppid, 1);
    assert_num(a->gpu_mib, 4000.0, 0);
    assert_true(isnan(a->cpu_pct)); /* needs two reads */
    long page = sysconf(_SC_PAGESIZE), hz = sysconf(_SC_CLK_TCK);
    assert_num(a->rss_mib, 2560.0 * (double)page / 1048576.0, 1e-9);
    assert_num(a->elapsed_s, 150.0 - 5000.0 / (double)hz, 1e-6);
    assert_string_equal(a->user, "root");
    assert_string_equal(a->cmd, "python3 train.py --epochs 3");
    assert_string_equal(a->run, "/runs/exp1");
    assert_int_equal(a->role, GW_TOP_ROLE_TRAIN);
    assert_true(isnan(b->gpu_mib)); /* not available, not 0 */
    assert_int_equal(b->role, GW_TOP_ROLE_WORKER);
    assert_string_equal(b->run, "/runs/exp1"); /* from its parent */
    assert_false(c->visible);
    assert_string_equal(c->cmd, "ghost");
    assert_true(isnan(c->rss_mib) && isnan(c->elapsed_s));
    /* second read: CPU % from the ticks in between */
    fake_proc(root, 300, 1, 100 + (unsigned long long)hz * 10, env, sizeof env);
    gw_top_procs_update(p, &m, &s);
    assert_true(m.procs[0].cpu_pct > 0);
    assert_num(m.procs[1].cpu_pct, 0.0, 0);
    /* the program's directory is left out, the arguments' paths are kept */
    static const char venv[] = "/root/.venv/bin/python3\0/data/train.py\0--lr\0/1";
    th_write_bytes(root, "301/cmdline", venv, sizeof venv - 1);
    gw_top_procs_update(p, &m, &s);
    assert_string_equal(m.procs[1].cmd, "python3 /data/train.py --lr /1");
    gw_top_procs_free(p);
    gw_top_model_free(&m);
    free(root);
}

static void test_env_run_dir(void **state)
{
    (void)state;
    char buf[32];
    static const char e1[] = "A=1\0GPUWATCH_RUN_DIR=/r/x\0B=2";
    assert_true(gw_top_env_run_dir(e1, sizeof e1, buf, sizeof buf));
    assert_string_equal(buf, "/r/x");
    static const char e2[] = "XGPUWATCH_RUN_DIR=/no\0GPUWATCH_RUN_DIR=";
    assert_false(gw_top_env_run_dir(e2, sizeof e2, buf, sizeof buf));
    assert_string_equal(buf, "");
    static const char e3[] = "GPUWATCH_RUN_DIR=/a\x1b[31m/very/long/path/beyond/the/buffer";
    assert_true(gw_top_env_run_dir(e3, sizeof e3 - 1, buf, sizeof buf));
    assert_null(strchr(buf, '\x1b')); /* sanitised */
    assert_true(strlen(buf) < sizeof buf);
}

static void test_parse_metrics(void **state)
{
    (void)state;
    static const char text[] =
        "# HELP DCGM_FI_DEV_GPU_UTIL GPU utilization (in %).\n"
        "# TYPE DCGM_FI_DEV_GPU_UTIL gauge\n"
        "DCGM_FI_DEV_GPU_UTIL{gpu=\"0\",UUID=\"GPU-a\",pci_bus_id=\"x\",device=\"nvidia0\","
        "modelName=\"NVIDIA H200\",Hostname=\"node1\"} 87\n"
        "DCGM_FI_DEV_GPU_UTIL{gpu=\"1\",UUID=\"GPU-b\",modelName=\"NVIDIA \\\"H\\\"200\","
        "Hostname=\"node1\"} 12\n"
        "DCGM_FI_PROF_SM_ACTIVE{gpu=\"0\",Hostname=\"node1\"} 0.925\n"
        "DCGM_FI_DEV_FB_USED{gpu=\"0\"} 20480\n"
        "DCGM_FI_DEV_FB_FREE{gpu=\"0\"} 123291\n"
        "DCGM_FI_DEV_POWER_USAGE{gpu=\"0\"} 512.5\n"
        "DCGM_FI_DEV_POWER_MGMT_LIMIT{gpu=\"0\"} 700\n"
        "DCGM_FI_DEV_GPU_TEMP{gpu=\"0\"} 65\n"
        "DCGM_FI_DEV_SM_CLOCK{gpu=\"0\"} 1755\n"
        "gpuwatch_sample_age_seconds 0.1\n"
        "DCGM_FI_DEV_GPU_TEMP{gpu=\"0\" broken\n"
        "DCGM_FI_DEV_GPU_TEMP 77\n";
    gw_top_remote_gpu g[4];
    char host[16];
    unsigned n = gw_top_parse_metrics(text, g, 4, host, sizeof host, NULL);
    assert_int_equal(n, 2);
    assert_string_equal(host, "node1");
    assert_string_equal(g[0].gpu, "0");
    assert_string_equal(g[0].name, "NVIDIA H200");
    assert_num(g[0].util, 87.0, 0);
    assert_num(g[0].sm, 92.5, 1e-9);
    assert_num(g[0].mem_used, 20480.0, 0);
    assert_num(g[0].mem_total, 143771.0, 0);
    assert_num(g[0].power, 512.5, 0);
    assert_num(g[0].power_limit, 700.0, 0);
    assert_num(g[0].temp, 65.0, 0); /* the broken line and the label-less one are skipped */
    assert_num(g[0].sm_clock, 1755.0, 0);
    assert_string_equal(g[1].name, "NVIDIA \"H\"200");
    assert_num(g[1].util, 12.0, 0);
    assert_true(isnan(g[1].sm) && isnan(g[1].mem_total)); /* absent, not 0 */
    assert_int_equal(gw_top_parse_metrics("", g, 4, host, sizeof host, NULL), 0);
    unsigned reported = 0;
    assert_int_equal(gw_top_parse_metrics(text, g, 1, host, sizeof host, &reported), 1);
    assert_int_equal(reported, 2); /* one shown of two: said, not hidden (issue 26) */
    /* another host's labels reach the screen: bidi and C1 controls are '?' (issue 26) */
    const char *evil = "DCGM_FI_DEV_GPU_UTIL{gpu=\"0\",modelName=\"H\xE2\x80\xAE"
                       "002\","
                       "Hostname=\"n\xC2\x9B"
                       "2J\"} 5\n";
    assert_int_equal(gw_top_parse_metrics(evil, g, 4, host, sizeof host, NULL), 1);
    assert_string_equal(g[0].name, "H?002");
    assert_string_equal(host, "n?2J");
}

static void test_hosts_list(void **state)
{
    (void)state;
    char err[160];
    gw_top_hosts *h = gw_top_hosts_new("node1:9400,127.0.0.1:1", 1.0, 0.5, err, sizeof err);
    assert_non_null(h);
    assert_int_equal(gw_top_hosts_count(h), 2);
    gw_top_host_view v;
    gw_top_hosts_get(h, 1, &v);
    assert_string_equal(v.addr, "127.0.0.1:1");
    assert_true(v.stale); /* nothing fetched yet */
    assert_false(v.ever_ok);
    gw_top_hosts_free(h);
    const char *bad[] = {"", "node1", "node1:", ":9400", "node1:0", "node1:70000", "a:1,b"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        err[0] = '\0';
        assert_null(gw_top_hosts_new(bad[i], 1.0, 0.5, err, sizeof err));
        assert_non_null(strstr(err, "HOST:PORT"));
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ring_and_columns),
        cmocka_unit_test(test_reasons),
        cmocka_unit_test(test_low_sm_flag),
        cmocka_unit_test(test_push_history),
        cmocka_unit_test(test_sort_filter_tree_select),
        cmocka_unit_test(test_keys),
        cmocka_unit_test(test_procs_from_proc),
        cmocka_unit_test(test_env_run_dir),
        cmocka_unit_test(test_parse_metrics),
        cmocka_unit_test(test_hosts_list),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
