/* Unit tests for src/host/procinfo.c and the live view's process details (src/live/details.c),
 * against a fake /proc tree. */
#include "test_helpers.h"

#include "host/procinfo.h"
#include "live/live.h"

#include <fcntl.h>

/* A literal with its length (NULs included). */
#define LIT(s) s, sizeof(s) - 1

#define write_bytes th_write_bytes

static void fake_status(const char *root, unsigned pid, unsigned uid)
{
    char name[64], text[256];
    snprintf(name, sizeof name, "%u/status", pid);
    snprintf(text, sizeof text, "Name:\tpython3\nState:\tS (sleeping)\nUid:\t%u\t%u\t%u\t%u\n", uid,
             uid + 1, uid, uid);
    th_write(root, name, text);
}

static void test_uid_and_user_names(void **state)
{
    (void)state;
    char *root = th_tmpdir();
    fake_status(root, 100, 0);
    fake_status(root, 101, 4000001);
    th_write(root, "102/status", "Name:\tbroken\n");
    unsigned uid = 7;
    assert_true(gw_procinfo_uid(root, 100, &uid));
    assert_int_equal(uid, 0);
    assert_true(gw_procinfo_uid(root, 101, &uid));
    assert_int_equal(uid, 4000001); /* the real uid, the first of the four */
    assert_false(gw_procinfo_uid(root, 102, &uid));
    assert_false(gw_procinfo_uid(root, 103, &uid)); /* no entry: another container */
    char name[40];
    gw_procinfo_user_name(0, name, sizeof name);
    assert_string_equal(name, "root");
    gw_procinfo_user_name(4000001, name, sizeof name); /* not in /etc/passwd */
    assert_string_equal(name, "4000001");
    free(root);
}

static void test_cmdline(void **state)
{
    (void)state;
    char *root = th_tmpdir();
    write_bytes(root, "200/cmdline",
                LIT("python3\0train.py\0--lr\0"
                    "0.1\0"));
    write_bytes(root, "201/cmdline", "", 0);
    char buf[64];
    size_t n = 99;
    assert_true(gw_procinfo_cmdline(root, 200, buf, sizeof buf, &n));
    assert_int_equal(n, 25); /* without the last NUL */
    assert_memory_equal(buf,
                        "python3\0train.py\0--lr\0"
                        "0.1",
                        25);
    assert_true(gw_procinfo_cmdline(root, 200, buf, 10, &n)); /* cut to the buffer */
    assert_int_equal(n, 10);
    assert_true(gw_procinfo_cmdline(root, 201, buf, sizeof buf, &n)); /* kernel thread, zombie */
    assert_int_equal(n, 0);
    assert_false(gw_procinfo_cmdline(root, 202, buf, sizeof buf, &n));
    free(root);
}

static void test_details_for_the_view(void **state)
{
    (void)state;
    char *root = th_tmpdir();
    fake_status(root, 300, 0);
    write_bytes(root, "300/cmdline", LIT("python3\0caf\xC3\xA9\xFF\0\x1b[31m\0"));
    fake_status(root, 301, 4000002);
    char *big = malloc(10000);
    memset(big, 'y', 10000);
    write_bytes(root, "301/cmdline", big, 10000);
    fake_status(root, 302, 0); /* empty command line: the view falls back to the name */
    write_bytes(root, "302/cmdline", "", 0);
    gw_gpu_process procs[4] = {{.pid = 300, .visible = true},
                               {.pid = 301, .visible = true},
                               {.pid = 302, .visible = true},
                               {.pid = 303, .visible = false}};
    gw_sample s = {.proc_count = 4, .procs = procs};
    gw_live_details *d = gw_live_details_new(root);
    for (int round = 0; round < 2; round++) { /* the second round comes from the uid cache */
        const gw_view_proc *v = gw_live_details_fill(d, &s);
        assert_true(v[0].uid_valid);
        assert_string_equal(v[0].user, "root");
        assert_string_equal(v[0].command, "python3 caf\xC3\xA9\xEF\xBF\xBD ?[31m");
        assert_string_equal(v[1].user, "4000002");
        assert_int_equal(strlen(v[1].command), 4096); /* cut at 4 KiB */
        assert_null(v[2].command);
        assert_false(v[3].uid_valid);
        assert_string_equal(v[3].user, "");
        assert_null(v[3].command);
    }
    gw_live_details_free(d);
    free(big);
    free(root);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_uid_and_user_names),
        cmocka_unit_test(test_cmdline),
        cmocka_unit_test(test_details_for_the_view),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
