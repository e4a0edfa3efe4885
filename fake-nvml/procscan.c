/* /proc scan for the caller's first child; see procscan.h. */
#include "procscan.h"

#include <ctype.h>
#include <dirent.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Reads state, ppid and start time (clock ticks since boot) from /proc/PID/stat. */
static bool read_stat(const char *pid, char *state, long *ppid, unsigned long long *start)
{
    char path[64], buf[1024];
    snprintf(path, sizeof path, "/proc/%s/stat", pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return false; /* it exited since readdir */
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    /* The command name in parentheses may itself hold spaces and parentheses: fields resume
     * after the last ')'. Then: state ppid pgrp session tty tpgid flags minflt cminflt majflt
     * cmajflt utime stime cutime cstime priority nice threads itrealvalue starttime. */
    const char *p = strrchr(buf, ')');
    return p && sscanf(p + 1,
                       " %c %ld %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s "
                       "%*s %*s %*s %llu",
                       state, ppid, start) == 3;
}

pid_t fake_first_child(pid_t parent)
{
    DIR *dir = opendir("/proc");
    if (!dir)
        return 0;
    pid_t best = 0;
    unsigned long long best_start = 0;
    const struct dirent *e;
    while ((e = readdir(dir)) != NULL) {
        if (!isdigit((unsigned char)e->d_name[0]))
            continue;
        char state;
        long ppid;
        unsigned long long start;
        if (!read_stat(e->d_name, &state, &ppid, &start) || ppid != parent || state == 'Z')
            continue;
        pid_t pid = (pid_t)strtol(e->d_name, NULL, 10);
        if (best == 0 || start < best_start || (start == best_start && pid < best)) {
            best = pid;
            best_start = start;
        }
    }
    closedir(dir);
    return best;
}
