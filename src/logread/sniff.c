/* Telling log formats apart (see sniff.h). */
#include "logread/sniff.h"

#include <ctype.h>
#include <stdbool.h>
#include <string.h>

/* True when the '#' line's words include `word`. */
static bool has_word(const char *line, const char *word)
{
    size_t n = strlen(word);
    for (const char *p = line; (p = strstr(p, word)) != NULL; p += n) {
        bool start = p == line || !isalnum((unsigned char)p[-1]);
        bool end = !isalnum((unsigned char)p[n]);
        if (start && end)
            return true;
    }
    return false;
}

const char *gw_logread_foreign_line(const char *line)
{
    if (!strchr("+|#=", line[0]) || !line[0]) /* CSV rows: one test, read on */
        return NULL;
    if (strstr(line, "NVSMI LOG"))
        return "an `nvidia-smi -q` report";
    if (strncmp(line, "+---", 4) == 0 || strncmp(line, "|===", 4) == 0 ||
        strstr(line, "NVIDIA-SMI "))
        return "an `nvidia-smi` table (what `nvidia-smi` or `nvidia-smi -l` prints)";
    if (line[0] == '#' && has_word(line, "gpu") && has_word(line, "pid"))
        return "`nvidia-smi pmon` output (per-process samples)";
    static const char *dmon_words[] = {"pwr",  "gtemp", "sm",    "mem",   "fb",   "mclk",
                                       "pclk", "sbecc", "rxpci", "pviol", "bar1", "enc"};
    for (size_t i = 0; line[0] == '#' && has_word(line, "gpu") && i < 12; i++)
        if (has_word(line, dmon_words[i])) /* any -s selection: p u c v m e t */
            return "`nvidia-smi dmon` output";
    return NULL;
}

/* A CSV header of --query-compute-apps: a "pid" column. */
static bool is_apps_header(const char *line)
{
    char buf[512];
    snprintf(buf, sizeof buf, "%s", line);
    for (char *tok = strtok(buf, ",\r\n"); tok; tok = strtok(NULL, ",\r\n")) {
        while (*tok == ' ')
            tok++;
        if (strncmp(tok, "pid", 3) == 0 && (tok[3] == '\0' || tok[3] == ' '))
            return true;
    }
    return false;
}

bool gw_logread_table_line(const char *line)
{
    line += strspn(line, " \t");
    return line[0] == '|' || line[0] == '+';
}

/* After a table was seen: whether lines outside the tables hold a CSV header with a row after it
 * (a logger that printed `nvidia-smi` once, then --query-gpu CSV). Reads to the end. */
static bool csv_after_table(FILE *f)
{
    char buf[1024];
    bool header = false;
    while (fgets(buf, sizeof buf, f)) {
        if (gw_logread_table_line(buf) || !strchr(buf, ','))
            continue;
        if (header)
            return true;
        header = strstr(buf, "timestamp") || strstr(buf, "utilization") || strstr(buf, "memory");
    }
    return false;
}

/* An archive or compressed file, from its first bytes (what to do with it), or NULL. */
static const char *archive(FILE *f)
{
    unsigned char b[264] = {0};
    size_t n = fread(b, 1, sizeof b, f);
    rewind(f);
    if (n >= 2 && b[0] == 0x1f && b[1] == 0x8b)
        return "a gzip-compressed file (`gunzip -k` it and give the log inside)";
    if (n >= 4 && memcmp(b, "PK\x03\x04", 4) == 0)
        return "a zip archive (unzip it and give the GPU log inside)";
    if (n >= 6 && memcmp(b,
                         "\xfd"
                         "7zXZ",
                         5) == 0)
        return "an xz-compressed file (`unxz -k` it and give the log inside)";
    if (n >= 3 && memcmp(b, "BZh", 3) == 0 && b[3] >= '1' && b[3] <= '9')
        return "a bzip2-compressed file (`bunzip2 -k` it and give the log inside)";
    if (n >= 262 && memcmp(b + 257, "ustar", 5) == 0)
        return "a tar archive (extract it and give the GPU log inside)";
    return NULL;
}

gw_shape gw_logread_sniff(FILE *f, const char **what)
{
    if ((*what = archive(f)) != NULL)
        return GW_SHAPE_FOREIGN;
    char buf[1024];
    gw_shape shape = GW_SHAPE_CSV;
    int lines = 0;
    while (lines < 12 && fgets(buf, sizeof buf, f)) {
        char *p = buf;
        if (lines == 0 && strncmp(p, "\xef\xbb\xbf", 3) == 0)
            p += 3;
        p += strspn(p, " \t\r\n");
        if (*p == '\0')
            continue;
        if (lines++ == 0 && strncmp(p, "unix_time", 9) == 0 && strstr(p, "sm_util_pct")) {
            shape = GW_SHAPE_GPM;
            break;
        }
        const char *w = gw_logread_foreign_line(p);
        if (strstr(p, "NVIDIA bug report log file"))
            w = "an `nvidia-bug-report.sh` log (one `nvidia-smi -q` snapshot among system files, "
                "no samples over time)";
        if (w && strstr(w, "dmon")) {
            shape = GW_SHAPE_DMON;
            break;
        }
        if (w && strstr(w, "`nvidia-smi -q` report")) {
            shape = GW_SHAPE_QUERY;
            break;
        }
        if (w && strstr(w, "`nvidia-smi` table")) {
            shape = csv_after_table(f) ? GW_SHAPE_TABLE_CSV : GW_SHAPE_TABLE;
            break;
        }
        if (w || (lines == 1 && is_apps_header(p))) {
            *what = w ? w : "`nvidia-smi --query-compute-apps` CSV (per-process memory)";
            shape = GW_SHAPE_FOREIGN;
            break;
        }
        const char *q = p; /* gpustat --color: escapes before "[0]" */
        while (q[0] == '\x1b' && q[1] == '[') {
            q += 2 + strspn(q + 2, "0123456789;");
            q += *q != '\0';
        }
        if (q[0] == '[' && isdigit((unsigned char)q[1]) && strchr(q, '|') && strstr(q, " MB")) {
            shape = GW_SHAPE_GPUSTAT; /* "[0] NVIDIA H100 | 68°C,  99 % | 56072 / 81559 MB |" */
            break;
        }
        if (strchr(p, ',')) /* CSV: its first lines decide */
            break;
    }
    rewind(f);
    return shape;
}

gw_rc gw_logread_refuse(gw_error *err, const char *path, const char *what)
{
    if (strstr(what, " it and give ")) /* an archive: what says what to do */
        return gw_error_set(err, GW_E_FORMAT, "%s: this is %s, not a GPU log itself", path, what);
    return gw_error_set(err, GW_E_FORMAT, "%s: this is %s, not a GPU log: %s", path, what,
                        GW_LOGREAD_HOW_TO_RECORD);
}
