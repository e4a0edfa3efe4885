/*
 * fake_nvml_test: helpers for the tests of the fake NVML library (test_fake_nvml*.c).
 *
 * Each test writes its own scenario to a temporary file, points FAKE_NVML_SCENARIO at it, loads
 * the library named by $GPUWATCH_FAKE_NVML through gpuwatch's own loader (gw_nvml_load, so the
 * symbols are bound exactly as gpuwatch binds them) and calls nvmlInit. Time is pinned with
 * FAKE_NVML_TIME_OFFSET and FAKE_NVML_TIME_SCALE=0 where a test needs exact values, and bracketed
 * by CLOCK_MONOTONIC readings where it needs time to pass.
 */
#ifndef GW_FAKE_NVML_TEST_H
#define GW_FAKE_NVML_TEST_H

#include <setjmp.h>
#include <stdarg.h> /* cmocka.h needs it */
#include <stddef.h>
#include <stdint.h>
// clang-format off: cmocka.h needs the headers above first
#include <cmocka.h>
// clang-format on

#include "nvml/nvml_lib.h"
#include "util/gw_time.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MIB 1048576ULL

typedef struct fake_lib {
    gw_nvml *n;        /* loaded with gw_nvml_load; n->dl is the dlopen handle */
    gwn_return init;   /* what nvmlInit returned */
    char path[64];     /* the scenario file */
    double t_before_s; /* CLOCK_MONOTONIC just before and after nvmlInit */
    double t_after_s;
} fake_lib;

static inline double mono_s(void)
{
    return (double)gw_mono_ns() / 1e9;
}

static inline const char *fake_lib_path(void)
{
    const char *p = getenv("GPUWATCH_FAKE_NVML");
    if (!p || !*p)
        fail_msg("GPUWATCH_FAKE_NVML is not set: run the tests through ctest");
    return p;
}

/* Sets or (value NULL) unsets an environment variable. */
static inline void set_env(const char *name, const char *value)
{
    if (value)
        setenv(name, value, 1);
    else
        unsetenv(name);
}

static inline void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    assert_true(fputs(text, f) >= 0);
    assert_int_equal(fclose(f), 0);
}

/* Writes a scenario to path. Scenarios in the tests are written with ' for " to stay readable:
 * every ' becomes ". */
static inline void rewrite_scenario(const char *path, const char *json)
{
    char *text = strdup(json);
    assert_non_null(text);
    for (char *p = text; *p; p++) {
        if (*p == '\'')
            *p = '"';
    }
    write_file(path, text);
    free(text);
}

/* Writes json to a new temporary file; path receives its name (64 bytes). */
static inline void write_scenario(char *path, const char *json)
{
    snprintf(path, 64, "/tmp/gw-fake-nvml-XXXXXX.json");
    int fd = mkstemps(path, 5);
    assert_true(fd >= 0);
    close(fd);
    rewrite_scenario(path, json);
}

/* The libraries a test opened and has not closed yet, by value: a failing assertion jumps out of
 * the test (its fake_lib goes with its stack frame), and fake_teardown must still shut them down,
 * or the next test would find NVML initialised. */
static struct {
    gw_nvml *n;
    char path[64];
} fake_open_libs[4];

/* Loads the library with scenario json, time pinned at `offset` when scale is "0" (NULL: the
 * variable is unset), and calls nvmlInit. The library stays loaded whatever nvmlInit returns. */
static inline void fake_open_at(fake_lib *f, const char *json, const char *scale,
                                const char *offset)
{
    memset(f, 0, sizeof *f);
    write_scenario(f->path, json);
    setenv("FAKE_NVML_SCENARIO", f->path, 1);
    set_env("FAKE_NVML_TIME_SCALE", scale);
    set_env("FAKE_NVML_TIME_OFFSET", offset);
    gw_error err;
    if (gw_nvml_load(fake_lib_path(), &f->n, &err) != GW_OK)
        fail_msg("%s", err.msg);
    f->t_before_s = mono_s();
    f->init = f->n->Init();
    f->t_after_s = mono_s();
    f->n->initialised = f->init == GWN_SUCCESS; /* gw_nvml_close then calls nvmlShutdown */
    for (size_t i = 0; i < sizeof fake_open_libs / sizeof fake_open_libs[0]; i++) {
        if (!fake_open_libs[i].n) {
            fake_open_libs[i].n = f->n;
            memcpy(fake_open_libs[i].path, f->path, sizeof f->path);
            return;
        }
    }
    fail_msg("a test opened more than %zu libraries at once",
             sizeof fake_open_libs / sizeof fake_open_libs[0]);
}

static inline void fake_open(fake_lib *f, const char *json)
{
    fake_open_at(f, json, NULL, NULL);
}

/* nvmlShutdown (when init succeeded), dlclose, and removes the scenario. */
static inline void fake_close_lib(gw_nvml *n, const char *path)
{
    for (size_t i = 0; i < sizeof fake_open_libs / sizeof fake_open_libs[0]; i++) {
        if (fake_open_libs[i].n == n)
            fake_open_libs[i].n = NULL;
    }
    gw_nvml_close(n);
    remove(path);
    unsetenv("FAKE_NVML_TIME_SCALE");
    unsetenv("FAKE_NVML_TIME_OFFSET");
}

static inline void fake_close(fake_lib *f)
{
    fake_close_lib(f->n, f->path);
    f->n = NULL;
}

/* cmocka teardown of every test: closes what a failed test left open. */
static inline int fake_teardown(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof fake_open_libs / sizeof fake_open_libs[0]; i++) {
        if (fake_open_libs[i].n)
            fake_close_lib(fake_open_libs[i].n, fake_open_libs[i].path);
    }
    return 0;
}

/* A symbol of the loaded library, by its NVML name; fails the test when it is missing. */
static inline void *fake_sym(const fake_lib *f, const char *name)
{
    void *p = dlsym(f->n->dl, name);
    if (!p)
        fail_msg("the fake NVML library does not export %s", name);
    return p;
}

static inline gwn_device gpu_handle(const fake_lib *f, unsigned int index)
{
    gwn_device h = NULL;
    assert_int_equal(f->n->DeviceGetHandleByIndex(index, &h), GWN_SUCCESS);
    return h;
}

/* stderr capture: everything written to fd 2 between begin and end lands in buf. */
typedef struct stderr_capture {
    int saved_fd;
    FILE *tmp;
} stderr_capture;

static inline void capture_begin(stderr_capture *c)
{
    fflush(stderr);
    c->tmp = tmpfile();
    assert_non_null(c->tmp);
    c->saved_fd = dup(2);
    assert_true(c->saved_fd >= 0);
    assert_true(dup2(fileno(c->tmp), 2) >= 0);
}

static inline void capture_end(stderr_capture *c, char *buf, size_t size)
{
    fflush(stderr);
    assert_true(dup2(c->saved_fd, 2) >= 0);
    close(c->saved_fd);
    rewind(c->tmp);
    size_t n = fread(buf, 1, size - 1, c->tmp);
    buf[n] = '\0';
    fclose(c->tmp);
}

/* Asserts that text is exactly one line starting "fake-nvml: " and containing each fragment that
 * is not NULL. */
static inline void assert_one_line(const char *text, const char *frag1, const char *frag2,
                                   const char *frag3)
{
    if (strncmp(text, "fake-nvml: ", 11) != 0)
        fail_msg("stderr does not start with \"fake-nvml: \": [%s]", text);
    const char *nl = strchr(text, '\n');
    if (!nl || nl[1] != '\0')
        fail_msg("stderr is not exactly one line: [%s]", text);
    const char *frags[] = {frag1, frag2, frag3};
    for (size_t i = 0; i < 3; i++) {
        if (frags[i] && !strstr(text, frags[i]))
            fail_msg("stderr lacks \"%s\": [%s]", frags[i], text);
    }
}

#endif
