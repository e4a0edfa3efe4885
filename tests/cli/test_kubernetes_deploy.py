"""deploy/kubernetes/ renders with `kubectl kustomize` for every overlay (DaemonSet, Service,
ServiceMonitor with the fields that matter), and deploy/prometheus's Kubernetes alert rule passes
its promtool unit tests."""
import re
import shutil
import subprocess

import pytest
import yaml

from conftest import SOURCE

KUBE = SOURCE / "deploy" / "kubernetes"
OVERLAYS = sorted(p.name for p in (KUBE / "overlays").iterdir() if p.is_dir())
SOCKET_DIR = "/var/lib/kubelet/pod-resources"


def project_version():
    cmake = (SOURCE / "CMakeLists.txt").read_text()
    return re.search(r"project\(gpuwatch VERSION (\S+)", cmake).group(1)


def render(overlay):
    kubectl = shutil.which("kubectl")
    assert kubectl, "kubectl is missing: run scripts/deps.sh --test (Debian's kubernetes-client)"
    r = subprocess.run([kubectl, "kustomize", str(KUBE / "overlays" / overlay)],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    docs = [d for d in yaml.safe_load_all(r.stdout) if d]
    return {d["kind"]: d for d in docs}, docs


def test_overlays_exist():
    assert OVERLAYS == ["gpu-operator", "plain"]


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_overlay_renders(overlay):
    kinds, docs = render(overlay)
    namespace = {"plain": "gpuwatch", "gpu-operator": "gpu-operator"}[overlay]
    want = {"DaemonSet", "Service", "ServiceMonitor"} | ({"Namespace"} if overlay == "plain"
                                                          else set())
    assert set(kinds) == want and len(docs) == len(want)
    for d in docs:
        if d["kind"] != "Namespace":
            assert d["metadata"]["namespace"] == namespace, d["kind"]
            assert d["metadata"]["labels"]["app.kubernetes.io/name"] == "gpuwatch"
    ds = kinds["DaemonSet"]
    pod = ds["spec"]["template"]["spec"]
    [c] = pod["containers"]
    assert c["image"] == f"gpuwatch:{project_version()}"
    assert c["command"] == ["gpuwatch"]
    args = c["args"]
    assert args[0] == "serve" and "--kubernetes" in args
    assert args[args.index("--listen") + 1] == ":9400"
    assert args[args.index("--pod-resources-socket") + 1] == SOCKET_DIR + "/kubelet.sock"
    env = {e["name"]: e["value"] for e in c["env"]}
    assert env == {"NVIDIA_VISIBLE_DEVICES": "all", "NVIDIA_DRIVER_CAPABILITIES": "utility"}
    assert "resources" not in c or "nvidia.com/gpu" not in str(c["resources"])  # takes no GPU
    [mount] = c["volumeMounts"]
    assert mount == {"name": "pod-resources", "mountPath": SOCKET_DIR, "readOnly": True}
    [vol] = pod["volumes"]
    assert vol == {"name": "pod-resources", "hostPath": {"path": SOCKET_DIR, "type": "Directory"}}
    assert c["securityContext"]["readOnlyRootFilesystem"] is True
    assert c["securityContext"]["capabilities"]["drop"] == ["ALL"]
    assert c["livenessProbe"]["httpGet"]["path"] == "/healthz"
    port = c["ports"][0]
    assert (port["name"], port["containerPort"]) == ("metrics", 9400)
    labels = pod.get("nodeSelector")
    if overlay == "gpu-operator":
        assert labels == {"nvidia.com/gpu.present": "true"}
        assert pod["runtimeClassName"] == "nvidia"
    else:
        assert labels is None and "runtimeClassName" not in pod
    # The Service and the ServiceMonitor find the DaemonSet's pods.
    pod_labels = ds["spec"]["template"]["metadata"]["labels"]
    svc = kinds["Service"]
    assert svc["spec"]["selector"].items() <= pod_labels.items()
    assert svc["spec"]["ports"][0]["targetPort"] == "metrics"
    sm = kinds["ServiceMonitor"]
    assert sm["spec"]["selector"]["matchLabels"].items() <= svc["metadata"]["labels"].items()
    [ep] = sm["spec"]["endpoints"]
    assert ep["port"] == "metrics" and ep["path"] == "/metrics"
    drop = [r for r in ep["relabelings"] if r.get("action") == "labeldrop"]
    assert drop == [{"action": "labeldrop", "regex": "(pod|namespace|container)"}]


def test_idle_allocated_gpu_alert_rule():
    promtool = shutil.which("promtool")
    assert promtool, "promtool is missing: run scripts/deps.sh (Debian package prometheus)"
    rules = SOURCE / "deploy" / "prometheus"
    r = subprocess.run([promtool, "check", "rules", rules / "gpuwatch-kubernetes-rules.yml"],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0 and "SUCCESS: 1 rules found" in r.stdout, r.stdout + r.stderr
    r = subprocess.run([promtool, "test", "rules", rules / "gpuwatch-kubernetes-rules.test.yml"],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0 and "SUCCESS" in r.stdout, r.stdout + r.stderr
