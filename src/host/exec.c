/* A command's path and a child's environment; see exec.h. */
#include "host/exec.h"

#include "util/xalloc.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

extern char **environ;

static bool executable_file(const char *path, int *why)
{
    struct stat st;
    if (stat(path, &st) != 0) {
        *why = errno;
        return false;
    }
    if (S_ISDIR(st.st_mode)) {
        *why = EISDIR;
        return false;
    }
    if (access(path, X_OK) != 0) {
        *why = errno;
        return false;
    }
    return true;
}

gw_rc gw_child_resolve(const char *cmd, char **out, gw_error *err)
{
    *out = NULL;
    int why = ENOENT;
    if (!*cmd)
        return gw_error_set(err, GW_E_NOTFOUND, "command not found: the command name is empty");
    if (strchr(cmd, '/')) {
        if (executable_file(cmd, &why)) {
            *out = xstrdup(cmd);
            return GW_OK;
        }
    } else {
        const char *path = getenv("PATH");
        if (!path || !*path)
            path = "/usr/local/bin:/usr/bin:/bin";
        int first_denied = 0;
        for (const char *p = path; p;) {
            const char *colon = strchr(p, ':');
            size_t n = colon ? (size_t)(colon - p) : strlen(p);
            char *cand = n ? xasprintf("%.*s/%s", (int)n, p, cmd) : xasprintf("./%s", cmd);
            int w = 0;
            if (executable_file(cand, &w)) {
                *out = cand;
                return GW_OK;
            }
            if (w == EACCES && !first_denied)
                first_denied = EACCES;
            free(cand);
            p = colon ? colon + 1 : NULL;
        }
        why = first_denied ? first_denied : ENOENT;
    }
    if (why == ENOENT || why == ENOTDIR)
        return gw_error_set(err, GW_E_NOTFOUND,
                            "command not found: %s (check the name, or give its path)", cmd);
    return gw_error_set(err, GW_E_USAGE, "cannot execute %s: %s", cmd, strerror(why));
}

char **gw_child_env(const char *const *extra)
{
    size_t n = 0, k = 0;
    while (environ && environ[n])
        n++;
    while (extra && extra[k])
        k++;
    char **env = xcalloc(n + k + 1, sizeof *env);
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        bool replaced = false;
        for (size_t j = 0; j < k; j++) {
            size_t eq = strcspn(extra[j], "=");
            if (strncmp(environ[i], extra[j], eq + 1) == 0)
                replaced = true;
        }
        if (!replaced)
            env[m++] = xstrdup(environ[i]);
    }
    for (size_t j = 0; j < k; j++)
        env[m++] = xstrdup(extra[j]);
    env[m] = NULL;
    return env;
}

void gw_child_free_env(char **env)
{
    for (char **e = env; e && *e; e++)
        free(*e);
    free(env);
}
