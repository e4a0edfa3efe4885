#include "http/http_server.h"

#include "http/mhd_dl.h"
#include "util/xalloc.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdbool.h>
#include <netdb.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

/* One open connection and its deadline (the reaper's list). */
typedef struct tracked {
    int fd;
    struct sockaddr_storage addr; /* the client's address (the port is not compared) */
    int64_t deadline_ns;          /* CLOCK_MONOTONIC */
    bool busy;                    /* its request has arrived and is being answered */
    bool reaped; /* shut down already (deadline or evicted): libmicrohttpd closes it next turn */
    struct tracked *prev, *next;
} tracked;

/* The deadlines: connections are added and removed in libmicrohttpd's thread, a reaper thread
 * shuts down those past their deadline. A socket is shut down, never closed, here: it stays
 * libmicrohttpd's, and the lock keeps it open until the CLOSED notification has removed it. */
typedef struct reaper {
    pthread_mutex_t lock;
    pthread_cond_t wake;
    pthread_t thread;
    bool running, stop;
    int64_t timeout_ns;
    unsigned max, per_ip; /* connections at once, and from one address */
    unsigned count;       /* connections in the list */
    tracked *head, *tail; /* in deadline order: every new deadline is the latest */
} reaper;

struct gw_http_server {
    gw_http_config cfg;
    char *listen;     /* the address as the user wrote it */
    int fd;           /* listening socket until the daemon owns it */
    char address[80]; /* the bound address */
    struct MHD_Daemon *daemon;
    gw_http_handler handler;
    void *ctx;
    reaper reap;
};

/* libmicrohttpd's own limits sit this far above ours: room for the connections shut down to make
 * room (make_room) until libmicrohttpd has closed them, so that it keeps accepting meanwhile. */
enum { CLOSING_ROOM = 32 };

static int64_t mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* ---- the deadlines ---- */

static void unlink_tracked(reaper *r, tracked *t)
{
    r->count--;
    if (t->prev)
        t->prev->next = t->next;
    else
        r->head = t->next;
    if (t->next)
        t->next->prev = t->prev;
    else
        r->tail = t->prev;
    t->prev = t->next = NULL;
}

/* Gives t a deadline timeout from now: at the end of the list, as it is the latest. */
static void arm(reaper *r, tracked *t)
{
    t->deadline_ns = mono_ns() + r->timeout_ns;
    r->count++;
    t->prev = r->tail;
    t->next = NULL;
    if (r->tail)
        r->tail->next = t;
    else
        r->head = t;
    r->tail = t;
}

/* Shuts t down and forgets it: libmicrohttpd sees the end of the stream and closes it. */
static void drop(reaper *r, tracked *t)
{
    unlink_tracked(r, t);
    t->reaped = true;
    shutdown(t->fd, SHUT_RDWR);
}

static bool same_address(const struct sockaddr_storage *a, const struct sockaddr_storage *b)
{
    if (a->ss_family != b->ss_family)
        return false;
    if (a->ss_family == AF_INET)
        return ((const struct sockaddr_in *)a)->sin_addr.s_addr ==
               ((const struct sockaddr_in *)b)->sin_addr.s_addr;
    if (a->ss_family == AF_INET6)
        return memcmp(&((const struct sockaddr_in6 *)a)->sin6_addr,
                      &((const struct sockaddr_in6 *)b)->sin6_addr, sizeof(struct in6_addr)) == 0;
    return false;
}

/* Room for t, which just arrived: when its address already has per_ip connections, or the server
 * max, the one of them that has waited longest without a request in progress (idle, or slow to
 * send its request) is closed; when every one has a request in progress, t itself is. So a new
 * client is served at once however many idle or dripping connections an address, or all of
 * them, hold. Returns false when t was closed. */
static bool make_room(reaper *r, tracked *t)
{
    unsigned same = 0;
    tracked *idle_same = NULL, *idle_any = NULL;
    for (tracked *p = r->head; p; p = p->next) {
        bool mine = same_address(&p->addr, &t->addr);
        same += mine;
        if (!p->busy && !idle_any)
            idle_any = p;
        if (!p->busy && mine && !idle_same)
            idle_same = p;
    }
    tracked *victim = same >= r->per_ip ? idle_same : r->count >= r->max ? idle_any : t;
    if (victim == t)
        return true;
    if (victim) {
        drop(r, victim);
        return true;
    }
    t->reaped = true; /* every one is being answered: the newcomer waits for none of them */
    shutdown(t->fd, SHUT_RDWR);
    return false;
}

static void *reaper_main(void *arg)
{
    reaper *r = arg;
    pthread_mutex_lock(&r->lock);
    while (!r->stop) {
        int64_t now = mono_ns();
        /* The list is in deadline order: shut down from the front while they are due. */
        while (r->head && r->head->deadline_ns <= now)
            drop(r, r->head);
        if (!r->head) {
            pthread_cond_wait(&r->wake, &r->lock);
            continue;
        }
        int64_t due = r->head->deadline_ns;
        struct timespec ts = {.tv_sec = (time_t)(due / 1000000000),
                              .tv_nsec = (long)(due % 1000000000)};
        pthread_cond_timedwait(&r->wake, &r->lock, &ts);
    }
    pthread_mutex_unlock(&r->lock);
    return NULL;
}

static bool reaper_start(reaper *r, unsigned timeout_s, unsigned max, unsigned per_ip)
{
    r->max = max;
    r->per_ip = per_ip;
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&r->wake, &ca);
    pthread_condattr_destroy(&ca);
    pthread_mutex_init(&r->lock, NULL);
    r->timeout_ns = (int64_t)timeout_s * 1000000000;
    r->running = pthread_create(&r->thread, NULL, reaper_main, r) == 0;
    if (!r->running) {
        pthread_cond_destroy(&r->wake);
        pthread_mutex_destroy(&r->lock);
    }
    return r->running;
}

/* After libmicrohttpd has stopped: every connection's CLOSED notification has run. */
static void reaper_stop(reaper *r)
{
    if (!r->running)
        return;
    pthread_mutex_lock(&r->lock);
    r->stop = true;
    pthread_cond_signal(&r->wake);
    pthread_mutex_unlock(&r->lock);
    pthread_join(r->thread, NULL);
    pthread_cond_destroy(&r->wake);
    pthread_mutex_destroy(&r->lock);
    r->running = false;
}

/* libmicrohttpd: a connection was accepted (its first deadline starts) or is being closed. */
static void on_connection(void *cls, struct MHD_Connection *c, void **socket_context,
                          enum MHD_ConnectionNotificationCode code)
{
    reaper *r = &((gw_http_server *)cls)->reap;
    if (code == MHD_CONNECTION_NOTIFY_STARTED) {
        const union MHD_ConnectionInfo *ci =
            MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
        if (!ci)
            return;
        const union MHD_ConnectionInfo *ca =
            MHD_get_connection_info(c, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
        tracked *t = xcalloc(1, sizeof *t);
        t->fd = ci->connect_fd;
        if (ca && ca->client_addr)
            memcpy(&t->addr, ca->client_addr,
                   ca->client_addr->sa_family == AF_INET6 ? sizeof(struct sockaddr_in6)
                                                          : sizeof(struct sockaddr_in));
        pthread_mutex_lock(&r->lock);
        if (make_room(r, t)) {
            bool was_empty = !r->head;
            arm(r, t);
            if (was_empty) /* the reaper sleeps without a deadline */
                pthread_cond_signal(&r->wake);
        }
        pthread_mutex_unlock(&r->lock);
        *socket_context = t;
        return;
    }
    tracked *t = *socket_context;
    if (!t)
        return;
    pthread_mutex_lock(&r->lock);
    if (!t->reaped)
        unlink_tracked(r, t);
    pthread_mutex_unlock(&r->lock);
    free(t);
    *socket_context = NULL;
}

/* libmicrohttpd: a request ended. After a complete answer, a kept-alive connection gets a new
 * deadline for its next request; one that has been shut down stays so. */
static void on_completed(void *cls, struct MHD_Connection *c, void **con_cls,
                         enum MHD_RequestTerminationCode toe)
{
    (void)con_cls;
    reaper *r = &((gw_http_server *)cls)->reap;
    const union MHD_ConnectionInfo *ci =
        MHD_get_connection_info(c, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
    tracked *t = ci ? ci->socket_context : NULL;
    if (!t)
        return;
    pthread_mutex_lock(&r->lock);
    t->busy = false;
    if (!t->reaped && toe == MHD_REQUEST_TERMINATED_COMPLETED_OK) {
        unlink_tracked(r, t);
        arm(r, t);
    }
    pthread_mutex_unlock(&r->lock);
}

/* The request of c has arrived: its connection is no longer idle (see make_room). */
static void set_busy(gw_http_server *srv, struct MHD_Connection *c)
{
    const union MHD_ConnectionInfo *ci =
        MHD_get_connection_info(c, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
    tracked *t = ci ? ci->socket_context : NULL;
    if (!t)
        return;
    pthread_mutex_lock(&srv->reap.lock);
    t->busy = true;
    pthread_mutex_unlock(&srv->reap.lock);
}

static gw_rc bad_listen(gw_error *err, const char *listen, const char *why)
{
    return gw_error_set(err, GW_E_USAGE,
                        "--listen '%s': %s; expected HOST:PORT such as 127.0.0.1:9400, "
                        "[::1]:9400, or :9400 for every interface",
                        listen, why);
}

/* Splits "host:port", "[v6]:port" or ":port" into host (NULL for every interface) and port. */
static gw_rc split_listen(const char *listen, char *host, size_t hostlen, char *port,
                          size_t portlen, gw_error *err)
{
    const char *colon;
    const char *h = listen;
    size_t hl;
    if (listen[0] == '[') {
        const char *close = strchr(listen, ']');
        if (!close || close[1] != ':')
            return bad_listen(err, listen, "an IPv6 address in brackets must be followed by :PORT");
        h = listen + 1;
        hl = (size_t)(close - h);
        colon = close + 1;
    } else {
        colon = strrchr(listen, ':');
        if (!colon)
            return bad_listen(err, listen, "no port");
        hl = (size_t)(colon - listen);
        if (memchr(listen, ':', hl))
            return bad_listen(err, listen, "write IPv6 addresses in brackets");
    }
    const char *p = colon + 1;
    size_t pl = strlen(p);
    if (pl == 0 || pl > 5 || strspn(p, "0123456789") != pl || atoi(p) > 65535)
        return bad_listen(err, listen, "the port must be a number from 0 to 65535");
    if (hl >= hostlen || pl >= portlen)
        return bad_listen(err, listen, "too long");
    memcpy(host, h, hl);
    host[hl] = '\0';
    memcpy(port, p, pl + 1);
    return GW_OK;
}

gw_rc gw_http_parse_listen(const char *listen, struct sockaddr_storage *addr, socklen_t *len,
                           gw_error *err)
{
    char host[256], port[8];
    if (!listen || !*listen)
        return bad_listen(err, listen ? listen : "", "empty");
    gw_rc rc = split_listen(listen, host, sizeof host, port, sizeof port, err);
    if (rc)
        return rc;
    struct addrinfo hints = {.ai_family = AF_UNSPEC,
                             .ai_socktype = SOCK_STREAM,
                             .ai_flags = AI_NUMERICSERV | AI_PASSIVE};
    struct addrinfo *res = NULL;
    int e = getaddrinfo(host[0] ? host : "0.0.0.0", port, &hints, &res);
    if (e != 0 || !res) {
        gw_error_set(err, GW_E_USAGE,
                     "--listen '%s': cannot resolve '%s' (%s): use an IP address such as "
                     "127.0.0.1",
                     listen, host, gai_strerror(e));
        if (res)
            freeaddrinfo(res);
        return GW_E_USAGE;
    }
    memcpy(addr, res->ai_addr, res->ai_addrlen);
    *len = res->ai_addrlen;
    freeaddrinfo(res);
    return GW_OK;
}

static gw_rc bind_error(gw_error *err, const char *listen, int e)
{
    if (e == EADDRINUSE)
        return gw_error_set(err, GW_E_SYSTEM,
                            "cannot listen on %s: the address is already in use (another "
                            "gpuwatch serve, or dcgm-exporter on 9400?): stop it or choose "
                            "another port with --listen HOST:PORT",
                            listen);
    if (e == EACCES)
        return gw_error_set(err, GW_E_SYSTEM,
                            "cannot listen on %s: permission denied (ports below 1024 need "
                            "root or CAP_NET_BIND_SERVICE): use a port above 1023 such as 9400",
                            listen);
    if (e == EADDRNOTAVAIL)
        return gw_error_set(err, GW_E_SYSTEM,
                            "cannot listen on %s: no interface of this host has that address: "
                            "use 127.0.0.1, one of `ip -brief addr`, or :PORT for every "
                            "interface",
                            listen);
    return gw_error_set(err, GW_E_SYSTEM, "cannot listen on %s: %s", listen, strerror(e));
}

static void format_address(gw_http_server *srv)
{
    struct sockaddr_storage ss;
    socklen_t len = sizeof ss;
    char ip[INET6_ADDRSTRLEN] = "?";
    unsigned port = 0;
    if (getsockname(srv->fd, (struct sockaddr *)&ss, &len) == 0) {
        if (ss.ss_family == AF_INET6) {
            const struct sockaddr_in6 *a = (const struct sockaddr_in6 *)&ss;
            inet_ntop(AF_INET6, &a->sin6_addr, ip, sizeof ip);
            port = ntohs(a->sin6_port);
        } else {
            const struct sockaddr_in *a = (const struct sockaddr_in *)&ss;
            inet_ntop(AF_INET, &a->sin_addr, ip, sizeof ip);
            port = ntohs(a->sin_port);
        }
    }
    snprintf(srv->address, sizeof srv->address, ss.ss_family == AF_INET6 ? "[%s]:%u" : "%s:%u", ip,
             port);
}

gw_rc gw_http_listen(const gw_http_config *cfg, gw_http_server **out, gw_error *err)
{
    *out = NULL;
    struct sockaddr_storage ss;
    socklen_t len = 0;
    gw_rc rc = gw_http_parse_listen(cfg->listen, &ss, &len, err);
    if (rc)
        return rc;
    int fd = socket(ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return gw_error_set(err, GW_E_SYSTEM, "cannot listen on %s: socket: %s", cfg->listen,
                            strerror(errno));
    int one = 1;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (bind(fd, (struct sockaddr *)&ss, len) != 0 || listen(fd, 128) != 0) {
        int e = errno;
        close(fd);
        return bind_error(err, cfg->listen, e);
    }
    gw_http_server *srv = xcalloc(1, sizeof *srv);
    srv->cfg = *cfg;
    srv->listen = xstrdup(cfg->listen);
    srv->cfg.listen = srv->listen;
    srv->fd = fd;
    format_address(srv);
    *out = srv;
    return GW_OK;
}

const char *gw_http_address(const gw_http_server *srv)
{
    return srv->address;
}

static enum MHD_Result reply(struct MHD_Connection *c, unsigned status, const char *type,
                             gw_buf *body, const char *allow)
{
    struct MHD_Response *r =
        body->len ? MHD_create_response_from_buffer(body->len, body->data, MHD_RESPMEM_MUST_FREE)
                  : MHD_create_response_from_buffer(0, (void *)"", MHD_RESPMEM_PERSISTENT);
    if (!r) {
        gw_buf_free(body);
        return MHD_NO;
    }
    if (body->len)
        body->data = NULL; /* the response owns it now */
    gw_buf_free(body);
    MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, type);
    if (allow)
        MHD_add_response_header(r, MHD_HTTP_HEADER_ALLOW, allow);
    enum MHD_Result ret = MHD_queue_response(c, status, r);
    MHD_destroy_response(r);
    return ret;
}

/* What check_headers found in a request's headers. */
typedef struct header_scan {
    unsigned content_length; /* Content-Length headers */
    bool body;               /* a Content-Length above 0, or a Transfer-Encoding */
    bool control;            /* a control character (a bare CR, ESC...) in a name or a value */
} header_scan;

static bool has_control(const char *s)
{
    for (; s && *s; s++)
        if (((unsigned char)*s < 0x20 && *s != '\t') || *s == 0x7f)
            return true;
    return false;
}

static enum MHD_Result scan_header(void *cls, enum MHD_ValueKind kind, const char *key,
                                   const char *value)
{
    (void)kind;
    header_scan *h = cls;
    if (has_control(key) || has_control(value))
        h->control = true;
    if (key && strcasecmp(key, MHD_HTTP_HEADER_CONTENT_LENGTH) == 0) {
        h->content_length++;
        if (!value || strspn(value, "0") != strlen(value))
            h->body = true;
    }
    if (key && strcasecmp(key, MHD_HTTP_HEADER_TRANSFER_ENCODING) == 0)
        h->body = true;
    return MHD_YES;
}

/* Why the request's headers are refused (400), NULL when they are fine: a GET or HEAD that
 * announces a body (nothing here reads one, and a client dripping it would hold its connection
 * as "being answered"), Content-Length twice (two readers of one request could disagree on where
 * it ends), or a control character such as a bare CR (a header splitting in two on the way). */
static const char *check_headers(struct MHD_Connection *c)
{
    header_scan h = {0};
    MHD_get_connection_values(c, MHD_HEADER_KIND, scan_header, &h);
    if (h.control)
        return "a header holds a control character (a bare CR?)";
    if (h.content_length > 1)
        return "Content-Length appears more than once";
    if (h.body)
        return "a GET or HEAD request has no body here";
    return NULL;
}

/* libmicrohttpd's access handler: answers on the first call, before any request body. */
static enum MHD_Result on_request(void *cls, struct MHD_Connection *c, const char *url,
                                  const char *method, const char *version, const char *upload,
                                  size_t *upload_size, void **con_cls)
{
    (void)version;
    (void)upload;
    (void)upload_size;
    gw_http_server *srv = cls;
    static int seen;
    bool allowed = strcmp(method, "GET") == 0 || strcmp(method, "HEAD") == 0;
    const char *bad = allowed ? check_headers(c) : NULL;
    if (allowed && !bad && !*con_cls) {
        /* The first call only announces the headers; answering now would make libmicrohttpd
         * close the connection, as it cannot know whether a body follows. None follows: bodies
         * were refused above. */
        *con_cls = &seen;
        return MHD_YES;
    }
    /* From here the request is whole and being answered (see make_room); a refused one is
     * answered at once and closed, whatever it still meant to send. */
    set_busy(srv, c);
    if (bad) {
        gw_buf body = {0};
        gw_buf_printf(&body, "bad request: %s\n", bad);
        return reply(c, MHD_HTTP_BAD_REQUEST, "text/plain; charset=utf-8", &body, NULL);
    }
    if (!allowed) {
        gw_buf body = {0};
        gw_buf_printf(&body, "method %.32s not allowed: only GET and HEAD\n", method);
        return reply(c, MHD_HTTP_METHOD_NOT_ALLOWED, "text/plain; charset=utf-8", &body,
                     "GET, HEAD");
    }
    gw_http_request req = {
        .method = method,
        .path = url,
        .accept = MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_ACCEPT)};
    gw_http_response resp = {.status = 200, .content_type = "text/plain; charset=utf-8"};
    srv->handler(srv->ctx, &req, &resp);
    return reply(c, resp.status, resp.content_type, &resp.body, NULL);
}

/* Room for n connections besides the files the process has open: the soft limit on open files
 * (1024 under systemd and most shells) is raised towards the hard one when it is too low. */
static void raise_nofile(unsigned n)
{
    struct rlimit rl;
    rlim_t want = (rlim_t)n + 128;
    if (getrlimit(RLIMIT_NOFILE, &rl) != 0 || rl.rlim_cur >= want)
        return;
    rl.rlim_cur = rl.rlim_max == RLIM_INFINITY || rl.rlim_max > want ? want : rl.rlim_max;
    setrlimit(RLIMIT_NOFILE, &rl);
}

gw_rc gw_http_start(gw_http_server *srv, gw_http_handler handler, void *ctx, gw_error *err)
{
    srv->handler = handler;
    srv->ctx = ctx;
    const gw_http_config *cfg = &srv->cfg;
    unsigned max = cfg->max_connections ? cfg->max_connections : GW_HTTP_DEFAULT_MAX_CONNECTIONS;
    unsigned per_ip = cfg->max_per_ip ? cfg->max_per_ip : max > 1 ? max / 2 : 1;
    unsigned timeout_s = cfg->timeout_s ? cfg->timeout_s : 10;
    gw_rc lrc = gw_mhd_load(err);
    if (lrc)
        return lrc;
    raise_nofile(max + CLOSING_ROOM);
    if (!reaper_start(&srv->reap, timeout_s, max, per_ip))
        return gw_error_set(err, GW_E_SYSTEM,
                            "cannot serve on %s: cannot start a thread (out of memory or "
                            "threads?)",
                            srv->address);
    srv->daemon = MHD_start_daemon(
        MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL, 0, NULL, NULL, on_request, srv,
        MHD_OPTION_LISTEN_SOCKET, (MHD_socket)srv->fd, MHD_OPTION_CONNECTION_LIMIT,
        max + CLOSING_ROOM, MHD_OPTION_PER_IP_CONNECTION_LIMIT, per_ip + CLOSING_ROOM,
        MHD_OPTION_CONNECTION_TIMEOUT, timeout_s, MHD_OPTION_NOTIFY_CONNECTION, on_connection, srv,
        MHD_OPTION_NOTIFY_COMPLETED, on_completed, srv, MHD_OPTION_CONNECTION_MEMORY_LIMIT,
        (size_t)(cfg->max_request_bytes ? cfg->max_request_bytes : 16384),
        MHD_OPTION_STRICT_FOR_CLIENT, 1, MHD_OPTION_END);
    if (!srv->daemon) {
        reaper_stop(&srv->reap);
        return gw_error_set(err, GW_E_SYSTEM,
                            "cannot serve on %s: libmicrohttpd did not start (out of memory or "
                            "threads?)",
                            srv->address);
    }
    srv->fd = -1; /* the daemon closes it */
    return GW_OK;
}

void gw_http_close(gw_http_server *srv)
{
    if (!srv)
        return;
    if (srv->daemon)
        MHD_stop_daemon(srv->daemon);
    reaper_stop(&srv->reap);
    if (srv->fd >= 0)
        close(srv->fd);
    free(srv->listen);
    free(srv);
}
