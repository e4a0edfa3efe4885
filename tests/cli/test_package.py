"""Installing gpuwatch (issue 18): `cmake --install` with a prefix, the .deb that CPack makes from
the same build (lintian, dpkg -i on this machine, the installed binary, man page and bash
completion, dpkg -r), and the marker module through `pip install ./python` in a venv.

Run once, from the normal build: the sanitizer build's binary is not what gets shipped, and
installing a package twice at the same time would race on dpkg's lock (cmake/tests.cmake runs
every test in both builds)."""
import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from conftest import BUILD, FAKE, SOURCE, gw_env, h200

PKG = "gpuwatch"


def _sanitizer_build():
    cache = BUILD / "CMakeCache.txt"
    return cache.exists() and re.search(r"^GPUWATCH_SANITIZE:BOOL=ON$", cache.read_text(), re.M)


pytestmark = pytest.mark.skipif(bool(_sanitizer_build()),
                                reason="packaging is tested once, from the normal build/")


def sh(argv, timeout=300, **kw):
    return subprocess.run([str(a) for a in argv], capture_output=True, text=True,
                          timeout=timeout, **kw)


def version():
    text = (SOURCE / "CMakeLists.txt").read_text()
    return re.search(r"project\(gpuwatch VERSION (\d+\.\d+\.\d+)", text).group(1)


SHIPPED = [  # relative to the prefix: what every install holds
    "bin/gpuwatch",
    "share/doc/gpuwatch/README.md",
    "share/doc/gpuwatch/copyright",
    "share/doc/gpuwatch/docs/serve.md",
    "share/doc/gpuwatch/examples/gpuwatch.ini",
    "share/doc/gpuwatch/examples/prometheus/gpuwatch-rules.yml",
    "lib/systemd/system/gpuwatch.service",
    "lib/gpuwatch/python/sitecustomize.py",  # run's in-job data (docs/inproc.md)
    "lib/gpuwatch/python/usercustomize.py",  # the same where the job's sitecustomize hides it
    "lib/gpuwatch/python/_gpuwatch_site.py",
    "lib/gpuwatch/python/_gpuwatch_inproc.py",
    "lib/gpuwatch/python/_gpuwatch_torch.py",
]
KUBERNETES = ["lib/gpuwatch/modules/gpuwatch-podres.so"]  # serve --kubernetes (its own .deb)


def not_shipped(paths):
    """Paths that must never be installed: the fake NVML, test and benchmark programs."""
    bad = re.compile(r"libnvidia-ml|fake|/tests?/|/test_|bench|scrape_load|nvml_(rss|init)|\.so")
    programs = [p for p in paths if "/share/doc/" not in "/" + p]  # docs may name them
    return [p for p in programs if bad.search(p) and not p.endswith("/modules/gpuwatch-podres.so")]


def test_cmake_install_prefix(tmp_path):
    prefix = tmp_path / "opt gw"  # a space in the prefix must not break the unit's path
    r = sh(["cmake", "--install", BUILD, "--prefix", prefix])
    assert r.returncode == 0, r.stdout + r.stderr
    files = sorted(str(p.relative_to(prefix)) for p in prefix.rglob("*") if p.is_file())
    for f in SHIPPED + KUBERNETES:
        assert f in files, (f, files)
    # the marker module where python3 looks under a prefix of its own (docs/install.md)
    pyver = sh(["python3", "-c", "import sys; print('%d.%d' % sys.version_info[:2])"]).stdout
    assert f"lib/python{pyver.strip()}/site-packages/gpuwatch.py" in files, files
    assert "share/doc/python3-gpuwatch/copyright" in files
    assert not_shipped(files) == []
    assert [f for f in files if f.startswith("bin/")] == ["bin/gpuwatch"]
    assert "share/doc/gpuwatch/changelog.Debian.gz" not in files  # the .deb's alone
    assert os.access(prefix / "bin/gpuwatch", os.X_OK)
    r = sh([prefix / "bin/gpuwatch", "--version"])
    assert (r.returncode, r.stdout) == (0, f"gpuwatch {version()}\n")
    assert (prefix / "share/doc/gpuwatch/examples/gpuwatch.ini").read_text() == \
        (SOURCE / "examples/gpuwatch.ini").read_text()
    unit_path = prefix / "lib/systemd/system/gpuwatch.service"
    unit = unit_path.read_text()
    execs = [ln for ln in unit.splitlines() if ln.startswith("ExecStart=")]
    assert execs == [f'ExecStart="{prefix}/bin/gpuwatch" serve --listen 127.0.0.1:9400 '
                     "--interval 1"]
    # the drop-in example in its header names the installed binary too
    assert f'#   ExecStart="{prefix}/bin/gpuwatch" serve --listen :9400' in unit
    # run puts the installed sitecustomize first on the job's PYTHONPATH, not the sources'
    scen = tmp_path / "scenario.json"
    scen.write_text(json.dumps({"devices": [h200()]}))
    r = subprocess.run([prefix / "bin/gpuwatch", "run", "--no-report", "-o", tmp_path / "r", "--",
                        "sh", "-c", 'echo "PP=$PYTHONPATH"'], env=gw_env(scen, PYTHONPATH="/x"),
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    assert f"PP={prefix}/lib/gpuwatch/python:/x" in (tmp_path / "r/output.log").read_text()
    analyze = shutil.which("systemd-analyze")
    if analyze:  # also proves the quoted path is the program systemd would run
        # --man=no: this prefix's man pages are not on man's path
        r = sh([analyze, "verify", "--man=no", unit_path])
        assert (r.returncode, r.stderr) == (0, ""), r.stderr
        broken = tmp_path / "unquoted.service"
        broken.write_text(unit.replace(f'"{prefix}/bin/gpuwatch"', f"{prefix}/bin/gpuwatch"))
        assert sh([analyze, "verify", "--man=no", broken]).returncode != 0


# ---- the .deb ----

@pytest.fixture(scope="module")
def deb(tmp_path_factory):
    if not shutil.which("dpkg-shlibdeps"):
        pytest.fail("dpkg-shlibdeps is missing: run scripts/deps.sh --test (package dpkg-dev)")
    out = tmp_path_factory.mktemp("deb")
    # The `package` target runs the same configuration; -B keeps the staging out of build/.
    r = sh(["cpack", "--config", BUILD / "CPackConfig.cmake", "-B", out])
    assert r.returncode == 0, r.stdout + r.stderr
    debs = sorted(d.name for d in out.glob("*.deb"))
    arch = sh(["dpkg", "--print-architecture"]).stdout.strip()
    # issue 27: the PodResources module (gRPC) and the Python module in packages of their own
    assert debs == [f"gpuwatch-kubernetes_{version()}-1_{arch}.deb",
                    f"gpuwatch_{version()}-1_{arch}.deb",
                    f"python3-gpuwatch_{version()}-1_all.deb"]
    return out / f"gpuwatch_{version()}-1_{arch}.deb"


def sibling(deb, name):
    return next(deb.parent.glob(f"{name}_*.deb"))


def deb_files(deb):
    listing = sh(["dpkg-deb", "-c", deb]).stdout
    return [ln.split()[-1].lstrip(".") for ln in listing.splitlines()]


def test_deb_contents_and_dependencies(deb):
    files = deb_files(deb)
    for f in SHIPPED + ["share/doc/gpuwatch/changelog.Debian.gz",
                        "share/lintian/overrides/gpuwatch"]:
        assert "/usr/" + f in files, (f, files)
    assert not_shipped(files) == []
    assert [f for f in files if f.startswith("/usr/bin/") and f != "/usr/bin/"] == \
        ["/usr/bin/gpuwatch"]
    assert not any(f.startswith("/usr/local") or f.startswith("/etc") for f in files), files

    def field(name):
        return sh(["dpkg-deb", "-f", deb, name]).stdout.strip()

    assert field("Package") == PKG and field("Version") == f"{version()}-1"
    depends = sorted(d.split()[0] for d in field("Depends").split(", "))
    # dpkg-shlibdeps from what the binary links, nothing else (issue 27: no gRPC, no
    # microhttpd); what one command dlopen()s is recommended and that command says what to
    # install when it is missing
    assert depends == ["libc6", "libcjson1", "libinih1", "libncursesw6", "libtinfo6"], depends
    assert [d.split()[0] for d in field("Recommends").split(", ")] == \
        ["libmicrohttpd12", "libcairo2", "fonts-dejavu-core", "libcurl4"]
    assert field("Suggests") == "python3-gpuwatch"
    kube = sibling(deb, "gpuwatch-kubernetes")
    kfiles = deb_files(kube)
    assert "/usr/" + KUBERNETES[0] in kfiles and "/usr/" + KUBERNETES[0] not in files
    kdeps = [d.split()[0] for d in sh(["dpkg-deb", "-f", kube, "Depends"]).stdout.split(", ")]
    for lib in ["gpuwatch", "libmicrohttpd12", "libgrpc29", "libprotobuf-c1"]:
        assert lib in kdeps, (lib, kdeps)
    py = sibling(deb, "python3-gpuwatch")
    assert "/usr/lib/python3/dist-packages/gpuwatch.py" in deb_files(py)
    assert sh(["dpkg-deb", "-f", py, "Depends"]).stdout.strip() == "python3:any"
    # the binary is CPack's stripped copy of build/gpuwatch
    staged = deb.parent / "x"
    assert sh(["dpkg-deb", "-x", deb, staged]).returncode == 0
    kind = sh(["file", "-b", staged / "usr/bin/gpuwatch"]).stdout
    assert "ELF" in kind and ", stripped" in kind, kind
    assert "not stripped" in sh(["file", "-b", BUILD / "gpuwatch"]).stdout
    control = sh(["dpkg-deb", "-I", deb]).stdout
    assert "postinst" in control and "prerm" in control and "postrm" not in control


def test_deb_man_pages_and_completions(deb):
    files = deb_files(deb)
    man = sorted(f for f in files if f.startswith("/usr/share/man/man1/"))
    for page in ["gpuwatch", "gpuwatch-run", "gpuwatch-record", "gpuwatch-report",
                 "gpuwatch-query", "gpuwatch-check", "gpuwatch-serve", "gpuwatch-mark"]:
        assert f"/usr/share/man/man1/{page}.1.gz" in man, (page, man)
    assert "/usr/share/bash-completion/completions/gpuwatch" in files
    assert "/usr/share/zsh/vendor-completions/_gpuwatch" in files


def test_deb_lintian(deb):
    lintian = shutil.which("lintian")
    assert lintian, "lintian is missing: run scripts/deps.sh --test (Debian package lintian)"
    # --fail-on error: any E: tag fails it (as root it also warns about that on stderr)
    debs = [deb, sibling(deb, "gpuwatch-kubernetes"), sibling(deb, "python3-gpuwatch")]
    r = sh([lintian, "--fail-on", "error", "--display-info", *debs], timeout=600)
    tags = re.findall(r"^([EWIPX]): \S+: (\S+)", r.stdout, re.M)
    errors = [t for level, t in tags if level == "E"]
    assert (r.returncode, errors) == (0, []), r.stdout + r.stderr
    # Every warning is justified: the one lintian-overrides file (packaging/deb) hides the others.
    warnings = sorted({t for level, t in tags if level == "W"})
    assert warnings == [], r.stdout


def dpkg_status():
    r = sh(["dpkg-query", "-W", "-f=${Status}", PKG])
    return r.stdout.strip() if r.returncode == 0 else "not-installed"


def dpkg(*args):
    """dpkg, waiting while another apt or dpkg holds the lock (this machine is shared)."""
    for _ in range(60):
        r = sh(["dpkg"] + list(args))
        if r.returncode == 0 or "lock" not in r.stderr:
            return r
        subprocess.run(["sleep", "2"])
    return r


@pytest.fixture(scope="module")
def installed(deb):
    if os.geteuid() != 0:
        pytest.skip("dpkg -i needs root (CI runs as root)")
    if dpkg_status() != "not-installed":
        pytest.skip(f"a {PKG} package is already installed here ({dpkg_status()}): "
                    "this test would replace and then remove it")
    r = dpkg("-i", deb)
    try:
        assert r.returncode == 0, r.stdout + r.stderr
        assert dpkg_status() == "install ok installed"
        yield deb
    finally:
        r = dpkg("-r", PKG)
        assert r.returncode == 0, r.stdout + r.stderr
        # no conffiles and no postrm: nothing is left behind
        assert dpkg_status() == "not-installed"
        assert not Path("/usr/bin/gpuwatch").exists()
        assert not Path("/usr/lib/systemd/system/gpuwatch.service").exists()
        assert not Path("/usr/share/doc/gpuwatch").exists()


def test_installed_binary_runs(installed, tmp_path):
    r = sh(["/usr/bin/gpuwatch", "--version"])
    assert (r.returncode, r.stdout) == (0, f"gpuwatch {version()}\n")
    # The installed binary reads GPUs: here the fake NVML's H200 (the package does not ship it).
    scenario = tmp_path / "one.json"
    scenario.write_text('{"driver_version": "580.159.04", "devices": [%s]}' % (
        json.dumps(h200())))
    r = sh(["/usr/bin/gpuwatch", "query", "--query-gpu=index,name,memory.total",
            "--format=csv,noheader,nounits"], env=gw_env(scenario))
    assert (r.returncode, r.stdout) == (0, "0, NVIDIA H200, 143771\n"), r.stderr
    assert FAKE not in sh(["dpkg", "-L", PKG]).stdout
    unit = Path("/usr/lib/systemd/system/gpuwatch.service").read_text()
    assert "ExecStart=/usr/bin/gpuwatch serve --listen 127.0.0.1:9400 --interval 1\n" in unit
    analyze = shutil.which("systemd-analyze")
    if analyze:
        # with man: its Documentation=man:gpuwatch-serve(1) is the page the package installed
        r = sh([analyze, "verify", "/usr/lib/systemd/system/gpuwatch.service"])
        assert r.returncode == 0, r.stderr
        assert "Documentation=man:gpuwatch-serve(1)\n" in unit
    # the package neither enables nor starts the service
    assert not list(Path("/etc/systemd/system").rglob("gpuwatch.service"))


def test_installed_man_page(installed):
    assert shutil.which("man"), "man is missing: run scripts/deps.sh --test (man-db)"
    # LC_ALL=C: ASCII hyphens, so the options read as typed
    env = dict(os.environ, MANPAGER="cat", PAGER="cat", MANWIDTH="80", LC_ALL="C")
    env.pop("MANPATH", None)
    r = sh(["man", "gpuwatch-run"], env=env)
    assert r.returncode == 0, r.stderr
    text = re.sub(r".\x08", "", r.stdout)  # overstrike bold/underline from a non-tty man
    assert re.search(r"^NAME\n\s+gpuwatch-run\b", text, re.M), text[:400]
    for option in ["--epoch-regex", "--stall-timeout", "--listen"]:
        assert option in text, option
    r = sh(["man", "-w", "gpuwatch"], env=env)
    assert (r.returncode, r.stdout.strip()) == (0, "/usr/share/man/man1/gpuwatch.1.gz")


COMPLETE = r'''
source /usr/share/bash-completion/bash_completion
__load_completion gpuwatch || exit 3
spec=$(complete -p gpuwatch) || exit 4
echo "SPEC $spec"
fn=$(sed -n 's/.*-F \([^ ]*\) .*/\1/p' <<<"$spec")
query() {
  COMP_LINE="$1"; COMP_POINT=${#COMP_LINE}
  read -r -a COMP_WORDS <<<"$COMP_LINE"
  [[ $COMP_LINE == *" " ]] && COMP_WORDS+=("")
  COMP_CWORD=$(( ${#COMP_WORDS[@]} - 1 ))
  COMPREPLY=()
  "$fn" gpuwatch "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
  echo "REPLY $1| ${COMPREPLY[*]}"
}
query "gpuwatch ru"
query "gpuwatch run --epo"
query "gpuwatch report --fail-on "
'''


def test_installed_bash_completion(installed):
    assert Path("/usr/share/bash-completion/bash_completion").exists(), \
        "bash-completion is missing: run scripts/deps.sh --test"
    # only the system's completions: no user directory shadows the installed file
    env = dict(os.environ, XDG_DATA_HOME="/nonexistent")
    env.pop("BASH_COMPLETION_USER_DIR", None)
    r = sh(["bash", "--norc", "--noprofile", "-c", COMPLETE], env=env)
    assert r.returncode == 0, r.stdout + r.stderr
    spec = re.search(r"^SPEC (.*)$", r.stdout, re.M).group(1)
    assert re.fullmatch(r"complete( -o \S+)* -F \S+ gpuwatch", spec), spec
    replies = dict(re.findall(r"^REPLY (.*?)\| ?(.*)$", r.stdout, re.M))
    assert replies["gpuwatch ru"].split() == ["run"]
    assert replies["gpuwatch run --epo"].split() == ["--epoch-regex"]
    assert sorted(replies["gpuwatch report --fail-on "].split()) == ["critical", "warning"]


# ---- the marker module: pip install ./python ----

def test_pip_install_python_in_venv(tmp_path):
    # Debian's python3, whatever python runs pytest. Offline (--no-index: CI has no PyPI) in a
    # plain venv, build isolation on, as a user types it (issue 27): python/gpuwatch_build.py
    # builds the wheel with the standard library, so there is no build dependency to fetch.
    src = tmp_path / "src"
    shutil.copytree(SOURCE / "python", src)
    env_dir = tmp_path / "venv"
    r = sh(["/usr/bin/python3", "-m", "venv", env_dir])
    assert r.returncode == 0, "python3 -m venv failed (Debian package python3-venv): " + r.stderr
    py = env_dir / "bin" / "python"
    r = sh([py, "-m", "pip", "install", "--no-index", src],
           env=dict(os.environ, PIP_DISABLE_PIP_VERSION_CHECK="1"))
    assert r.returncode == 0, r.stdout + r.stderr
    assert "Successfully installed gpuwatch-" + version() in r.stdout
    probe = ("import gpuwatch, importlib.metadata as m, json; print(json.dumps(["
             "gpuwatch.__file__, gpuwatch.__version__, m.version('gpuwatch'), "
             "m.requires('gpuwatch'), gpuwatch.__all__]))")
    r = sh([py, "-c", probe], cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    path, mod_version, dist_version, requires, names = json.loads(r.stdout)
    assert Path(path).is_relative_to(env_dir / "lib")
    assert Path(path).read_text() == (SOURCE / "python/gpuwatch.py").read_text()
    assert mod_version == dist_version == version()  # one version: CMakeLists.txt's
    assert requires is None  # no dependencies
    assert names == ["mark", "mark_memory", "run_dir", "enabled"]
    # the installed module marks into a run directory like the copied file does
    run = tmp_path / "run"
    run.mkdir()
    (run / "events.jsonl").write_text("")
    r = sh([py, "-c", "import gpuwatch; print(gpuwatch.mark('epoch', n=3, total=10))"],
           cwd=tmp_path, env=dict(os.environ, GPUWATCH_RUN_DIR=str(run)))
    assert (r.returncode, r.stdout) == (0, "True\n"), r.stderr
    line = json.loads((run / "events.jsonl").read_text())
    assert (line["type"], line["text"], line["fields"]) == ("mark", "epoch", {"n": 3, "total": 10})
