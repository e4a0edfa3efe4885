/* Small helpers shared by the cmocka unit tests: temporary directories and files. */
#ifndef GW_TEST_HELPERS_H
#define GW_TEST_HELPERS_H

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* assert_float_equal passes when a value is NaN (every comparison with NaN is false): this one
 * fails on NaN first. */
#define assert_num(x, want, eps)                                                                   \
    do {                                                                                           \
        double assert_num_v_ = (x);                                                                \
        assert_false(isnan(assert_num_v_));                                                        \
        assert_float_equal(assert_num_v_, (want), (eps));                                          \
    } while (0)

/* Creates a fresh temporary directory; the caller frees the string (and may rm -rf it). */
static inline char *th_tmpdir(void)
{
    char tmpl[] = "/tmp/gwtest-XXXXXX";
    char *d = mkdtemp(tmpl);
    assert_non_null(d);
    return strdup(d);
}

/* Writes text to dir/name, creating intermediate directories. */
static inline void th_write(const char *dir, const char *name, const char *text)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    for (char *s = path + strlen(dir) + 1; *s; s++) {
        if (*s == '/') {
            *s = '\0';
            char cmd[1100];
            snprintf(cmd, sizeof cmd, "mkdir -p '%s'", path);
            assert_int_equal(system(cmd), 0);
            *s = '/';
        }
    }
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

/* Reads a whole file into a new string (NULL when missing). */
static inline char *th_read(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *s = malloc((size_t)n + 1);
    size_t got = fread(s, 1, (size_t)n, f);
    s[got] = '\0';
    fclose(f);
    return s;
}

/* Writes n bytes (NULs included) to dir/name, creating intermediate directories. */
static inline void th_write_bytes(const char *dir, const char *name, const char *bytes, size_t n)
{
    th_write(dir, name, ""); /* creates the directories */
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(bytes, 1, n, f), n);
    fclose(f);
}

static inline void th_rmrf(const char *dir)
{
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    assert_int_equal(system(cmd), 0);
}

#endif
