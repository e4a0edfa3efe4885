/* A `gpuwatch query` run: once, or every -l / -lms on the sampler's tick thread (query.h). */
#include "query/query.h"

#include "sampler/sampler.h"
#include "util/gw_file.h"
#include "util/gw_time.h"
#include "util/xalloc.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

typedef struct qrun {
    const gw_query_config *cfg;
    gw_sampler *sampler;
    const gw_device_info *devs;
    unsigned ndev;
    unsigned *sel; /* positions into devs, in the order -i gave them */
    unsigned nsel;
    const char *driver; /* the sampler's, "" when unknown */
    FILE *out;
    gw_buf buf;
    atomic_int write_errno; /* set by the tick thread when writing fails */
} qrun;

/* Formats and writes the rows of one sample (header first when asked). False on a write error. */
static bool emit(qrun *q, const gw_sample *s, bool header)
{
    const gw_query_config *c = q->cfg;
    gw_buf_reset(&q->buf);
    if (header)
        gw_qheader(c->fields, c->field_count, &q->buf);
    gw_qrow_ctx ctx = {.wall_ms = s->wall_ms,
                       .utc_offset_s = gw_utc_offset_s(s->wall_ms),
                       .driver = q->driver,
                       .gpu_count = q->ndev,
                       .nounits = c->nounits};
    for (unsigned k = 0; k < q->nsel; k++) {
        ctx.dev = &q->devs[q->sel[k]];
        ctx.gpu = &s->gpus[q->sel[k]];
        gw_qrow(c->fields, c->field_count, &ctx, &q->buf);
    }
    return fwrite(q->buf.data, 1, q->buf.len, q->out) == q->buf.len && fflush(q->out) == 0;
}

/* The sampler's tick: rows for this sample. A failed write stops the run (SIGTERM to ourselves,
 * which the main thread is waiting for). */
static void on_sample(void *ctx, const gw_sample *s)
{
    qrun *q = ctx;
    if (atomic_load(&q->write_errno))
        return;
    if (!emit(q, s, false)) {
        atomic_store(&q->write_errno, errno ? errno : EIO);
        kill(getpid(), SIGTERM);
    }
}

static bool wants_gpm(const qrun *q)
{
    uint64_t bits = gw_qfields_sample_bits(q->cfg->fields, q->cfg->field_count);
    return (bits & GW_FIELDS_GPM) != 0;
}

/* Loads NVML, opens the GPUs reading only what the fields need, resolves -i. */
static int open_run(qrun *q)
{
    gw_error err = {0};
    gw_sampler_config sc = {
        .interval_ms = q->cfg->interval_ms ? q->cfg->interval_ms : 1000,
        .fields = gw_qfields_sample_bits(q->cfg->fields, q->cfg->field_count),
        /* static facts the fields do not need: max clocks are read (once) only when asked */
        .info_skip = GW_INFO_MEMORY | GW_INFO_POWER_LIMIT | GW_INFO_THRESHOLDS | GW_INFO_MAX_CLOCK |
                     GW_INFO_MIG | (wants_gpm(q) ? 0 : GW_INFO_GPM)};
    if (gw_sampler_load(&sc, NULL, &q->sampler, &err)) {
        fprintf(stderr, "gpuwatch query: %s\n", err.msg);
        return 1;
    }
    q->driver = gw_sampler_system(q->sampler)->driver_version;
    q->devs = gw_sampler_devices(q->sampler, &q->ndev);
    if (q->ndev == 0) {
        fprintf(stderr, "No devices were found (NVML reports 0 GPUs): check `nvidia-smi -L`; in "
                        "a container, start it with --gpus all\n");
        return 1;
    }
    q->sel = xcalloc(q->ndev, sizeof *q->sel);
    if (q->cfg->ids) {
        if (gw_qids_select(q->cfg->ids, q->devs, q->ndev, q->sel, &q->nsel, &err)) {
            fprintf(stderr, "gpuwatch query: %s\n", err.msg);
            return 2;
        }
    } else {
        for (unsigned i = 0; i < q->ndev; i++)
            q->sel[q->nsel++] = i;
    }
    return 0;
}

static int write_error(const char *path, int err)
{
    if (err == EPIPE) {
        clearerr(stdout); /* the reader went away (| head): not an error (cli/main.c checks) */
        return 0;
    }
    fprintf(stderr, "gpuwatch query: cannot write %s: %s\n", path ? path : "the output",
            strerror(err));
    return 1;
}

/* Every interval on the sampler's tick thread until SIGINT/SIGTERM/SIGHUP or a write error. */
static int loop(qrun *q)
{
    sigset_t set, old;
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGHUP);
    /* blocked before the sampler's threads start, so only sigwait below sees them */
    pthread_sigmask(SIG_BLOCK, &set, &old);
    if (wants_gpm(q))
        gw_sampler_read_first(q->sampler); /* the first row then has GPM values too */
    int rc = 0;
    gw_error err = {0};
    gw_buf_reset(&q->buf);
    if (!q->cfg->noheader) {
        gw_qheader(q->cfg->fields, q->cfg->field_count, &q->buf);
        if (fwrite(q->buf.data, 1, q->buf.len, q->out) != q->buf.len || fflush(q->out) != 0)
            rc = write_error(q->cfg->out_path, errno);
    }
    gw_sink sink = {.ctx = q, .on_sample = on_sample};
    gw_sampler_add_sink(q->sampler, &sink);
    if (rc == 0) {
        if (gw_sampler_start(q->sampler, &err)) {
            fprintf(stderr, "gpuwatch query: %s\n", err.msg);
            rc = 1;
        } else {
            int sig = 0;
            sigwait(&set, &sig);
            gw_sampler_stop(q->sampler);
            int werr = atomic_load(&q->write_errno);
            rc = werr ? write_error(q->cfg->out_path, werr) : 0;
        }
    }
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    return rc;
}

int gw_query_main(const gw_query_config *cfg)
{
    qrun q = {.cfg = cfg, .out = stdout};
    atomic_init(&q.write_errno, 0);
    signal(SIGPIPE, SIG_IGN);
    tzset();
    int rc = 1;
    if (cfg->out_path && !(q.out = gw_file_open_stream(cfg->out_path))) {
        if (errno == ELOOP) /* another user's link: never written through */
            fprintf(stderr,
                    "gpuwatch query: cannot write %s: it is another user's symbolic link "
                    "(-f FILE): choose a path of yours\n",
                    cfg->out_path);
        else
            fprintf(stderr, "gpuwatch query: cannot write %s: %s (-f FILE)\n", cfg->out_path,
                    strerror(errno));
        q.out = NULL;
        goto done;
    }
    rc = open_run(&q);
    if (rc)
        goto done;
    if (cfg->interval_ms > 0)
        rc = loop(&q);
    else if (!emit(&q, gw_sampler_read_first(q.sampler), !cfg->noheader))
        rc = write_error(cfg->out_path, errno);
done:
    gw_sampler_close(q.sampler);
    if (q.out && q.out != stdout && fclose(q.out) != 0 && rc == 0)
        rc = write_error(cfg->out_path, errno);
    free(q.sel);
    gw_buf_free(&q.buf);
    return rc;
}
