/* libFuzzer harness for the log reader: arbitrary bytes as nvidia-smi / gpu.csv CSV, as a
 * host.csv-style table, as a timestamp, as an epoch line and as the end of a job's output (crash
 * reading), then the whole analysis and both renderers on whatever was read. Build and run with
 * fuzz/run.sh. */
#include "analysis/analysis.h"
#include "analysis/crash.h"
#include "logread/logread.h"
#include "logread/timeparse.h"
#include "report/report.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static gw_epoch_matcher *matcher;

static void analyse_and_render(gw_series *s)
{
    gw_error err;
    if (gw_series_finish(s, &err) != GW_OK)
        return;
    gw_analysis *a = gw_analyze(s);
    FILE *null = fopen("/dev/null", "w");
    gw_report_text(null, a, NULL);
    fclose(null);
    cJSON_Delete(gw_report_json(a));
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
        analyse_and_render(s);
    fclose(f);
    gw_series_free(s);

    s = gw_series_new();
    in = gw_series_add_input(s, "host.csv", NULL, GW_INPUT_RUN_DIR);
    gw_series_host *h = gw_series_add_host(s, in, "fuzz");
    f = fmemopen(text, size ? size : 1, "r");
    gw_logread_table_csv(s, f, in, &h->tab, gw_logread_gpm_field, &err);
    fclose(f);
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
