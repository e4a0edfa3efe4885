/* gw_report_finish_run: the report step at the end of `gpuwatch run` (see report.h). */
#include "report/report.h"

#include "logread/logread.h"
#include "util/xalloc.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* True when path still names the directory dirfd. */
static bool same_dir(const char *path, int dirfd)
{
    struct stat a, b;
    return stat(path, &a) == 0 && fstat(dirfd, &b) == 0 && a.st_dev == b.st_dev &&
           a.st_ino == b.st_ino;
}

gw_rc gw_report_finish_run(const char *run_dir, int dirfd, FILE *out, gw_error *err)
{
    return gw_report_finish_run_with(run_dir, dirfd, true, NULL, NULL, out, err);
}

/* Writes summary.json and report.html into dirfd, each whole or not at all. */
static gw_rc write_files_at(const gw_analysis *a, const char *run_dir, int dirfd, gw_error *err)
{
    gw_rc rc = GW_OK;
    char *json = xasprintf("%s/summary.json", run_dir);
    char *html = xasprintf("%s/report.html", run_dir);
    gw_rc jrc = gw_report_write_json_at(a, dirfd, "summary.json", json, NULL);
    int jerrno = errno;
    gw_rc hrc = gw_report_write_html_at(a, dirfd, "report.html", html, NULL, NULL);
    int herrno = errno;
    if (jrc && hrc)
        rc = gw_error_set(err, GW_E_IO,
                          "cannot write summary.json or report.html in %s: %s; nothing "
                          "partial was kept: free some space, then run `gpuwatch report %s "
                          "--json %s --html %s`",
                          run_dir, strerror(jerrno), run_dir, json, html);
    else if (jrc || hrc)
        rc = gw_error_set(err, GW_E_IO,
                          "cannot write %s: %s; nothing partial was kept: free some space, "
                          "then run `gpuwatch report %s %s %s`",
                          jrc ? json : html, strerror(jrc ? jerrno : herrno), run_dir,
                          jrc ? "--json" : "--html", jrc ? json : html);
    free(json);
    free(html);
    return rc;
}

gw_rc gw_report_finish_run_with(const char *run_dir, int dirfd, bool write_files,
                                gw_report_hook hook, void *ctx, FILE *out, gw_error *err)
{
    if (!same_dir(run_dir, dirfd))
        return gw_error_set(err, GW_E_IO,
                            "%s was moved or replaced while recording, so it is not analysed; "
                            "the recording was written into the original directory",
                            run_dir);
    gw_series *s = gw_series_new();
    gw_rc rc = gw_logread_run_dir(s, run_dir, err);
    if (!rc)
        rc = gw_series_finish(s, err);
    if (rc && err) {
        gw_error why = *err;
        gw_error_set(err, rc, "no analysis: %s", why.msg);
    } else if (!rc) {
        gw_analysis *a = gw_analyze(s);
        if (hook)
            hook(a, ctx);
        /* The verdicts first: a full disk must not cost the user the analysis. */
        if (out && write_files) {
            gw_report_verdict_lines(out, a, NULL);
            if (a->verdicts.n == 0) /* a very short run still ends with what was found */
                fprintf(out, "no verdict: %s\n", gw_report_no_verdict_reason(a));
        }
        if (write_files)
            rc = write_files_at(a, run_dir, dirfd, err);
        gw_analysis_free(a);
    }
    gw_series_free(s);
    return rc;
}
