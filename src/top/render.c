/* top's drawing: the only file that draws (ncursesw). Layout in docs/top.md: a header line, a
 * block per GPU (values, clocks and throttle reasons, the low-SM flag, history charts), the
 * process table, and a status line; or the hosts' table. Everything fits the terminal from 80x24
 * up: charts widen with it and shrink to nothing when rows run out. */
#include "sampler/clock_reasons.h"
#include "top/top.h"

#include "util/gw_fmt.h"

#include <curses.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

enum { PAIR_UTIL = 1, PAIR_SM, PAIR_WARN, PAIR_CRIT, PAIR_HEAD, PAIR_DIM };

void gw_top_colors(void)
{
    short bg = use_default_colors() == OK ? -1 : COLOR_BLACK;
    init_pair(PAIR_UTIL, COLOR_CYAN, bg);
    init_pair(PAIR_SM, COLOR_GREEN, bg);
    init_pair(PAIR_WARN, COLOR_YELLOW, bg);
    init_pair(PAIR_CRIT, COLOR_RED, bg);
    init_pair(PAIR_HEAD, COLOR_BLACK, COLOR_CYAN);
    init_pair(PAIR_DIM, COLOR_BLUE, bg);
}

static attr_t pair_attr(const gw_top_screen *scr, short pair)
{
    return scr->color ? COLOR_PAIR(pair) : A_NORMAL;
}

/* Writes s at (y, x), at most `cols` columns (a UTF-8 sequence is one column: our strings are
 * sanitised and the glyphs we draw are single-width). Returns the columns written. */
static int put(int y, int x, int cols, const char *s)
{
    if (y < 0 || y >= LINES || x >= COLS || cols <= 0)
        return 0;
    if (x + cols > COLS)
        cols = COLS - x;
    int w = 0;
    size_t i = 0, start = 0;
    while (s[i] && w < cols) {
        i++;
        while ((s[i] & 0xC0) == 0x80)
            i++;
        w++;
    }
    mvaddnstr(y, x, s + start, (int)i);
    return w;
}

static int putf(int y, int x, int cols, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static int putf(int y, int x, int cols, const char *fmt, ...)
{
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    return put(y, x, cols, buf);
}

/* A number or "-" for absent, into buf. */
static const char *num(char *buf, size_t len, double v, int decimals)
{
    return gw_fmt_fixed(buf, len, v, decimals, 0, "-");
}

static double val(const gw_top_gpu *g, gw_gpu_field f)
{
    return g->have && gw_has(&g->cur, f) ? g->cur.v[f] : NAN;
}

static void fill_line(int y, attr_t a)
{
    attron(a);
    mvhline(y, 0, ' ', COLS);
    attroff(a);
}

static void header(const gw_top_screen *scr, int y)
{
    const gw_top_model *m = scr->m;
    char clock[16] = "--:--:--";
    if (m->wall_ms) {
        time_t t = (time_t)(m->wall_ms / 1000);
        struct tm tm;
        if (localtime_r(&t, &tm))
            strftime(clock, sizeof clock, "%H:%M:%S", &tm);
    }
    attr_t a = scr->color ? COLOR_PAIR(PAIR_HEAD) : A_REVERSE;
    fill_line(y, a);
    attron(a | A_BOLD);
    char every[GW_FMT_SIZE];
    gw_fmt_fixed(every, sizeof every, m->interval_s, 2, GW_FMT_TRIM, "?");
    if (scr->hosts)
        putf(y, 0, COLS, " gpuwatch top  %u host%s  %s  every %s s  (h: help, q: quit)",
             gw_top_hosts_count(scr->hosts), gw_top_hosts_count(scr->hosts) == 1 ? "" : "s", clock,
             every);
    else
        putf(y, 0, COLS, " gpuwatch top  %s  driver %s  %s  every %s s  (h: help, q: quit)",
             scr->hostname, scr->driver[0] ? scr->driver : "?", clock, every);
    attroff(a | A_BOLD);
}

/* A percentage coloured by how high it is (warn >= 80 for temperature-like values is not ours
 * to judge: only the memory and power shares and the temperature get colours). */
static attr_t level_attr(const gw_top_screen *scr, double v, double warn, double crit)
{
    if (isnan(v))
        return A_NORMAL;
    if (v >= crit)
        return pair_attr(scr, PAIR_CRIT) | A_BOLD;
    if (v >= warn)
        return pair_attr(scr, PAIR_WARN);
    return A_NORMAL;
}

/* One GPU's value lines. Returns the rows used. */
static int gpu_lines(const gw_top_screen *scr, const gw_top_gpu *g, int y)
{
    char a[GW_FMT_SIZE], b[GW_FMT_SIZE];
    double util = val(g, GW_F_UTIL_GPU_PCT), sm = val(g, GW_F_GPM_SM_ACTIVE_PCT);
    double used = val(g, GW_F_MEM_USED_MIB), total = val(g, GW_F_MEM_TOTAL_MIB);
    double power = val(g, GW_F_POWER_DRAW_W), limit = val(g, GW_F_POWER_LIMIT_W);
    double temp = val(g, GW_F_TEMP_GPU_C);
    if (isnan(total))
        total = g->info.memory_total_mib;
    if (isnan(limit))
        limit = g->info.power_limit_w;
    int x = 0, w = COLS;
    int name_w = COLS - 62 > 12 ? COLS - 62 : 12;
    if (name_w > 24)
        name_w = 24;
    attron(A_BOLD);
    x += putf(y, x, w, "[%u] %-*.*s", g->info.index, name_w, name_w, g->info.name);
    attroff(A_BOLD);
    if (g->cur.lost) {
        attron(pair_attr(scr, PAIR_CRIT) | A_BOLD);
        put(y, x, w - x, " GPU lost: its values are gone (check dmesg for an XID)");
        attroff(pair_attr(scr, PAIR_CRIT) | A_BOLD);
        return 1;
    }
    attron(pair_attr(scr, PAIR_UTIL));
    x += putf(y, x, w - x, " Util %3s%%", num(a, sizeof a, util, 0));
    attroff(pair_attr(scr, PAIR_UTIL));
    attron(pair_attr(scr, PAIR_SM));
    x += putf(y, x, w - x, "  SM %3s%%", num(a, sizeof a, sm, 0));
    attroff(pair_attr(scr, PAIR_SM));
    double mem_pct = total > 0 ? 100.0 * used / total : NAN;
    attr_t ma = level_attr(scr, mem_pct, 90, 98);
    attron(ma);
    x += putf(y, x, w - x, "  Mem %s/%s GiB", num(a, sizeof a, used / 1024.0, 1),
              num(b, sizeof b, total / 1024.0, 0));
    attroff(ma);
    attr_t pa = level_attr(scr, limit > 0 ? 100.0 * power / limit : NAN, 95, 100);
    attron(pa);
    x += putf(y, x, w - x, "  %s/%s W", num(a, sizeof a, power, 0), num(b, sizeof b, limit, 0));
    attroff(pa);
    double slow = g->info.slowdown_temp_c;
    attr_t ta = isnan(slow) ? level_attr(scr, temp, 80, 90) : level_attr(scr, temp, slow - 8, slow);
    attron(ta);
    putf(y, x, w - x, "  %sC", num(a, sizeof a, temp, 0));
    attroff(ta);

    /* clocks and the reasons they are held down */
    int rows = 1;
    double clk = val(g, GW_F_CLOCK_SM_MHZ), max = g->info.max_sm_clock_mhz;
    x = put(y + rows, 0, w, "    ");
    x += putf(y + rows, x, w - x, "SM clock %s/%s MHz", num(a, sizeof a, clk, 0),
              num(b, sizeof b, max, 0));
    if (gw_has(&g->cur, GW_F_PSTATE))
        x += putf(y + rows, x, w - x, "  P%s", GW_FIXED(g->cur.v[GW_F_PSTATE], 0));
    if (gw_has(&g->cur, GW_F_CLOCKS_EVENT_REASONS)) {
        uint64_t mask = gw_reasons_of(g->cur.v[GW_F_CLOCKS_EVENT_REASONS]);
        char c[GW_FMT_SIZE * 4];
        gw_top_reasons(mask, c, sizeof c);
        bool slowed = gw_reasons_slowed(mask);
        x += put(y + rows, x, w - x, "  throttle: ");
        attr_t ra = slowed ? pair_attr(scr, PAIR_WARN) | A_BOLD : A_NORMAL;
        attron(ra);
        put(y + rows, x, w - x, c);
        attroff(ra);
    }
    rows++;
    if (gw_top_low_sm(g)) {
        attr_t fa = pair_attr(scr, PAIR_WARN) | A_BOLD | (scr->color ? 0 : A_REVERSE);
        attron(fa);
        putf(y + rows, 0, w,
             "    ! LOW SM: Util %s%% but SM activity %s%%: kernels keep few SMs busy",
             num(a, sizeof a, util, 0), num(b, sizeof b, sm, 0));
        attroff(fa);
        rows++;
    }
    return rows;
}

/* A chart of one or two series (0-100) in a box of h rows x w columns at (y, x): `a` light,
 * `b` solid on top of it. Columns are gw_top_ring_columns over `span` ticks. */
static void chart(const gw_top_screen *scr, int y, int x, int h, int w, const gw_top_ring *ra,
                  const gw_top_ring *rb, unsigned span, short pair_a, short pair_b)
{
    if (h < 1 || w < 2)
        return;
    double va[512], vb[512];
    if (w > 512)
        w = 512;
    gw_top_ring_columns(ra, span, (unsigned)w, va);
    if (rb)
        gw_top_ring_columns(rb, span, (unsigned)w, vb);
    static const char *const eighths[] = {" ", "▁", "▂", "▃", "▄", "▅", "▆", "▇", "█"};
    for (int c = 0; c < w; c++) {
        for (int r = 0; r < h; r++) {
            double lo = 100.0 * (h - 1 - r) / h, step = 100.0 / h;
            const char *glyph = scr->utf8 ? "·" : ".";
            attr_t at = pair_attr(scr, PAIR_DIM);
            double fa = isnan(va[c]) ? 0 : (va[c] - lo) / step;
            double fb = !rb || isnan(vb[c]) ? 0 : (vb[c] - lo) / step;
            if (r != h - 1 || !isnan(va[c]) || (rb && !isnan(vb[c])))
                glyph = " "; /* the dotted baseline marks ticks not held yet */
            if (fb > 0 && (fb >= 1 || fb >= fa)) {
                int e = fb >= 1 ? 8 : (int)(fb * 8 + 0.5);
                glyph = scr->utf8 ? eighths[e] : (fb >= 0.5 ? "#" : " ");
                at = pair_attr(scr, pair_b);
            } else if (fa > 0) {
                int e = fa >= 1 ? 8 : (int)(fa * 8 + 0.5);
                if (rb) /* the light series under the solid one */
                    glyph = scr->utf8 ? (fa >= 0.5 ? "░" : " ") : (fa >= 0.5 ? ":" : " ");
                else
                    glyph = scr->utf8 ? eighths[e] : (fa >= 0.5 ? "#" : " ");
                at = pair_attr(scr, pair_a);
            }
            attron(at);
            put(y + r, x + c, 1, glyph);
            attroff(at);
        }
    }
}

/* How long `span` ticks are, for chart titles ("5 min", "90 s"). */
static void span_text(double seconds, char *buf, size_t len)
{
    if (seconds >= 120)
        snprintf(buf, len, "%s min", GW_FIXED(seconds / 60, 0));
    else
        snprintf(buf, len, "%s s", GW_FIXED(seconds, 0));
}

/* The charts of one GPU in `rows` rows (util + SM over the full width, then memory and power
 * side by side). */
static void gpu_charts(const gw_top_screen *scr, const gw_top_gpu *g, int y, int rows)
{
    const gw_top_model *m = scr->m;
    unsigned span = (unsigned)(300.0 / m->interval_s); /* the last 5 minutes */
    if (span > GW_TOP_HIST)
        span = GW_TOP_HIST;
    if (span < 2)
        span = 2;
    int w = COLS - 5;
    if (w < 10 || rows < 1)
        return;
    if (rows == 1) { /* too many GPUs for full charts: GPU-Util as one line of eighths */
        attron(A_BOLD);
        put(y, 0, 4, "util");
        attroff(A_BOLD);
        chart(scr, y, 5, 1, w - 1, &g->util, NULL, span, PAIR_UTIL, PAIR_UTIL);
        return;
    }
    int h1 = rows >= 5 ? (rows * 3 + 4) / 5 : rows, h2 = rows - h1;
    if (h2 == 1) { /* a one-row chart says little: give it to the first */
        h1++;
        h2 = 0;
    }
    char t[32], a[GW_FMT_SIZE];
    span_text(span * m->interval_s, t, sizeof t);
    /* left scale and titles over the chart */
    put(y, 0, 4, "100");
    put(y + h1 - 1, 0, 4, "  0");
    chart(scr, y, 4, h1, w, &g->util, &g->sm, span, PAIR_UTIL, PAIR_SM);
    attron(A_BOLD);
    putf(y, 5, w - 1, " Util%s SM%s last %s ", scr->utf8 ? "░" : ":", scr->utf8 ? "█" : "#", t);
    attroff(A_BOLD);
    if (h2 < 1)
        return;
    int half = (w - 1) / 2;
    int y2 = y + h1;
    put(y2, 0, 4, "mem");
    chart(scr, y2, 4, h2, half, &g->mem_pct, NULL, span, PAIR_WARN, PAIR_WARN);
    putf(y2, 5, half - 1, " Mem %s%% ", num(a, sizeof a, gw_top_ring_ago(&g->mem_pct, 0), 0));
    chart(scr, y2, 5 + half, h2, w - half - 1, &g->power_pct, NULL, span, PAIR_CRIT, PAIR_CRIT);
    putf(y2, 6 + half, w - half - 2, " Power %s%% of limit ",
         num(a, sizeof a, gw_top_ring_ago(&g->power_pct, 0), 0));
}

static void fmt_elapsed(double s, char *buf, size_t len)
{
    if (isnan(s)) {
        snprintf(buf, len, "-");
        return;
    }
    long t = (long)s;
    if (t >= 86400)
        snprintf(buf, len, "%ldd%02ldh", t / 86400, t / 3600 % 24);
    else if (t >= 3600)
        snprintf(buf, len, "%ld:%02ld:%02ld", t / 3600, t / 60 % 60, t % 60);
    else
        snprintf(buf, len, "%ld:%02ld", t / 60, t % 60);
}

/* "70618MiB", or "-" when absent. */
static void mib_cell(char *buf, size_t len, double v)
{
    if (isnan(v)) {
        snprintf(buf, len, "-");
    } else {
        char n[GW_FMT_SIZE];
        snprintf(buf, len, "%sMiB", num(n, sizeof n, v, 0));
    }
}

static const char *base_name(const char *path)
{
    size_t n = strlen(path);
    while (n > 1 && path[n - 1] == '/')
        n--;
    const char *p = path + n;
    while (p > path && p[-1] != '/')
        p--;
    return p;
}

/* The process table from row y to y + rows - 1 (its header included). */
static void proc_table(const gw_top_screen *scr, int y, int rows)
{
    const gw_top_model *m = scr->m;
    if (rows < 2)
        return;
    bool wide = COLS >= 120;
    int runw = wide ? 16 : 3;
    attr_t ha = scr->color ? COLOR_PAIR(PAIR_HEAD) : A_REVERSE;
    fill_line(y, ha);
    attron(ha);
    putf(y, 0, COLS, "%7s %-8s %3s %8s %5s %8s %8s %-6s %-*s COMMAND", "PID", "USER", "GPU",
         "GPU-MEM", "CPU%", "HOST-MEM", "TIME", "ROLE", runw, "RUN");
    attroff(ha);
    int body = rows - 1;
    unsigned first = 0;
    if (m->sel >= (unsigned)body)
        first = m->sel - (unsigned)body + 1;
    if (m->nshown == 0) {
        put(y + 1, 2, COLS - 2,
            m->nproc ? "no process matches the filter (Esc clears it)" : "no GPU process");
        return;
    }
    for (int r = 0; r < body && first + (unsigned)r < m->nshown; r++) {
        const gw_top_proc *p = &m->procs[m->shown[first + (unsigned)r]];
        char gm[GW_FMT_SIZE + 4], cpu[GW_FMT_SIZE], rss[GW_FMT_SIZE + 4], el[24], run[24];
        char cmd[300];
        mib_cell(gm, sizeof gm, p->gpu_mib);
        num(cpu, sizeof cpu, p->cpu_pct, 0);
        mib_cell(rss, sizeof rss, p->rss_mib);
        fmt_elapsed(p->elapsed_s, el, sizeof el);
        snprintf(run, sizeof run, "%s", !p->run[0] ? "-" : wide ? base_name(p->run) : "yes");
        snprintf(cmd, sizeof cmd, "%*s%s%s", (int)(2 * (p->depth > 8 ? 8 : p->depth)), "",
                 p->depth ? (scr->utf8 ? "└ " : "`-") : "", p->cmd);
        bool sel = first + (unsigned)r == m->sel;
        if (sel)
            fill_line(y + 1 + r, A_REVERSE);
        attr_t ra = sel ? A_REVERSE | A_BOLD : A_NORMAL;
        attron(ra);
        putf(y + 1 + r, 0, COLS, "%7u %-8.8s %3u %8s %5s %8s %8s %-6s %-*.*s %s", p->pid,
             p->user[0] ? p->user : "-", p->gpu, gm, cpu, rss, el,
             p->role == GW_TOP_ROLE_WORKER ? "worker" : "train", runw, runw, run, cmd);
        attroff(ra);
    }
}

static void status_line(const gw_top_screen *scr)
{
    const gw_top_model *m = scr->m;
    int y = LINES - 1;
    move(y, 0);
    clrtoeol();
    if (m->mode == GW_TOP_CONFIRM) {
        const gw_top_proc *p = NULL;
        for (unsigned i = 0; i < m->nproc; i++)
            if (m->procs[i].pid == m->confirm_pid)
                p = &m->procs[i];
        attron(pair_attr(scr, PAIR_CRIT) | A_BOLD | A_REVERSE);
        putf(y, 0, COLS, "Send %s to %u (%.40s)? y/n", gw_top_signal_name(m->confirm_sig),
             m->confirm_pid, p ? p->cmd : "?");
        attroff(pair_attr(scr, PAIR_CRIT) | A_BOLD | A_REVERSE);
    } else if (m->mode == GW_TOP_FILTER) {
        putf(y, 0, COLS, "filter (Enter keeps, Esc clears): %s_", m->filter);
    } else if (m->message[0]) {
        attron(A_BOLD);
        put(y, 0, COLS, m->message);
        attroff(A_BOLD);
    } else if (scr->hosts) {
        put(y, 0, COLS, "q quit  h help");
    } else {
        /* the state, then the keys when they fit, else only the key to the keys: never a hint
         * cut in the middle */
        char state[200];
        snprintf(state, sizeof state, "sort: %s%s%s%s%.40s", gw_top_sort_name(m->sort),
                 m->reverse ? " (reversed)" : "", m->tree ? ", tree" : "",
                 m->filter[0] ? ", filter: " : "", m->filter);
        static const char *const keys[] = {
            " | s sort  r reverse  t tree  / filter  T/K/I signal  j/k select  h help",
            " | s sort  r reverse  t tree  / filter  T/K/I signal  h help", " | h: help, keys"};
        size_t k = 0;
        while (k + 1 < sizeof keys / sizeof keys[0] &&
               (int)(strlen(state) + strlen(keys[k])) > COLS)
            k++;
        putf(y, 0, COLS, "%s%s", state, keys[k]);
    }
}

static void help_screen(void)
{
    static const char *const lines[] = {
        "Keys",
        "",
        "  Up/Down, j/k   select a process (PgUp/PgDn, g/G: by ten, first, last)",
        "  s / S          sort by the next / previous column: GPU memory, CPU %,",
        "                 host memory, time, pid, user, command",
        "  r              reverse the order",
        "  t              tree: workers under the process that started them",
        "  /              filter by user, command, pid or run (Enter keeps, Esc clears)",
        "  T / K / I      send SIGTERM / SIGKILL / SIGINT to the selected process,",
        "                 after you confirm with y",
        "  q              quit (also Ctrl-C); Ctrl-Z suspends",
        "",
        "Flags: LOW SM = GPU-Util >= 80 % while SM activity <= 30 %: a kernel is",
        "running but keeps few SMs busy. Charts: the last 5 minutes (docs/top.md).",
        "",
        "Any key returns.",
    };
    for (size_t i = 0; i < sizeof lines / sizeof lines[0]; i++)
        put(2 + (int)i, 2, COLS - 2, lines[i]);
}

/* A GPU model without the vendor ("H200"): the compact view has no room for it. */
static const char *short_model(const char *name)
{
    return strncmp(name, "NVIDIA ", 7) == 0 ? name + 7 : name;
}

static void hosts_table(const gw_top_screen *scr, int y)
{
    unsigned n = gw_top_hosts_count(scr->hosts);
    gw_top_host_view v;
    int hw = 8;
    for (unsigned i = 0; i < n; i++) {
        gw_top_hosts_get(scr->hosts, i, &v);
        int len = (int)strlen(v.addr);
        hw = len > hw ? len : hw;
    }
    hw = hw > 30 ? 30 : hw;
    attr_t ha = scr->color ? COLOR_PAIR(PAIR_HEAD) : A_REVERSE;
    fill_line(y, ha);
    attron(ha);
    putf(y, 0, COLS, "%-*s %3s %-10s %4s %4s %9s %7s %4s %s", hw, "HOST", "GPU", "NAME", "UTIL",
         "SM", "MEM GiB", "POWER W", "TEMP", "STATE");
    attroff(ha);
    y++;
    for (unsigned i = 0; i < n && y < LINES - 1; i++) {
        gw_top_hosts_get(scr->hosts, i, &v);
        char age[GW_FMT_SIZE];
        num(age, sizeof age, v.age_s, 0);
        attr_t sa = pair_attr(scr, PAIR_CRIT) | A_BOLD;
        for (unsigned k = 0; k < v.ngpu && y < LINES - 1; k++) {
            const gw_top_remote_gpu *g = &v.gpus[k];
            char u[GW_FMT_SIZE], sm[GW_FMT_SIZE], mu[GW_FMT_SIZE], mt[GW_FMT_SIZE];
            char p[GW_FMT_SIZE], pl[GW_FMT_SIZE], t[GW_FMT_SIZE], mem[48], pw[48];
            snprintf(mem, sizeof mem, "%s/%s", num(mu, sizeof mu, g->mem_used / 1024.0, 1),
                     num(mt, sizeof mt, g->mem_total / 1024.0, 0));
            snprintf(pw, sizeof pw, "%s/%s", num(p, sizeof p, g->power, 0),
                     num(pl, sizeof pl, g->power_limit, 0));
            bool low = !v.stale && g->util >= GW_TOP_HIGH_UTIL_PCT && g->sm <= GW_TOP_LOW_SM_PCT;
            attr_t a = v.stale ? A_DIM : A_NORMAL;
            attron(a);
            int x = putf(y, 0, COLS, "%-*.*s %3.3s %-10.10s %3s%% %3s%% %9s %7s %3sC ", hw, hw,
                         k == 0 ? v.addr : "", g->gpu, short_model(g->name),
                         num(u, sizeof u, g->util, 0), num(sm, sizeof sm, g->sm, 0), mem, pw,
                         num(t, sizeof t, g->temp, 0));
            attroff(a);
            attr_t st = v.stale ? sa : A_NORMAL;
            attron(st);
            x += put(y, x, COLS - x, v.stale ? "STALE" : "ok");
            attroff(st);
            if (low) {
                attron(pair_attr(scr, PAIR_WARN) | A_BOLD);
                put(y, x, COLS - x, " LOW SM");
                attroff(pair_attr(scr, PAIR_WARN) | A_BOLD);
            }
            y++;
        }
        if (v.ngpu_reported > v.ngpu && y < LINES - 1) /* never fewer GPUs without a word */
            putf(y++, 0, COLS, "%-*.*s ... %u more GPUs of this host not shown (top shows %u)", hw,
                 hw, "", v.ngpu_reported - v.ngpu, v.ngpu);
        if (v.stale && y < LINES - 1) { /* why, on a line of its own */
            attron(sa);
            if (v.ever_ok)
                putf(y++, 0, COLS, "%-*.*s STALE: no answer for %s s (%s)", hw, hw,
                     v.ngpu ? "" : v.addr, age, v.error[0] ? v.error : "slow");
            else
                putf(y++, 0, COLS, "%-*.*s STALE: %s", hw, hw, v.ngpu ? "" : v.addr,
                     v.error[0] ? v.error : "no answer yet");
            attroff(sa);
        }
    }
}

void gw_top_draw(const gw_top_screen *scr)
{
    const gw_top_model *m = scr->m;
    erase();
    header(scr, 0);
    if (m->mode == GW_TOP_HELP) {
        help_screen();
        status_line(scr);
        refresh();
        return;
    }
    if (scr->hosts) {
        hosts_table(scr, 1);
        status_line(scr);
        refresh();
        return;
    }
    /* rows: header, per GPU its value lines, charts, then the processes (4 rows at least: a
     * header and 3 processes) and the status line */
    int y = 1, value_rows = 0;
    for (unsigned i = 0; i < m->ngpu; i++)
        value_rows += 2 + gw_top_low_sm(&m->gpus[i]);
    int procs_min = m->nproc ? (int)(m->nproc < 3 ? m->nproc : 3) + 1 : 2;
    int spare = LINES - 2 - value_rows - procs_min;
    int chart_rows = m->ngpu ? spare / (int)m->ngpu : 0;
    if (chart_rows > 12)
        chart_rows = 12;
    if (chart_rows < 3) /* a line of GPU-Util history each, else none */
        chart_rows = chart_rows >= 1 ? 1 : 0;
    for (unsigned i = 0; i < m->ngpu && y < LINES - 1; i++) {
        /* its value lines, and a row for the note should the next not fit */
        int need = 2 + gw_top_low_sm(&m->gpus[i]) + (i + 1 < m->ngpu);
        if (i > 0 && y + need > LINES - 1 - procs_min) { /* keep room for the processes */
            attron(A_BOLD);
            putf(y++, 0, COLS, "... %u more GPU%s: enlarge the terminal", m->ngpu - i,
                 m->ngpu - i == 1 ? "" : "s");
            attroff(A_BOLD);
            break;
        }
        y += gpu_lines(scr, &m->gpus[i], y);
        if (chart_rows && !m->gpus[i].cur.lost) {
            gpu_charts(scr, &m->gpus[i], y, chart_rows);
            y += chart_rows;
        }
    }
    if (y < LINES - 1)
        proc_table(scr, y, LINES - 1 - y);
    status_line(scr);
    refresh();
}
