/*
 * not_a_log: what new users give `gpuwatch report` instead of a GPU log — the parent of run
 * directories, a directory of captures, one part of a run (host.csv, output.log) — refused in
 * one line that names what it is and the command to give instead.
 * Must not: read the files' contents.
 */
#ifndef GW_NOT_A_LOG_H
#define GW_NOT_A_LOG_H

#include "util/gw_error.h"

/* For a directory without gpu.csv: GW_E_FORMAT naming the runs inside (and `report RUN`,
 * `report --fleet DIR`), or the files inside (and `report DIR/FILE`), or that it is empty;
 * GW_E_IO when it cannot be listed. */
GW_MUST_USE gw_rc gw_logread_not_a_run_dir(const char *dir, gw_error *err);

/* GW_E_FORMAT when path is a part of a run directory other than gpu.csv (host.csv, output.log,
 * ...; a gpu.csv beside it), naming the run directory to give instead; GW_OK otherwise. */
GW_MUST_USE gw_rc gw_logread_run_part(const char *path, gw_error *err);

#endif
