/* python_env: the job's PYTHONPATH with gpuwatch's sitecustomize first (python_env.h). */
#include "run/python_env.h"

#include "util/gw_file.h"
#include "util/xalloc.h"

#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#ifndef GW_PYTHON_SOURCE_DIR
#define GW_PYTHON_SOURCE_DIR ""
#endif

/* The real path of the first candidate holding sitecustomize.py, or NULL. */
static char *find_dir(void)
{
    char exe[PATH_MAX];
    gw_exe_dir(exe, sizeof exe);
    char cand[3][PATH_MAX + 32];
    int n = 0;
    if (exe[0]) {
        snprintf(cand[n++], sizeof cand[0], "%s/../lib/gpuwatch/python", exe);
        snprintf(cand[n++], sizeof cand[0], "%s/python", exe);
    }
    if (GW_PYTHON_SOURCE_DIR[0])
        snprintf(cand[n++], sizeof cand[0], "%s", GW_PYTHON_SOURCE_DIR);
    for (int i = 0; i < n; i++) {
        char *file = xasprintf("%s/sitecustomize.py", cand[i]);
        bool found = access(file, R_OK) == 0;
        free(file);
        char real[PATH_MAX];
        if (found && realpath(cand[i], real))
            return xstrdup(real);
    }
    return NULL;
}

static bool env_off(const char *v)
{
    if (!v)
        return false;
    while (*v == ' ')
        v++;
    return strcmp(v, "0") == 0 || strcasecmp(v, "false") == 0 || strcasecmp(v, "no") == 0 ||
           strcasecmp(v, "off") == 0;
}

void gw_python_env_prepare(gw_python_env *pe, bool cli_off, bool config_off)
{
    memset(pe, 0, sizeof *pe);
    if (cli_off) {
        pe->state = xstrdup("off (--no-python)");
        return;
    }
    if (env_off(getenv("GPUWATCH_PYTHON"))) {
        pe->state = xstrdup("off (GPUWATCH_PYTHON=0)");
        return;
    }
    if (config_off) {
        pe->state = xstrdup("off ([run] python = false)");
        return;
    }
    pe->dir = find_dir();
    if (!pe->dir) {
        pe->not_found = true;
        pe->state = xstrdup("off (no sitecustomize.py in lib/gpuwatch/python beside gpuwatch: "
                            "install gpuwatch with cmake --install or its .deb)");
        return;
    }
    const char *old = getenv("PYTHONPATH");
    pe->pythonpath = old && old[0] ? xasprintf("PYTHONPATH=%s:%s", pe->dir, old)
                                   : xasprintf("PYTHONPATH=%s", pe->dir);
    pe->state = xstrdup("on");
}

void gw_python_env_free(gw_python_env *pe)
{
    free(pe->pythonpath);
    free(pe->dir);
    free(pe->state);
    memset(pe, 0, sizeof *pe);
}
