/* gpuwatch plot: parses arguments and wires logread -> analysis -> plot (cairo). */
#include "cli/commands.h"

#include "analysis/analysis.h"
#include "cli/inputs.h"
#include "plot/plot.h"
#include "util/gw_file.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct plot_args {
    const char *out;
    const char *metrics;
    int width_px;
    gw_cli_inputs in;
} plot_args;

_Static_assert(GW_PLOT_WIDTH_PX == 1200 && GW_PLOT_PANEL_HEIGHT_PX == 400,
               "--width's help below says 1200 and 400");

static const gw_opt plot_opts[] = {
    {.name = "output",
     .letter = 'o',
     .arg = "FILE",
     .complete = GW_COMPL_FILE,
     .help = "the image; its extension (.png or .svg) picks the format"},
    {.name = "metrics",
     .key = 'm',
     .arg = "LIST",
     .complete = GW_COMPL_LIST,
     .values = "util sm tensor memory temp power clock cpu rss procmem",
     .help = "metrics paired into panels (default " GW_PLOT_DEFAULT_METRICS
             "); known: util, sm, tensor, memory, temp, power, clock, cpu, rss, procmem, "
             "steps, roles"},
    {.name = "width",
     .key = 'w',
     .arg = "PX",
     .help = "image width (default 1200; each panel is 400 high)"},
    GW_CLI_INPUT_OPTS,
    {.name = "help", .letter = 'h', .help = "this text"},
    {0}};

const gw_cmd_spec gw_spec_plot = {
    .name = "plot",
    .summary = "draw a recording as a PNG or SVG chart",
    .synopsis = "gpuwatch plot INPUT... -o FILE.png|FILE.svg [--metrics LIST]\n"
                "              [--width PX] [--log FILE] [--epoch-regex RE]\n"
                "              [--columns LIST] [--interval SECONDS] [--scope job|node]",
    .description =
        "Draws a recording as a PNG or SVG chart: one panel per pair of metrics, the first\n"
        "on the left axis (solid), the second on the right axis (dashed), time since the\n"
        "start on the x axis. INPUT: anything `gpuwatch report` reads.",
    .opts = plot_opts,
    .notes = "Details: docs/charts.md.",
    .exit_status = "0 success, 1 runtime error, 2 usage error.",
    .examples = "gpuwatch plot runs/exp1 -o exp1.png\n"
                "gpuwatch plot runs/exp1 -o exp1.svg --metrics util,power,sm,memory",
    .files = "DIR/gpu.csv\tthe samples a run directory's chart is drawn from\n",
    .getopt_flags = ":",
    .operands = GW_COMPL_FILE,
};

/* Applies one option; returns 0, 2 after printing a usage error, or -1 after printing help. */
static int apply_option(int c, const char *arg, const char *as_given, plot_args *r)
{
    int st = gw_cli_input_option("plot", c, arg, &r->in);
    if (st != 1)
        return st;
    char *end = NULL;
    switch (c) {
    case 'o':
        r->out = gw_path_tidy((char *)arg);
        return 0;
    case 'm':
        r->metrics = arg;
        return 0;
    case 'w':
        r->width_px = (int)strtol(arg, &end, 10);
        if (*arg && !*end && r->width_px >= 400 && r->width_px <= 10000)
            return 0;
        fprintf(stderr, "gpuwatch: plot: --width takes pixels from 400 to 10000, not '%s'\n", arg);
        return 2;
    case 'h':
        gw_help_print(&gw_spec_plot);
        return -1;
    case ':':
        fprintf(stderr, "gpuwatch: plot: %s needs a value\n", as_given);
        return 2;
    default:
        fprintf(stderr, "gpuwatch: plot: unknown option '%s': see gpuwatch plot --help\n",
                as_given);
        return 2;
    }
}

/* Returns 0 on success, 2 after printing a usage error, -1 after printing help. */
static int parse_args(int argc, char **argv, plot_args *r, gw_plot_opts *po)
{
    gw_getopt g;
    const struct option *opts = gw_getopt_build(&gw_spec_plot, &g);
    memset(r, 0, sizeof *r);
    memset(po, 0, sizeof *po);
    r->metrics = GW_PLOT_DEFAULT_METRICS;
    optind = 1;
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, g.shorts, opts, NULL)) != -1) {
        int st = apply_option(c, optarg, argv[optind - 1], r);
        if (st)
            return st;
    }
    r->in.paths = argv + optind;
    r->in.npaths = argc - optind;
    gw_error err = {0};
    if (r->in.npaths == 0 || !r->out) {
        fprintf(stderr, "gpuwatch: plot: %s; see gpuwatch plot --help\n",
                r->in.npaths ? "no output: give -o FILE.png or -o FILE.svg"
                             : "no input: give a run directory or a CSV log");
        return 2;
    }
    if (gw_plot_format_of(r->out) < 0) {
        fprintf(stderr, "gpuwatch: plot: %s: the output must end in .png or .svg\n", r->out);
        return 2;
    }
    if (gw_plot_parse_metrics(r->metrics, po, &err)) {
        fprintf(stderr, "gpuwatch: plot: %s\n", err.msg);
        return 2;
    }
    po->width_px = r->width_px;
    return 0;
}

int gw_cmd_plot(int argc, char **argv)
{
    plot_args r;
    gw_plot_opts po;
    int st = parse_args(argc, argv, &r, &po);
    if (st)
        return st < 0 ? 0 : st;
    gw_error err = {0};
    gw_series *s = gw_series_new();
    gw_rc rc = gw_cli_read_inputs(&r.in, s, &err);
    if (!rc) {
        gw_cli_warn_skipped("plot", s);
        gw_analysis *a = gw_analyze(s);
        rc = gw_plot_write(a, &po, r.out, (gw_plot_format)gw_plot_format_of(r.out), &err);
        gw_analysis_free(a);
    }
    gw_series_free(s);
    if (rc) {
        fprintf(stderr, "gpuwatch: plot: %s\n", err.msg);
        return rc == GW_E_USAGE ? 2 : 1;
    }
    int w = po.width_px > 0 ? po.width_px : GW_PLOT_WIDTH_PX;
    int panel_h = po.panel_height_px > 0 ? po.panel_height_px : GW_PLOT_PANEL_HEIGHT_PX;
    printf("gpuwatch: plot: wrote %s (%s, %d x %d px, %d panel%s)\n", r.out,
           gw_plot_format_of(r.out) == GW_PLOT_SVG ? "SVG" : "PNG", w,
           panel_h * (po.npanels > 0 ? po.npanels : 1), po.npanels, po.npanels == 1 ? "" : "s");
    return 0;
}
