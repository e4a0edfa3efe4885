/*
 * gw_error: the one error type of gpuwatch.
 *
 * Owns: an error code (gw_rc) and a one-line, user-facing message that names the problem and the
 * fix. Functions that can fail return gw_rc and fill a caller-provided gw_error (which may be NULL
 * when the caller does not want the message). Must not: print anything; callers decide where the
 * message goes.
 */
#ifndef GW_ERROR_H
#define GW_ERROR_H

#include <stddef.h>

typedef enum gw_rc {
    GW_OK = 0,
    GW_E_USAGE,    /* bad flag or argument value given by the user */
    GW_E_IO,       /* a file or directory could not be read or written */
    GW_E_NVML,     /* NVML could not be loaded or initialised, or a required call failed */
    GW_E_FORMAT,   /* malformed input (scenario, CSV log, configuration file) */
    GW_E_NOTFOUND, /* a command, file or device that was asked for does not exist */
    GW_E_EXISTS,   /* an output that must not be overwritten already exists */
    GW_E_SYSTEM,   /* a system call failed (fork, pipe, pthread, ...) */
    GW_E_INTERNAL, /* a bug: an invariant did not hold */
} gw_rc;

enum { GW_ERROR_MSG_MAX = 512 };

/* On every function that returns a gw_rc (but gw_error_set, whose result is a convenience): the
 * compiler then refuses a call that drops the error. Where dropping it is right, test the result
 * and say why in the empty branch (gcc does not accept a (void) cast). */
#define GW_MUST_USE __attribute__((warn_unused_result))

typedef struct gw_error {
    gw_rc rc;
    char msg[GW_ERROR_MSG_MAX];
} gw_error;

/* Sets err->rc and formats err->msg (truncated to GW_ERROR_MSG_MAX - 1 bytes). err may be NULL.
 * The message is one line for a terminal: control bytes (C0, DEL, UTF-8 C1) that it quotes from
 * input (a file name, an INI value, a CSV cell) are written as '?', so an escape sequence in a
 * hostile file cannot drive the terminal that shows the error.
 * Returns rc so that callers can write `return gw_error_set(err, GW_E_IO, "...")`. */
gw_rc gw_error_set(gw_error *err, gw_rc rc, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Static, lower-case name of an error code ("usage error", "I/O error", ...). Never NULL. */
const char *gw_rc_str(gw_rc rc);

/* Resets err to GW_OK with an empty message. err may be NULL. */
void gw_error_clear(gw_error *err);

#endif
