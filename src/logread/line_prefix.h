/*
 * line_prefix: what a launcher or a log collector puts before each line a trainer prints, taken
 * off before the line is read (docs/epochs.md "Prefixes before the trainer's own text").
 *
 * Always taken off, as their shapes are unmistakable: torchrun's `[rank0]:` and `[default0]:`,
 * Open MPI's `--tag-output` `[1,0]<stdout>:` (SageMaker's `[1,mpirank:0,algo-1]<stderr>:`),
 * Ray's `(RayTrainWorker pid=1234, ip=10.0.0.1) `, `kubectl logs --prefix`'s
 * `[pod/NAME/CONTAINER] `, and a timestamp at the line's start with a date and a clock (`docker
 * logs -t`, `kubectl logs --timestamps`, moreutils `ts` with a date format, `[2024-05-01
 * 10:00:00]`) with the separators after it; syslog's and `ts`'s default `May 01 10:00:00 ` and
 * journalctl's `gpu-01 python[1234]: ` after it. (CloudWatch's `#015` for a carriage return is a
 * line end, not a prefix: gw_progress_feed splits a line at it.)
 * Taken off once the same prefix began 2 lines in a row (a trainer's own `100: learn: ...` rounds
 * never repeat one): Slurm's `srun --label` `0: `, pdsh's `worker-0: ` (the DeepSpeed launcher) and
 * docker compose's `trainer-1  | ` (a name taken off ends in a number after '-' or '_').
 * Must not: allocate or print.
 */
#ifndef GW_LINE_PREFIX_H
#define GW_LINE_PREFIX_H

#include <stdbool.h>

#define GW_LINE_PREFIX_MAX 64

/* What the lines so far showed; zero-initialised before the first line. */
typedef struct gw_line_prefix {
    char cand[GW_LINE_PREFIX_MAX];  /* the last line's label ("0: ", "trainer-1  | "), "" none */
    int run;                        /* lines in a row that began with it */
    char label[GW_LINE_PREFIX_MAX]; /* the label taken off from now on ("" none yet) */
    bool digits;                    /* label is srun's: any "N: " is taken off */
} gw_line_prefix;

/* line past its prefixes (a pointer into line; line itself when it has none). */
const char *gw_line_prefix_skip(gw_line_prefix *st, const char *line);

#endif
