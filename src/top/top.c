/* `gpuwatch top`: the terminal (ncursesw), the refresh loop and the signals (top.h). ncurses owns
 * every escape sequence: it restores the terminal on exit, on Ctrl-Z (its SIGTSTP handler) and
 * reports a resize as KEY_RESIZE; Ctrl-C, SIGTERM and SIGHUP end the loop through a flag, so the
 * terminal is restored by endwin() on every way out. */
#include "top/top.h"

#include "sampler/sampler.h"
#include "util/gw_time.h"

#include <curses.h>
#include <errno.h>
#include <langinfo.h>
#include <locale.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static volatile sig_atomic_t stop_sig;

static void on_stop(int sig)
{
    stop_sig = sig;
}

static void catch_stops(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_stop; /* no SA_RESTART: getch returns at once */
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
}

static bool want_color(const gw_top_config *cfg)
{
    const char *no = getenv("NO_COLOR");
    return !cfg->no_color && !(no && no[0]) && has_colors();
}

static void send_signal(gw_top_model *m)
{
    if (kill((pid_t)m->confirm_pid, m->confirm_sig) == 0)
        snprintf(m->message, sizeof m->message, "sent %s to %u", gw_top_signal_name(m->confirm_sig),
                 m->confirm_pid);
    else
        snprintf(m->message, sizeof m->message, "cannot send %s to %u: %s",
                 gw_top_signal_name(m->confirm_sig), m->confirm_pid, strerror(errno));
}

/* Handles keys until the deadline; returns false to quit. */
static bool keys_until(gw_top_screen *scr, gw_top_model *m, int64_t deadline_ns)
{
    for (;;) {
        if (stop_sig)
            return false;
        int64_t left = deadline_ns - gw_mono_ns();
        if (left <= 0)
            return true;
        timeout((int)(left / 1000000) + 1);
        int key = getch();
        if (key == ERR)
            continue;
        if (key == KEY_RESIZE) {
            gw_top_draw(scr);
            continue;
        }
        switch (gw_top_key(m, key)) {
        case GW_TOP_QUIT:
            return false;
        case GW_TOP_SIGNAL:
            send_signal(m);
            gw_top_draw(scr);
            break;
        case GW_TOP_REDRAW:
            gw_top_draw(scr);
            break;
        case GW_TOP_NOTHING:
        default:
            break;
        }
    }
}

static bool start_screen(gw_top_screen *scr, const gw_top_config *cfg)
{
    setlocale(LC_ALL, "");
    const char *cs = nl_langinfo(CODESET);
    scr->utf8 = cs && strcmp(cs, "UTF-8") == 0;
    catch_stops();
    if (!initscr())
        return false;
    cbreak();
    noecho();
    keypad(stdscr, TRUE);
    set_escdelay(25);
    curs_set(0);
    scr->color = want_color(cfg);
    if (scr->color) {
        start_color();
        gw_top_colors();
    }
    return true;
}

static int run_hosts(const gw_top_config *cfg, gw_top_hosts *hosts, double interval_s)
{
    gw_top_model m;
    gw_top_model_init(&m, NULL, 0, interval_s);
    gw_top_screen scr = {.m = &m, .hosts = hosts, .hostname = "", .driver = ""};
    if (!start_screen(&scr, cfg)) {
        gw_top_hosts_free(hosts);
        return 1;
    }
    gw_top_hosts_start(hosts);
    int64_t period = (int64_t)(interval_s * 1e9), deadline = gw_mono_ns();
    do {
        m.wall_ms = gw_wall_ms();
        gw_top_draw(&scr);
        deadline += period;
    } while (keys_until(&scr, &m, deadline));
    endwin();
    gw_top_hosts_free(hosts);
    gw_top_model_free(&m);
    return 0;
}

static int run_local(const gw_top_config *cfg, double interval_s)
{
    gw_error err = {0};
    gw_sampler_config sc = {
        .interval_ms = cfg->interval_ms, .fields = GW_FIELDS_VIEW, .processes = true};
    gw_sampler *sampler = NULL;
    if (gw_sampler_load(&sc, NULL, &sampler, &err)) {
        fprintf(stderr, "gpuwatch top: %s\n", err.msg);
        return 1;
    }
    unsigned ndev = 0;
    const gw_device_info *devs = gw_sampler_devices(sampler, &ndev);
    if (ndev == 0) {
        fprintf(stderr, "gpuwatch top: no NVIDIA GPU found (NVML reports 0 devices): check "
                        "`nvidia-smi -L`; for other nodes use --hosts HOST:PORT\n");
        gw_sampler_close(sampler);
        return 1;
    }
    char host[256];
    if (gethostname(host, sizeof host) != 0)
        host[0] = '\0';
    host[sizeof host - 1] = '\0';
    gw_top_model m;
    gw_top_model_init(&m, devs, ndev, interval_s);
    gw_top_procs *procs = gw_top_procs_new(NULL);
    gw_top_screen scr = {
        .m = &m, .hostname = host, .driver = gw_sampler_system(sampler)->driver_version};
    int rc = 1;
    if (start_screen(&scr, cfg)) {
        int64_t period = cfg->interval_ms * INT64_C(1000000), deadline = gw_mono_ns();
        bool first = true;
        do {
            const gw_sample *s =
                first ? gw_sampler_read_first(sampler) : gw_sampler_read_now(sampler);
            first = false;
            gw_top_model_push(&m, s);
            gw_top_procs_update(procs, &m, s);
            gw_top_draw(&scr);
            deadline += period;
            if (deadline < gw_mono_ns()) /* late (a slow terminal): no catching up */
                deadline = gw_mono_ns() + period;
        } while (keys_until(&scr, &m, deadline));
        endwin();
        rc = 0;
    }
    gw_top_procs_free(procs);
    gw_top_model_free(&m);
    gw_sampler_close(sampler);
    return rc;
}

int gw_top_main(const gw_top_config *cfg)
{
    double interval_s = (double)cfg->interval_ms / 1000.0;
    gw_top_hosts *hosts = NULL;
    if (cfg->hosts) {
        char err[160];
        hosts = gw_top_hosts_new(cfg->hosts, interval_s, cfg->timeout_s, err, sizeof err);
        if (!hosts) {
            fprintf(stderr, "gpuwatch top: %s\n", err);
            return 2;
        }
    }
    if (!isatty(STDOUT_FILENO) || !isatty(STDIN_FILENO)) {
        fprintf(stderr, "gpuwatch top: needs a terminal (stdin and stdout): for a pipe or a file "
                        "use `gpuwatch` or `gpuwatch --json`\n");
        gw_top_hosts_free(hosts);
        return 1;
    }
    int rc = hosts ? run_hosts(cfg, hosts, interval_s) : run_local(cfg, interval_s);
    if (stop_sig == SIGINT || stop_sig == SIGTERM || stop_sig == SIGHUP)
        rc = 0;
    return rc;
}
