/*
 * crash: why a job died, as far as the end of its output says — the messages deep-learning
 * frameworks print when the GPU runs out of memory (PyTorch's "CUDA out of memory" in its older
 * "(GPU 0; X GiB total capacity; Y GiB already allocated; Z free; W reserved in total by PyTorch)"
 * and its newer "GPU 0 has a total capacity of X GiB of which Z GiB is free ..." wording,
 * torch.OutOfMemoryError, TensorFlow's "OOM when allocating tensor", JAX/XLA's
 * "RESOURCE_EXHAUSTED: Out of memory while trying to allocate N bytes", CUDA's "out of memory"),
 * NCCL timeouts (PyTorch's ProcessGroupNCCL watchdog), Python's KeyboardInterrupt, and the last
 * exception line.
 * Owns: recognising these lines and taking the numbers out of them (sizes in MiB).
 * Must not: read files, look at samples or decide verdicts (verdict_job.c does).
 */
#ifndef GW_CRASH_H
#define GW_CRASH_H

#include <stdbool.h>

enum { GW_CRASH_LINE_MAX = 512 }; /* PyTorch's message is about 400 bytes before its advice */

typedef struct gw_crash_text {
    /* Out of GPU memory: the last line that says so. Sizes are NAN when the message lacks them. */
    bool oom;
    char oom_line[GW_CRASH_LINE_MAX]; /* up to the advice that may follow ("... If reserved") */
    const char *oom_source;           /* "pytorch", "tensorflow", "jax", "cuda" or "other" */
    double tried_mib;     /* "Tried to allocate 12.00 GiB" / "trying to allocate N bytes" */
    double capacity_mib;  /* "X GiB total capacity" / "has a total capacity of X GiB" */
    double allocated_mib; /* "X GiB already allocated" / "X GiB is allocated by PyTorch" */
    double free_mib;      /* "X MiB free" / "of which X MiB is free" */
    double reserved_mib;  /* "X GiB reserved in total by PyTorch" (older wording) */
    double reserved_unallocated_mib; /* "X MiB is reserved by PyTorch but unallocated" (newer) */
    double process_mib;              /* "this process has X GiB memory in use" (newer) */
    int cuda_device;                 /* "GPU N" of the message (CUDA's numbering, not NVML's), -1 */
    /* NCCL timeout: the last watchdog line, else the last NCCL line that speaks of a timeout. */
    bool nccl_timeout;
    bool nccl_watchdog; /* the line is PyTorch's "Watchdog caught collective operation timeout" */
    char nccl_line[GW_CRASH_LINE_MAX];
    double nccl_timeout_ms;             /* "Timeout(ms)=600000", NAN */
    char nccl_op[32];                   /* "OpType=ALLREDUCE" -> "ALLREDUCE", "" */
    bool interrupted;                   /* a line starting with "KeyboardInterrupt" */
    char last_error[GW_CRASH_LINE_MAX]; /* the last exception line ("ValueError: ..."), "" */
    char last_line[GW_CRASH_LINE_MAX];  /* the last line with text, "" */
} gw_crash_text;

/* Scans text (lines separated by '\n') into *out. */
void gw_crash_scan(const char *text, gw_crash_text *out);

/* The size written at s ("12.00 GiB", "20 MiB", "17179869184 bytes", "3.5GB") in MiB; NAN when s
 * does not start with a number and a unit (B, bytes, KiB, MiB, GiB, TiB, KB, MB, GB, TB). */
double gw_crash_size_mib(const char *s);

#endif
