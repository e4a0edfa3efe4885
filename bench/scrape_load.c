/*
 * scrape_load: a small HTTP load generator for /metrics endpoints, for machines without wrk (the
 * H200 box) and as a cross-check of wrk here. C connections (one thread each) send GET requests
 * back to back for S seconds, keep-alive when the server allows it and reconnecting when it
 * closes (prometheus_client's server answers HTTP/1.0 and closes: the reconnect is part of what a
 * scraper pays, so it is inside the measured latency). Prints one JSON line: requests, errors,
 * requests per second, latency p50/p90/p99/max in microseconds, mean body bytes.
 *
 *   scrape_load [-c CONNECTIONS] [-d SECONDS] [-H 'Accept: ...'] http://HOST:PORT/PATH
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* strcasestr */
#endif
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

typedef struct worker {
    pthread_t thr;
    struct addrinfo *addr;
    const char *request;
    double deadline_s;
    double *lat_us;
    size_t n, cap;
    uint64_t errors;
    uint64_t body_bytes;
} worker;

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int dial(const struct addrinfo *ai)
{
    int fd = socket(ai->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return -1;
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    if (connect(fd, ai->ai_addr, ai->ai_addrlen) != 0) {
        close(fd);
        return -1;
    }
    return fd;
}

/* Sends the request and reads one response. Returns the body length, or -1 on error; *reuse says
 * whether the connection may carry another request. */
static long exchange(int fd, const char *request, char *buf, size_t cap, int *reuse)
{
    size_t len = strlen(request);
    if (send(fd, request, len, MSG_NOSIGNAL) != (ssize_t)len)
        return -1;
    size_t have = 0;
    char *end = NULL;
    while (!end) {
        if (have + 1 >= cap)
            return -1;
        ssize_t k = recv(fd, buf + have, cap - 1 - have, 0);
        if (k <= 0)
            return -1;
        have += (size_t)k;
        buf[have] = '\0';
        end = strstr(buf, "\r\n\r\n");
    }
    size_t head = (size_t)(end - buf) + 4;
    if (strncmp(buf, "HTTP/1.", 7) != 0 || strncmp(buf + 9, "200", 3) != 0)
        return -1;
    long clen = -1;
    for (char *p = strstr(buf, "\r\n"); p && p < end; p = strstr(p + 2, "\r\n")) {
        if (strncasecmp(p + 2, "Content-Length:", 15) == 0)
            clen = strtol(p + 17, NULL, 10);
    }
    *reuse = strncmp(buf, "HTTP/1.1", 8) == 0 && !strcasestr(buf, "\r\nConnection: close");
    size_t body = have - head;
    while (clen < 0 || body < (size_t)clen) {
        ssize_t k = recv(fd, buf, cap, 0);
        if (k < 0)
            return -1;
        if (k == 0)
            break;
        body += (size_t)k;
    }
    if (clen >= 0 && body != (size_t)clen)
        return -1;
    if (clen < 0)
        *reuse = 0;
    return (long)body;
}

static void *run(void *arg)
{
    worker *w = arg;
    size_t cap = 1 << 20;
    char *buf = malloc(cap);
    int fd = -1;
    while (buf && now_s() < w->deadline_s) {
        double t0 = now_s();
        if (fd < 0)
            fd = dial(w->addr);
        int reuse = 0;
        long body = fd < 0 ? -1 : exchange(fd, w->request, buf, cap, &reuse);
        double t1 = now_s();
        if (body < 0) {
            w->errors++;
            if (fd >= 0)
                close(fd);
            fd = -1;
            usleep(1000);
            continue;
        }
        if (w->n == w->cap) {
            w->cap = w->cap ? w->cap * 2 : 65536;
            w->lat_us = realloc(w->lat_us, w->cap * sizeof *w->lat_us);
            if (!w->lat_us)
                abort();
        }
        w->lat_us[w->n++] = (t1 - t0) * 1e6;
        w->body_bytes += (uint64_t)body;
        if (!reuse) {
            close(fd);
            fd = -1;
        }
    }
    if (fd >= 0)
        close(fd);
    free(buf);
    return NULL;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double pct(const double *v, size_t n, double p)
{
    if (!n)
        return 0;
    size_t i = (size_t)(p / 100.0 * (double)(n - 1) + 0.5);
    return v[i < n ? i : n - 1];
}

int main(int argc, char **argv)
{
    int conns = 1;
    double seconds = 5;
    const char *header = NULL;
    int c;
    while ((c = getopt(argc, argv, "c:d:H:")) != -1) {
        if (c == 'c')
            conns = atoi(optarg);
        else if (c == 'd')
            seconds = atof(optarg);
        else if (c == 'H')
            header = optarg;
        else
            return 2;
    }
    char host[256], port[16] = "80", path[512] = "/";
    if (optind >= argc || conns < 1 || conns > 1024 ||
        sscanf(argv[optind], "http://%255[^:/]:%15[0-9]%511s", host, port, path) < 2) {
        fprintf(stderr, "usage: scrape_load [-c N] [-d SEC] [-H HEADER] http://HOST:PORT/PATH\n");
        return 2;
    }
    struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM};
    struct addrinfo *ai = NULL;
    if (getaddrinfo(host, port, &hints, &ai) != 0) {
        fprintf(stderr, "scrape_load: cannot resolve %s\n", host);
        return 1;
    }
    char request[1024];
    snprintf(request, sizeof request, "GET %s HTTP/1.1\r\nHost: %s:%s\r\n%s%s\r\n", path, host,
             port, header ? header : "", header ? "\r\n" : "");
    worker *w = calloc((size_t)conns, sizeof *w);
    double start = now_s();
    for (int i = 0; i < conns; i++) {
        w[i].addr = ai;
        w[i].request = request;
        w[i].deadline_s = start + seconds;
        pthread_create(&w[i].thr, NULL, run, &w[i]);
    }
    size_t total = 0;
    uint64_t errors = 0, bytes = 0;
    for (int i = 0; i < conns; i++) {
        pthread_join(w[i].thr, NULL);
        total += w[i].n;
        errors += w[i].errors;
        bytes += w[i].body_bytes;
    }
    double elapsed = now_s() - start;
    double *all = malloc((total ? total : 1) * sizeof *all);
    size_t k = 0;
    for (int i = 0; i < conns; i++) {
        memcpy(all + k, w[i].lat_us, w[i].n * sizeof *all);
        k += w[i].n;
        free(w[i].lat_us);
    }
    qsort(all, total, sizeof *all, cmp_double);
    printf("{\"connections\": %d, \"seconds\": %.2f, \"requests\": %zu, \"errors\": %llu, "
           "\"rps\": %.0f, \"p50_us\": %.1f, \"p90_us\": %.1f, \"p99_us\": %.1f, \"max_us\": %.1f, "
           "\"body_bytes\": %.0f}\n",
           conns, elapsed, total, (unsigned long long)errors, (double)total / elapsed,
           pct(all, total, 50), pct(all, total, 90), pct(all, total, 99),
           total ? all[total - 1] : 0.0, total ? (double)bytes / (double)total : 0.0);
    free(all);
    free(w);
    freeaddrinfo(ai);
    return total ? 0 : 1;
}
