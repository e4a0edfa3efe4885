/* Reading gpuwatch.ini with inih, and the order of sources; see config.h. */
#include "config/config.h"

#include "util/gw_file.h"
#include "util/xalloc.h"

#include <errno.h>
#include <ini.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

void gw_config_init(gw_config *c)
{
    gw_alerts_config_defaults(&c->alerts);
    gw_health_thresholds_defaults(&c->check);
    c->run_python = true;
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
    int line;      /* lines read so far */
    int err_line;  /* first error: its line (0: none) and message */
    bool in_value; /* a KEY = VALUE line came since the last [section] line */
    bool in_hook;  /* the last [section] line was [hook] */
    gw_error err;
} ini_ctx;

static void note_error(ini_ctx *x, int line, const gw_error *e)
{
    if (x->err_line == 0 || line < x->err_line) {
        x->err_line = line;
        x->err = *e;
    }
}

/* Checks a raw line before inih sees it. Debian's inih is built with INI_ALLOW_MULTILINE: an
 * indented line after KEY = VALUE would silently become KEY's new value. gpuwatch's values are one
 * line, so such a line is an error; an indented line before any key of its section is read as
 * usual. And inih drops " ; ..." after a value as a comment: in [hook] command that is more likely
 * a shell command list, which the hook (run without a shell) would never run. */
static void check_line(ini_ctx *x, const char *str)
{
    if (x->line == 1 && strncmp(str, "\xEF\xBB\xBF", 3) == 0)
        str += 3; /* a UTF-8 byte order mark, which inih skips too */
    const char *t = str + strspn(str, " \t");
    bool blank = *t == '\0' || *t == '\n' || *t == '\r';
    if (blank || *t == ';' || *t == '#')
        return;
    gw_error e;
    if (t > str && x->in_value) { /* even "  [section]": inih reads it as a value too */
        gw_error_set(&e, GW_E_FORMAT,
                     "%s:%d: indented line after a KEY = VALUE line (it would replace that "
                     "value; values are one line): remove the indentation",
                     x->path, x->line);
        note_error(x, x->line, &e);
    } else if (*t == '[') {
        x->in_value = false;
        x->in_hook = strncmp(t, "[hook]", 6) == 0;
        return;
    } else if (x->in_hook && strncmp(t, "command", 7) == 0 && t[7] && strchr("= \t:", t[7]) &&
               strchr(t, ';')) {
        gw_error_set(&e, GW_E_FORMAT,
                     "%s:%d: [hook] command: ';' is shell syntax, but hooks are exec'd without a "
                     "shell: put the pipeline in a script (and comments on a line of their own)",
                     x->path, x->line);
        note_error(x, x->line, &e);
    }
    x->in_value = true;
}

/* An fgets for inih that counts lines and refuses (rather than splits) lines longer than num or
 * holding a NUL byte, and continuation lines. */
static char *counting_reader(char *str, int num, void *stream)
{
    ini_ctx *x = stream;
    int n = 0, ch = EOF, nul_at = 0;
    bool too_long = false;
    while ((ch = getc(x->f)) != EOF) {
        if (ch == '\0' && !nul_at)
            nul_at = n + 1;
        if (n < num - 1)
            str[n++] = ch == '\0' ? ' ' : (char)ch;
        else
            too_long = true;
        if (ch == '\n')
            break;
    }
    if (n == 0 && ch == EOF)
        return NULL;
    str[n] = '\0';
    x->line++;
    gw_error e;
    if (nul_at) {
        gw_error_set(&e, GW_E_FORMAT,
                     "%s:%d: NUL byte at column %d: the file is not text (save it as plain "
                     "UTF-8 text)",
                     x->path, x->line, nul_at);
        note_error(x, x->line, &e);
    } else if (too_long) {
        gw_error_set(&e, GW_E_FORMAT, "%s:%d: line longer than %d characters", x->path, x->line,
                     num - 3);
        note_error(x, x->line, &e);
    } else {
        check_line(x, str);
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
    /* a regular file only: a FIFO would block forever, a device never end */
    FILE *f = gw_file_open_regular(path, "r");
    if (!f) {
        /* a file of the standard places that cannot be reached is absent: a HOME that is a file
         * or that this user may not search must not stop gpuwatch from starting; one that is
         * there but unreadable is still said */
        struct stat st;
        int e = errno;
        if (!must_exist && (e == ENOENT || e == ENOTDIR || (e == EACCES && stat(path, &st) != 0)))
            return GW_OK;
        errno = e;
        if (errno == GW_FILE_NOT_REGULAR)
            return gw_error_set(err, GW_E_IO,
                                "cannot read the configuration file %s: it is not a regular file "
                                "(a FIFO, device or directory): give the path of an INI file",
                                path);
        return gw_error_set(err, GW_E_IO, "cannot read the configuration file %s: %s", path,
                            strerror(errno));
    }
    ini_ctx x = {.cfg = c, .path = path, .f = f};
    int r = ini_parse_stream(counting_reader, &x, on_ini_key, &x);
    fclose(f);
    if (r > 0 && (x.err_line == 0 || r < x.err_line)) {
        gw_error e;
        gw_error_set(&e, GW_E_FORMAT, "%s:%d: not a [section], KEY = VALUE or ; comment line", path,
                     r);
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
