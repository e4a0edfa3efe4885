/* Process owner and command line from /proc (see procinfo.h). */
#include "host/procinfo.h"

#include "host/procfs.h"

#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int open_entry(const char *proc_root, unsigned pid, const char *file)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%u/%s", proc_root ? proc_root : "/proc", pid, file);
    return open(path, O_RDONLY | O_CLOEXEC);
}

/* Reads up to len bytes of an open file; returns the count or -1. */
static ssize_t read_all(int fd, char *buf, size_t len)
{
    size_t got = 0;
    while (got < len) {
        ssize_t r = read(fd, buf + got, len - got);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0)
            return got ? (ssize_t)got : -1;
        if (r == 0)
            break;
        got += (size_t)r;
    }
    return (ssize_t)got;
}

bool gw_procinfo_uid(const char *proc_root, unsigned pid, unsigned *uid)
{
    char path[512], buf[4096];
    snprintf(path, sizeof path, "%s/%u/status", proc_root ? proc_root : "/proc", pid);
    if (gw_procfs_read_small(path, buf, sizeof buf) <= 0)
        return false;
    const char *line = strstr(buf, "\nUid:");
    if (!line)
        return false;
    char *end = NULL;
    unsigned long v = strtoul(line + 5, &end, 10);
    if (end == line + 5 || v > 0xFFFFFFFFul)
        return false;
    *uid = (unsigned)v;
    return true;
}

bool gw_procinfo_cmdline(const char *proc_root, unsigned pid, char *buf, size_t len, size_t *n)
{
    *n = 0;
    int fd = open_entry(proc_root, pid, "cmdline");
    if (fd < 0)
        return false;
    ssize_t got = read_all(fd, buf, len);
    close(fd);
    if (got < 0)
        return false;
    size_t k = (size_t)got;
    while (k > 0 && buf[k - 1] == '\0')
        k--;
    *n = k;
    return true;
}

void gw_procinfo_user_name(unsigned uid, char *buf, size_t len)
{
    struct passwd pw, *found = NULL;
    char scratch[4096];
    if (getpwuid_r((uid_t)uid, &pw, scratch, sizeof scratch, &found) == 0 && found &&
        found->pw_name && found->pw_name[0])
        snprintf(buf, len, "%s", found->pw_name);
    else
        snprintf(buf, len, "%u", uid);
}
