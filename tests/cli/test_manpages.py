"""Man pages, `gpuwatch help` and shell completion (issue 18, item 2): all are generated from the
option tables that make getopt's arrays and the --help texts (src/cli/optspec.h), so each option a
command accepts is in its --help, its man page and the bash and zsh completion, and nothing else
is; the pages render without warnings; `gpuwatch help CMD` is the man page's text; and the
completion answers real queries (bash driven through COMP_WORDS, zsh loaded by compinit in
`zsh -f`)."""
import gzip
import os
import re
import shutil
import subprocess

import pytest

from conftest import BUILD, GW, SOURCE, gw_env

COMMANDS = ["run", "record", "report", "plot", "check", "query", "mark", "log", "top", "serve", "compare"]
PAGES = [None] + COMMANDS
MAN = BUILD / "man"
BASH = BUILD / "completion" / "gpuwatch.bash"
ZSH = BUILD / "completion" / "_gpuwatch"


def page(cmd):
    return MAN / (f"gpuwatch-{cmd}.1" if cmd else "gpuwatch.1")


def gw(args, **kw):
    return subprocess.run([GW] + args, env=gw_env(), capture_output=True, text=True, timeout=30,
                          **kw)


def help_text(cmd):
    r = gw(([cmd] if cmd else []) + ["--help"])
    assert r.returncode == 0, r.stderr
    return r.stdout


OPTION = re.compile(r"(?<![\w-])(--[a-z][a-z-]*|-[a-z]{1,3})(?=[\s,=]|$)")


def help_options(cmd):
    """The options the --help text lists: its option lines start with '-'."""
    found = set()
    for line in help_text(cmd).splitlines():
        m = re.match(r"^  (?:(-[a-z]+), |    )(--[a-z][a-z-]*)", line)
        if m:
            found.update(x for x in m.groups() if x)
    return found


def man_options(cmd):
    """The options of the man page's OPTIONS section (.TP tags)."""
    text = page(cmd).read_text()
    section = text.split(".SH OPTIONS\n")[1].split(".SH ")[0]
    tags = re.findall(r"^\.TP\n(.*)$", section, re.M)
    found = set()
    for tag in tags:
        plain = re.sub(r"\\f[BIR]", "", tag).replace("\\-", "-")
        found.update(OPTION.findall(plain.split(" ")[0] + " " + " ".join(plain.split(" ")[1:2])))
    return found


def bash_options(cmd):
    m = re.search(rf'^_gpuwatch_opts_{cmd or "live"}="(.*)"$', BASH.read_text(), re.M)
    return set(m.group(1).split())


def zsh_options(cmd):
    body = ZSH.read_text().split(f"_gpuwatch_cmd_{cmd or 'live'}() {{")[1].split("\n}")[0]
    return set(re.findall(r"^    '\*?(-[a-z-]+?)[=+]?\[", body, re.M))


@pytest.mark.parametrize("cmd", PAGES)
def test_every_option_in_help_man_and_completion(cmd):
    want = help_options(cmd)
    assert "--help" in want and len(want) >= 3, want
    assert man_options(cmd) == want
    assert bash_options(cmd) == want
    assert zsh_options(cmd) == want


def probe(cmd, opt):
    """Runs CMD with OPT (a value for one that takes it) and --help after it: an option the command
    does not know is a usage error naming it; a known one is taken and --help then prints help
    (or the value is refused for its own reason)."""
    args = ([cmd] if cmd else []) + [opt]
    if opt not in ("--help", "-h", "--help-query-gpu", "--on-alert") and takes_value(cmd, opt):
        args.append("1")
    return gw(args + ["--help"], stdin=subprocess.DEVNULL)


def takes_value(cmd, opt):
    r = subprocess.run(["bash", "-c", f'source "{BASH}"; _gpuwatch_arg_{cmd or "live"} "$1"',
                        "-", opt], capture_output=True, text=True)
    return r.returncode == 0


@pytest.mark.parametrize("cmd", PAGES)
def test_every_listed_option_is_accepted(cmd):
    for opt in sorted(help_options(cmd)):
        r = probe(cmd, opt)
        assert "unknown option" not in r.stderr and " is for " not in r.stderr, (opt, r.stderr)
        assert r.returncode == 0 or r.stderr, (opt, r.stdout)
    # the probe can fail: an option no table has
    r = probe(cmd, "--no-such-option")
    assert r.returncode != 0 and "unknown option" in r.stderr, r.stderr


def test_no_hand_written_getopt_arrays():
    """getopt's arrays come from the tables only: a `struct option` written by hand in src/cli
    would accept options that no --help, man page or completion shows."""
    for path in sorted((SOURCE / "src" / "cli").glob("*.c")):
        text = path.read_text()
        if path.name == "optspec.c":
            continue
        assert not re.search(r"struct option\s+\w+\s*\[\]", text), path
        for call in re.findall(r"getopt_long\(([^;]*)\)", text):
            assert "g.shorts" in call, (path, call)


def man_render(cmd):
    env = dict(os.environ, LC_ALL="C", LANG="C", MANWIDTH="80", MAN_KEEP_FORMATTING="")
    r = subprocess.run(["man", "-l", str(page(cmd))], env=env, capture_output=True, text=True,
                       timeout=60)
    assert r.returncode == 0 and r.stderr == "", r.stderr
    lines = re.sub(r".\x08", "", r.stdout).splitlines()
    return "\n".join(lines[1:-1])  # without the header and footer lines


@pytest.mark.parametrize("cmd", PAGES)
def test_help_command_is_the_man_page(cmd):
    r = gw(["help", cmd or "gpuwatch"])
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("NAME\n       gpuwatch")
    for section in ("SYNOPSIS", "DESCRIPTION", "OPTIONS", "EXIT STATUS", "ENVIRONMENT", "FILES",
                    "EXAMPLES", "SEE ALSO"):
        assert f"\n\n{section}\n" in r.stdout
    assert max(len(line) for line in r.stdout.splitlines()) <= 80
    assert "\\" not in r.stdout and "\\f" not in r.stdout  # no troff escapes
    assert r.stdout.split() == man_render(cmd).split()


def test_help_lists_commands_and_refuses_unknown_ones():
    r = gw(["help"])
    assert r.returncode == 0
    listed = re.findall(r"^  (\w+) ", r.stdout, re.M)
    assert listed == COMMANDS
    r = gw(["help", "nosuch"])
    assert r.returncode == 2 and "unknown command 'nosuch'" in r.stderr and r.stdout == ""


@pytest.mark.parametrize("cmd", PAGES)
def test_man_page_lints_clean(cmd):
    text = page(cmd).read_text()
    for section in ("NAME", "SYNOPSIS", "DESCRIPTION", "OPTIONS", "EXIT STATUS", "ENVIRONMENT",
                    "FILES", "EXAMPLES", "SEE ALSO"):
        assert f"\n.SH {section}\n" in text
    r = subprocess.run(["groff", "-ww", "-z", "-man", str(page(cmd))], capture_output=True,
                       text=True)
    assert r.returncode == 0 and r.stderr == "", r.stderr
    # what lintian runs on a package's pages (its groff-message tag)
    r = subprocess.run(["man", "--warnings", "-E", "UTF-8", "-l", "-Tutf8", "-Z", str(page(cmd))],
                       env=dict(os.environ, LC_ALL="C.UTF-8", MANWIDTH="80"),
                       capture_output=True, text=True)
    assert r.returncode == 0 and r.stderr == "", r.stderr
    # lexgrog (man-db) reads the NAME line apropos and whatis index
    r = subprocess.run(["lexgrog", str(page(cmd))], capture_output=True, text=True)
    name = f"gpuwatch-{cmd}" if cmd else "gpuwatch"
    assert r.returncode == 0 and f'"{name} - ' in r.stdout, r.stdout


BASH_COMPLETION = "/usr/share/bash-completion/bash_completion"


def complete(*words, cwd=None, loaded=False):
    """COMPREPLY of the generated bash function for the command line `words` (the last one is
    the word under the cursor); loaded: with bash-completion sourced first, as in a user's shell."""
    script = (f'source "{BASH_COMPLETION}"\n' if loaded else "") + (
              f'source "{BASH}"\n'
              'COMP_WORDS=("$@"); COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); _gpuwatch\n'
              'printf "%s\\n" "${COMPREPLY[@]}"\n')
    r = subprocess.run(["bash", "--norc", "-c", script, "-", "gpuwatch"] + list(words),
                       capture_output=True, text=True, cwd=cwd, timeout=30)
    assert r.returncode == 0 and r.stderr == "", r.stderr
    return [x for x in r.stdout.split("\n") if x]


def test_bash_completes_commands_options_and_values(tmp_path):
    assert complete("") == COMMANDS + ["help"]
    assert complete("re") == ["record", "report"]
    assert complete("run", "--st") == ["--stall-timeout"]
    assert complete("run", "--no-") == ["--no-report", "--no-python", "--no-alerts"]
    assert complete("record", "--d") == ["--duration"]
    assert complete("help", "se") == ["serve"]
    assert complete("--co") == ["--color", "--count", "--compact"]
    assert complete("--color", "") == ["auto", "always", "never"]
    assert complete("top", "--color", "n") == ["never"]
    # the field names of query's table, after '=' split off by bash or not, and after a comma
    assert complete("query", "--query-gpu", "=", "util") == [
        "utilization.gpu", "utilization.memory", "utilization.encoder", "utilization.decoder"]
    assert complete("query", "--query-gpu=index,utilization.g") == [
        "--query-gpu=index,utilization.gpu"]
    assert "clocks_event_reasons.sw_power_cap" in complete("query", "--query-gpu", "=", "")
    assert complete("query", "--format", "=", "csv,no") == ["csv,noheader", "csv,nounits"]
    assert complete("report", "--fail-on", "") == ["warning", "critical"]
    assert complete("report", "run1", "--fail-on=c") == ["--fail-on=critical"]
    assert complete("plot", "--metrics", "util,s") == ["util,sm"]
    # file arguments: directories for -o DIR, files for inputs and -o FILE
    (tmp_path / "runs").mkdir()
    (tmp_path / "runs.csv").write_text("")
    assert complete("run", "-o", "ru", cwd=tmp_path) == ["runs"]
    assert sorted(complete("report", "ru", cwd=tmp_path)) == ["runs", "runs.csv"]
    assert complete("report", "--json", "runs.", cwd=tmp_path) == ["runs.csv"]
    # run: after the options a command on PATH, then that command's own words (files)
    assert "bash" in complete("run", "-i", "1", "--", "bas")
    assert "bash" in complete("run", "--no-report", "bas")
    assert sorted(complete("run", "-i", "1", "python3", "ru", cwd=tmp_path)) == ["runs", "runs.csv"]
    assert complete("run", "python3", "--st") == []  # CMD's options are not ours


@pytest.mark.parametrize("loaded", [False, True], ids=["plain", "bash-completion"])
def test_bash_completion_torture(tmp_path, loaded):
    """Regressions found by driving the completion in an interactive bash (where `my\\ f` also
    completes through bash-completion's _filedir, which needs readline): names with spaces,
    words after --, --opt=VALUE and --opt = VALUE before run's CMD, --on-alert's own words."""
    if loaded and not os.path.exists(BASH_COMPLETION):
        pytest.skip("bash-completion is not installed")
    (tmp_path / "my dir").mkdir()
    (tmp_path / "my file.csv").write_text("")
    (tmp_path / "runs.csv").write_text("")

    def c(*words):
        return sorted(complete(*words, cwd=tmp_path, loaded=loaded))
    # a name holding a space is one candidate, not one per word
    assert c("report", "my") == ["my dir", "my file.csv"]
    assert c("run", "-o", "my") == ["my dir"]
    assert c("check", "--config", "=", "my") == ["my dir", "my file.csv"]
    # after --, every word is an operand: files, never options
    assert c("report", "--", "-") == []
    assert c("report", "--", "ru") == ["runs.csv"]
    # an option's value given with '=' (split off by bash or not) is not run's CMD
    assert "bash" in c("run", "--output=foo", "bas")
    assert "bash" in c("run", "--output", "=", "foo", "bas")
    assert "bash" in c("run", "-o", "foo", "bas")
    # --on-alert CMD ARGS... ';': a command, then files (bash itself takes a word after ';' for
    # a new command line and does not call _gpuwatch there)
    assert "bash" in c("run", "--on-alert", "bas")
    assert c("run", "--on-alert", "notify-send", "ru") == ["runs.csv"]
    assert c("run", "--on-alert", "notify-send", "hi", "';'", "--no-r") == ["--no-report"]


def test_bash_completion_is_registered():
    r = subprocess.run(["bash", "--norc", "-c", f'source "{BASH}"; complete -p gpuwatch'],
                       capture_output=True, text=True)
    assert r.stdout.strip() == "complete -F _gpuwatch gpuwatch", r.stdout + r.stderr


ZSH_DRIVER = r'''
fpath=("$1" $fpath)
autoload -Uz compinit && compinit -u -D
print -r -- "registered: ${_comps[gpuwatch]}"
# stand-ins for the completion widgets: what _gpuwatch would offer, printed
_describe() { print -r -l -- "${(@)${(P)${@[-1]}}%%:*}" }
_arguments() { print -r -l -- "$@" }
words=(gpuwatch ''); CURRENT=2; PREFIX=''
_gpuwatch
print -r -- "-- query"
words=(gpuwatch query --q); CURRENT=3; PREFIX='--q'
_gpuwatch
'''


def test_zsh_completion_loads_and_offers_the_commands(tmp_path):
    zsh = shutil.which("zsh")
    assert zsh, "zsh is missing: scripts/deps.sh --test installs it"
    driver = tmp_path / "driver.zsh"
    driver.write_text(ZSH_DRIVER)
    r = subprocess.run([zsh, "-f", str(driver), str(ZSH.parent)], capture_output=True, text=True,
                       timeout=60, env=dict(os.environ, HOME=str(tmp_path)))
    assert r.returncode == 0 and r.stderr == "", r.stderr
    out, query = r.stdout.split("-- query\n")
    lines = out.splitlines()
    assert lines[0] == "registered: _gpuwatch"
    assert lines[1:] == COMMANDS + ["help"]
    assert "--query-gpu=[what to print, one column each]:FIELDS:_sequence compadd - " \
           "$_gpuwatch_fields" in query.splitlines()
    # descriptions keep their first words: "auto (default: ...)", not "auto"; cut between words
    zsh_lines = ZSH.read_text().splitlines()
    assert "    '--color=[auto (default\\: on a terminal unless NO_COLOR is set)]:WHEN:" \
           "(auto always never)' \\" in zsh_lines
    # --on-alert CMD ARGS... ';': a command, its arguments up to ';' (as zsh's find -exec), then
    # run's own words again
    assert "    '--on-alert=[run CMD (no shell) when an alert fires or resolves, with]:CMD:" \
           "_command_names -e:*\\;::arguments:_normal' \\" in zsh_lines
    # options given more than once (.repeat in the table) are offered again
    assert "    '*--set=[change one setting]:RULE.KEY=VALUE: ' \\" in ZSH.read_text().splitlines()


def test_cmake_install_puts_pages_and_completion_where_debian_looks(tmp_path):
    r = subprocess.run(["cmake", "--install", str(BUILD), "--prefix", str(tmp_path)],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    for p in PAGES:
        # gzip -9n'ed (Debian policy 12.1): no name or time in the header
        gz = (tmp_path / "share/man/man1" / (page(p).name + ".gz")).read_bytes()
        assert gz[:2] == b"\x1f\x8b" and gz[3:8] == b"\0\0\0\0\0", gz[:10]
        assert gzip.decompress(gz) == page(p).read_bytes()
    installed = sorted(x.name for x in (tmp_path / "share/man/man1").iterdir())
    assert installed == sorted(page(p).name + ".gz" for p in PAGES)
    env = dict(os.environ, LC_ALL="C", MANWIDTH="80", MANPATH=str(tmp_path / "share/man"))
    r = subprocess.run(["man", "gpuwatch-run"], env=env, capture_output=True, text=True, timeout=60)
    assert r.returncode == 0 and "gpuwatch-run - run a command" in r.stdout, r.stderr
    assert (tmp_path / "share/bash-completion/completions/gpuwatch").read_bytes() == \
        BASH.read_bytes()
    # zsh reads a local install's completion from PREFIX/share/zsh/site-functions (Debian's zsh:
    # /usr/local/share/zsh/site-functions); vendor-completions is for the package's /usr alone
    assert (tmp_path / "share/zsh/site-functions/_gpuwatch").read_bytes() == ZSH.read_bytes()
    assert not (tmp_path / "share/zsh/vendor-completions").exists()
    dest = tmp_path / "destdir"
    r = subprocess.run(["cmake", "--install", str(BUILD), "--prefix", "/usr"], capture_output=True,
                       text=True, timeout=120, env=dict(os.environ, DESTDIR=str(dest)))
    assert r.returncode == 0, r.stderr
    assert (dest / "usr/share/zsh/vendor-completions/_gpuwatch").read_bytes() == ZSH.read_bytes()


def test_zsh_looks_where_a_local_install_puts_its_completion():
    zsh = shutil.which("zsh")
    assert zsh, "zsh is missing: scripts/deps.sh --test installs it"
    r = subprocess.run([zsh, "-fc", "print -l $fpath"], capture_output=True, text=True, timeout=30)
    fpath = r.stdout.splitlines()
    assert "/usr/local/share/zsh/site-functions" in fpath, fpath
    assert "/usr/share/zsh/vendor-completions" in fpath, fpath
    assert "/usr/local/share/zsh/vendor-completions" not in fpath, fpath


def documented_codes():
    """The status column of docs/exit-codes.md, per command ("" is the live view)."""
    codes, cmd = {}, None
    for line in (SOURCE / "docs" / "exit-codes.md").read_text().splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) != 3 or cells[0] in ("command", "---"):
            continue
        if cells[0]:
            m = re.match(r"`gpuwatch ?(\w*)`", cells[0])
            cmd = m.group(1) if m else None
        if cmd is not None:
            codes.setdefault(cmd, set()).update(int(n) for n in re.findall(r"\d+", cells[1]))
    return codes


@pytest.mark.parametrize("cmd", PAGES)
def test_exit_status_matches_docs(cmd):
    """The codes --help and the man page give are those of docs/exit-codes.md."""
    docs = documented_codes()
    assert {"run", "check", "report", ""} <= set(docs)
    text = help_text(cmd).split("\nExit status: ")[1].split("\nExample")[0]
    said = {int(n) for n in re.findall(r"(?<![\w.])\d+(?![\w.])", text)}
    assert said == docs.get(cmd or "", {0, 1, 2}), text
