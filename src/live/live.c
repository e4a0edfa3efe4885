/* `gpuwatch` with no command: snapshot or in-place refresh (see live.h). */
#include "live/live.h"

#include "sampler/sampler.h"
#include "util/gw_time.h"
#include "util/xalloc.h"
#include "view/view.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#define ALT_SCREEN_ON  "\x1b[?1049h\x1b[?25l"
#define ALT_SCREEN_OFF "\x1b[?25h\x1b[?1049l"

typedef struct live {
    const gw_live_config *cfg;
    gw_sampler *sampler;
    gw_live_details *details;
    const gw_device_info *devs;
    unsigned ndev;
    const char *driver; /* the sampler's, "" when unknown */
    char host[256];
    bool color;
    bool fullscreen; /* refreshing on a terminal: alternate screen, in-place redraw */
    bool in_alt;     /* the alternate screen is on now */
    int cols, rows;
    sigset_t sigs, old_mask;
    const gw_sample *last; /* valid until the next read */
    gw_buf frame;
} live;

static bool write_all(const char *p, size_t n)
{
    while (n > 0) {
        ssize_t w = write(STDOUT_FILENO, p, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return false;
        p += w;
        n -= (size_t)w;
    }
    return true;
}

static bool want_color(gw_color_mode mode)
{
    if (mode != GW_COLOR_AUTO)
        return mode == GW_COLOR_ALWAYS;
    const char *no = getenv("NO_COLOR");
    return isatty(STDOUT_FILENO) && !(no && no[0]);
}

/* Terminal size, else $COLUMNS (or 80 columns, plain output's width) and no row limit. */
static void measure(live *l)
{
    struct winsize ws;
    l->rows = 0;
    if (isatty(STDOUT_FILENO) && ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0) {
        l->cols = ws.ws_col;
        l->rows = ws.ws_row;
        return;
    }
    const char *env = getenv("COLUMNS");
    long c = env ? strtol(env, NULL, 10) : 0;
    l->cols = c >= 20 && c <= 10000 ? (int)c : 80;
}

static bool open_live(live *l)
{
    gw_error err = {0};
    if (gethostname(l->host, sizeof l->host) != 0)
        l->host[0] = '\0';
    l->host[sizeof l->host - 1] = '\0';
    gw_sampler_config sc = {.interval_ms = l->cfg->interval_ms ? l->cfg->interval_ms : 1000,
                            .fields = GW_FIELDS_VIEW,
                            .processes = true,
                            .migs = true,
                            .info_skip = GW_INFO_MAX_CLOCK};
    if (gw_sampler_load(&sc, NULL, &l->sampler, &err)) {
        fprintf(stderr, "gpuwatch: %s\n", err.msg);
        return false;
    }
    l->driver = gw_sampler_system(l->sampler)->driver_version;
    l->devs = gw_sampler_devices(l->sampler, &l->ndev);
    l->details = gw_live_details_new(NULL);
    return true;
}

/* Keeps buf within `max` lines: when it has more, the first max - 1 and a note saying how many
 * were left out. */
static void clip_lines(gw_buf *b, int max)
{
    int total = 0;
    for (size_t i = 0; i < b->len; i++)
        total += b->data[i] == '\n';
    if (total <= max || max < 2)
        return;
    int lines = 0;
    for (size_t i = 0; i < b->len; i++) {
        if (b->data[i] != '\n' || ++lines < max - 1)
            continue;
        int more = total - lines;
        b->len = i + 1;
        b->data[b->len] = '\0';
        gw_buf_printf(b, "... %d more line%s: enlarge the terminal\x1b[K\n", more,
                      more == 1 ? "" : "s");
        return;
    }
}

/* Renders the last sample into l->frame: JSON, plain text, or a full-screen frame. */
static void render(live *l, bool fullscreen)
{
    const gw_sample *s = l->last;
    gw_view v = {.hostname = l->host,
                 .driver_version = l->driver,
                 .version = GPUWATCH_VERSION,
                 .wall_ms = s->wall_ms,
                 .utc_offset_s = gw_utc_offset_s(s->wall_ms),
                 .devices = l->devs,
                 .device_count = l->ndev,
                 .sample = s,
                 .procs = gw_live_details_fill(l->details, s)};
    gw_buf_reset(&l->frame);
    if (l->cfg->json) {
        gw_view_json(&v, &l->frame);
        gw_buf_puts(&l->frame, "\n");
        return;
    }
    gw_view_style st = {.color = l->color, .width_cols = l->cols, .clear_eol = fullscreen};
    if (fullscreen)
        gw_buf_puts(&l->frame, "\x1b[H");
    gw_view_text(&v, &st, &l->frame);
    if (fullscreen) {
        if (l->rows > 1)
            clip_lines(&l->frame, l->rows - 1);
        gw_buf_puts(&l->frame, "\x1b[J");
    }
}

static void term_enter(live *l)
{
    if (l->fullscreen && !l->in_alt && write_all(ALT_SCREEN_ON, strlen(ALT_SCREEN_ON)))
        l->in_alt = true;
}

static void term_leave(live *l)
{
    if (l->in_alt)
        write_all(ALT_SCREEN_OFF, strlen(ALT_SCREEN_OFF));
    l->in_alt = false;
}

/* Renders and writes the last sample; a blank line separates plain-text frames. */
static bool show(live *l, bool separate)
{
    render(l, l->fullscreen);
    if (separate && !l->fullscreen && !l->cfg->json && !write_all("\n", 1))
        return false;
    return write_all(l->frame.data, l->frame.len);
}

/* Waits until the monotonic deadline for one of l->sigs: the signal, or 0 at the deadline. */
static int wait_signal(live *l, int64_t deadline_ns)
{
    int64_t left = deadline_ns - gw_mono_ns();
    if (left < 0)
        left = 0;
    struct timespec ts = {.tv_sec = left / 1000000000, .tv_nsec = left % 1000000000};
    int sig = sigtimedwait(&l->sigs, NULL, &ts);
    return sig > 0 ? sig : 0;
}

/* Handles signals until the deadline of the next frame. Returns false to stop. */
static bool idle_until(live *l, int64_t deadline_ns, bool *write_ok)
{
    for (;;) {
        int sig = wait_signal(l, deadline_ns);
        if (sig == 0)
            return true;
        if (sig == SIGWINCH) {
            measure(l);
        } else if (sig == SIGTSTP) {
            term_leave(l); /* Ctrl-Z: give the shell its screen back while stopped */
            kill(getpid(), SIGSTOP);
            term_enter(l);
            measure(l);
        } else {
            return false; /* SIGINT, SIGTERM, SIGHUP */
        }
        if (!(*write_ok = show(l, false)))
            return false;
    }
}

static int refresh_loop(live *l)
{
    sigemptyset(&l->sigs);
    int sigs[] = {SIGINT, SIGTERM, SIGHUP, SIGWINCH, SIGTSTP};
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++)
        sigaddset(&l->sigs, sigs[i]);
    sigprocmask(SIG_BLOCK, &l->sigs, &l->old_mask);
    l->fullscreen = isatty(STDOUT_FILENO) && !l->cfg->json;
    term_enter(l);
    int64_t period = l->cfg->interval_ms * INT64_C(1000000), deadline = 0;
    bool ok = true;
    int err = 0;
    for (int64_t frame = 0;; frame++) {
        l->last = frame == 0 ? gw_sampler_read_first(l->sampler) : gw_sampler_read_now(l->sampler);
        deadline = frame == 0 ? gw_mono_ns() + period : deadline + period;
        if (deadline < gw_mono_ns()) /* late (a slow terminal): no catching up */
            deadline = gw_mono_ns() + period;
        ok = show(l, frame > 0);
        err = errno;
        if (!ok || (l->cfg->count > 0 && frame + 1 >= l->cfg->count))
            break;
        if (!idle_until(l, deadline, &ok)) {
            err = errno;
            break;
        }
    }
    term_leave(l);
    if (l->fullscreen && ok) { /* leave the last view on the normal screen */
        l->fullscreen = false;
        ok = show(l, false);
        err = errno;
    }
    sigprocmask(SIG_SETMASK, &l->old_mask, NULL);
    if (!ok && err == EPIPE)
        clearerr(stdout); /* the reader went away: not an error (cli/main.c checks stdout) */
    return ok || err == EPIPE ? 0 : 1;
}

static int one_shot(live *l)
{
    l->last = gw_sampler_read_first(l->sampler);
    if (show(l, false))
        return 0;
    if (errno == EPIPE) { /* the reader went away: not an error (cli/main.c checks stdout) */
        clearerr(stdout);
        return 0;
    }
    fprintf(stderr, "gpuwatch: cannot write the view: %s\n", strerror(errno));
    return 1;
}

int gw_live_main(const gw_live_config *cfg)
{
    live l = {.cfg = cfg};
    int rc = 1;
    signal(SIGPIPE, SIG_IGN);
    if (!open_live(&l))
        goto done;
    if (l.ndev == 0 && !cfg->json) {
        fprintf(stderr, "gpuwatch: no NVIDIA GPU found (NVML reports 0 devices): check "
                        "`nvidia-smi -L`; in a container, start it with --gpus all\n");
        goto done;
    }
    l.color = !cfg->json && want_color(cfg->color);
    measure(&l);
    rc = cfg->interval_ms > 0 ? refresh_loop(&l) : one_shot(&l);
done:
    gw_live_details_free(l.details);
    gw_sampler_close(l.sampler);
    gw_buf_free(&l.frame);
    return rc;
}
