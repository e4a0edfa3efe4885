/*
 * gw_dl: what the loaders of lazily loaded libraries share (plot/cairo_dl, http/mhd_dl,
 * fleet/curl_dl, k8s/podres_dl): loading once for every thread, the one-line error kept for every
 * later caller, and a symbol copied into its typed slot of the loader's table.
 *
 * Must not: dlopen or dlsym (only the named loader files do: scripts/check-layers.py), or name a
 * library (the loaders' messages do).
 */
#ifndef GW_DL_H
#define GW_DL_H

#include "util/gw_error.h"

#include <limits.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>

typedef struct gw_dl_state {
    pthread_once_t once; /* GW_DL_STATE_INIT */
    gw_rc rc;            /* GW_OK: loaded */
    char msg[2 * PATH_MAX + 1024];
} gw_dl_state;

#define GW_DL_STATE_INIT                                                                           \
    {                                                                                              \
        .once = PTHREAD_ONCE_INIT, .rc = GW_OK                                                     \
    }

/* Runs load once (for every thread) and returns its outcome: GW_OK, or the error load set with
 * gw_dl_fail, into err every time. */
GW_MUST_USE gw_rc gw_dl_load(gw_dl_state *s, void (*load)(void), gw_error *err);

/* Called by load: loading failed (GW_E_NOTFOUND), with the one-line message and its fix. */
void gw_dl_fail(gw_dl_state *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Copies sym (what dlsym found for name) into the table slot of size bytes; NULL: *missing names
 * the first symbol not found. Returns whether sym was found. */
bool gw_dl_fill(void *sym, void *slot, size_t size, const char *name, const char **missing);

#endif
