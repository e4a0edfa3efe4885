/* gw_report_finish_run: the report step at the end of `gpuwatch run` (see report.h). */
#include "report/report.h"

#include "logread/logread.h"
#include "util/xalloc.h"

#include <stdlib.h>

gw_rc gw_report_finish_run(const char *run_dir, FILE *out, gw_error *err)
{
    return gw_report_finish_run_with(run_dir, true, NULL, NULL, out, err);
}

gw_rc gw_report_finish_run_with(const char *run_dir, bool write_files, gw_report_hook hook,
                                void *ctx, FILE *out, gw_error *err)
{
    gw_series *s = gw_series_new();
    gw_rc rc = gw_logread_run_dir(s, run_dir, err);
    if (!rc)
        rc = gw_series_finish(s, err);
    if (!rc) {
        gw_analysis *a = gw_analyze(s);
        if (hook)
            hook(a, ctx);
        char *path = write_files ? xasprintf("%s/summary.json", run_dir) : NULL;
        if (path)
            rc = gw_report_write_json(a, path, err);
        free(path);
        if (!rc && write_files) {
            path = xasprintf("%s/report.html", run_dir);
            rc = gw_report_write_html(a, path, NULL, err);
            free(path);
        }
        if (!rc && out && write_files)
            gw_report_verdict_lines(out, a, NULL);
        gw_analysis_free(a);
    }
    gw_series_free(s);
    return rc;
}
