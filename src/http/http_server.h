/*
 * http_server: a small HTTP/1.1 server on libmicrohttpd for gpuwatch's read-only pages.
 *
 * Owns: parsing the listen address, binding it (so that "address in use" is reported with the
 * address and a fix), the libmicrohttpd daemon (one internal polling thread, epoll), and its
 * limits: connections at once, connections at once per client address, bytes of request line and
 * headers per connection, and each request's absolute deadline. A connection gets timeout_s from
 * its accept to send its request and receive the whole answer, and again from the end of each
 * answer for the next request on a kept-alive connection; past it, a reaper thread shuts the
 * socket down and libmicrohttpd closes it. libmicrohttpd's own timeout only measures idleness
 * (every byte restarts it), so a client dripping a byte at a time would otherwise never leave.
 * When a new connection finds its address at max_per_ip connections, or the server at
 * max_connections, the one of them that has waited longest without a request in progress (idle,
 * or still sending its request) is closed; when all are being answered, the new one is. So a
 * scrape is served at once however many idle or dripping connections are open.
 * Requests other than GET and HEAD get 405 with an Allow header; malformed ones get libmicrohttpd's
 * 400 (or 413/414/431 when too large); a GET or HEAD announcing a body, Content-Length twice, or
 * a control character (a bare CR) in a header get 400 as soon as the headers are in, and are
 * closed: a connection counts as being answered only once its whole request has arrived. Everything
 * else goes to one handler, called in the server's thread, which fills a response.
 *
 * Must not: know what the pages contain (the handler does), or print.
 */
#ifndef GW_HTTP_SERVER_H
#define GW_HTTP_SERVER_H

#include "util/gw_buf.h"
#include "util/gw_error.h"

#include <stddef.h>
#include <sys/socket.h>

typedef struct gw_http_server gw_http_server;

/* The default per-address limit is half the connection limit (256 of 512): one address (a proxy in
 * front of a Prometheus fleet, or loopback, which every local user shares) never holds more than
 * half the slots, and 100 kept-alive scrapers behind one address are all answered. It was 64:
 * 100 such scrapers closed each other's idle connections, 29 % of scrapes were reset (issue 28). */
enum { GW_HTTP_DEFAULT_MAX_CONNECTIONS = 512 };

typedef struct gw_http_config {
    const char *listen;       /* "HOST:PORT", "[V6]:PORT", ":PORT" (all interfaces); port 0 picks
                                 a free one */
    unsigned max_connections; /* connections at once (GW_HTTP_DEFAULT_MAX_CONNECTIONS): a new
                                 one beyond closes the one idle longest (see below) */
    unsigned max_per_ip;      /* the same for one client address (0: half of max_connections,
                                 at least 1) */
    unsigned timeout_s;       /* deadline of a request (10): see below */
    size_t max_request_bytes; /* request line + headers per connection (16384) */
} gw_http_config;

/* A request as the handler sees it; strings are valid during the call. */
typedef struct gw_http_request {
    const char *method; /* "GET" or "HEAD" */
    const char *path;   /* without the query string: "/metrics" */
    const char *accept; /* the Accept header, NULL when absent */
} gw_http_request;

/* The handler fills this; the server takes over body's allocation. */
typedef struct gw_http_response {
    unsigned status;          /* 200 unless the handler sets another */
    const char *content_type; /* static string */
    gw_buf body;
} gw_http_response;

typedef void (*gw_http_handler)(void *ctx, const gw_http_request *req, gw_http_response *resp);

/* Parses cfg->listen into a socket address. GW_E_USAGE with a message naming the value and the
 * expected shape when it is malformed or the host does not resolve. */
GW_MUST_USE gw_rc gw_http_parse_listen(const char *listen, struct sockaddr_storage *addr,
                                       socklen_t *len, gw_error *err);

/* Binds and listens (connections wait in the backlog until gw_http_start). Errors name the
 * address and the fix: GW_E_USAGE for a malformed address, GW_E_SYSTEM for bind failures ("in
 * use", "permission denied", "not available on this host"). */
GW_MUST_USE gw_rc gw_http_listen(const gw_http_config *cfg, gw_http_server **out, gw_error *err);

/* The bound address, "127.0.0.1:9400" or "[::1]:9400" (the real port when 0 was asked for). */
const char *gw_http_address(const gw_http_server *srv);

/* Starts serving: handler(ctx, ...) runs for each GET/HEAD request in the server's thread. */
GW_MUST_USE gw_rc gw_http_start(gw_http_server *srv, gw_http_handler handler, void *ctx,
                                gw_error *err);

/* Stops serving (waits for the server's thread), closes the socket and frees. NULL is accepted. */
void gw_http_close(gw_http_server *srv);

#endif
