/* Input options and reading shared by `report` and `plot` (see inputs.h). */
#include "cli/inputs.h"

#include "analysis/epochs.h"
#include "util/gw_file.h"
#include "util/gw_time.h"

#include <stdio.h>
#include <string.h>

int gw_cli_input_option(const char *cmd, int c, const char *arg, gw_cli_inputs *in)
{
    double ms;
    switch (c) {
    case 'l':
        in->log = arg;
        return 0;
    case 'e':
        in->epoch_regex = arg;
        return 0;
    case 'c':
        in->read.columns = arg;
        return 0;
    case 'i':
        if (gw_parse_duration_ms(arg, &ms) && ms > 0) {
            in->read.interval_s = ms / 1000.0;
            return 0;
        }
        fprintf(stderr,
                "gpuwatch: %s: --interval takes a duration such as 1, 0.5 or 200ms, not '%s'\n",
                cmd, arg);
        return 2;
    case 'S':
        if (strcmp(arg, "job") == 0 || strcmp(arg, "node") == 0) {
            in->scope = arg[0] == 'j' ? GW_SERIES_SCOPE_JOB : GW_SERIES_SCOPE_NODE;
            return 0;
        }
        fprintf(stderr,
                "gpuwatch: %s: --scope takes job (only the job's GPUs) or node (all, the others "
                "shown as not this job), not '%s'\n",
                cmd, arg);
        return 2;
    default:
        return 1;
    }
}

gw_rc gw_cli_read_inputs(const gw_cli_inputs *in, gw_series *s, gw_error *err)
{
    gw_epoch_matcher *m = NULL; /* NULL: the built-in reading of the job's output */
    gw_rc rc = in->epoch_regex ? gw_epoch_matcher_new(in->epoch_regex, &m, err) : GW_OK;
    s->epoch_matcher = m;
    s->scope = in->scope;
    for (int i = 0; !rc && i < in->npaths; i++)
        rc = gw_logread_input(s, gw_path_tidy(in->paths[i]), &in->read, err);
    if (!rc && in->log)
        rc = gw_logread_train_log(s, in->log, m, err);
    if (!rc)
        rc = gw_series_finish(s, err);
    s->epoch_matcher = NULL;
    gw_epoch_matcher_free(m);
    return rc;
}

void gw_cli_warn_skipped(const char *cmd, const gw_series *s)
{
    for (size_t i = 0; i < s->ninputs; i++) {
        const gw_series_input *in = &s->inputs[i];
        if (in->rows_skipped)
            fprintf(stderr,
                    "gpuwatch: %s: %s: skipped %zu unreadable row%s (the first at line %ld)\n", cmd,
                    in->path, in->rows_skipped, in->rows_skipped == 1 ? "" : "s",
                    in->first_bad_line);
    }
}
