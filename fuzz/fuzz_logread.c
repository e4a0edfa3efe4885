/* libFuzzer harness for the log reader and the renderers: arbitrary bytes as nvidia-smi / gpu.csv
 * CSV, as a host.csv-style table, as `nvidia-smi dmon` output, as a timestamp, as an epoch line and
 * as the end of a job's output (crash reading), as in-job data (RUN/python records and stacks),
 * then the whole analysis and every renderer (text,
 * summary.json printed, the HTML page) on whatever was read. Half the inputs also plant raw doubles
 * from their last bytes (1e308, inf, nan, denormals) into the values read, past the reader's filter
 * of absurd values: the renderers must hold on their own (src/util/gw_fmt.h). Build and run with
 * fuzz/run.sh. */
#include "analysis/analysis.h"
#include "analysis/crash.h"
#include "logread/inproc.h"
#include "logread/logread.h"
#include "logread/sniff.h"
#include "logread/timeparse.h"
#include "report/report.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static gw_epoch_matcher *matcher;

/* Overwrites up to 16 values of the series with the doubles in the input's last bytes. Bit masks
 * and performance states are left alone: the reader guarantees them (0..2^64, P0..P15). */
static void plant_raw_doubles(gw_series *s, const uint8_t *data, size_t size)
{
    size_t n = size / 8 < 16 ? size / 8 : 16;
    for (size_t k = 0; k < n && s->ngpus; k++) {
        gw_series_table *t = &s->gpus[k % s->ngpus]->tab;
        if (t->ncols == 0 || t->n == 0)
            continue;
        gw_series_col *c = &t->cols[(k * 5) % t->ncols];
        if (c->field == GW_F_CLOCKS_EVENT_REASONS || c->field == GW_F_PSTATE)
            continue;
        double v;
        memcpy(&v, data + size - 8 * (k + 1), sizeof v);
        gw_series_table_set(t, (k * 5) % t->ncols, (k * 7) % t->n, v);
    }
}

static void analyse_and_render(gw_series *s, const uint8_t *data, size_t size)
{
    gw_error err;
    if ((size / 2) % 2 == 0) /* independent of the size % 2 that picks --columns */
        plant_raw_doubles(s, data, size);
    if (gw_series_finish(s, &err) != GW_OK)
        return;
    gw_analysis *a = gw_analyze(s);
    FILE *null = fopen("/dev/null", "w");
    gw_report_text(null, a, NULL);
    gw_report_html(null, a, NULL);
    fclose(null);
    cJSON *j = gw_report_json(a);
    char *printed = cJSON_PrintUnformatted(j);
    if (!printed)
        abort();
    free(printed);
    cJSON_Delete(j);
    gw_analysis_free(a);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!matcher && gw_epoch_matcher_new(NULL, &matcher, NULL) != GW_OK)
        abort();
    char *text = malloc(size + 1);
    memcpy(text, data, size);
    text[size] = '\0';

    gw_series *s = gw_series_new();
    size_t in = gw_series_add_input(s, "fuzz.csv", NULL, GW_INPUT_GPU_CSV);
    FILE *f = fmemopen(text, size ? size : 1, "r");
    gw_error err;
    gw_logread_opts o = {.columns =
                             size % 2 ? "timestamp,index,utilization.gpu,memory.used" : NULL};
    if (gw_logread_gpu_csv(s, f, in, "fuzz", &o, &err) == GW_OK)
        analyse_and_render(s, data, size);
    fclose(f);
    gw_series_free(s);

    s = gw_series_new();
    in = gw_series_add_input(s, "host.csv", NULL, GW_INPUT_RUN_DIR);
    gw_series_host *h = gw_series_add_host(s, in, "fuzz");
    f = fmemopen(text, size ? size : 1, "r");
    (void)!gw_logread_table_csv(s, f, in, &h->tab, gw_logread_gpm_field, &err);
    fclose(f);
    gw_series_free(s);

    /* The same bytes as `nvidia-smi dmon` output, after the format sniffer. */
    s = gw_series_new();
    in = gw_series_add_input(s, "dmon.txt", NULL, GW_INPUT_GPU_CSV);
    f = fmemopen(text, size ? size : 1, "r");
    const char *what;
    (void)gw_logread_sniff(f, &what);
    if (gw_logread_dmon(s, f, in, "fuzz", NULL, &err) == GW_OK)
        analyse_and_render(s, data, size);
    fclose(f);
    gw_series_free(s);

    /* The same bytes as `nvidia-smi` / `nvidia-smi -l` tables. */
    s = gw_series_new();
    in = gw_series_add_input(s, "smi.log", NULL, GW_INPUT_GPU_CSV);
    f = fmemopen(text, size ? size : 1, "r");
    if (gw_logread_nvsmi_table(s, f, in, "fuzz", NULL, &err) == GW_OK)
        analyse_and_render(s, data, size);
    fclose(f);
    gw_series_free(s);

    /* And as `nvidia-smi -q` reports. */
    s = gw_series_new();
    in = gw_series_add_input(s, "q.log", NULL, GW_INPUT_GPU_CSV);
    f = fmemopen(text, size ? size : 1, "r");
    if (gw_logread_nvsmi_query(s, f, in, "fuzz", NULL, &err) == GW_OK)
        analyse_and_render(s, data, size);
    fclose(f);
    gw_series_free(s);

    /* And as `gpustat` screens. */
    s = gw_series_new();
    in = gw_series_add_input(s, "gpustat.log", NULL, GW_INPUT_GPU_CSV);
    f = fmemopen(text, size ? size : 1, "r");
    if (gw_logread_gpustat(s, f, in, "fuzz", NULL, &err) == GW_OK)
        analyse_and_render(s, data, size);
    fclose(f);
    gw_series_free(s);

    /* The same bytes as in-job data (RUN/python): each line a record of one of three processes
     * and a collapsed stack of a role, then the analysis and every renderer. */
    gw_inproc *ip = calloc(1, sizeof *ip);
    ip->instrumentation = strdup("on");
    ip->first_warning = strdup("");
    ip->dir_found = true;
    size_t line_no = 0;
    for (char *p = text, *nl; p && *p; p = nl ? nl + 1 : NULL, line_no++) {
        nl = strchr(p, '\n');
        if (nl)
            *nl = '\0';
        gw_inproc_add_line(ip, 1 + (long)(line_no % 3), p, nl == NULL);
        gw_inproc_add_stack_line(ip, (gw_inproc_role)(line_no % 3), p);
        if (nl)
            *nl = '\n';
    }
    gw_inproc_finish(ip);
    s = gw_series_new();
    in = gw_series_add_input(s, "run", NULL, GW_INPUT_RUN_DIR);
    s->inputs[in].inproc = ip;
    analyse_and_render(s, data, size);
    gw_series_free(s);

    int64_t ms;
    gw_timeparse(text, &ms);
    long e, t;
    gw_epoch_matcher_match(matcher, text, &e, &t);
    gw_crash_text crash; /* the end of output.log is the job's own text */
    gw_crash_scan(text, &crash);
    free(text);
    return 0;
}
