/*
 * mhd_dl: libmicrohttpd loaded with dlopen when a server starts, not at every start.
 *
 * Owns: the table of the libmicrohttpd functions http_server.c calls and its one-time load.
 * Linking libmicrohttpd made every command load it and the GnuTLS stack it links (gnutls,
 * nettle, p11-kit, ...) at start, for `serve` and `run --listen` only (docs/performance.md,
 * "One-shot"). After this header, calls by the usual names (MHD_start_daemon, ...) go through
 * the table; call gw_mhd_load first.
 * Must not: serve (http_server.c does).
 */
#ifndef GW_MHD_DL_H
#define GW_MHD_DL_H

#include "util/gw_error.h"

#include <microhttpd.h>

#define GW_MHD_FUNCS(X)                                                                            \
    X(MHD_add_response_header)                                                                     \
    X(MHD_create_response_from_buffer)                                                             \
    X(MHD_destroy_response)                                                                        \
    X(MHD_get_connection_info)                                                                     \
    X(MHD_get_connection_values)                                                                   \
    X(MHD_lookup_connection_value)                                                                 \
    X(MHD_queue_response)                                                                          \
    X(MHD_start_daemon)                                                                            \
    X(MHD_stop_daemon)

#define GW_DL_MEMBER(f) __typeof__(&f) f;
typedef struct gw_mhd_api {
    GW_MHD_FUNCS(GW_DL_MEMBER)
} gw_mhd_api;
#undef GW_DL_MEMBER

extern gw_mhd_api gw_mhd;

/* Loads libmicrohttpd.so.12 once per process. Errors: GW_E_NOTFOUND naming the library and the
 * Debian package that provides it. */
GW_MUST_USE gw_rc gw_mhd_load(gw_error *err);

#ifndef GW_MHD_DL_IMPL
#define MHD_add_response_header         gw_mhd.MHD_add_response_header
#define MHD_create_response_from_buffer gw_mhd.MHD_create_response_from_buffer
#define MHD_destroy_response            gw_mhd.MHD_destroy_response
#define MHD_get_connection_info         gw_mhd.MHD_get_connection_info
#define MHD_get_connection_values       gw_mhd.MHD_get_connection_values
#define MHD_lookup_connection_value     gw_mhd.MHD_lookup_connection_value
#define MHD_queue_response              gw_mhd.MHD_queue_response
#define MHD_start_daemon                gw_mhd.MHD_start_daemon
#define MHD_stop_daemon                 gw_mhd.MHD_stop_daemon
#endif

#endif
