"""`gpuwatch serve --kubernetes` against a fake kubelet (fake_kubelet.py: the real PodResources v1
protobuf over gRPC on a unix socket): dcgm-exporter's pod, namespace and container labels,
gpuwatch_gpu_allocated, pod churn followed after one scrape, and a dead socket (one warning,
series without pod labels, recovery when the kubelet is back)."""
import json
import os
import shutil
import subprocess
import tempfile
import threading

import pytest

from conftest import FAKE, GW, gw, gw_env, poll, wait_for
from fake_kubelet import FakeKubelet
from serve_helpers import Server, const_h200, parse

UUIDS = [const_h200(i)["uuid"] for i in range(3)]


@pytest.fixture
def kubelet(tmp_path):
    k = FakeKubelet(tmp_path / "kubelet.sock", tmp_path)
    yield k
    k.stop()


MIG_UUID = "MIG-0b3e0000-0000-0000-0000-000000000003"


def serve(scenario, kubelet, *extra):
    devs = [const_h200(i) for i in range(3)]
    devs.append(const_h200(3, mig={"instances": [
        {"uuid": MIG_UUID, "name": "NVIDIA H200 MIG 3g.71gb", "memory_total_mib": 71424,
         "mem_used_mib": 2048}]}))
    path = scenario({"devices": devs})
    srv = Server(path, ["-i", "0.2", "--kubernetes", "--pod-resources-socket", kubelet.path]
                 + list(extra))
    srv.wait_sample()  # the GPU series exist from the first sample on
    return srv


def pod_of(p, gpu, name="DCGM_FI_DEV_GPU_TEMP"):
    """(pod, namespace, container) on GPU gpu's series of name, None when unlabelled."""
    [labels] = [lab for lab, _ in p[name] if lab["gpu"] == str(gpu)]
    keys = ("pod", "namespace", "container")
    assert all(k in labels for k in keys) or not any(k in labels for k in keys), labels
    return tuple(labels[k] for k in keys) if "pod" in labels else None


def allocated(p):
    return sorted((lab["gpu"], lab["UUID"], lab["pod"], lab["namespace"], lab["container"], v)
                  for lab, v in p.get("gpuwatch_gpu_allocated", []))


def test_labels_and_allocated(scenario, kubelet):
    kubelet.pods = [
        ("train-0", "ml", "trainer", "nvidia.com/gpu", [UUIDS[0]]),
        # GPU 1 shared by time-slicing replicas of two pods: both allocated, no single holder
        ("nb-a", "lab", "jupyter", "nvidia.com/gpu", [UUIDS[1] + "::0"]),
        ("nb-b", "lab", "jupyter", "nvidia.com/gpu", [UUIDS[1] + "::1"]),
        # GPU 2 through two MIG devices (old id form) of one container: one holder, once
        ("infer-7", "serving", "triton", "nvidia.com/mig-1g.18gb",
         [f"MIG-{UUIDS[2]}/1/0", f"MIG-{UUIDS[2]}/2/0"]),
        # GPU 3's MIG device in the current id form: its parent comes from NVML's MIG list
        ("llm", "serving", "vllm", "nvidia.com/mig-3g.71gb", [MIG_UUID]),
        ("other", "ml", "sidecar", "example.com/fpga", [UUIDS[0]]),  # not a GPU resource
        ("ghost", "ml", "c", "nvidia.com/gpu", ["GPU-not-on-this-node"]),
    ]
    kubelet.start()
    with serve(scenario, kubelet) as srv:
        text = srv.wait_for(lambda p, _t: len(p.get("gpuwatch_gpu_allocated", [])) == 5,
                            what="pod labels")
        p = parse(text)
        assert pod_of(p, 0) == ("train-0", "ml", "trainer")
        assert pod_of(p, 1) is None
        assert pod_of(p, 2) == ("infer-7", "serving", "triton")
        assert pod_of(p, 3) == ("llm", "serving", "vllm")
        # every GPU family carries them, not only one
        assert pod_of(p, 0, "DCGM_FI_DEV_FB_USED") == ("train-0", "ml", "trainer")
        assert pod_of(p, 0, "gpuwatch_gpu_lost") == ("train-0", "ml", "trainer")
        assert allocated(p) == [
            ("0", UUIDS[0], "train-0", "ml", "trainer", 1.0),
            ("1", UUIDS[1], "nb-a", "lab", "jupyter", 1.0),
            ("1", UUIDS[1], "nb-b", "lab", "jupyter", 1.0),
            ("2", UUIDS[2], "infer-7", "serving", "triton", 1.0),
            ("3", const_h200(3)["uuid"], "llm", "serving", "vllm", 1.0)]
        assert p["gpuwatch_pod_resources_up"] == [({}, 1.0)]
        assert "# TYPE gpuwatch_gpu_allocated gauge\n" in text
        om = srv.metrics("application/openmetrics-text; version=1.0.0")
        assert 'pod="train-0"' in om and om.endswith("# EOF\n")
        assert srv.stop() == 0
    assert "pod-resources" not in srv.stderr()  # no warning while the kubelet answers


def test_pod_churn_followed_after_one_scrape(scenario, kubelet):
    kubelet.pods = [("train-0", "ml", "trainer", "nvidia.com/gpu", [UUIDS[0]])]
    kubelet.start()
    with serve(scenario, kubelet) as srv:
        srv.wait_for(lambda p, _t: pod_of(p, 0) is not None, what="the first pod")
        # The job ends and another pod gets the GPU.
        kubelet.pods = [("train-1", "ml", "trainer", "nvidia.com/gpu", [UUIDS[0]])]
        before = kubelet.calls
        srv.metrics()  # a scrape: the watcher asks the kubelet again in the background
        assert kubelet.wait_calls(before + 1) == before + 1
        text = srv.wait_for(lambda p, _t: pod_of(p, 0) == ("train-1", "ml", "trainer"),
                            what="the new pod")
        # That one call was enough (another could only come a second after it, min_gap).
        assert kubelet.calls == before + 1
        assert allocated(parse(text)) == [("0", UUIDS[0], "train-1", "ml", "trainer", 1.0)]
        # The pod leaves: no holder, no pod labels, no allocated series.
        kubelet.pods = []
        srv.metrics()
        text = srv.wait_for(lambda p, _t: pod_of(p, 0) is None, what="the pod to leave")
        assert "gpuwatch_gpu_allocated" not in parse(text)
        # At most one List call per scrape (plus the one at start).
        scrapes = parse(srv.metrics())["gpuwatch_scrapes_total"][0][1]
        assert kubelet.calls <= scrapes + 1, (kubelet.calls, scrapes)
        assert srv.stop() == 0


def cannot_lines(srv):
    """The server's warnings that it cannot ask the pod-resources API, so far."""
    return [ln for ln in list(srv.lines) if "pod-resources API" in ln and "cannot" in ln]


def test_dead_socket_warns_once_and_recovers(scenario, kubelet):
    kubelet.pods = [("train-0", "ml", "trainer", "nvidia.com/gpu", [UUIDS[0]])]
    with serve(scenario, kubelet) as srv:  # no kubelet yet: the socket does not exist
        text = srv.wait_for(lambda p, _t: p.get("gpuwatch_pod_resources_up") == [({}, 0.0)],
                            what="pod_resources_up 0")
        for _ in range(5):
            p = parse(srv.metrics())
            assert pod_of(p, 0) is None and "gpuwatch_gpu_allocated" not in p
            assert p["DCGM_FI_DEV_GPU_TEMP"][0][1] == 65  # the GPU series are still there
        # stderr is read by a thread of its own: the line may follow the scrape that shows 0
        warnings = poll("the warning", lambda: cannot_lines(srv), 20, srv.stderr, every=0.05)
        assert len(warnings) == 1, srv.stderr()
        assert kubelet.path in warnings[0] and "without pod labels" in warnings[0]
        # The kubelet comes (back): labels return after the backoff, with one line saying so.
        kubelet.start()
        srv.wait_for(lambda p, _t: pod_of(p, 0) == ("train-0", "ml", "trainer"), timeout=60,
                     what="recovery")
        assert parse(srv.metrics())["gpuwatch_pod_resources_up"] == [({}, 1.0)]
        poll("the recovery's line", lambda: any("answers again" in ln for ln in srv.lines), 20,
             srv.stderr, every=0.05)
        assert sum("answers again" in ln for ln in srv.lines) == 1, srv.stderr()
        # It goes away again: a new outage, a new (single) warning, labels gone.
        kubelet.stop()
        srv.wait_for(lambda p, _t: pod_of(p, 0) is None, what="labels to go")
        srv.wait_for(lambda p, _t: p.get("gpuwatch_pod_resources_up") == [({}, 0.0)],
                     what="pod_resources_up 0 again")
        warnings = poll("the second warning", lambda: len(w := cannot_lines(srv)) >= 2 and w, 20,
                        srv.stderr, every=0.05)
        assert len(warnings) == 2, srv.stderr()
        assert srv.stop() == 0


def test_hung_kubelet_blocks_no_scrape(scenario, kubelet):
    """A kubelet that accepts the call and never answers: scrapes go on (the call runs in the
    background) and the call ends at its 5 s deadline with the warning."""
    kubelet.pods = [("train-0", "ml", "trainer", "nvidia.com/gpu", [UUIDS[0]])]
    kubelet.hang = threading.Event()
    kubelet.start()
    try:
        with serve(scenario, kubelet) as srv:
            assert kubelet.in_flight.wait(20)
            for _ in range(3):  # answered while the kubelet holds the call
                p = parse(srv.metrics())
                assert kubelet.in_flight.is_set()
                assert pod_of(p, 0) is None and p["DCGM_FI_DEV_GPU_TEMP"][0][1] == 65
            wait_for(lambda: any("cannot ask" in ln for ln in srv.lines), 30)  # the deadline
            [warning] = [ln for ln in srv.lines if "cannot ask" in ln]
            assert parse(srv.metrics())["gpuwatch_pod_resources_up"] == [({}, 0.0)]
            assert "Deadline Exceeded" in warning or "no answer within 5000 ms" in warning, warning
            kubelet.hang.set()  # the kubelet recovers
            kubelet.hang = None
            srv.wait_for(lambda p, _t: pod_of(p, 0) == ("train-0", "ml", "trainer"), timeout=60,
                         what="recovery")
            assert srv.stop() == 0
    finally:
        if kubelet.hang is not None:
            kubelet.hang.set()


def test_usage_and_missing_module(scenario, tmp_path):
    path = scenario({"devices": [const_h200(0)]})
    r = gw(["serve", "--pod-resources-socket", "/x.sock"], path)
    assert r.returncode == 2
    assert "--pod-resources-socket is for --kubernetes: add --kubernetes" in r.stderr
    r = gw(["serve", "--kubernetes", "--pod-resources-socket", ""], path)
    assert r.returncode == 2 and "--pod-resources-socket wants" in r.stderr
    r = gw(["serve", "--help"], path)
    assert "--kubernetes" in r.stdout and "/var/lib/kubelet/pod-resources/kubelet.sock" in r.stdout
    env = gw_env(path, GPUWATCH_PODRES_MODULE=str(tmp_path / "none.so"))
    r = gw(["serve", "--listen", "127.0.0.1:0", "--kubernetes"], path, env=env)
    assert r.returncode == 1
    assert f"GPUWATCH_PODRES_MODULE names {tmp_path / 'none.so'}, which does not exist" \
        in r.stderr, r.stderr
    assert len(r.stderr.strip().splitlines()) == 1
    # A module that is not one (another library): refused with the reason and the fix.
    env = gw_env(path, GPUWATCH_PODRES_MODULE=FAKE)
    r = gw(["serve", "--listen", "127.0.0.1:0", "--kubernetes"], path, env=env)
    assert r.returncode == 1
    assert "is not from this gpuwatch (it lacks gw_podres_module_abi)" in r.stderr, r.stderr
    # The binary copied away from its build: the module exists, just not beside it.
    shutil.copy(GW, tmp_path / "gpuwatch")
    r = subprocess.run([str(tmp_path / "gpuwatch"), "serve", "--listen", "127.0.0.1:0",
                        "--kubernetes"], env=gw_env(path), capture_output=True, text=True,
                       timeout=30)
    assert r.returncode == 1
    assert f"at {tmp_path}/../lib/gpuwatch/modules/gpuwatch-podres.so or " \
        f"{tmp_path}/gpuwatch-podres.so: install the package gpuwatch-kubernetes " \
        "(apt-get install gpuwatch-kubernetes)" \
        in r.stderr, r.stderr


def test_other_commands_do_not_load_grpc(scenario):
    """The module is loaded by `serve --kubernetes` only: gpuwatch itself links no gRPC."""
    maps = os.popen(f"ldd {GW}").read()
    assert "libgrpc" not in maps and "protobuf" not in maps, maps


@pytest.mark.parametrize("kind", ["missing", "directory", "file"])
def test_warning_says_what_is_wrong_with_the_socket(scenario, kubelet, kind):
    """The usual deployment mistakes each get their fix in the one warning: the directory not
    mounted, the socket's own path mounted (a directory when it did not exist yet), a file."""
    if kind == "directory":
        os.mkdir(kubelet.path)
    elif kind == "file":
        with open(kubelet.path, "w") as f:
            f.write("not a socket")
    with serve(scenario, kubelet) as srv:
        wait_for(lambda: any("cannot ask" in ln for ln in srv.lines), 30)
        [warning] = [ln for ln in srv.lines if "cannot ask" in ln]
        d = os.path.dirname(kubelet.path)
        expected = {
            "missing": f"retrying; is {d} mounted (hostPath, the directory)?",
            "directory": f"retrying; it is a directory, not a socket: mount the directory {d}, "
                         "not the socket",
            "file": "retrying; it is not a socket: --pod-resources-socket names the kubelet's "
                    "socket"}[kind]
        assert expected in warning, warning
        assert "/var/lib/kubelet" not in warning  # the path given, not the default's
        assert srv.stop() == 0


def test_warning_names_a_non_root_user(tmp_path):
    """The kubelet's socket is root's (0600 here): a non-root gpuwatch is told to run as root."""
    if os.geteuid() != 0 or not shutil.which("setpriv"):
        pytest.skip("needs root and setpriv to run gpuwatch as nobody")
    d = tempfile.mkdtemp(prefix="gw-nobody-")  # pytest's tmp_path is 0700: nobody reads there
    kubelet = FakeKubelet(os.path.join(d, "kubelet.sock"), tmp_path)
    try:
        os.chmod(d, 0o755)
        kubelet.start()
        os.chmod(kubelet.path, 0o600)
        path = os.path.join(d, "scenario.json")
        with open(path, "w") as f:
            f.write('{"devices": [%s]}' % json.dumps(const_h200(0)))
        os.chmod(path, 0o644)
        p = subprocess.Popen(["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", GW,
                              "serve", "--listen", "127.0.0.1:0", "-i", "0.2", "--kubernetes",
                              "--pod-resources-socket", kubelet.path],
                             env=gw_env(path), stderr=subprocess.PIPE, text=True)
        lines = []
        try:
            for line in p.stderr:
                lines.append(line)
                if "cannot ask" in line:
                    break
        finally:
            p.terminate()
            p.wait(30)
        [warning] = [ln for ln in lines if "cannot ask" in ln] or ["".join(lines)]
        assert "Permission denied" in warning, warning
        assert "user 65534 may not connect to it (the kubelet's socket is root's): run as root" \
            in warning, warning
    finally:
        kubelet.stop()
        shutil.rmtree(d)


@pytest.mark.parametrize("prefix", ["unix://", "unix:"])
def test_socket_in_endpoint_notation(scenario, kubelet, prefix):
    """unix:///var/lib/kubelet/... as kubelet and containerd configurations write it is the path
    (it was taken for a file name beginning with "unix:")."""
    kubelet.pods = [("train-0", "ml", "trainer", "nvidia.com/gpu", [UUIDS[0]])]
    kubelet.start()
    path = scenario({"devices": [const_h200(0)]})
    with Server(path, ["-i", "0.2", "--kubernetes", "--pod-resources-socket",
                       prefix + kubelet.path]) as srv:
        srv.wait_sample()
        srv.wait_for(lambda p, _t: pod_of(p, 0) == ("train-0", "ml", "trainer"),
                     what="pod labels")
        assert srv.stop() == 0
    assert "cannot ask" not in srv.stderr()
    r = gw(["serve", "--kubernetes", "--pod-resources-socket", prefix], path)
    assert r.returncode == 2 and "--pod-resources-socket wants" in r.stderr
