/* What a new user gives the report instead of a GPU log, named with the fix (see not_a_log.h). */
#include "logread/not_a_log.h"

#include "logread/sniff.h"

#include "util/xalloc.h"

#include <dirent.h>
#include <stdbool.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static bool exists_in(const char *dir, const char *name)
{
    char *path = xasprintf("%s/%s", dir, name);
    struct stat st;
    bool found = stat(path, &st) == 0;
    free(path);
    return found;
}

/* Appends name to a ", "-separated list of at most 3 names ("..." after). */
static void list_add(char *list, size_t cap, size_t *n, const char *name)
{
    size_t len = strlen(list);
    if (*n < 3)
        snprintf(list + len, cap - len, "%s%.60s", len ? ", " : "", name);
    else if (*n == 3)
        snprintf(list + len, cap - len, ", ...");
    (*n)++;
}

gw_rc gw_logread_not_a_run_dir(const char *dir, gw_error *err)
{
    DIR *d = opendir(dir);
    if (!d)
        return gw_error_set(err, GW_E_IO, "%s: %s", dir, strerror(errno));
    char runs[256] = "", files[256] = "", first_run[300] = "", first_log[300] = "";
    size_t nruns = 0, nfiles = 0;
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        if (e->d_name[0] == '.')
            continue;
        char *sub = xasprintf("%s/%s", dir, e->d_name);
        struct stat st;
        bool ok = stat(sub, &st) == 0, run = ok && S_ISDIR(st.st_mode) && exists_in(sub, "gpu.csv");
        free(sub);
        if (!ok)
            continue;
        if (run) {
            if (!*first_run || strcmp(e->d_name, first_run) > 0) /* the newest by name */
                snprintf(first_run, sizeof first_run, "%.250s", e->d_name);
            list_add(runs, sizeof runs, &nruns, e->d_name);
        } else if (S_ISREG(st.st_mode)) {
            const char *dot = strrchr(e->d_name, '.');
            bool log = dot && (strcmp(dot, ".csv") == 0 || strcmp(dot, ".log") == 0 ||
                               strcmp(dot, ".txt") == 0);
            bool csv = dot && strcmp(dot, ".csv") == 0;
            if (log && (!*first_log || (csv && !strstr(first_log, ".csv"))))
                snprintf(first_log, sizeof first_log, "%.250s", e->d_name);
            list_add(files, sizeof files, &nfiles, e->d_name);
        }
    }
    closedir(d);
    if (nruns)
        return gw_error_set(err, GW_E_FORMAT,
                            "%s: a directory of %zu gpuwatch runs (%s), not one run: give one, "
                            "e.g. `gpuwatch report %s/%s`, or all with `gpuwatch report --fleet "
                            "%s`",
                            dir, nruns, runs, dir, first_run, dir);
    if (nfiles)
        return gw_error_set(err, GW_E_FORMAT,
                            "%s: not a gpuwatch run directory (no gpu.csv) but %zu files (%s): "
                            "give the GPU log file itself%s%s%s%s%s",
                            dir, nfiles, files, *first_log ? ", e.g. `gpuwatch report " : "",
                            *first_log ? dir : "", *first_log ? "/" : "", first_log,
                            *first_log ? "`" : "");
    return gw_error_set(err, GW_E_FORMAT,
                        "%s: an empty directory, not a gpuwatch run directory (no gpu.csv): %s",
                        dir, GW_LOGREAD_HOW_TO_RECORD);
}

gw_rc gw_logread_run_part(const char *path, gw_error *err)
{
    static const struct {
        const char *name, *what;
    } parts[] = {
        {"host.csv", "the CPU side"},       {"processes.csv", "the GPU processes"},
        {"output.log", "the job's output"}, {"output.idx", "the index of the job's output"},
        {"events.jsonl", "the events"},     {"meta.json", "the description"},
    };
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    char *dir = base == path ? xstrdup(".") : xasprintf("%.*s", (int)(base - path - 1), path);
    gw_rc rc = GW_OK;
    for (size_t i = 0; i < sizeof parts / sizeof parts[0] && !rc; i++)
        if (strcmp(base, parts[i].name) == 0 && exists_in(dir, "gpu.csv"))
            rc = gw_error_set(err, GW_E_FORMAT,
                              "%s: this is %s of a gpuwatch run, not a GPU log: give the run "
                              "directory, `gpuwatch report %s`",
                              path, parts[i].what, *dir ? dir : "/");
    free(dir);
    return rc;
}
