/*
 * rundir: creates the directory a recording goes into.
 *
 * An explicit directory must not exist (gpuwatch never overwrites a recording); its parents are
 * created. The default is runs/<UTC YYYYMMDD-HHMMSS>-<name> under the current directory, with -2,
 * -3, ... appended when that exists. The directory it is made in must belong to the user (or root)
 * or be sticky, else another user could swap the run directory (docs/run-directory.md); the run
 * directory is opened without following links and every file of the run is created relative to
 * that descriptor. Must not: write files into the directory.
 */
#ifndef GW_RUNDIR_H
#define GW_RUNDIR_H

#include "util/gw_error.h"

#include <stdbool.h>
#include <stdint.h>

/* A short name for a command line: the script for interpreters ("python3 train.py" -> "train"),
 * else the program's base name; only [A-Za-z0-9._-] kept. Returns a new string. */
char *gw_rundir_name_hint(int argc, char *const argv[]);

/* Creates `requested`, or the default directory for `name` at wall time now_ms when requested is
 * NULL. *out_path receives the new directory's path (caller frees), *out_fd a descriptor of it
 * (O_DIRECTORY, opened with O_NOFOLLOW; caller closes). Errors: GW_E_EXISTS when an explicit
 * directory exists, GW_E_IO when it cannot be created or written, or when the directory it is
 * made in belongs to another user (not root) or is writable by all, and is not sticky. */
GW_MUST_USE gw_rc gw_rundir_create(const char *requested, const char *name, int64_t now_ms,
                                   char **out_path, int *out_fd, gw_error *err);

/* After a failure at start: removes the files a recording creates from the new directory dirfd,
 * then the directory path itself when that left it empty, so that a retry can use the name.
 * Returns true when the directory was removed. */
bool gw_rundir_remove_new(int dirfd, const char *path);

#endif
