#include "cli/config_args.h"

#include "cli/args.h"

#include <string.h>

/* The hook's words: CMD is optarg (argv[optind - 1]); its arguments run up to a lone ';'. */
static int take_hook(gw_config_args *a, int argc, char **argv, gw_error *err)
{
    int cmd = optind - 1;
    if (strncmp(argv[cmd], "--on-alert=", 11) == 0) {
        a->hook_single = optarg;
        a->hook_argv = &a->hook_single;
        a->hook_argc = 1;
        return 1;
    }
    int end = optind;
    while (end < argc && strcmp(argv[end], ";") != 0)
        end++;
    if (end == argc) {
        gw_error_set(err, GW_E_USAGE,
                     "--on-alert %s: end the hook's arguments with ';' (quoted for the shell: "
                     "--on-alert notify.sh ARG \\;), or write --on-alert=CMD for a command without "
                     "arguments",
                     argv[cmd]);
        return -1;
    }
    if (strcmp(argv[cmd], ";") == 0 || argv[cmd][0] == '\0') {
        gw_error_set(err, GW_E_USAGE, "--on-alert: no command before ';'");
        return -1;
    }
    a->hook_argv = &argv[cmd];
    a->hook_argc = end - cmd;
    optind = end + 1;
    return 1;
}

int gw_config_args_take(gw_config_args *a, int c, int argc, char **argv, gw_error *err)
{
    switch (c) {
    case GW_OPT_CONFIG:
    case GW_OPT_SET: {
        bool file = c == GW_OPT_CONFIG;
        int *n = file ? &a->nfiles : &a->nsets;
        if (*n == GW_CONFIG_ARGS_MAX) {
            gw_error_set(err, GW_E_USAGE, "at most %d %s options", GW_CONFIG_ARGS_MAX,
                         file ? "--config" : "--set");
            return -1;
        }
        (file ? a->files : a->sets)[(*n)++] = optarg;
        return 1;
    }
    case GW_OPT_NO_ALERTS:
        a->no_alerts = true;
        return 1;
    case GW_OPT_ON_ALERT:
        return take_hook(a, argc, argv, err);
    case GW_OPT_ON_ALERT_TIMEOUT:
        return gw_args_duration("--on-alert-timeout", optarg, &a->hook_timeout_ms, err) ? -1 : 1;
    default:
        return 0;
    }
}

gw_rc gw_config_args_load(const gw_config_args *a, gw_config *out, gw_error *err)
{
    gw_rc rc = gw_config_load_standard(out, err);
    for (int i = 0; !rc && i < a->nfiles; i++)
        rc = gw_config_load_file(out, a->files[i], true, err);
    for (int i = 0; !rc && i < a->nsets; i++)
        rc = gw_config_set(out, a->sets[i], err);
    if (rc)
        return rc;
    if (a->hook_argc)
        gw_alerts_config_set_hook(&out->alerts, a->hook_argc, a->hook_argv, "--on-alert");
    if (a->hook_timeout_ms)
        out->alerts.hook_timeout_ms = a->hook_timeout_ms;
    if (a->no_alerts)
        out->alerts.enabled = false;
    return gw_config_validate(out, err);
}
