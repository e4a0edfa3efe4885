/* top's hosts: other nodes' `gpuwatch serve` /metrics, fetched with timeouts in a thread per host
 * and parsed into one row per GPU (top.h). A host that does not answer in time is marked stale. */
#include "top/top.h"

#include "util/gw_buf.h"
#include "util/gw_fmt.h"
#include "util/gw_time.h"
#include "util/gw_utf8.h"
#include "util/xalloc.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <netdb.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

/* Copies src into dst (cap bytes), cut at the end. */
static void copy_str(char *dst, size_t cap, const char *src)
{
    size_t n = strnlen(src, cap - 1);
    memcpy(dst, src, n);
    dst[n] = '\0';
}

/* ---- Prometheus text ---- */

/* Reads a label value in quotes at *p (after the '"') into out; returns false on a bad line. */
static bool label_value(const char **p, char *out, size_t len)
{
    size_t k = 0;
    const char *s = *p;
    for (; *s && *s != '"' && *s != '\n'; s++) {
        char c = *s;
        if (c == '\\' && s[1] && s[1] != '\n') {
            s++;
            c = *s == 'n' ? ' ' : *s;
        }
        if (k + 1 < len && (unsigned char)c >= 32)
            out[k++] = c;
    }
    if (len)
        out[k] = '\0';
    if (*s != '"')
        return false;
    *p = s + 1;
    return true;
}

typedef struct metric_line {
    char name[64];
    char gpu[16], model[64], host[64];
    double value;
} metric_line;

/* Parses one sample line. Returns false for comments, blank and malformed lines. */
static bool parse_line(const char *s, const char *end, metric_line *m)
{
    memset(m, 0, sizeof *m);
    if (s >= end || *s == '#')
        return false;
    size_t n = 0;
    while (s < end && *s != '{' && *s != ' ' && n + 1 < sizeof m->name)
        m->name[n++] = *s++;
    m->name[n] = '\0';
    if (s < end && *s == '{') {
        s++;
        while (s < end && *s != '}') {
            char key[32];
            size_t k = 0;
            while (s < end && *s != '=' && *s != '}' && k + 1 < sizeof key)
                key[k++] = *s++;
            key[k] = '\0';
            if (s + 1 >= end || s[0] != '=' || s[1] != '"')
                return false;
            s += 2;
            char val[96];
            if (!label_value(&s, val, sizeof val) || s > end)
                return false;
            if (strcmp(key, "gpu") == 0)
                gw_utf8_clean(m->gpu, sizeof m->gpu, val, strlen(val));
            else if (strcmp(key, "modelName") == 0)
                copy_str(m->model, sizeof m->model, val);
            else if (strcmp(key, "Hostname") == 0)
                copy_str(m->host, sizeof m->host, val);
            if (s < end && *s == ',')
                s++;
        }
        if (s >= end)
            return false;
        s++;
    }
    while (s < end && *s == ' ')
        s++;
    char *e = NULL;
    m->value = strtod(s, &e);
    return e != s && m->name[0];
}

unsigned gw_top_parse_metrics(const char *text, gw_top_remote_gpu *out, unsigned max,
                              char *hostname, size_t hostname_len, unsigned *reported)
{
    unsigned n = 0, first_count = 0;
    char first[64] = ""; /* the first DCGM_FI_ series: one sample per GPU of the host */
    if (hostname_len)
        hostname[0] = '\0';
    double free_mib[64];
    for (unsigned i = 0; i < 64; i++)
        free_mib[i] = NAN;
    for (const char *s = text; s && *s;) {
        const char *end = strchr(s, '\n');
        if (!end)
            end = s + strlen(s);
        metric_line m;
        if (parse_line(s, end, &m) && m.gpu[0] && strncmp(m.name, "DCGM_FI_", 8) == 0) {
            if (!first[0])
                copy_str(first, sizeof first, m.name);
            first_count += strcmp(first, m.name) == 0;
            unsigned i = 0;
            while (i < n && strcmp(out[i].gpu, m.gpu) != 0)
                i++;
            if (i == n && n < max && n < 64) {
                gw_top_remote_gpu *g = &out[n++];
                memset(g, 0, sizeof *g);
                copy_str(g->gpu, sizeof g->gpu, m.gpu);
                g->util = g->sm = g->mem_used = g->mem_total = g->power = NAN;
                g->power_limit = g->temp = g->sm_clock = NAN;
            }
            if (i < n) {
                gw_top_remote_gpu *g = &out[i];
                /* another host's text: no control or bidi character reaches the screen */
                if (m.model[0])
                    gw_utf8_clean(g->name, sizeof g->name, m.model, strlen(m.model));
                if (m.host[0] && hostname_len)
                    gw_utf8_clean(hostname, hostname_len, m.host, strlen(m.host));
                const char *f = m.name + 8;
                if (strcmp(f, "DEV_GPU_UTIL") == 0)
                    g->util = m.value;
                else if (strcmp(f, "PROF_SM_ACTIVE") == 0)
                    g->sm = m.value * 100.0; /* a ratio in the exporter */
                else if (strcmp(f, "DEV_FB_USED") == 0)
                    g->mem_used = m.value;
                else if (strcmp(f, "DEV_FB_FREE") == 0)
                    free_mib[i] = m.value;
                else if (strcmp(f, "DEV_POWER_USAGE") == 0)
                    g->power = m.value;
                else if (strcmp(f, "DEV_POWER_MGMT_LIMIT") == 0)
                    g->power_limit = m.value;
                else if (strcmp(f, "DEV_GPU_TEMP") == 0)
                    g->temp = m.value;
                else if (strcmp(f, "DEV_SM_CLOCK") == 0)
                    g->sm_clock = m.value;
            }
        }
        s = *end ? end + 1 : end;
    }
    if (reported)
        *reported = first_count > n ? first_count : n;
    for (unsigned i = 0; i < n; i++) /* dcgm-exporter has no total: used + free */
        if (!isnan(out[i].mem_used) && !isnan(free_mib[i]))
            out[i].mem_total = out[i].mem_used + free_mib[i];
    return n;
}

/* ---- fetching ---- */

typedef struct host {
    struct gw_top_hosts *owner;
    pthread_t thread;
    bool started;
    char name[128]; /* the host part */
    char port[8];
    gw_top_host_view view; /* under owner->lock */
    int64_t ok_ns;         /* monotonic time of the last answer, 0 = never */
} host;

struct gw_top_hosts {
    pthread_mutex_t lock;
    pthread_cond_t wake;
    bool stop;
    double interval_s, timeout_s;
    unsigned n;
    host *hosts;
};

gw_top_hosts *gw_top_hosts_new(const char *list, double interval_s, double timeout_s, char *err,
                               size_t errlen)
{
    gw_top_hosts *h = xcalloc(1, sizeof *h);
    h->interval_s = interval_s > 0 ? interval_s : 1.0;
    h->timeout_s = timeout_s > 0 ? timeout_s : 2.0;
    pthread_mutex_init(&h->lock, NULL);
    pthread_cond_init(&h->wake, NULL);
    char *copy = xstrdup(list ? list : ""), *save = NULL;
    for (char *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        char *colon = strrchr(tok, ':');
        char *endp = NULL;
        long port = colon ? strtol(colon + 1, &endp, 10) : 0;
        if (!colon || colon == tok || !endp || *endp || port < 1 || port > 65535) {
            snprintf(err, errlen,
                     "--hosts entry '%.40s' is not HOST:PORT (e.g. node1:9400, a `gpuwatch serve`)",
                     tok);
            goto bad;
        }
        if (h->n == 64) {
            snprintf(err, errlen, "--hosts lists more than 64 hosts: split them over two views");
            goto bad;
        }
        h->hosts = xrealloc(h->hosts, (h->n + 1) * sizeof *h->hosts);
        host *e = &h->hosts[h->n++];
        memset(e, 0, sizeof *e);
        e->owner = h;
        *colon = '\0';
        copy_str(e->name, sizeof e->name, tok);
        snprintf(e->port, sizeof e->port, "%ld", port);
        snprintf(e->view.addr, sizeof e->view.addr, "%s:%ld", tok, port);
        e->view.age_s = NAN;
        snprintf(e->view.error, sizeof e->view.error, "waiting for the first answer");
        e->view.stale = true;
    }
    free(copy);
    if (h->n == 0) {
        snprintf(err, errlen, "--hosts needs HOST:PORT[,HOST:PORT...] (e.g. node1:9400)");
        gw_top_hosts_free(h);
        return NULL;
    }
    return h;
bad:
    free(copy);
    gw_top_hosts_free(h);
    return NULL;
}

unsigned gw_top_hosts_count(const gw_top_hosts *h)
{
    return h ? h->n : 0;
}

/* Waits until fd is ready for `events` or the deadline passes. */
static bool wait_fd(int fd, short events, int64_t deadline_ns)
{
    for (;;) {
        int64_t left = deadline_ns - gw_mono_ns();
        if (left <= 0)
            return false;
        struct pollfd pfd = {.fd = fd, .events = events};
        int r = poll(&pfd, 1, (int)(left / 1000000 + 1));
        if (r > 0)
            return true;
        if (r < 0 && errno != EINTR)
            return false;
    }
}

/* A host's /metrics answer at most: ours for 8 GPUs is some 30 KiB, dcgm-exporter's with every
 * profiling field some 200 KiB; 32 hosts answering 15 MiB each kept 729 MB. */
enum { ANSWER_MAX_BYTES = 2 << 20 };

/* GET /metrics within the timeout. Returns the body (malloc'd) or NULL with err set. */
static char *http_get(const host *e, double timeout_s, char *err, size_t errlen)
{
    int64_t deadline = gw_mono_ns() + (int64_t)(timeout_s * 1e9);
    struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM}, *ai = NULL;
    int rc = getaddrinfo(e->name, e->port, &hints, &ai);
    if (rc != 0 || !ai) {
        snprintf(err, errlen, "unknown host (%s)", gai_strerror(rc));
        return NULL;
    }
    int fd = socket(ai->ai_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        snprintf(err, errlen, "socket: %s", strerror(errno));
        freeaddrinfo(ai);
        return NULL;
    }
    char *body = NULL;
    gw_buf resp = {0};
    if (connect(fd, ai->ai_addr, ai->ai_addrlen) != 0 && errno != EINPROGRESS) {
        snprintf(err, errlen, "%s", strerror(errno));
        goto out;
    }
    if (!wait_fd(fd, POLLOUT, deadline)) {
        snprintf(err, errlen, "no connection within %s s", GW_FIXED(timeout_s, 1));
        goto out;
    }
    int soerr = 0;
    socklen_t sl = sizeof soerr;
    if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &sl) != 0 || soerr) {
        snprintf(err, errlen, "%s", strerror(soerr ? soerr : errno));
        goto out;
    }
    char req[256];
    int rl = snprintf(req, sizeof req,
                      "GET /metrics HTTP/1.0\r\nHost: %s:%s\r\nUser-Agent: gpuwatch-top\r\n\r\n",
                      e->name, e->port);
    if (rl < 0 || (size_t)rl >= sizeof req ||
        send(fd, req, (size_t)rl, MSG_NOSIGNAL) != (ssize_t)rl) {
        snprintf(err, errlen, "cannot send the request");
        goto out;
    }
    for (;;) {
        if (!wait_fd(fd, POLLIN, deadline)) {
            snprintf(err, errlen, "no answer within %s s", GW_FIXED(timeout_s, 1));
            goto out;
        }
        char chunk[16384];
        ssize_t r = recv(fd, chunk, sizeof chunk, 0);
        if (r < 0 && (errno == EINTR || errno == EAGAIN))
            continue;
        if (r < 0) {
            snprintf(err, errlen, "%s", strerror(errno));
            goto out;
        }
        if (r == 0)
            break;
        if (resp.len + (size_t)r > ANSWER_MAX_BYTES) {
            snprintf(err, errlen, "answer larger than %d MiB", ANSWER_MAX_BYTES >> 20);
            goto out;
        }
        gw_buf_append(&resp, chunk, (size_t)r);
    }
    const char *text = resp.data ? resp.data : "";
    const char *sep = strstr(text, "\r\n\r\n");
    if (strncmp(text, "HTTP/1.", 7) != 0 || !sep || strncmp(text + 8, " 200", 4) != 0) {
        snprintf(err, errlen, "not a /metrics answer (HTTP %.3s)",
                 strlen(text) > 12 ? text + 9 : "?");
        goto out;
    }
    /* the body in place: no second copy of an answer */
    size_t skip = (size_t)(sep + 4 - text);
    memmove(resp.data, resp.data + skip, resp.len - skip + 1);
    body = resp.data;
    resp = (gw_buf){0};
out:
    gw_buf_free(&resp);
    close(fd);
    freeaddrinfo(ai);
    return body;
}

static void *host_thread(void *arg)
{
    host *e = arg;
    gw_top_hosts *h = e->owner;
    for (;;) {
        char err[96] = "";
        char *body = http_get(e, h->timeout_s, err, sizeof err);
        gw_top_remote_gpu gpus[16];
        char name[64] = "";
        unsigned reported = 0;
        unsigned n = body ? gw_top_parse_metrics(body, gpus, 16, name, sizeof name, &reported) : 0;
        if (body && n == 0)
            snprintf(err, sizeof err, "no DCGM_FI_ series with a gpu label");
        free(body);
        pthread_mutex_lock(&h->lock);
        if (n) {
            e->ok_ns = gw_mono_ns();
            e->view.ever_ok = true;
            e->view.ngpu = n;
            e->view.ngpu_reported = reported;
            memcpy(e->view.gpus, gpus, n * sizeof gpus[0]);
            copy_str(e->view.hostname, sizeof e->view.hostname, name);
            e->view.error[0] = '\0';
        } else {
            copy_str(e->view.error, sizeof e->view.error, err);
        }
        int64_t until = gw_mono_ns() + (int64_t)(h->interval_s * 1e9);
        while (!h->stop && gw_mono_ns() < until) {
            struct timespec ts;
            clock_gettime(CLOCK_REALTIME, &ts);
            ts.tv_nsec += 100 * 1000000;
            if (ts.tv_nsec >= 1000000000) {
                ts.tv_sec++;
                ts.tv_nsec -= 1000000000;
            }
            pthread_cond_timedwait(&h->wake, &h->lock, &ts);
        }
        bool stop = h->stop;
        pthread_mutex_unlock(&h->lock);
        if (stop)
            return NULL;
    }
}

void gw_top_hosts_start(gw_top_hosts *h)
{
    for (unsigned i = 0; i < h->n; i++)
        h->hosts[i].started =
            pthread_create(&h->hosts[i].thread, NULL, host_thread, &h->hosts[i]) == 0;
}

void gw_top_hosts_get(gw_top_hosts *h, unsigned i, gw_top_host_view *out)
{
    pthread_mutex_lock(&h->lock);
    host *e = &h->hosts[i];
    *out = e->view;
    int64_t now = gw_mono_ns();
    out->age_s = e->ok_ns ? (double)(now - e->ok_ns) / 1e9 : NAN;
    /* stale: the last try failed, or no answer for three refreshes (a slow host) */
    double limit = fmax(3.0 * h->interval_s, h->timeout_s + h->interval_s);
    out->stale = !e->ok_ns || e->view.error[0] || out->age_s > limit;
    pthread_mutex_unlock(&h->lock);
}

void gw_top_hosts_free(gw_top_hosts *h)
{
    if (!h)
        return;
    pthread_mutex_lock(&h->lock);
    h->stop = true;
    pthread_cond_broadcast(&h->wake);
    pthread_mutex_unlock(&h->lock);
    for (unsigned i = 0; i < h->n; i++)
        if (h->hosts[i].started)
            pthread_join(h->hosts[i].thread, NULL);
    pthread_mutex_destroy(&h->lock);
    pthread_cond_destroy(&h->wake);
    free(h->hosts);
    free(h);
}
