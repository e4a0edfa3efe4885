#include "record/rundir.h"

#include "util/xalloc.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static const char *base_name(const char *path)
{
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

static bool is_interpreter(const char *name)
{
    static const char *const names[] = {"python",   "python3",    "python2",   "bash", "sh",
                                        "torchrun", "accelerate", "deepspeed", "uv",   "node",
                                        "perl",     "env",        "nohup",     "srun", "mpirun"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strcmp(name, names[i]) == 0)
            return true;
    return strncmp(name, "python3.", 8) == 0;
}

char *gw_rundir_name_hint(int argc, char *const argv[])
{
    const char *pick = argc > 0 ? base_name(argv[0]) : "run";
    if (argc > 0 && is_interpreter(pick)) {
        /* The first argument that is not an option names the script; `-m MODULE` names the
         * module; `-c CODE` has no name, so the interpreter's is kept. */
        for (int i = 1; i < argc; i++) {
            if (strcmp(argv[i], "-c") == 0)
                break;
            if (strcmp(argv[i], "-m") == 0) {
                if (i + 1 < argc)
                    pick = argv[i + 1];
                break;
            }
            if (argv[i][0] == '-')
                continue;
            pick = base_name(argv[i]);
            break;
        }
    }
    char *out = xstrdup(*pick ? pick : "run");
    char *dot = strrchr(out, '.');
    if (dot && dot != out && (strcmp(dot, ".py") == 0 || strcmp(dot, ".sh") == 0))
        *dot = '\0';
    for (char *c = out; *c; c++)
        if (!isalnum((unsigned char)*c) && *c != '.' && *c != '_' && *c != '-')
            *c = '_';
    if (strlen(out) > 48)
        out[48] = '\0';
    return out;
}

/* mkdir -p for the parents of path. */
static int make_parents(const char *path)
{
    char *p = xstrdup(path);
    for (char *s = p + 1; *s; s++) {
        if (*s != '/')
            continue;
        *s = '\0';
        if (mkdir(p, 0755) != 0 && errno != EEXIST) {
            int e = errno;
            free(p);
            return e;
        }
        *s = '/';
    }
    free(p);
    return 0;
}

/* The directory a run directory is created in must not let another user swap the run directory
 * for one of theirs: it is refused when it belongs to another user (root excepted), sticky or not
 * (the owner of a sticky directory may still rename every entry), or when it is writable by
 * everyone and not sticky (as /tmp is: only the owner of an entry, or of /tmp, may rename it). */
static gw_rc check_parent(int pfd, const char *parent, gw_error *err)
{
    struct stat st;
    if (fstat(pfd, &st) != 0)
        return gw_error_set(err, GW_E_IO, "cannot inspect %s: %s: choose another -o DIR", parent,
                            strerror(errno));
    /* Sticky keeps other users from renaming our entries, but not the directory's owner. */
    uid_t me = geteuid();
    if (st.st_uid != me && st.st_uid != 0) {
        struct passwd pw, *res = NULL;
        char buf[1024];
        getpwuid_r(st.st_uid, &pw, buf, sizeof buf, &res);
        return gw_error_set(err, GW_E_IO,
                            "refusing to record in %s: it belongs to %s (uid %u), who could swap "
                            "the run directory (sticky or not); choose a directory you own, or "
                            "/tmp, for -o DIR",
                            parent, res ? res->pw_name : "another user", (unsigned)st.st_uid);
    }
    if ((st.st_mode & S_IWOTH) && !(st.st_mode & S_ISVTX))
        return gw_error_set(err, GW_E_IO,
                            "refusing to record in %s: every user may write there and it is not "
                            "sticky (chmod +t %s), so another user could swap the run directory; "
                            "choose a directory you own for -o DIR",
                            parent, parent);
    return GW_OK;
}

/* Opens the directory parent (following links: the user chose it) and checks it. */
static int open_parent(const char *parent, gw_error *err)
{
    int pfd = open(parent, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (pfd < 0) {
        gw_error_set(err, GW_E_IO, "cannot open %s: %s: choose another -o DIR", parent,
                     strerror(errno));
        return -1;
    }
    if (check_parent(pfd, parent, err)) {
        close(pfd);
        return -1;
    }
    return pfd;
}

/* Opens the directory base that was just created in pfd, never through a link, and checks that
 * it is still the one made (ours, empty of anything but what we put there). */
static gw_rc open_made(int pfd, const char *base, const char *path, char **out_path, int *out_fd,
                       gw_error *err)
{
    int fd = openat(pfd, base, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return gw_error_set(err, GW_E_IO, "cannot open %s: %s: choose another -o DIR", path,
                            strerror(errno));
    struct stat st;
    if (fstat(fd, &st) != 0 || st.st_uid != geteuid()) {
        close(fd);
        return gw_error_set(err, GW_E_IO,
                            "%s was replaced by another user's directory while it was created: "
                            "choose a directory you own for -o DIR",
                            path);
    }
    if (faccessat(fd, ".", W_OK, 0) != 0) {
        int e = errno;
        close(fd);
        unlinkat(pfd, base, AT_REMOVEDIR);
        return gw_error_set(err, GW_E_IO, "cannot write into %s: %s: choose another -o DIR", path,
                            strerror(e));
    }
    *out_path = xstrdup(path);
    *out_fd = fd;
    return GW_OK;
}

gw_rc gw_rundir_create(const char *requested, const char *name, int64_t now_ms, char **out_path,
                       int *out_fd, gw_error *err)
{
    *out_path = NULL;
    *out_fd = -1;
    if (requested) {
        if (!*requested)
            return gw_error_set(err, GW_E_USAGE, "-o needs a directory name");
        char *path = xstrdup(requested);
        size_t len = strlen(path);
        while (len > 1 && path[len - 1] == '/')
            path[--len] = '\0';
        int e = make_parents(path);
        if (e) {
            free(path);
            return gw_error_set(err, GW_E_IO,
                                "cannot create the parents of %s: %s: choose "
                                "another -o DIR",
                                requested, strerror(e));
        }
        char *slash = strrchr(path, '/');
        char *parent = !slash          ? xstrdup(".")
                       : slash == path ? xstrdup("/")
                                       : xstrndup(path, (size_t)(slash - path));
        const char *base = slash ? slash + 1 : path;
        gw_rc rc = GW_OK;
        int pfd = open_parent(parent, err);
        if (pfd < 0) {
            rc = GW_E_IO;
        } else if (mkdirat(pfd, base, 0755) != 0) {
            if (errno == EEXIST)
                rc = gw_error_set(err, GW_E_EXISTS,
                                  "%s already exists: gpuwatch never overwrites a recording; "
                                  "choose another -o DIR or remove it",
                                  requested);
            else
                rc = gw_error_set(err, GW_E_IO, "cannot create %s: %s: choose another -o DIR",
                                  requested, strerror(errno));
        } else {
            rc = open_made(pfd, base, requested, out_path, out_fd, err);
        }
        if (pfd >= 0)
            close(pfd);
        free(parent);
        free(path);
        return rc;
    }
    time_t secs = (time_t)(now_ms / 1000);
    struct tm tm;
    gmtime_r(&secs, &tm);
    char stamp[32];
    strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", &tm);
    if (mkdir("runs", 0755) != 0 && errno != EEXIST)
        return gw_error_set(err, GW_E_IO, "cannot create runs/ here: %s: pass -o DIR",
                            strerror(errno));
    int pfd = open_parent("runs", err);
    if (pfd < 0)
        return GW_E_IO;
    gw_rc rc = GW_E_EXISTS;
    for (int n = 1; n < 1000; n++) {
        char *base =
            n == 1 ? xasprintf("%s-%s", stamp, name) : xasprintf("%s-%s-%d", stamp, name, n);
        char *path = xasprintf("runs/%s", base);
        if (mkdirat(pfd, base, 0755) == 0)
            rc = open_made(pfd, base, path, out_path, out_fd, err);
        else if (errno != EEXIST)
            rc = gw_error_set(err, GW_E_IO, "cannot create %s: %s: pass -o DIR", path,
                              strerror(errno));
        free(base);
        free(path);
        if (rc != GW_E_EXISTS)
            break;
    }
    close(pfd);
    if (rc == GW_E_EXISTS)
        gw_error_set(err, GW_E_EXISTS, "too many recordings named runs/%s-%s: pass -o DIR", stamp,
                     name);
    return rc;
}

bool gw_rundir_remove_new(int dirfd, const char *path)
{
    static const char *const names[] = {"gpu.csv",      "host.csv",   "processes.csv",
                                        "events.jsonl", "output.log", "meta.json"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        unlinkat(dirfd, names[i], 0);
    return rmdir(path) == 0; /* only when nothing else is there */
}
