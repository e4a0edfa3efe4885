/* `gpuwatch __generate DIR`: the man pages and completion scripts the build installs. */
#include "cli/commands.h"

#include <errno.h>
#include <string.h>
#include <sys/stat.h>

static int write_file(const char *path, void (*gen)(const gw_cmd_spec *, FILE *),
                      const gw_cmd_spec *spec)
{
    FILE *f = fopen(path, "w");
    if (!f) {
        fprintf(stderr, "gpuwatch: cannot write %s: %s\n", path, strerror(errno));
        return 1;
    }
    gen(spec, f);
    if (ferror(f) | fclose(f)) {
        fprintf(stderr, "gpuwatch: cannot write %s: %s\n", path, strerror(errno));
        return 1;
    }
    return 0;
}

static void man_page(const gw_cmd_spec *spec, FILE *out)
{
    gw_man_write(spec, GPUWATCH_VERSION, out);
}

static void bash(const gw_cmd_spec *spec, FILE *out)
{
    (void)spec;
    gw_completion_bash(out);
}

static void zsh(const gw_cmd_spec *spec, FILE *out)
{
    (void)spec;
    gw_completion_zsh(out);
}

static int make_dir(const char *path)
{
    if (mkdir(path, 0755) == 0 || errno == EEXIST)
        return 0;
    fprintf(stderr, "gpuwatch: cannot create %s: %s\n", path, strerror(errno));
    return 1;
}

int gw_cli_generate(const char *dir)
{
    char path[4096];
    int bad = make_dir(dir);
    snprintf(path, sizeof path, "%s/man", dir);
    bad |= make_dir(path);
    snprintf(path, sizeof path, "%s/completion", dir);
    bad |= make_dir(path);
    for (size_t i = 0; !bad && i < gw_cli_spec_count; i++) {
        const gw_cmd_spec *s = gw_cli_specs[i];
        snprintf(path, sizeof path, "%s/man/gpuwatch%s%s.1", dir, s->name[0] ? "-" : "", s->name);
        bad |= write_file(path, man_page, s);
    }
    if (!bad) {
        snprintf(path, sizeof path, "%s/completion/gpuwatch.bash", dir);
        bad |= write_file(path, bash, NULL);
        snprintf(path, sizeof path, "%s/completion/_gpuwatch", dir);
        bad |= write_file(path, zsh, NULL);
    }
    return bad;
}
