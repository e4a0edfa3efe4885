#include "util/gw_file.h"

#include "util/xalloc.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

FILE *gw_file_open_regular(const char *path, const char *mode)
{
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        return NULL;
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        errno = GW_FILE_NOT_REGULAR;
        return NULL;
    }
    (void)fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
    FILE *f = fdopen(fd, mode);
    if (!f) {
        int e = errno;
        close(fd);
        errno = e;
    }
    return f;
}

FILE *gw_file_open_run_file(const char *path, const char *mode, gw_error *err)
{
    FILE *f = gw_file_open_regular(path, mode);
    if (!f && errno == GW_FILE_NOT_REGULAR)
        gw_error_set(err, GW_E_IO,
                     "%s is not a regular file (a FIFO, device or directory): remove it (gpuwatch "
                     "writes only regular files in a run directory)",
                     path);
    else if (!f)
        gw_error_set(err, GW_E_IO, "%s: %s", path, strerror(errno));
    return f;
}

char *gw_file_read_all(FILE *f, size_t limit)
{
    char *buf = xmalloc(limit + 1);
    size_t n = fread(buf, 1, limit, f);
    buf[n] = '\0';
    fclose(f);
    return buf;
}

FILE *gw_file_open_stream(const char *path)
{
    struct stat lst;
    bool link = lstat(path, &lst) == 0 && S_ISLNK(lst.st_mode);
    if (link && lst.st_uid != geteuid() && lst.st_uid != 0) {
        errno = ELOOP;
        return NULL;
    }
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | (link ? 0 : O_NOFOLLOW),
                  GW_FILE_MODE);
    if (fd < 0)
        return NULL;
    FILE *f = fdopen(fd, "w");
    if (!f) {
        int e = errno;
        close(fd);
        errno = e;
    }
    return f;
}

int gw_file_create_at(int dirfd, const char *name, int extra_flags)
{
    return openat(dirfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC | extra_flags,
                  GW_FILE_MODE);
}

/* Makes ".NAME.XXXXXX" beside name: a fresh name each try, so a leftover or a planted file (or
 * link) of that name is skipped, never opened. With anon < 0 creates the file and returns its
 * descriptor; else gives the anonymous (O_TMPFILE) file anon that name and returns 0. */
static int create_tmp(int dirfd, const char *name, int anon, char **tmp)
{
    static atomic_uint counter;
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    uint64_t x = (uint64_t)ts.tv_nsec ^ ((uint64_t)getpid() << 32);
    for (int tries = 0; tries < 100; tries++) {
        x = x * 6364136223846793005u + 1442695040888963407u + atomic_fetch_add(&counter, 1);
        char suffix[7];
        for (int i = 0; i < 6; i++)
            suffix[i] = "abcdefghijklmnopqrstuvwxyz0123456789"[(x >> (10 + 5 * i)) % 36];
        suffix[6] = '\0';
        *tmp = xasprintf(".%s.%s", name, suffix);
        int fd;
        if (anon < 0) {
            fd = gw_file_create_at(dirfd, *tmp, O_TRUNC);
        } else {
            char proc[64];
            snprintf(proc, sizeof proc, "/proc/self/fd/%d", anon);
            fd = linkat(AT_FDCWD, proc, dirfd, *tmp, AT_SYMLINK_FOLLOW);
        }
        if (fd >= 0 || errno != EEXIST)
            return fd;
        free(*tmp);
        *tmp = NULL;
    }
    errno = EEXIST;
    return -1;
}

/* True for create_tmp's names of name: ".NAME." and six of [a-z0-9]. */
static bool is_tmp_of(const char *entry, const char *name)
{
    size_t n = strlen(name);
    if (entry[0] != '.' || strncmp(entry + 1, name, n) != 0 || entry[n + 1] != '.')
        return false;
    const char *s = entry + n + 2;
    if (strlen(s) != 6)
        return false;
    for (; *s; s++)
        if (!((*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9')))
            return false;
    return true;
}

/* A writer killed (SIGKILL, the OOM killer) in the moment between naming its finished file and
 * renaming it over the old one leaves a whole copy as ".NAME.xxxxxx" (Linux cannot link a file
 * over an existing name). The next write of NAME removes those: regular files of ours, last
 * changed before this write began. Symbolic links and other names are left alone. */
static void sweep_stale(const gw_file_out *o)
{
    int fd = openat(o->dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
    if (!d) {
        if (fd >= 0)
            close(fd);
        return;
    }
    struct dirent *ent;
    while ((ent = readdir(d)) != NULL) {
        struct stat st;
        if (!is_tmp_of(ent->d_name, o->name) ||
            fstatat(o->dirfd, ent->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(st.st_mode) ||
            st.st_uid != geteuid())
            continue;
        if (st.st_mtim.tv_sec < o->opened.tv_sec ||
            (st.st_mtim.tv_sec == o->opened.tv_sec && st.st_mtim.tv_nsec < o->opened.tv_nsec))
            unlinkat(o->dirfd, ent->d_name, 0);
    }
    closedir(d);
}

/* The stream's writes, keeping the first error's errno (stdio forgets it). */
static ssize_t cookie_write(void *cookie, const char *buf, size_t size)
{
    gw_file_out *o = cookie;
    size_t done = 0;
    while (done < size) {
        ssize_t n = write(o->fd, buf + done, size - done);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            if (!o->err_no)
                o->err_no = n < 0 ? errno : EIO;
            return done ? (ssize_t)done : -1;
        }
        done += (size_t)n;
    }
    return (ssize_t)done;
}

static void release(gw_file_out *o)
{
    if (o->own_dirfd && o->dirfd >= 0)
        close(o->dirfd);
    free(o->name);
    free(o->tmp);
    free(o->label);
    memset(o, 0, sizeof *o);
    o->dirfd = -1;
}

gw_rc gw_file_out_open_at(gw_file_out *o, int dirfd, const char *name, const char *label,
                          gw_error *err)
{
    memset(o, 0, sizeof *o);
    clock_gettime(CLOCK_REALTIME, &o->opened);
    o->dirfd = dirfd;
    o->name = xstrdup(name);
    o->label = xstrdup(label ? label : name);
    /* An unnamed file (O_TMPFILE) gets its name only once written and synced: a gpuwatch killed
     * while writing leaves nothing behind. Where the file system lacks it, a named one. */
    o->fd = openat(dirfd, ".", O_TMPFILE | O_WRONLY | O_CLOEXEC, GW_FILE_MODE);
    if (o->fd < 0)
        o->fd = create_tmp(dirfd, name, -1, &o->tmp);
    if (o->fd >= 0 && !(o->f = fopencookie(o, "w", (cookie_io_functions_t){.write = cookie_write})))
        close(o->fd);
    if (!o->f) {
        int e = errno;
        if (o->tmp)
            unlinkat(dirfd, o->tmp, 0);
        gw_error_set(err, GW_E_IO, "cannot create %s: %s; choose a writable place for it", o->label,
                     strerror(e));
        release(o);
        errno = e;
        return GW_E_IO;
    }
    return GW_OK;
}

gw_rc gw_file_out_open_path(gw_file_out *o, const char *path, gw_error *err)
{
    memset(o, 0, sizeof *o);
    o->dirfd = -1;
    if (strcmp(path, "-") == 0) {
        o->f = stdout;
        o->direct = true;
        o->label = xstrdup("stdout");
        return GW_OK;
    }
    const char *slash = strrchr(path, '/');
    const char *name = slash ? slash + 1 : path;
    if (!*name)
        return gw_error_set(err, GW_E_IO, "%s names a directory: give a file name", path);
    int dirfd = AT_FDCWD;
    if (slash) {
        char *dir = slash == path ? xstrdup("/") : xstrndup(path, (size_t)(slash - path));
        dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        int e = errno;
        free(dir);
        if (dirfd < 0)
            return gw_error_set(err, GW_E_IO,
                                "cannot write %s: its directory: %s; choose another path", path,
                                strerror(e));
    }
    /* A link of yours or root's (/dev/stdout, one you made) is followed; another user's is
     * replaced, never written through. */
    struct stat lst, st;
    bool link = fstatat(dirfd, name, &lst, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(lst.st_mode);
    bool trusted = !link || lst.st_uid == geteuid() || lst.st_uid == 0;
    bool exists = trusted && fstatat(dirfd, name, &st, 0) == 0;
    /* /dev/stdout, /dev/fd/N: the descriptor the caller opened, whatever it refers to */
    bool special = strncmp(path, "/dev/", 5) == 0 || strncmp(path, "/proc/", 6) == 0;
    if (exists && link && S_ISREG(st.st_mode) && !special) {
        char *real = realpath(path, NULL);
        if (real && strcmp(real, path) != 0) {
            if (dirfd != AT_FDCWD)
                close(dirfd);
            gw_rc rc = gw_file_out_open_path(o, real, err);
            if (!rc) {
                free(o->label);
                o->label = xstrdup(path);
            }
            free(real);
            return rc;
        }
        free(real);
    }
    /* a tty, a pipe, /dev/null; not another user's FIFO (it would block, and see the report) */
    if (exists && !S_ISDIR(st.st_mode) &&
        (special || (!S_ISREG(st.st_mode) &&
                     (S_ISCHR(st.st_mode) || st.st_uid == geteuid() || st.st_uid == 0)))) {
        if (dirfd != AT_FDCWD)
            close(dirfd);
        /* what was checked: no link swapped in since, unless it was a trusted link already */
        int fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC | (link ? 0 : O_NOFOLLOW));
        if (fd < 0 || !(o->f = fdopen(fd, "w"))) {
            int e = errno;
            if (fd >= 0)
                close(fd);
            return gw_error_set(err, GW_E_IO, "cannot write %s: %s; choose another path", path,
                                strerror(e));
        }
        o->direct = true;
        o->label = xstrdup(path);
        return GW_OK;
    }
    gw_rc rc = gw_file_out_open_at(o, dirfd, name, path, err);
    if (rc) {
        if (dirfd != AT_FDCWD)
            close(dirfd);
        return rc;
    }
    o->own_dirfd = dirfd != AT_FDCWD;
    return GW_OK;
}

gw_rc gw_file_out_commit(gw_file_out *o, gw_error *err)
{
    int e = 0;
    errno = 0;
    if (fflush(o->f) != 0 || ferror(o->f))
        e = errno ? errno : EIO;
    if (o->direct) {
        if (o->f != stdout && fclose(o->f) != 0 && !e)
            e = errno;
        o->f = NULL;
        if (e)
            gw_error_set(err, GW_E_IO, "cannot write %s: %s", o->label, strerror(e));
        release(o);
        errno = e;
        return e ? GW_E_IO : GW_OK;
    }
    if (fclose(o->f) != 0 && !e)
        e = errno ? errno : EIO;
    o->f = NULL;
    if (o->err_no)
        e = o->err_no;
    if (!e && fsync(o->fd) != 0)
        e = errno;
    bool named = false;
    if (!e && !o->tmp) { /* the unnamed file: its final name at once when that is free */
        char proc[64];
        snprintf(proc, sizeof proc, "/proc/self/fd/%d", o->fd);
        named = linkat(AT_FDCWD, proc, o->dirfd, o->name, AT_SYMLINK_FOLLOW) == 0;
    }
    if (!e && !named && !o->tmp && create_tmp(o->dirfd, o->name, o->fd, &o->tmp) != 0)
        e = errno; /* else a name for the moment before the rename */
    close(o->fd);
    if (!e && !named && renameat(o->dirfd, o->tmp, o->dirfd, o->name) != 0)
        e = errno;
    if (!e)
        sweep_stale(o);
    if (e) {
        if (o->tmp)
            unlinkat(o->dirfd, o->tmp, 0);
        gw_error_set(err, GW_E_IO,
                     "cannot write %s: %s; the partial file was removed: free some space or "
                     "choose another place",
                     o->label, strerror(e));
    }
    release(o);
    errno = e;
    return e ? GW_E_IO : GW_OK;
}

void gw_file_out_abort(gw_file_out *o)
{
    if (o->f && o->f != stdout)
        fclose(o->f);
    if (o->f && !o->direct)
        close(o->fd);
    o->f = NULL;
    if (!o->direct && o->tmp)
        unlinkat(o->dirfd, o->tmp, 0);
    release(o);
}

char *gw_path_tidy(char *path)
{
    if (!path)
        return path;
    char *w = path;
    for (const char *r = path; *r; r++)
        if (!(*r == '/' && w > path && w[-1] == '/'))
            *w++ = *r;
    if (w - path > 1 && w[-1] == '/')
        w--;
    *w = '\0';
    return path;
}

void gw_exe_dir(char *dir, size_t len)
{
    char path[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", path, sizeof path - 1);
    dir[0] = '\0';
    if (n <= 0)
        return;
    path[n] = '\0';
    char *slash = strrchr(path, '/');
    if (slash)
        *slash = '\0';
    snprintf(dir, len, "%s", path);
}
