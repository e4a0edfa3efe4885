/*
 * gw_file: creating output files without following links and without leaving partial files.
 *
 * Owns: the one way gpuwatch creates a file it writes — relative to a directory descriptor, with
 * O_EXCL|O_NOFOLLOW (a name that already exists, a symbolic link included, is an error, never
 * followed or truncated) and mode 0644 less the umask (GW_FILE_MODE). Files that must appear whole
 * (meta.json, summary.json, report.html) are written to a new temporary file beside the target
 * (unnamed, O_TMPFILE, where the file system allows: a SIGKILL while writing leaves nothing) and
 * renamed over it only once every byte was written and synced: a failed write removes the
 * temporary file and leaves the target as it was. Must not: decide what goes into a file.
 */
#ifndef GW_FILE_H
#define GW_FILE_H

#include "util/gw_error.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <time.h>

/* The mode of every file gpuwatch creates (the umask still applies). */
#define GW_FILE_MODE 0644

/* Creates name in dirfd (AT_FDCWD: relative to the current directory) with
 * O_WRONLY|O_CREAT|O_EXCL|O_NOFOLLOW|O_CLOEXEC and extra_flags (O_APPEND...), mode GW_FILE_MODE.
 * Returns the descriptor, or -1 with errno set (EEXIST when the name exists, link or not). */
int gw_file_create_at(int dirfd, const char *name, int extra_flags);

/* An output being written: a temporary file, renamed into place by gw_file_out_commit. The
 * stream refers to the struct: do not copy or move it while open. */
typedef struct gw_file_out {
    FILE *f;   /* write here */
    int dirfd; /* the directory of the target */
    bool own_dirfd;
    bool direct; /* stdout, a character device or a FIFO: written in place, nothing renamed */
    char *name;  /* the target's name in dirfd */
    char *tmp;   /* the temporary file's name in dirfd (NULL while it is an unnamed O_TMPFILE) */
    char *label; /* the target as the user knows it, for messages */
    int fd;      /* the temporary file */
    int err_no;  /* the first failed write's errno, 0 if none */
    struct timespec opened; /* CLOCK_REALTIME at open: older ".NAME.xxxxxx" are a killed writer's */
} gw_file_out;

/* Starts writing name in dirfd; label names the target in messages. Errors: GW_E_IO. */
GW_MUST_USE gw_rc gw_file_out_open_at(gw_file_out *o, int dirfd, const char *name,
                                      const char *label, gw_error *err);

/* Starts writing a path the user gave: "-" is stdout; an existing file that is not a regular file
 * or directory (/dev/null, a terminal, a pipe) is written in place; anything else through a
 * temporary file in its directory. A symbolic link at path that belongs to you or root
 * (one you made) is followed to where it points; another user's link is replaced, never written
 * through. An existing path under /dev or /proc (/dev/stdout, /dev/fd/N) is written in place.
 * Errors: GW_E_IO. */
GW_MUST_USE gw_rc gw_file_out_open_path(gw_file_out *o, const char *path, gw_error *err);

/* Finishes: flushes, syncs, closes and renames the temporary file over the target. On any
 * failure the temporary file is removed, the target is left as it was, and err says so (GW_E_IO).
 * o is released either way; errno holds the cause of a failure (also after the open functions). */
GW_MUST_USE gw_rc gw_file_out_commit(gw_file_out *o, gw_error *err);

/* Opens a file of a run directory for reading ("r" or "rb"), following links, only when it is a
 * regular file: a FIFO planted there would block the reader forever and a device (/dev/zero,
 * /dev/urandom) never ends. NULL with errno set when it cannot be opened; errno
 * GW_FILE_NOT_REGULAR when it is not a regular file. */
#define GW_FILE_NOT_REGULAR EINVAL
FILE *gw_file_open_regular(const char *path, const char *mode);

/* gw_file_open_regular with the failure said in err (GW_E_IO): "PATH: REASON", or for a file that
 * is not regular (a FIFO, a device, a link to /dev/zero, a directory) one line naming it and the
 * fix. NULL on failure. */
FILE *gw_file_open_run_file(const char *path, const char *mode, gw_error *err);

/* Reads at most limit bytes of f into a new NUL-terminated buffer (free it) and closes f. */
char *gw_file_read_all(FILE *f, size_t limit);

/* Opens path for output written as it goes (`query -f FILE`, a log that grows), truncating it,
 * with the link policy of gw_file_out_open_path: a symbolic link at path that belongs to you or
 * root is followed, another user's is refused (errno ELOOP) rather than written through; a link
 * swapped in after the check is not followed either. Mode GW_FILE_MODE less the umask. NULL with
 * errno on failure. */
FILE *gw_file_open_stream(const char *path);

/* Gives up: closes and removes the temporary file. NULL members are accepted. */
void gw_file_out_abort(gw_file_out *o);

/* Tidies a path the user typed, in place, so that messages and joined paths read well: runs of
 * '/' become one ("runs//x" -> "runs/x") and a trailing '/' goes ("runs/x/" -> "runs/x"); "/"
 * stays "/". Names the same file as before. Returns path. */
char *gw_path_tidy(char *path);

/* The directory of the running executable (from /proc/self/exe) into dir (len bytes), or "" when
 * it cannot be read. For files installed beside the binary (modules, python/). */
void gw_exe_dir(char *dir, size_t len);

#endif
