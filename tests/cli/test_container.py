"""The node agent's container image (issue 18): Containerfile built with buildah from a Debian 12
root made by debootstrap (Docker Hub is not reachable from CI, Debian's mirror is), then checked:
its entry point, user and NVIDIA variables, its file list (gpuwatch and its runtime libraries,
no compiler, no cairo, no NVML), and `gpuwatch serve` running in it as `nobody` against the fake
NVML mounted from build/, scraped from outside.

Needs root, buildah, debootstrap and the Debian mirror (scripts/deps.sh --test installs the
tools). It takes about 4-5 minutes on two cores (debootstrap about 1, buildah bud about 3), so it
runs once, from the normal build. GPUWATCH_DEBIAN_MIRROR overrides the mirror."""
import json
import os
import re
import shutil
import signal
import subprocess
import time
import urllib.request
from pathlib import Path

import pytest

from conftest import BUILD, FAKE, SCENARIOS, SOURCE


def _sanitizer_build():
    cache = BUILD / "CMakeCache.txt"
    return cache.exists() and re.search(r"^GPUWATCH_SANITIZE:BOOL=ON$", cache.read_text(), re.M)


pytestmark = pytest.mark.skipif(bool(_sanitizer_build()),
                                reason="the image is built once, from the normal build/")

MIRROR = os.environ.get("GPUWATCH_DEBIAN_MIRROR", "http://deb.debian.org/debian")
BASE = "localhost/debian:bookworm-debootstrap"
IMAGE = "localhost/gpuwatch:test"


def sh(argv, timeout=600, **kw):
    return subprocess.run([str(a) for a in argv], capture_output=True, text=True,
                          timeout=timeout, **kw)


class Buildah:
    """buildah with its own storage under the test's directory (vfs: no kernel overlay needed)."""

    def __init__(self, top):
        self.opts = ["--root", top / "storage", "--runroot", top / "run",
                     "--storage-driver", "vfs"]

    def argv(self, *args):
        return ["buildah"] + self.opts + list(args)

    def __call__(self, *args, timeout=600):
        r = sh(self.argv(*args), timeout=timeout)
        assert r.returncode == 0, f"buildah {args[0]}: {r.stdout[-3000:]}{r.stderr[-3000:]}"
        return r.stdout


def context(dest):
    """The build context: the checkout's files (git ls-files, as a clean clone has them) and
    node_modules/uplot, which the build stage needs (it has no npm)."""
    r = sh(["git", "-C", SOURCE, "ls-files", "-z", "-co", "--exclude-standard"])
    assert r.returncode == 0, r.stderr
    for rel in filter(None, r.stdout.split("\0")):
        src = SOURCE / rel
        if src.is_file() and not src.is_symlink():
            (dest / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, dest / rel)
    uplot = SOURCE / "node_modules" / "uplot"
    assert (uplot / "dist").is_dir(), "node_modules/uplot is missing: run scripts/build.sh"
    shutil.copytree(uplot, dest / "node_modules" / "uplot", symlinks=False)


@pytest.fixture(scope="module")
def image(tmp_path_factory):
    if os.geteuid() != 0:
        pytest.skip("debootstrap and buildah need root here (CI runs as root)")
    for tool, pkg in [("buildah", "buildah"), ("debootstrap", "debootstrap")]:
        if not shutil.which(tool):
            pytest.fail(f"{tool} is missing: run scripts/deps.sh --test (Debian package {pkg})")
    top = tmp_path_factory.mktemp("image")
    b = Buildah(top)
    try:
        # 1. Debian 12 from its mirror, as a base image (minbase: apt, dpkg, no recommends)
        rootfs = top / "rootfs"
        r = sh(["debootstrap", "--variant=minbase", "bookworm", rootfs, MIRROR], timeout=900)
        assert r.returncode == 0, "debootstrap: " + (r.stdout + r.stderr)[-3000:]
        for junk in list((rootfs / "var/cache/apt/archives").glob("*.deb")):
            junk.unlink()
        ctr = b("from", "scratch").strip()
        mnt = Path(b("mount", ctr).strip())
        r = sh(["cp", "-a", f"{rootfs}/.", mnt])
        assert r.returncode == 0, r.stderr
        b("umount", ctr)
        b("commit", "-q", ctr, BASE)
        b("rm", ctr)
        shutil.rmtree(rootfs)
        # 2. the Containerfile, as written, on that base
        ctx = top / "ctx"
        ctx.mkdir()
        context(ctx)
        b("bud", "--isolation", "chroot", "--layers=false", "--build-arg", f"BASE={BASE}",
          "-t", IMAGE, "-f", ctx / "Containerfile", ctx, timeout=1200)
        yield b
    finally:
        sh(b.argv("rm", "--all"))
        sh(b.argv("rmi", "--all", "--force"))
        sh(["umount", "-R", top / "storage"])  # nothing is mounted after rm; just in case
        shutil.rmtree(top, ignore_errors=True)


def test_image_config(image):
    info = json.loads(image("inspect", "--type", "image", IMAGE))
    config = info["OCIv1"]["config"]
    assert config["Entrypoint"] == ["/usr/bin/gpuwatch", "serve"]
    assert config["Cmd"] == ["--listen", ":9400", "--interval", "1"]
    assert config["User"] == "65534:65534"  # nobody:nogroup, numeric for runAsNonRoot
    assert "NVIDIA_VISIBLE_DEVICES=all" in config["Env"]
    assert "NVIDIA_DRIVER_CAPABILITIES=utility" in config["Env"]
    assert list(config["ExposedPorts"]) == ["9400/tcp"]


def test_image_files(image):
    ctr = image("from", IMAGE).strip()
    try:
        root = Path(image("mount", ctr).strip())
        lib = root / "usr/lib/x86_64-linux-gnu"
        assert os.access(root / "usr/bin/gpuwatch", os.X_OK)
        # serve --kubernetes (the DaemonSet's image): the PodResources module and gRPC's library
        assert (root / "usr/lib/gpuwatch/modules/gpuwatch-podres.so").exists()
        for so in ["libmicrohttpd.so.12", "libcjson.so.1", "libinih.so.1", "libncursesw.so.6",
                   "libgrpc.so.29", "libprotobuf-c.so.1"]:
            assert (lib / so).exists() or (root / "lib/x86_64-linux-gnu" / so).exists(), so
        # the runtime stage holds no build tools, no sources, no cairo (recommends), no NVML
        for absent in ["usr/bin/gcc", "usr/bin/cmake", "usr/bin/cc", "src", "build",
                       "usr/lib/x86_64-linux-gnu/libcairo.so.2", "tmp/gpuwatch_0.1.0-1_amd64.deb"]:
            assert not (root / absent).exists(), absent
        assert not list(root.glob("usr/lib/x86_64-linux-gnu/libnvidia-ml*"))
        assert not list(root.glob("var/lib/apt/lists/*_Packages"))
        status = (root / "var/lib/dpkg/status").read_text()
        assert re.search(r"^Package: gpuwatch\nStatus: install ok installed$", status, re.M)
        assert not re.search(r"^Package: (gcc|cmake|libcairo2)\n", status, re.M)
    finally:
        image("umount", ctr)
        image("rm", ctr)


def test_image_serves_as_nobody(image, tmp_path):
    # NVML is the host's in real use (the NVIDIA container toolkit mounts it); here the fake one
    # is mounted the same way, read-only, and named by GPUWATCH_NVML_LIB.
    fake = tmp_path / "nvml"
    fake.mkdir()
    shutil.copy2(FAKE, fake / "libnvidia-ml.so.1")
    shutil.copy2(SCENARIOS / "h200_training.json", fake / "scenario.json")
    fake.chmod(0o755)
    ctr = image("from", IMAGE).strip()
    info = json.loads(image("inspect", "--type", "image", IMAGE))["OCIv1"]["config"]
    # the entry point with its own arguments; port 0: chroot isolation shares this host's network
    argv = info["Entrypoint"] + ["--listen", "127.0.0.1:0", "--interval", "0.2"]
    proc = subprocess.Popen(
        image.argv("run", "--isolation", "chroot", "--user", info["User"],
                   "-v", f"{fake}:/nvml:ro", "-e", "GPUWATCH_NVML_LIB=/nvml/libnvidia-ml.so.1",
                   "-e", "FAKE_NVML_SCENARIO=/nvml/scenario.json", ctr, "--", *argv),
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, start_new_session=True)
    try:
        line = proc.stdout.readline()
        m = re.search(r"serving 1 GPU \(NVIDIA H200\) on (http://127\.0\.0\.1:\d+)/metrics", line)
        assert m, line + (proc.stdout.read() if proc.poll() is not None else "")
        url = m.group(1)
        for _ in range(100):  # the first sample: /healthz turns 200
            try:
                with urllib.request.urlopen(url + "/healthz", timeout=5) as resp:
                    if resp.status == 200:
                        break
            except OSError:
                pass
            time.sleep(0.1)
        with urllib.request.urlopen(url + "/metrics", timeout=5) as resp:
            text = resp.read().decode()
        m = re.search(r'^DCGM_FI_DEV_FB_FREE\{gpu="0",[^}]*modelName="NVIDIA H200"[^}]*\} (\S+)$',
                      text, re.M)
        assert m, text[:2000]
        assert float(m.group(1)) > 0
        for _ in range(3):  # buildah run on a loaded machine once gave rc 0 and no output at all
            r = sh(image.argv("run", "--isolation", "chroot", ctr, "--", "id", "-u"))
            if r.returncode != 0 or r.stdout:
                break
        assert (r.returncode, r.stdout) == (0, "65534\n"), r.stderr
        # `serve --kubernetes` as the DaemonSet runs it: the module loads, and a kubelet that is
        # not there is a warning, not an exit
        r = sh(image.argv("run", "--isolation", "chroot", "--user", info["User"],
                          "-v", f"{fake}:/nvml:ro",
                          "-e", "GPUWATCH_NVML_LIB=/nvml/libnvidia-ml.so.1",
                          "-e", "FAKE_NVML_SCENARIO=/nvml/scenario.json", ctr, "--",
                          "timeout", "5", *info["Entrypoint"], "--listen", "127.0.0.1:0",
                          "--kubernetes", "--pod-resources-socket", "/nvml/none.sock"))
        assert r.returncode == 124, r.stdout + r.stderr  # still serving when timeout stops it
        assert "cannot ask the kubelet's pod-resources API at /nvml/none.sock" in r.stderr, \
            r.stdout + r.stderr
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
        image("rm", ctr)
