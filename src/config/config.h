/*
 * config: gpuwatch.ini — alert rules, the alert hook and `gpuwatch check`'s thresholds.
 *
 * Owns: reading INI files through inih (Debian libinih-dev), the order of sources — built-in
 * defaults, then the system file (/etc/gpuwatch/gpuwatch.ini, or $GPUWATCH_SYSTEM_CONFIG), then
 * the user's ($XDG_CONFIG_HOME/gpuwatch/gpuwatch.ini, else ~/.config/gpuwatch/gpuwatch.ini), then
 * each --config FILE, then flags (--set SECTION.KEY=VALUE) — where later sources override earlier
 * ones key by key, and the checks that make a bad file an error naming FILE:LINE and the reason.
 * Sections: [alerts], [hook], [check], [run], and one per rule (the built-in ids, or a new id with
 * `metric =`). docs/alerts.md describes every key.
 *
 * Must not: evaluate rules or start anything; callers decide what a failure means (run and record
 * exit 2, check exits 3).
 */
#ifndef GW_CONFIG_H
#define GW_CONFIG_H

#include "alerts/rules.h"
#include "health/health.h"
#include "util/gw_error.h"

#include <stdbool.h>

typedef struct gw_config {
    gw_alerts_config alerts;
    gw_health_thresholds check;
    bool run_python; /* [run] python: gpuwatch's sitecustomize in `run` jobs (docs/inproc.md) */
} gw_config;

/* Built-in defaults. Free with gw_config_free. */
void gw_config_init(gw_config *c);
void gw_config_free(gw_config *c);

/* Reads one INI file over c. A missing file (or one a HOME that is a file or not searchable
 * hides) is skipped unless must_exist; a FIFO or device is an error. Errors (GW_E_FORMAT,
 * GW_E_IO): "PATH:LINE: [SECTION] KEY: reason". c keeps what was read before the error. */
GW_MUST_USE gw_rc gw_config_load_file(gw_config *c, const char *path, bool must_exist,
                                      gw_error *err);

/* Reads the system file, then the user's file, where they exist. */
GW_MUST_USE gw_rc gw_config_load_standard(gw_config *c, gw_error *err);

/* The system and user paths (newly allocated; the user path is NULL without $HOME and
 * $XDG_CONFIG_HOME). */
char *gw_config_system_path(void);
char *gw_config_user_path(void);

/* Applies "SECTION.KEY=VALUE" (a --set flag) as if it were the last line of the last file. */
GW_MUST_USE gw_rc gw_config_set(gw_config *c, const char *assignment, gw_error *err);

/* Applies one key (the INI handler and gw_config_set share it); `where` names the source for
 * later errors ("FILE:LINE"). */
GW_MUST_USE gw_rc gw_config_apply(gw_config *c, const char *section, const char *key,
                                  const char *value, const char *where, gw_error *err);

/* Checks the whole configuration once every source is applied: each rule has a metric and a
 * threshold, clear lies on the threshold's other side, event rules have no threshold or duration,
 * the hook command exists. Fills clear = threshold where clear was not given. */
GW_MUST_USE gw_rc gw_config_validate(gw_config *c, gw_error *err);

#endif
