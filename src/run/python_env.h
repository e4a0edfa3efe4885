/*
 * python_env: where gpuwatch's sitecustomize.py is, and the job's PYTHONPATH with it first
 * (docs/inproc.md).
 *
 * Owns: the search for the directory (installed: BINDIR/../lib/gpuwatch/python; a binary with a
 * python/ folder beside it; the source tree this binary was built from, GW_PYTHON_SOURCE_DIR),
 * the off switches' precedence (--no-python, then GPUWATCH_PYTHON=0 in gpuwatch's environment,
 * then the configuration's [run] python = false) and the one line meta.json keeps about it
 * ("python_instrumentation": "on" or "off (WHY)"). Must not: start or read anything of the job.
 */
#ifndef GW_PYTHON_ENV_H
#define GW_PYTHON_ENV_H

#include <stdbool.h>

typedef struct gw_python_env {
    char *pythonpath; /* "PYTHONPATH=DIR[:the old value]" for the job, or NULL when off */
    char *dir;        /* DIR (absolute), or NULL when off */
    char *state;      /* "on" or "off (--no-python)", ...: meta.json python_instrumentation */
    bool not_found;   /* on by every switch, but no sitecustomize.py was found (state says where
                         it was looked for): the session says so once */
} gw_python_env;

/* Decides from the switches (cli_off: --no-python; config_off: [run] python = false), the
 * environment (GPUWATCH_PYTHON, PYTHONPATH) and the files found. Free with gw_python_env_free. */
void gw_python_env_prepare(gw_python_env *pe, bool cli_off, bool config_off);
void gw_python_env_free(gw_python_env *pe);

#endif
