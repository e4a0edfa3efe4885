/*
 * live: `gpuwatch` with no command — one snapshot of every GPU, or a view refreshed in place.
 *
 * Owns: the order of a live session (load NVML, open the sampler with the fields the view shows,
 * read, look up process owners and command lines, render with src/view, write), the terminal while
 * refreshing (alternate screen, hidden cursor, in-place redraw without flicker, restored on exit,
 * Ctrl-C, SIGTERM, SIGHUP and Ctrl-Z; redrawn at once on SIGWINCH) and the exit status. Must not:
 * format values (src/view does) or parse arguments (src/cli does).
 */
#ifndef GW_LIVE_H
#define GW_LIVE_H

#include "sampler/sample.h"
#include "view/view.h"

#include <stdbool.h>
#include <stdint.h>

typedef enum gw_color_mode { GW_COLOR_AUTO, GW_COLOR_ALWAYS, GW_COLOR_NEVER } gw_color_mode;

typedef struct gw_live_config {
    int64_t interval_ms; /* 0: one snapshot; else refresh every interval until a signal */
    int64_t count;       /* with an interval: stop after this many frames (0 = no limit) */
    bool json;           /* one JSON document per snapshot (one line each when refreshing) */
    gw_color_mode color; /* AUTO: colour when stdout is a terminal and NO_COLOR is unset */
} gw_live_config;

/* Runs the live view. Returns the exit status: 0, or 1 when NVML cannot be used or there is no
 * GPU (text view; the JSON view prints an empty "gpus" list and returns 0). */
int gw_live_main(const gw_live_config *cfg);

/* Process details for the view: owner and command line of each GPU process, from /proc. Owns a
 * uid -> user name cache (name lookups can reach LDAP) and the gw_view_proc array. */
typedef struct gw_live_details gw_live_details;

/* proc_root NULL = /proc. Free with gw_live_details_free. */
gw_live_details *gw_live_details_new(const char *proc_root);

/* Looks up every process of s (pids that are not visible get no details) and returns an array of
 * s->proc_count entries, owned by d and valid until the next call. Command lines longer than
 * 4 KiB are cut there (the view shortens them further); their bytes are sanitised (utf8.h). */
const gw_view_proc *gw_live_details_fill(gw_live_details *d, const gw_sample *s);

void gw_live_details_free(gw_live_details *d);

#endif
