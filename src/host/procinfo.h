/*
 * procinfo: who runs a GPU process and what it runs, read from /proc for display.
 *
 * Owns: reading a pid's real uid (/proc/PID/status), its command line (/proc/PID/cmdline) and
 * turning a uid into a user name. A pid with no /proc entry (another PID namespace, i.e. another
 * container, or a process that just exited) simply reports "not found". Must not: call NVML,
 * print, or keep state: every call reads /proc afresh. Thread-safe.
 */
#ifndef GW_PROCINFO_H
#define GW_PROCINFO_H

#include <stdbool.h>
#include <stddef.h>

/* The real uid of PROC_ROOT/PID (proc_root NULL = "/proc") from the "Uid:" line of its status
 * file. Returns false when the pid has no entry or the line is missing. */
bool gw_procinfo_uid(const char *proc_root, unsigned pid, unsigned *uid);

/* The raw bytes of PROC_ROOT/PID/cmdline (arguments separated by NUL; not NUL-terminated, not
 * validated) into buf, at most len bytes: the rest of a longer command line is dropped. Sets *n
 * to the number of bytes without the trailing NUL. Returns false when the pid has no entry (an
 * entry with an empty command line, a kernel thread or a zombie, returns true with *n = 0). */
bool gw_procinfo_cmdline(const char *proc_root, unsigned pid, char *buf, size_t len, size_t *n);

/* The login name of uid (getpwuid_r), or the uid as a decimal number when no name resolves (a
 * uid from another container's /etc/passwd). Always NUL-terminates buf (len >= 1). */
void gw_procinfo_user_name(unsigned uid, char *buf, size_t len);

#endif
