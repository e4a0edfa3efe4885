#include "http/http_server.h"

#include "util/xalloc.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdbool.h>
#include <microhttpd.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct gw_http_server {
    gw_http_config cfg;
    char *listen;     /* the address as the user wrote it */
    int fd;           /* listening socket until the daemon owns it */
    char address[80]; /* the bound address */
    struct MHD_Daemon *daemon;
    gw_http_handler handler;
    void *ctx;
};

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

/* libmicrohttpd's access handler: answers on the first call, before any request body. */
static enum MHD_Result on_request(void *cls, struct MHD_Connection *c, const char *url,
                                  const char *method, const char *version, const char *upload,
                                  size_t *upload_size, void **con_cls)
{
    (void)version;
    (void)upload;
    gw_http_server *srv = cls;
    static int seen;
    bool allowed = strcmp(method, "GET") == 0 || strcmp(method, "HEAD") == 0;
    if (allowed && !*con_cls) {
        /* The first call only announces the headers; answering now would make libmicrohttpd
         * close the connection, as it cannot know whether a body follows. */
        *con_cls = &seen;
        return MHD_YES;
    }
    if (allowed && *upload_size) {
        *upload_size = 0; /* a GET with a body: ignore the body */
        return MHD_YES;
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

gw_rc gw_http_start(gw_http_server *srv, gw_http_handler handler, void *ctx, gw_error *err)
{
    srv->handler = handler;
    srv->ctx = ctx;
    const gw_http_config *cfg = &srv->cfg;
    srv->daemon = MHD_start_daemon(
        MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL, 0, NULL, NULL, on_request, srv,
        MHD_OPTION_LISTEN_SOCKET, (MHD_socket)srv->fd, MHD_OPTION_CONNECTION_LIMIT,
        (unsigned)(cfg->max_connections ? cfg->max_connections : 64), MHD_OPTION_CONNECTION_TIMEOUT,
        (unsigned)(cfg->timeout_s ? cfg->timeout_s : 10), MHD_OPTION_CONNECTION_MEMORY_LIMIT,
        (size_t)(cfg->max_request_bytes ? cfg->max_request_bytes : 16384),
        MHD_OPTION_STRICT_FOR_CLIENT, 1, MHD_OPTION_END);
    if (!srv->daemon)
        return gw_error_set(err, GW_E_SYSTEM,
                            "cannot serve on %s: libmicrohttpd did not start (out of memory or "
                            "threads?)",
                            srv->address);
    srv->fd = -1; /* the daemon closes it */
    return GW_OK;
}

void gw_http_close(gw_http_server *srv)
{
    if (!srv)
        return;
    if (srv->daemon)
        MHD_stop_daemon(srv->daemon);
    if (srv->fd >= 0)
        close(srv->fd);
    free(srv->listen);
    free(srv);
}
