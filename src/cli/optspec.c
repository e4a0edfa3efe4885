/* Option tables -> getopt_long arrays and --help texts (optspec.h). */
#include "cli/optspec.h"

#include "cli/commands.h"
#include "util/gw_wrap.h"

#include <stdlib.h>
#include <string.h>

int gw_opt_key(const gw_opt *o)
{
    return o->key ? o->key : o->letter;
}

const struct option *gw_getopt_build(const gw_cmd_spec *spec, gw_getopt *g)
{
    memset(g, 0, sizeof *g);
    size_t n = 0, k = 0;
    if (spec->getopt_flags) {
        k = strlen(spec->getopt_flags);
        memcpy(g->shorts, spec->getopt_flags, k);
    }
    for (const gw_opt *o = spec->opts; o->name && n < GW_OPTS_MAX; o++, n++) {
        g->longs[n] =
            (struct option){o->name, o->arg ? required_argument : no_argument, NULL, gw_opt_key(o)};
        if (o->letter && k + 2 < sizeof g->shorts) {
            g->shorts[k++] = o->letter;
            if (o->arg)
                g->shorts[k++] = ':';
        }
    }
    return g->longs;
}

const gw_opt *gw_opt_find(const gw_cmd_spec *spec, const char *arg)
{
    if (!arg || arg[0] != '-')
        return NULL;
    for (const gw_opt *o = spec->opts; o->name; o++) {
        if (arg[1] == '-') {
            size_t n = strlen(o->name);
            if (strncmp(arg + 2, o->name, n) == 0 && (arg[2 + n] == '\0' || arg[2 + n] == '='))
                return o;
        } else if ((o->letter && arg[1] == o->letter && arg[2] == '\0') ||
                   (o->alt && strcmp(arg, o->alt) == 0)) {
            return o;
        }
    }
    return NULL;
}

const char *gw_opt_name(const gw_cmd_spec *spec, int key)
{
    for (const gw_opt *o = spec->opts; o->name; o++)
        if (gw_opt_key(o) == key)
            return o->name;
    return NULL;
}

/* "  -o, --output DIR" (without the padding). */
static int opt_label(const gw_opt *o, char *buf, size_t cap)
{
    char shortf[16] = "";
    if (o->alt)
        snprintf(shortf, sizeof shortf, "%s, ", o->alt);
    else if (o->letter)
        snprintf(shortf, sizeof shortf, "-%c, ", o->letter);
    const char *sep = !o->arg ? "" : o->arg[0] == '=' ? "" : " ";
    return snprintf(buf, cap, "  %*s--%s%s%s", shortf[0] ? 0 : 4, shortf, o->name, sep,
                    o->arg ? o->arg : "");
}

static void write_lines_indented(FILE *out, const char *text, const char *first, int indent)
{
    fputs(first, out);
    for (const char *p = text; *p;) {
        const char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) : strlen(p);
        if (p != text)
            fprintf(out, "%*s", indent, "");
        fprintf(out, "%.*s\n", (int)len, p);
        p += len + (nl ? 1 : 0);
    }
}

void gw_help_write(const gw_cmd_spec *spec, FILE *out)
{
    write_lines_indented(out, spec->synopsis, "usage: ", 7);
    fprintf(out, "\n%s\n\n", spec->description);
    enum { COL = 22, MAXCOL = 24 };
    int col = COL;
    char label[160];
    for (const gw_opt *o = spec->opts; o->name; o++) {
        int w = opt_label(o, label, sizeof label) + 2;
        if (w > col && w <= MAXCOL)
            col = w;
    }
    for (const gw_opt *o = spec->opts; o->name; o++) {
        int w = opt_label(o, label, sizeof label);
        fprintf(out, "%s%*s%s\n", label, w + 2 <= col ? col - w : 2, "", o->help);
    }
    if (!spec->name[0]) {
        fputs("\ncommands:\n", out);
        for (size_t i = 1; i < gw_cli_spec_count; i++)
            fprintf(out, "  %-8s %s\n", gw_cli_specs[i]->name, gw_cli_specs[i]->summary);
    }
    fputs("\n", out);
    if (spec->notes)
        fprintf(out, "%s\n", spec->notes);
    fprintf(out, "Exit status: %s\n", spec->exit_status);
    if (spec->help_example && spec->examples)
        fprintf(out, "Example: %.*s\n", (int)strcspn(spec->examples, "\n"), spec->examples);
}

static void write_help(FILE *to, const void *spec)
{
    gw_help_write(spec, to);
}

void gw_help_print(const gw_cmd_spec *spec)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&buf, &len);
    if (!mem) { /* out of memory: unwrapped rather than nothing */
        write_help(stdout, spec);
        return;
    }
    write_help(mem, spec);
    fclose(mem);
    gw_wrap_reflow(stdout, buf, len, GW_WRAP_WIDTH);
    free(buf);
}

const gw_cmd_spec *const gw_cli_specs[] = {
    &gw_spec_live, &gw_spec_run,   &gw_spec_record, &gw_spec_report,
    &gw_spec_plot, &gw_spec_check, &gw_spec_query,  &gw_spec_mark,
    &gw_spec_log,  &gw_spec_top,   &gw_spec_serve,  &gw_spec_compare,
};
const size_t gw_cli_spec_count = sizeof gw_cli_specs / sizeof gw_cli_specs[0];

const gw_cmd_spec *gw_cli_spec_find(const char *name)
{
    for (size_t i = 1; i < gw_cli_spec_count; i++)
        if (strcmp(gw_cli_specs[i]->name, name) == 0)
            return gw_cli_specs[i];
    return NULL;
}
