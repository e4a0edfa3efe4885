"""A fake kubelet for `serve --kubernetes` tests: the PodResources v1 List call (gRPC, Debian's
python3-grpcio) on a unix socket, answering the real protobuf messages. The Python code for them
is generated from third_party/podresources/api.proto with protoc (Debian's protobuf-compiler) at
test time; the service is registered with grpc's generic handler, so grpc_tools is not needed.

    kube = FakeKubelet(tmp_path / "kubelet.sock", tmp_path)
    kube.pods = [("train-0", "ml", "trainer", "nvidia.com/gpu", ["GPU-..."])]
    kube.start(); ...; kube.stop()
"""
import importlib.util
import shutil
import subprocess
import threading
from concurrent import futures

import grpc

from conftest import SOURCE

PROTO_DIR = SOURCE / "third_party" / "podresources"


def load_messages(out_dir):
    """Generates api_pb2.py from the vendored api.proto into out_dir and imports it."""
    protoc = shutil.which("protoc")
    assert protoc, "protoc is missing: run scripts/deps.sh --test (Debian package protobuf-compiler)"
    subprocess.run([protoc, f"--proto_path={PROTO_DIR}", f"--python_out={out_dir}", "api.proto"],
                   check=True, timeout=60)
    spec = importlib.util.spec_from_file_location("api_pb2", out_dir / "api_pb2.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class FakeKubelet:
    def __init__(self, socket_path, gen_dir):
        self.path = str(socket_path)
        self.pb = load_messages(gen_dir)
        self.pods = []  # (pod, namespace, container, resource, [device ids])
        self.calls = 0  # List calls answered
        self.called = threading.Condition()
        self.server = None
        self.hang = None  # a threading.Event: List waits for it before answering (a hung kubelet)
        self.in_flight = threading.Event()  # set while a List call waits for hang

    def _list(self, request, context):
        if self.hang is not None:
            self.in_flight.set()
            self.hang.wait(60)
            self.in_flight.clear()
        resp = self.pb.ListPodResourcesResponse()
        for pod, ns, container, resource, ids in self.pods:
            p = resp.pod_resources.add(name=pod, namespace=ns)
            c = p.containers.add(name=container)
            c.devices.add(resource_name=resource, device_ids=ids)
            c.cpu_ids.extend([2, 3])  # fields gpuwatch does not read must not disturb it
        with self.called:
            self.calls += 1
            self.called.notify_all()
        return resp

    def start(self):
        handler = grpc.method_handlers_generic_handler("v1.PodResourcesLister", {
            "List": grpc.unary_unary_rpc_method_handler(
                self._list,
                request_deserializer=self.pb.ListPodResourcesRequest.FromString,
                response_serializer=self.pb.ListPodResourcesResponse.SerializeToString)})
        self.server = grpc.server(futures.ThreadPoolExecutor(max_workers=2))
        self.server.add_generic_rpc_handlers((handler,))
        assert self.server.add_insecure_port("unix:" + self.path) != 0
        self.server.start()

    def stop(self):
        if self.server:
            self.server.stop(None).wait(10)
            self.server = None

    def wait_calls(self, n, timeout=20):
        """Waits until n List calls were answered (a bound on waiting, not an assertion)."""
        with self.called:
            self.called.wait_for(lambda: self.calls >= n, timeout)
            return self.calls
