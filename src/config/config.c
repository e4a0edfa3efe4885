/* Reading gpuwatch.ini with inih, and the order of sources; see config.h. */
#include "config/config.h"

#include "util/xalloc.h"

#include <errno.h>
#include <ini.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void gw_config_init(gw_config *c)
{
    gw_alerts_config_defaults(&c->alerts);
    gw_health_thresholds_defaults(&c->check);
}

void gw_config_free(gw_config *c)
{
    gw_alerts_config_clear(&c->alerts);
}

/* State of one file's parse: inih does not pass line numbers to the handler in Debian's build, so
 * the reader counts the lines it hands out; the handler runs on the line read last. */
typedef struct ini_ctx {
    gw_config *cfg;
    const char *path;
    FILE *f;
    int line;     /* lines read so far */
    int err_line; /* first error: its line (0: none) and message */
    gw_error err;
} ini_ctx;

static void note_error(ini_ctx *x, int line, const gw_error *e)
{
    if (x->err_line == 0 || line < x->err_line) {
        x->err_line = line;
        x->err = *e;
    }
}

/* An fgets for inih that counts lines and refuses (rather than splits) lines longer than num. */
static char *counting_reader(char *str, int num, void *stream)
{
    ini_ctx *x = stream;
    if (!fgets(str, num, x->f))
        return NULL;
    x->line++;
    size_t n = strlen(str);
    if (n > 0 && str[n - 1] != '\n' && !feof(x->f)) {
        int ch;
        while ((ch = fgetc(x->f)) != EOF && ch != '\n') {
        }
        gw_error e;
        gw_error_set(&e, GW_E_FORMAT, "%s:%d: line longer than %d characters", x->path, x->line,
                     num - 3);
        note_error(x, x->line, &e);
    }
    return str;
}

static int on_ini_key(void *user, const char *section, const char *name, const char *value)
{
    ini_ctx *x = user;
    char where[GW_ALERT_WHERE_MAX];
    snprintf(where, sizeof where, "%s:%d", x->path, x->line);
    gw_error e;
    if (gw_config_apply(x->cfg, section, name, value, where, &e)) {
        note_error(x, x->line, &e);
        return 0;
    }
    return 1;
}

gw_rc gw_config_load_file(gw_config *c, const char *path, bool must_exist, gw_error *err)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        if (errno == ENOENT && !must_exist)
            return GW_OK;
        return gw_error_set(err, GW_E_IO, "cannot read the configuration file %s: %s", path,
                            strerror(errno));
    }
    ini_ctx x = {.cfg = c, .path = path, .f = f};
    int r = ini_parse_stream(counting_reader, &x, on_ini_key, &x);
    fclose(f);
    if (r > 0 && (x.err_line == 0 || r < x.err_line)) {
        gw_error e;
        gw_error_set(&e, GW_E_FORMAT,
                     "%s:%d: not a [section], KEY = VALUE or ; comment line (indented lines "
                     "continue the previous value)",
                     path, r);
        note_error(&x, r, &e);
    } else if (r < 0) {
        return gw_error_set(err, GW_E_IO, "cannot read the configuration file %s", path);
    }
    if (x.err_line) {
        if (err)
            *err = x.err;
        return GW_E_FORMAT;
    }
    return GW_OK;
}

char *gw_config_system_path(void)
{
    const char *p = getenv("GPUWATCH_SYSTEM_CONFIG");
    return xstrdup(p && *p ? p : "/etc/gpuwatch/gpuwatch.ini");
}

char *gw_config_user_path(void)
{
    const char *xdg = getenv("XDG_CONFIG_HOME");
    if (xdg && xdg[0] == '/') /* the XDG spec ignores relative values */
        return xasprintf("%s/gpuwatch/gpuwatch.ini", xdg);
    const char *home = getenv("HOME");
    if (home && *home)
        return xasprintf("%s/.config/gpuwatch/gpuwatch.ini", home);
    return NULL;
}

gw_rc gw_config_load_standard(gw_config *c, gw_error *err)
{
    char *sys = gw_config_system_path();
    gw_rc rc = gw_config_load_file(c, sys, false, err);
    free(sys);
    if (rc)
        return rc;
    char *user = gw_config_user_path();
    if (user)
        rc = gw_config_load_file(c, user, false, err);
    free(user);
    return rc;
}

gw_rc gw_config_set(gw_config *c, const char *assignment, gw_error *err)
{
    const char *dot = strchr(assignment, '.');
    const char *eq = strchr(assignment, '=');
    if (!dot || !eq || dot > eq || dot == assignment || eq == dot + 1)
        return gw_error_set(err, GW_E_USAGE,
                            "--set %s: give SECTION.KEY=VALUE (e.g. --set "
                            "memory_warning.threshold=50)",
                            assignment);
    char *section = xstrndup(assignment, (size_t)(dot - assignment));
    char *key = xstrndup(dot + 1, (size_t)(eq - dot - 1));
    char *where = xasprintf("--set %s", assignment);
    gw_rc rc = gw_config_apply(c, section, key, eq + 1, where, err);
    free(section);
    free(key);
    free(where);
    return rc;
}
