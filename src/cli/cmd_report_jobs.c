/* gpuwatch report DIR... over the run directories of one or more jobs: wires logread/job_meta ->
 * analysis/job_set -> report/jobs (report_jobs.h). */
#include "cli/report_jobs.h"

#include "analysis/job_set.h"
#include "logread/job_meta.h"
#include "report/jobs.h"
#include "util/gw_file.h"
#include "util/gw_wrap.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

bool gw_cli_inputs_are_jobs(const gw_cli_inputs *in)
{
    if (in->npaths < 2)
        return false;
    bool named = false;
    for (int i = 0; i < in->npaths; i++) {
        gw_job r;
        gw_error err = {0};
        struct stat st;
        /* a run directory without a "job" (an older recording) among the ranks of a job joins
         * the directories without a job id instead of turning the whole into one merged report
         * that judges every GPU of every node as the job's */
        bool dir = stat(in->paths[i], &st) == 0 && S_ISDIR(st.st_mode);
        bool ok = (gw_logread_job(in->paths[i], &r, &err) == GW_OK || err.rc == GW_E_FORMAT) &&
                  dir; /* a meta.json that is no JSON is said when the directory is read */
        named = named || r.job_id;
        gw_job_clear(&r);
        if (!ok)
            return false;
    }
    return named;
}

/* Reads and judges one directory into js. */
static gw_rc add_member(gw_job_set *js, const gw_cli_inputs *in, char *path, gw_error *err)
{
    gw_job ref;
    gw_error bad = {0};
    gw_rc rc = gw_logread_job(path, &ref, &bad);
    if (rc) /* read without its job: its data is not lost, and the others are reported */
        fprintf(stderr, "gpuwatch: report: %s; reading %s without its job\n", bad.msg, path);
    gw_cli_inputs one = *in;
    one.paths = &path;
    one.npaths = 1;
    one.log = NULL;
    gw_series *s = gw_series_new();
    rc = gw_cli_read_inputs(&one, s, err);
    if (rc) {
        gw_series_free(s);
        gw_job_clear(&ref);
        return rc;
    }
    gw_cli_warn_skipped("report", s);
    gw_analysis *a = gw_analyze(s);
    gw_series_drop_samples(s); /* the job report reads the analysis only */
    gw_job_set_add(js, path, &ref, s, a);
    return GW_OK;
}

/* The first input that is the same directory as input i (device and inode), i itself if none. */
static int first_of(const gw_cli_inputs *in, int i)
{
    struct stat si, sj;
    if (stat(in->paths[i], &si) != 0)
        return i;
    for (int j = 0; j < i; j++)
        if (stat(in->paths[j], &sj) == 0 && sj.st_dev == si.st_dev && sj.st_ino == si.st_ino)
            return j;
    return i;
}

static bool fails(const gw_job_set *js, int fail_on)
{
    for (size_t i = 0; i < js->nmembers; i++) {
        const gw_job_member *m = &js->members[i];
        for (size_t k = 0; k < m->a->verdicts.n; k++) {
            const gw_verdict *v = &m->a->verdicts.v[k];
            bool in_job = v->gpu < 0 || (size_t)v->gpu >= m->a->ngpus ||
                          gw_job_member_has_gpu(m, &m->a->gpus[v->gpu]);
            if (in_job && (int)v->severity >= fail_on)
                return true;
        }
    }
    return false;
}

int gw_cli_report_jobs(const gw_cli_inputs *in, const char *json, const char *html, int fail_on)
{
    if (html || in->log) {
        fprintf(stderr,
                "gpuwatch: report: %s takes one job's directory at a time, and these "
                "directories are the ranks of a job: give it one of them\n",
                html ? "--html" : "--log");
        return 2;
    }
    gw_job_set *js = gw_job_set_new();
    gw_error err = {0};
    for (int i = 0; i < in->npaths; i++) {
        int first = first_of(in, i);
        if (first < i) { /* "runs/r0 runs/r0/" or a glob and a name: read once */
            fprintf(stderr, "gpuwatch: report: %s is %s again: read once\n", in->paths[i],
                    in->paths[first]);
            continue;
        }
        if (add_member(js, in, in->paths[i], &err)) {
            fprintf(stderr, "gpuwatch: report: %s\n", err.msg);
            gw_job_set_free(js);
            return err.rc == GW_E_USAGE ? 2 : 1;
        }
    }
    gw_job_set_finish(js);
    int status = 0;
    if (!json || strcmp(json, "-") != 0) {
        gw_wrap_stream w; /* 80 columns */
        gw_report_jobs_text(gw_wrap_begin(&w, stdout), js, NULL);
        gw_wrap_end(&w);
    }
    if (json && gw_report_write_jobs_json(js, json, &err)) {
        fprintf(stderr, "gpuwatch: report: %s\n", err.msg);
        status = 1;
    }
    if (status == 0 && fail_on >= 0 && fails(js, fail_on)) {
        fprintf(stderr, "gpuwatch: report: a verdict at or above %s exists (--fail-on)\n",
                gw_severity_name((gw_severity)fail_on));
        status = 1;
    }
    gw_job_set_free(js);
    return status;
}
