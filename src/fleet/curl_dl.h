/*
 * curl_dl: libcurl loaded with dlopen when `gpuwatch report --fleet` queries Prometheus, not at
 * every start (docs/performance.md, "One-shot"): libcurl pulls in OpenSSL, nghttp2, libssh2,
 * LDAP and Kerberos, which no other command needs.
 *
 * Owns: the table of the libcurl functions src/fleet calls and its one-time load. After this
 * header, fleet code calls the usual names (curl_easy_perform), which go through the table; call
 * gw_curl_load first.
 * Must not: fetch anything (fleet_prom.c does).
 */
#ifndef GW_CURL_DL_H
#define GW_CURL_DL_H

#include "util/gw_error.h"

#define CURL_DISABLE_TYPECHECK    /* the checks are macros over the real names: calls go through   \
                                     the table */
#include <curl/curl.h>

#define GW_CURL_FUNCS(X)                                                                           \
    X(curl_easy_init)                                                                              \
    X(curl_easy_setopt)                                                                            \
    X(curl_easy_perform)                                                                           \
    X(curl_easy_getinfo)                                                                           \
    X(curl_easy_cleanup)                                                                           \
    X(curl_easy_strerror)                                                                          \
    X(curl_easy_escape)                                                                            \
    X(curl_free)

#define GW_DL_MEMBER(f) __typeof__(&f) f;
typedef struct gw_curl_api {
    GW_CURL_FUNCS(GW_DL_MEMBER)
} gw_curl_api;
#undef GW_DL_MEMBER

extern gw_curl_api gw_curl;

/* Loads libcurl.so.4 once per process. Errors: GW_E_NOTFOUND naming the library and the Debian
 * package that provides it. */
GW_MUST_USE gw_rc gw_curl_load(gw_error *err);

/* Calls by the usual names go through the table (not in curl_dl.c, which fills it). */
#ifndef GW_CURL_DL_IMPL
#undef curl_easy_setopt /* curl.h's pass-through macros (CURL_DISABLE_TYPECHECK) */
#undef curl_easy_getinfo
#define curl_easy_init     gw_curl.curl_easy_init
#define curl_easy_setopt   gw_curl.curl_easy_setopt
#define curl_easy_perform  gw_curl.curl_easy_perform
#define curl_easy_getinfo  gw_curl.curl_easy_getinfo
#define curl_easy_cleanup  gw_curl.curl_easy_cleanup
#define curl_easy_strerror gw_curl.curl_easy_strerror
#define curl_easy_escape   gw_curl.curl_easy_escape
#define curl_free          gw_curl.curl_free
#endif

#endif
