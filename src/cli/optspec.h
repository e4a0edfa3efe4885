/*
 * optspec: one table per command from which its getopt_long array, its --help text, its man page
 * (gpuwatch-CMD(1)), `gpuwatch help CMD` and the bash and zsh completion are all produced, so
 * that none of them can drift from what the command accepts.
 *
 * Adding an option is ONE entry in the command's table (src/cli/cmd_*.c), for example:
 *
 *   {.name = "output", .letter = 'o', .arg = "DIR", .complete = GW_COMPL_DIR,
 *    .help = "where to record (must not exist; default runs/<UTC time>-<name>)"},
 *   {.name = "color", .key = OPT_COLOR, .arg = "WHEN", .complete = GW_COMPL_VALUES,
 *    .values = "auto always never", .help = "auto (default), always or never"},
 *
 *   name      the long option without "--"
 *   letter    its short form ('o' for -o), or 0 for none
 *   key       what getopt_long returns for it when it has no letter (codes from 1000 up);
 *             0 means the letter
 *   arg       the argument's name (metavar) in --help and man; NULL: takes no argument. One
 *             starting with '=' is written attached ("--query-gpu=FIELDS")
 *   help      one paragraph, no line breaks: --help wraps it at 80 columns under its column,
 *             the man page fills it
 *   complete  what the shells offer for the argument (gw_complete)
 *   values    the words of GW_COMPL_VALUES and GW_COMPL_LIST, separated by spaces
 *   alt       a short spelling that is not one letter ("-lms"), shown instead of -letter
 *   repeat    1: may be given more than once (--set, --config); zsh offers it again
 *
 * Must not: parse values or print outside the generators; commands keep their own switch on key.
 */
#ifndef GW_CLI_OPTSPEC_H
#define GW_CLI_OPTSPEC_H

#include <getopt.h>
#include <stddef.h>
#include <stdio.h>

typedef enum gw_complete {
    GW_COMPL_NONE,    /* free text (a number, a regex, an address): nothing offered */
    GW_COMPL_FILE,    /* a file name */
    GW_COMPL_DIR,     /* a directory name */
    GW_COMPL_VALUES,  /* one of .values */
    GW_COMPL_LIST,    /* a comma-separated list of .values */
    GW_COMPL_FIELDS,  /* a comma-separated list of --query-gpu field names (query/query.h) */
    GW_COMPL_COMMAND, /* a command on PATH */
} gw_complete;

typedef struct gw_opt {
    const char *name;
    char letter;
    int key;
    const char *arg;
    const char *help;
    gw_complete complete;
    const char *values;
    const char *alt;
    int repeat;
} gw_opt;

/* Options several commands share are macros of entries spliced into their tables
 * (GW_CONFIG_OPTS in config_args.h, GW_CLI_INPUT_OPTS in inputs.h). */

/* What several man pages say in ENVIRONMENT and FILES. */
#define GW_ENV_NVML                                                                                \
    "GPUWATCH_NVML_LIB\tthe NVML library to load instead of libnvidia-ml.so.1 (the driver's)\n"
#define GW_ENV_COLOR "NO_COLOR\tset: no colours on a terminal (https://no-color.org)\n"
#define GW_FILES_CONFIG                                                                            \
    "/etc/gpuwatch/gpuwatch.ini\tthe system's alert rules, hook and check thresholds "             \
    "(GPUWATCH_SYSTEM_CONFIG names another; docs/alerts.md)\n"                                     \
    "~/.config/gpuwatch/gpuwatch.ini\tthe user's, read after it ($XDG_CONFIG_HOME when set)\n"
#define GW_ENV_CONFIG                                                                              \
    "GPUWATCH_SYSTEM_CONFIG\tthe system configuration file instead of "                            \
    "/etc/gpuwatch/gpuwatch.ini\n"                                                                 \
    "XDG_CONFIG_HOME\twhere the user's gpuwatch/gpuwatch.ini is (default ~/.config)\n"

enum { GW_OPTS_MAX = 40 };

typedef struct gw_cmd_spec {
    const char *name;           /* "run"; "" for gpuwatch itself (the live view) */
    const char *summary;        /* the line of `gpuwatch --help` and the man page's NAME */
    const char *synopsis;       /* the usage lines without "usage: ", broken to fit 80 columns */
    const char *description;    /* paragraphs separated by empty lines; lines break anywhere */
    const gw_opt *opts;         /* the table, ending with {0} */
    const char *notes;          /* --help's text after the options, before the exit status */
    const char *exit_status;    /* "0 recorded, 1 ..., 2 usage error." */
    const char *examples;       /* one command line a line (the man page's EXAMPLES) */
    int help_example;           /* 1: --help shows the first ("Example: ..."; it must run as shown:
                                   tests/cli/test_help_examples.py runs it) */
    const char *environment;    /* "NAME\tmeaning" lines, or NULL */
    const char *files;          /* "PATH\tmeaning" lines, or NULL */
    const char *getopt_flags;   /* what precedes the short letters: "+" (stop at CMD), ":" ... */
    gw_complete operands;       /* what the arguments that are not options are */
    const char *operand_values; /* GW_COMPL_VALUES operands */
} gw_cmd_spec;

/* getopt_long's arrays built from a table. */
typedef struct gw_getopt {
    struct option longs[GW_OPTS_MAX + 1];
    char shorts[2 * GW_OPTS_MAX + 4];
} gw_getopt;

/* Fills g from spec's table; returns g->longs (end: an all-zero entry). */
const struct option *gw_getopt_build(const gw_cmd_spec *spec, gw_getopt *g);

/* The getopt value of an option: its key, else its letter. */
int gw_opt_key(const gw_opt *o);

/* The option of spec named by an argument as given ("--output", "--output=x", "-o"), or NULL. */
const gw_opt *gw_opt_find(const gw_cmd_spec *spec, const char *arg);

/* The long name (without "--") of the option whose getopt value is key, or NULL. */
const char *gw_opt_name(const gw_cmd_spec *spec, int key);

/* Writes the --help text (before wrapping) of spec to out. */
void gw_help_write(const gw_cmd_spec *spec, FILE *out);

/* Prints spec's --help text to stdout, fitted to 80 columns. */
void gw_help_print(const gw_cmd_spec *spec);

/* Every command, in `gpuwatch --help` order; gw_cli_specs[0] is gpuwatch itself. */
extern const gw_cmd_spec *const gw_cli_specs[];
extern const size_t gw_cli_spec_count;

/* The command named name ("run"), or NULL. */
const gw_cmd_spec *gw_cli_spec_find(const char *name);

/* The man page of spec in troff (man(7)); `gpuwatch help CMD`: the same text for a terminal. */
void gw_man_write(const gw_cmd_spec *spec, const char *version, FILE *out);
void gw_man_text(const gw_cmd_spec *spec, FILE *out);

/* The completion scripts: bash (complete -F _gpuwatch gpuwatch) and zsh (#compdef gpuwatch). */
void gw_completion_bash(FILE *out);
void gw_completion_zsh(FILE *out);

#endif
