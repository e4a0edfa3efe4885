/* Option tables -> bash and zsh completion scripts (optspec.h). */
#include "cli/optspec.h"

#include "query/query.h"

#include <stdbool.h>
#include <string.h>

static const char *spec_id(const gw_cmd_spec *s)
{
    return s->name[0] ? s->name : "live";
}

/* ---- bash ---- */

/* How the argument of o completes, as _gpuwatch_reply reads it. */
static void bash_kind(FILE *out, gw_complete c, const char *values)
{
    switch (c) {
    case GW_COMPL_FILE:
        fputs("file", out);
        break;
    case GW_COMPL_DIR:
        fputs("dir", out);
        break;
    case GW_COMPL_VALUES:
        fprintf(out, "values:%s", values ? values : "");
        break;
    case GW_COMPL_LIST:
        fprintf(out, "list:%s", values ? values : "");
        break;
    case GW_COMPL_FIELDS:
        fputs("fields", out);
        break;
    case GW_COMPL_COMMAND:
        fputs("command", out);
        break;
    case GW_COMPL_NONE:
        fputs("none", out);
        break;
    }
}

static void bash_command(FILE *out, const gw_cmd_spec *s)
{
    const char *id = spec_id(s);
    fprintf(out, "_gpuwatch_opts_%s=\"", id);
    for (const gw_opt *o = s->opts; o->name; o++) {
        if (o->alt)
            fprintf(out, "%s ", o->alt);
        else if (o->letter)
            fprintf(out, "-%c ", o->letter);
        fprintf(out, "--%s%s", o->name, o[1].name ? " " : "");
    }
    fprintf(out, "\"\n_gpuwatch_operands_%s=\"", id);
    bash_kind(out, s->operands, s->operand_values);
    fprintf(out, "\"\n_gpuwatch_arg_%s() {\n    case $1 in\n", id);
    for (const gw_opt *o = s->opts; o->name; o++) {
        if (!o->arg)
            continue;
        fputs("    ", out);
        if (o->alt)
            fprintf(out, "%s|", o->alt);
        else if (o->letter)
            fprintf(out, "-%c|", o->letter);
        fprintf(out, "--%s) echo \"", o->name);
        bash_kind(out, o->complete, o->values);
        fputs("\" ;;\n", out);
    }
    fputs("    *) return 1 ;;\n    esac\n}\n", out);
}

static const char bash_main[] =
    "# _gpuwatch_reply KIND WORD PREFIX: COMPREPLY for an argument of that kind.\n"
    "_gpuwatch_reply() {\n"
    "    local kind=$1 cur=$2 pre=$3 words head=\"\"\n"
    "    COMPREPLY=()\n"
    "    case $kind in\n"
    "    file | dir) _gpuwatch_files \"$kind\" ;;\n"
    "    command) local IFS=$'\\n'; COMPREPLY=($(compgen -c -- \"$cur\")) ;;\n"
    "    values:*) COMPREPLY=($(compgen -W \"${kind#values:}\" -- \"$cur\")) ;;\n"
    "    list:* | fields)\n"
    "        if [[ $kind == fields ]]; then words=$_gpuwatch_fields; else words=${kind#list:}; fi\n"
    "        [[ $cur == *,* ]] && head=${cur%,*},\n"
    "        COMPREPLY=($(compgen -P \"$head\" -W \"$words\" -- \"${cur##*,}\"))\n"
    "        compopt -o nospace 2>/dev/null ;;\n"
    "    esac\n"
    "    if [[ -n $pre ]]; then COMPREPLY=(\"${COMPREPLY[@]/#/$pre}\"); fi\n"
    "}\n"
    "\n"
    "# _gpuwatch_files file|dir: names matching $cur, kept whole when they hold spaces\n"
    "# (bash-completion's _filedir, which also unquotes \"my\\ f\", where it is loaded).\n"
    "_gpuwatch_files() {\n"
    "    local IFS=$'\\n' flag=-f\n"
    "    [[ $1 == dir ]] && flag=-d\n"
    "    if declare -F _filedir >/dev/null; then\n"
    "        if [[ $1 == dir ]]; then _filedir -d; else _filedir; fi\n"
    "    else\n"
    "        COMPREPLY=($(compgen $flag -- \"$cur\"))\n"
    "    fi\n"
    "    compopt -o filenames 2>/dev/null\n"
    "}\n"
    "\n"
    "_gpuwatch() {\n"
    "    local cur=${COMP_WORDS[COMP_CWORD]} prev=\"\" cmd=\"\" id first=2 i kind v\n"
    "    COMPREPLY=()\n"
    "    (( COMP_CWORD > 0 )) && prev=${COMP_WORDS[COMP_CWORD-1]}\n"
    "    if (( COMP_CWORD == 1 )) && [[ $cur != -* ]]; then\n"
    "        COMPREPLY=($(compgen -W \"$_gpuwatch_commands help\" -- \"$cur\"))\n"
    "        return\n"
    "    fi\n"
    "    if [[ \" $_gpuwatch_commands help \" == *\" ${COMP_WORDS[1]} \"* ]]; then\n"
    "        cmd=${COMP_WORDS[1]}\n"
    "    fi\n"
    "    if [[ $cmd == help ]]; then\n"
    "        (( COMP_CWORD == 2 )) && COMPREPLY=($(compgen -W \"$_gpuwatch_commands\" -- "
    "\"$cur\"))\n"
    "        return\n"
    "    fi\n"
    "    id=${cmd:-live}\n"
    "    [[ -z $cmd ]] && first=1\n"
    "    # The words before this one: operands (run: the first is CMD, the rest its own words), "
    "the\n"
    "    # end of the options (--), and --on-alert's CMD ARGS... ';'.\n"
    "    local operands=0 ended=0 alert=0\n"
    "    for ((i = first; i < COMP_CWORD; i++)); do\n"
    "        v=${COMP_WORDS[i]}\n"
    "        if (( alert )); then\n"
    "            if [[ $v == \"';'\" || $v == '\\;' || $v == '\";\"' ]]; then alert=0; else "
    "((alert++)); fi\n"
    "            continue\n"
    "        fi\n"
    "        if (( ! ended )) && [[ $v == -- ]]; then\n"
    "            ended=1\n"
    "            continue\n"
    "        fi\n"
    "        if (( ! ended )) && [[ $v == -* || $v == = ]]; then\n"
    "            if [[ $v == --on-alert ]]; then\n"
    "                alert=1\n"
    "                [[ ${COMP_WORDS[i+1]} == = ]] && ((i++))\n"
    "            elif [[ ${COMP_WORDS[i+1]} == = ]]; then\n"
    "                ((i += 2))\n"
    "            elif [[ $v != *=* ]] && _gpuwatch_arg_$id \"$v\" >/dev/null; then\n"
    "                ((i++))\n"
    "            fi\n"
    "            continue\n"
    "        fi\n"
    "        ((operands++))\n"
    "        [[ $cmd == run ]] && break\n"
    "    done\n"
    "    if (( alert )); then\n"
    "        if (( alert == 1 )); then _gpuwatch_reply command \"$cur\" \"\"; else _gpuwatch_reply "
    "file \"$cur\" \"\"; fi\n"
    "        return\n"
    "    fi\n"
    "    if [[ $cmd == run ]] && (( operands || ended )); then\n"
    "        if (( operands )); then _gpuwatch_reply file \"$cur\" \"\"; else _gpuwatch_reply "
    "command \"$cur\" \"\"; fi\n"
    "        return\n"
    "    fi\n"
    "    if (( ! ended )); then\n"
    "        # the option whose argument is being completed: --opt=VALUE, --opt = VALUE, --opt "
    "VALUE\n"
    "        local opt=\"\" val=$cur pre=\"\"\n"
    "        if [[ $cur == --*=* ]]; then\n"
    "            opt=${cur%%=*} val=${cur#*=} pre=${cur%%=*}=\n"
    "        elif [[ $cur == = ]]; then\n"
    "            opt=$prev val=\"\"\n"
    "        elif [[ $prev == = ]] && (( COMP_CWORD > 2 )); then\n"
    "            opt=${COMP_WORDS[COMP_CWORD-2]}\n"
    "        elif [[ $prev == -* ]]; then\n"
    "            opt=$prev\n"
    "        fi\n"
    "        if [[ -n $opt ]] && kind=$(_gpuwatch_arg_$id \"$opt\"); then\n"
    "            _gpuwatch_reply \"$kind\" \"$val\" \"$pre\"\n"
    "            return\n"
    "        fi\n"
    "        if [[ $cur == -* ]]; then\n"
    "            v=_gpuwatch_opts_$id\n"
    "            COMPREPLY=($(compgen -W \"${!v}\" -- \"$cur\"))\n"
    "            return\n"
    "        fi\n"
    "    fi\n"
    "    v=_gpuwatch_operands_$id\n"
    "    _gpuwatch_reply \"${!v}\" \"$cur\" \"\"\n"
    "}\n"
    "complete -F _gpuwatch gpuwatch\n";

static void write_fields(FILE *out, const char *sep)
{
    size_t count;
    const gw_qfield *all = gw_qfields(&count);
    for (size_t i = 0; i < count; i++) {
        fprintf(out, "%s%s", i ? sep : "", all[i].name);
        if (all[i].alias)
            fprintf(out, "%s%s", sep, all[i].alias);
    }
}

void gw_completion_bash(FILE *out)
{
    fputs("# bash completion for gpuwatch. Generated by gpuwatch from its option tables\n"
          "# (src/cli/optspec.h): do not edit.\n\n_gpuwatch_commands=\"",
          out);
    for (size_t i = 1; i < gw_cli_spec_count; i++)
        fprintf(out, "%s%s", i > 1 ? " " : "", gw_cli_specs[i]->name);
    fputs("\"\n_gpuwatch_fields=\"", out);
    write_fields(out, " ");
    fputs("\"\n\n# Per command: its options, what its operands are, and how an option's argument\n"
          "# completes (_gpuwatch_arg_CMD OPTION prints it; it fails for an option without one).\n",
          out);
    for (size_t i = 0; i < gw_cli_spec_count; i++)
        bash_command(out, gw_cli_specs[i]);
    fputs("\n", out);
    fputs(bash_main, out);
}

/* ---- zsh ---- */

/* Text inside a single-quoted _arguments spec: its first clause (up to ';', or up to a
 * parenthesis that follows a few words: "auto (default: ...)" keeps it, or it would say "auto"),
 * at most max bytes and cut between words, the specials escaped. */
static void zsh_text(FILE *out, const char *s, size_t max, bool colons)
{
    size_t n = strcspn(s, ";");
    const char *paren = strchr(s, '(');
    if (paren && (size_t)(paren - s) >= 12 && (size_t)(paren - s) < n)
        n = (size_t)(paren - s);
    if (n > max) {
        n = max;
        while (n > max / 2 && s[n] != ' ')
            n--;
    }
    while (n && (s[n - 1] == ' ' || s[n - 1] == ','))
        n--;
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '\'')
            fputs("'\\''", out);
        else if (s[i] == '[' || s[i] == ']' || (colons && s[i] == ':') || s[i] == '\\')
            fprintf(out, "\\%c", s[i]);
        else
            fputc(s[i], out);
    }
}

static void zsh_action(FILE *out, gw_complete c, const char *values)
{
    switch (c) {
    case GW_COMPL_FILE:
        fputs("_files", out);
        break;
    case GW_COMPL_DIR:
        fputs("_files -/", out);
        break;
    case GW_COMPL_VALUES:
        fprintf(out, "(%s)", values ? values : "");
        break;
    case GW_COMPL_LIST:
        fprintf(out, "_sequence compadd - %s", values ? values : "");
        break;
    case GW_COMPL_FIELDS:
        fputs("_sequence compadd - $_gpuwatch_fields", out);
        break;
    case GW_COMPL_COMMAND:
        fputs("_command_names -e", out);
        break;
    case GW_COMPL_NONE:
        fputs(" ", out);
        break;
    }
}

static void zsh_metavar(FILE *out, const char *arg)
{
    for (const char *p = arg + (arg[0] == '='); *p && *p != ' '; p++)
        if (*p != ':' && *p != '\'' && *p != '\\')
            fputc(*p, out);
}

static void zsh_opt(FILE *out, const gw_opt *o, const char *form, bool attached)
{
    fprintf(out, " \\\n    '%s%s%s[", o->repeat ? "*" : "", form,
            o->arg ? (attached ? "+" : "=") : "");
    zsh_text(out, o->help, 60, true);
    fputs("]", out);
    if (o->arg) {
        fputs(":", out);
        zsh_metavar(out, o->arg);
        fputs(":", out);
        zsh_action(out, o->complete, o->values);
        /* an option taking a command (--on-alert CMD ARGS... ';'): its arguments up to ';', as
         * zsh's own find -exec */
        if (o->complete == GW_COMPL_COMMAND)
            fputs(":*\\;::arguments:_normal", out);
    }
    fputs("'", out);
}

static void zsh_command(FILE *out, const gw_cmd_spec *s)
{
    fprintf(out, "_gpuwatch_cmd_%s() {\n    _arguments -s -S", spec_id(s));
    for (const gw_opt *o = s->opts; o->name; o++) {
        char form[80];
        snprintf(form, sizeof form, "--%s", o->name);
        zsh_opt(out, o, form, false);
        if (o->alt || o->letter) {
            if (o->alt)
                snprintf(form, sizeof form, "%s", o->alt);
            else
                snprintf(form, sizeof form, "-%c", o->letter);
            zsh_opt(out, o, form, true);
        }
    }
    if (s->operands == GW_COMPL_COMMAND)
        fputs(" \\\n    '1:command:_command_names -e' \\\n    '*::arguments:_normal'", out);
    else if (s->operands != GW_COMPL_NONE) {
        fputs(" \\\n    '*:input:", out);
        zsh_action(out, s->operands, s->operand_values);
        fputs("'", out);
    }
    fputs("\n}\n\n", out);
}

void gw_completion_zsh(FILE *out)
{
    fputs("#compdef gpuwatch\n# zsh completion for gpuwatch. Generated by gpuwatch from its "
          "option tables\n# (src/cli/optspec.h): do not edit.\n\n_gpuwatch_fields=(",
          out);
    write_fields(out, " ");
    fputs(")\n_gpuwatch_commands=(\n", out);
    for (size_t i = 1; i < gw_cli_spec_count; i++) {
        fprintf(out, "    '%s:", gw_cli_specs[i]->name);
        zsh_text(out, gw_cli_specs[i]->summary, 70, false);
        fputs("'\n", out);
    }
    fputs("    'help:the manual page of a command'\n)\n\n", out);
    for (size_t i = 0; i < gw_cli_spec_count; i++)
        zsh_command(out, gw_cli_specs[i]);
    fputs("_gpuwatch() {\n"
          "    if (( CURRENT == 2 )) && [[ $PREFIX != -* ]]; then\n"
          "        _describe -t commands 'gpuwatch command' _gpuwatch_commands\n"
          "        return\n"
          "    fi\n"
          "    local cmd=${words[2]}\n"
          "    if [[ $cmd == help ]]; then\n"
          "        (( CURRENT == 3 )) && _describe -t commands 'gpuwatch command' "
          "_gpuwatch_commands\n"
          "        return\n"
          "    fi\n"
          "    if (( ${+functions[_gpuwatch_cmd_$cmd]} )) && [[ $cmd != live ]]; then\n"
          "        shift words\n"
          "        (( CURRENT-- ))\n"
          "        _gpuwatch_cmd_$cmd\n"
          "    else\n"
          "        _gpuwatch_cmd_live\n"
          "    fi\n"
          "}\n\n"
          "# autoloaded by compinit: the first call defines the functions above, then completes\n"
          "if [[ ${funcstack[1]} == _gpuwatch ]]; then\n"
          "    _gpuwatch \"$@\"\n"
          "else\n"
          "    compdef _gpuwatch gpuwatch\n"
          "fi\n",
          out);
}
