/* Temporary: replaced by cmd_run.c / cmd_record.c. */
#include "cli/commands.h"
#include <stdio.h>
int gw_cmd_run(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    fprintf(stderr, "gpuwatch: run: not built yet\n");
    return 125;
}
int gw_cmd_record(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    fprintf(stderr, "gpuwatch: record: not built yet\n");
    return 1;
}
