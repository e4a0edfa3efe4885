/* Did-you-mean hints and the help pager (hints.h). */
#include "cli/hints.h"

#include "cli/commands.h"
#include "util/gw_strdist.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

enum { MAX_EDITS = 2 };

const char *gw_hint_command(const char *word)
{
    const char *best = NULL;
    int best_d = MAX_EDITS + 1;
    size_t n = strlen(word);
    for (size_t i = 1; i < gw_cli_spec_count; i++) {
        const char *name = gw_cli_specs[i]->name;
        int d = gw_edit_distance(word, name, MAX_EDITS + 1);
        if (n >= 2 && strncmp(name, word, n) == 0)
            d = 1; /* "rep" -> report */
        if (d < best_d)
            best = name, best_d = d;
    }
    return best_d <= MAX_EDITS && best_d < (int)n ? best : NULL;
}

/* The table's long option closest to name (without "--" and "=VALUE"), or NULL. */
static const gw_opt *closest(const gw_cmd_spec *spec, const char *name, size_t len)
{
    char want[64];
    if (len == 0 || len >= sizeof want)
        return NULL;
    memcpy(want, name, len);
    want[len] = '\0';
    const gw_opt *best = NULL;
    int best_d = MAX_EDITS + 1;
    for (const gw_opt *o = spec->opts; o->name; o++) {
        int d = gw_edit_distance(want, o->name, MAX_EDITS + 1);
        if (d < best_d)
            best = o, best_d = d;
    }
    return best_d <= MAX_EDITS && best_d < (int)len ? best : NULL;
}

bool gw_hint_option(const gw_cmd_spec *spec, int argc, char **argv)
{
    bool stop_at_operand = spec->getopt_flags && spec->getopt_flags[0] == '+';
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--") == 0)
            return false;
        if (a[0] != '-' || a[1] == '\0') {
            if (stop_at_operand)
                return false;
            continue;
        }
        const gw_opt *o = gw_opt_find(spec, a);
        if (o) {
            if (o->arg && !strchr(a, '=') && !(a[1] != '-' && a[2] != '\0'))
                i++; /* its value */
            continue;
        }
        if (a[1] != '-')
            continue; /* short options: getopt's own message */
        size_t len = strcspn(a + 2, "=");
        bool prefix = false; /* getopt_long takes "--int" for "--interval": its call */
        for (const gw_opt *x = spec->opts; x->name && !prefix; x++)
            prefix = strncmp(x->name, a + 2, len) == 0;
        const gw_opt *near = prefix ? NULL : closest(spec, a + 2, len);
        if (!near)
            continue;
        fprintf(stderr, "gpuwatch: %s%sunknown option '%.*s': did you mean --%s?\n",
                spec == &gw_spec_live ? "" : spec->name, spec == &gw_spec_live ? "" : ": ",
                (int)(len + 2), a, near->name);
        return true;
    }
    return false;
}

FILE *gw_pager_open(gw_pager *p)
{
    p->out = stdout;
    p->pid = 0;
    if (!isatty(STDOUT_FILENO))
        return p->out;
    const char *cmd = getenv("GPUWATCH_PAGER");
    if (!cmd)
        cmd = getenv("PAGER");
    if (!cmd)
        cmd = "less";
    char buf[512];
    snprintf(buf, sizeof buf, "%s", cmd);
    char *argv[16];
    int n = 0;
    for (char *save = NULL, *t = strtok_r(buf, " \t", &save); t && n < 15;
         t = strtok_r(NULL, " \t", &save))
        argv[n++] = t;
    argv[n] = NULL;
    if (n == 0 || strcmp(argv[0], "cat") == 0)
        return p->out;
    int fds[2];
    if (pipe(fds) != 0)
        return p->out;
    fflush(stdout);
    pid_t pid = fork();
    if (pid < 0) {
        close(fds[0]), close(fds[1]);
        return p->out;
    }
    if (pid == 0) {
        dup2(fds[0], STDIN_FILENO);
        close(fds[0]), close(fds[1]);
        setenv("LESS", "FRX", 0);
        execvp(argv[0], argv);
        /* no such pager: the text still reaches the terminal */
        char chunk[4096];
        ssize_t k;
        while ((k = read(STDIN_FILENO, chunk, sizeof chunk)) > 0)
            if (write(STDOUT_FILENO, chunk, (size_t)k) != k)
                break;
        _exit(0);
    }
    close(fds[0]);
    FILE *f = fdopen(fds[1], "w");
    if (!f) {
        close(fds[1]);
        waitpid(pid, NULL, 0);
        return p->out;
    }
    signal(SIGPIPE, SIG_IGN); /* the reader may quit before the end: not an error */
    p->out = f;
    p->pid = pid;
    return f;
}

void gw_pager_close(gw_pager *p)
{
    if (!p->pid)
        return;
    fclose(p->out);
    while (waitpid(p->pid, NULL, 0) < 0 && errno == EINTR) {
    }
    p->out = stdout;
    p->pid = 0;
}
