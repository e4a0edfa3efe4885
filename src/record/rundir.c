#include "record/rundir.h"

#include "util/xalloc.h"

#include <ctype.h>
#include <errno.h>
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

static gw_rc made(const char *path, char **out_path, gw_error *err)
{
    if (access(path, W_OK) != 0)
        return gw_error_set(err, GW_E_IO, "cannot write into %s: %s: choose another -o DIR", path,
                            strerror(errno));
    *out_path = xstrdup(path);
    return GW_OK;
}

gw_rc gw_rundir_create(const char *requested, const char *name, int64_t now_ms, char **out_path,
                       gw_error *err)
{
    *out_path = NULL;
    if (requested) {
        if (!*requested)
            return gw_error_set(err, GW_E_USAGE, "-o needs a directory name");
        int e = make_parents(requested);
        if (e)
            return gw_error_set(err, GW_E_IO,
                                "cannot create the parents of %s: %s: choose "
                                "another -o DIR",
                                requested, strerror(e));
        if (mkdir(requested, 0755) != 0) {
            if (errno == EEXIST)
                return gw_error_set(err, GW_E_EXISTS,
                                    "%s already exists: gpuwatch never overwrites a recording; "
                                    "choose another -o DIR or remove it",
                                    requested);
            return gw_error_set(err, GW_E_IO, "cannot create %s: %s: choose another -o DIR",
                                requested, strerror(errno));
        }
        return made(requested, out_path, err);
    }
    time_t secs = (time_t)(now_ms / 1000);
    struct tm tm;
    gmtime_r(&secs, &tm);
    char stamp[32];
    strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", &tm);
    if (mkdir("runs", 0755) != 0 && errno != EEXIST)
        return gw_error_set(err, GW_E_IO, "cannot create runs/ here: %s: pass -o DIR",
                            strerror(errno));
    for (int n = 1; n < 1000; n++) {
        char *path = n == 1 ? xasprintf("runs/%s-%s", stamp, name)
                            : xasprintf("runs/%s-%s-%d", stamp, name, n);
        if (mkdir(path, 0755) == 0) {
            gw_rc rc = made(path, out_path, err);
            free(path);
            return rc;
        }
        int e = errno;
        if (e != EEXIST) {
            gw_error_set(err, GW_E_IO, "cannot create %s: %s: pass -o DIR", path, strerror(e));
            free(path);
            return GW_E_IO;
        }
        free(path);
    }
    return gw_error_set(err, GW_E_EXISTS, "too many recordings named runs/%s-%s: pass -o DIR",
                        stamp, name);
}
