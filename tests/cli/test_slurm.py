"""deploy/slurm/ against a real single-node Slurm (Debian's slurmctld + slurmd + munge), configured
in a temporary directory, on free ports, started and stopped by the test: a job submitted with
sbatch gets its mapping file while it runs (and `gpuwatch serve` labels its GPU with hpc_job),
and leaves a per-job summary when it ends.

gres/gpu cannot be configured on a machine without GPUs (slurmd checks the device files), so the
Prolog and Epilog are wrapped: the wrapper sets what Slurm's gres plugin would set for a job
given GPU 1 (SLURM_JOB_GPUS=1, CUDA_VISIBLE_DEVICES=1) and the fake NVML library, then runs the
real scripts. Needs root (slurmd runs jobs as their user) and runs once: not in the sanitizer
build (the daemons are Debian's, and the test takes ~20 s)."""
import json
import os
import shutil
import socket
import subprocess

import pytest

from conftest import BUILD, FAKE, GW, SOURCE, free_ports, poll
from serve_helpers import Server, const_h200, parse
from test_slurm_scripts import stop_recorders

SLURM = SOURCE / "deploy" / "slurm"
DAEMONS = ("munged", "slurmctld", "slurmd", "sbatch", "squeue", "scontrol")

pytestmark = [
    pytest.mark.skipif("asan" in BUILD.name,
                       reason="runs once, in the normal build: Debian's daemons, ~20 s"),
    pytest.mark.skipif(os.geteuid() != 0, reason="slurmd runs jobs as their user: needs root"),
]


def scenario_two_gpus(path):
    """GPU 0: another job's, idle. GPU 1: the job's, busy with known values."""
    busy = const_h200(1)
    busy["timeline"][0].update(util_gpu=80, sm_active=50, tensor_active=20, power_w=400)
    idle = const_h200(0, used_mib=0)
    idle["timeline"][0].update(util_gpu=0, sm_active=0, tensor_active=0, power_w=70)
    path.write_text(json.dumps({"driver_version": "580.159.04", "devices": [idle, busy]}))
    return path


class Slurm:
    """munged + slurmctld + slurmd in tmp, with deploy/slurm's Prolog and Epilog wrapped."""

    def __init__(self, tmp, scenario):
        self.tmp = tmp
        self.procs = []
        self.node = node = socket.gethostname().split(".")[0]
        ctld_port, slurmd_port = free_ports(2)
        for d in ("state", "spool", "munge", "runs", "jobs", "map", "rec"):
            (tmp / d).mkdir()
        os.chmod(tmp / "munge", 0o700)
        key = tmp / "munge" / "munge.key"
        key.write_bytes(os.urandom(1024))
        os.chmod(key, 0o400)
        self.sock = tmp / "munge" / "munge.sock"
        conf = tmp / "gpuwatch-slurm.conf"
        text = (SLURM / "gpuwatch-slurm.conf").read_text()
        for k, v in {"GPUWATCH": GW, "RUN_DIR": tmp / "runs", "JOBS_DIR": tmp / "jobs",
                     "MAP_DIR": tmp / "map", "STATE_DIR": tmp / "rec", "INTERVAL": "0.2",
                     "LOG_FILE": tmp / "gpuwatch-slurm.log", "STOP_TIMEOUT": "20",
                     "RUN_NAME": "%j.%n"}.items():
            assert f"\n{k}=" in text, k
            text = "\n".join(f"{k}={v}" if ln.startswith(f"{k}=") else ln
                             for ln in text.split("\n"))
        conf.write_text(text)
        for script in ("prolog", "epilog"):
            w = tmp / f"{script}-wrapper"
            w.write_text(
                "#!/bin/sh\n# what gres/gpu would set for a job given GPU 1, and the fake NVML\n"
                "export SLURM_JOB_GPUS=1 CUDA_VISIBLE_DEVICES=1\n"
                f"export GPUWATCH_NVML_LIB={FAKE} FAKE_NVML_SCENARIO={scenario}\n"
                f"export GPUWATCH_SLURM_CONF={conf}\n"
                f"exec {SLURM / ('gpuwatch-' + script)}\n")
            os.chmod(w, 0o755)
        self.conf = tmp / "slurm.conf"
        self.conf.write_text(f"""ClusterName=gpuwatchtest
SlurmctldHost={node}(127.0.0.1)
SlurmctldPort={ctld_port}
SlurmdPort={slurmd_port}
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket={self.sock}
StateSaveLocation={tmp / 'state'}
SlurmdSpoolDir={tmp / 'spool'}
SlurmctldPidFile={tmp / 'slurmctld.pid'}
SlurmdPidFile={tmp / 'slurmd.pid'}
SlurmctldLogFile={tmp / 'slurmctld.log'}
SlurmdLogFile={tmp / 'slurmd.log'}
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MpiDefault=none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
ReturnToService=2
Prolog={tmp / 'prolog-wrapper'}
Epilog={tmp / 'epilog-wrapper'}
PrologFlags=Alloc
SlurmctldDebug=info
SlurmdDebug=info
NodeName={node} NodeAddr=127.0.0.1 CPUs=1 RealMemory=100 State=UNKNOWN
PartitionName=test Nodes={node} Default=YES MaxTime=INFINITE State=UP
""")
        self.env = dict(os.environ, SLURM_CONF=str(self.conf))
        self.start("munged", ["munged", "-F", "-f", f"--socket={self.sock}",
                              f"--key-file={key}", f"--pid-file={tmp / 'munge' / 'pid'}",
                              f"--log-file={tmp / 'munge' / 'log'}",
                              f"--seed-file={tmp / 'munge' / 'seed'}"])
        poll("munged's socket", self.sock.exists, 30, self.logs)
        self.start("slurmctld", ["slurmctld", "-D", "-i", "-f", str(self.conf)])
        self.start("slurmd", ["slurmd", "-D", "-f", str(self.conf), "-N", node])
        poll("the node idle", lambda: "idle" in self.run("sinfo", "-h", "-o", "%t").stdout,
             60, self.logs)

    def start(self, name, argv):
        log = open(self.tmp / f"{name}.out", "w")
        self.procs.append((name, subprocess.Popen(argv, env=self.env, stdout=log,
                                                  stderr=subprocess.STDOUT)))
        log.close()

    def run(self, *argv):
        return subprocess.run(list(argv), env=self.env, capture_output=True, text=True,
                              timeout=60)

    def logs(self):
        out = []
        for f in sorted(self.tmp.glob("*.log")) + sorted(self.tmp.glob("*.out")):
            out.append(f"--- {f.name}\n{f.read_text(errors='replace')[-3000:]}")
        return "\n".join(out)

    def stop(self):
        stop_recorders(self.tmp / "rec")
        for _name, p in reversed(self.procs):
            if p.poll() is None:
                p.terminate()
        for _name, p in reversed(self.procs):
            try:
                p.wait(30)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()


@pytest.fixture
def slurm(tmp_path):
    missing = [d for d in DAEMONS if not shutil.which(d)]
    assert not missing, (f"{missing} missing: run scripts/deps.sh --test "
                         "(Debian packages slurmctld slurmd slurm-client munge)")
    sc = scenario_two_gpus(tmp_path / "scenario.json")
    s = Slurm(tmp_path, sc)
    s.scenario = sc
    try:
        yield s
    finally:
        s.stop()


def test_prolog_epilog_around_a_real_job(slurm, tmp_path):
    tmp = slurm.tmp
    r = slurm.run("sbatch", "--parsable", "-o", str(tmp / "job.out"),
                  "--export=ALL,CUDA_VISIBLE_DEVICES=1", "--wrap",
                  f"sleep 6; echo done > {tmp / 'job.done'}")
    assert r.returncode == 0, r.stderr + slurm.logs()
    job = r.stdout.strip().split(";")[0]
    assert job.isdigit(), r.stdout

    # While it runs: GPU 1's mapping file names the job, GPU 0 has none, and the recorder runs.
    mapping = tmp / "map" / "1"
    poll("the mapping file", mapping.exists, 60, slurm.logs)
    assert mapping.read_text() == f"{job}\n"
    assert not (tmp / "map" / "0").exists()
    assert (tmp / "map" / ".jobs" / job).read_text() == "user=root\n"
    pid, run_dir = (tmp / "rec" / job).read_text().split()
    assert run_dir == str(tmp / "runs" / f"{job}.{slurm.node}")  # RUN_NAME=%j.%n
    with Server(slurm.scenario, ["--hpc-job-mapping-dir", tmp / "map", "-i", "0.2"]) as s:
        s.wait_sample()
        p = parse(s.metrics())
        temp = {lab["gpu"]: lab.get("hpc_job") for lab, _ in p["DCGM_FI_DEV_GPU_TEMP"]}
        assert temp == {"0": None, "1": job}
        info = [lab for lab, _ in p["gpuwatch_job_info"]]
        assert [(i["gpu"], i["hpc_job"], i["user"]) for i in info] == [("1", job, "root")]

    # When it ends: the mapping is gone, the recorder stopped, the summary written.
    summary = tmp / "jobs" / f"{job}.json"
    poll("the per-job summary", summary.exists, 90, slurm.logs)
    assert (tmp / "job.done").read_text() == "done\n"
    assert not mapping.exists() and not (tmp / "map" / ".jobs" / job).exists()
    assert not (tmp / "rec" / job).exists()
    assert not os.path.exists(f"/proc/{pid}") or \
        b"record" not in open(f"/proc/{pid}/cmdline", "rb").read()
    assert oct(os.stat(summary).st_mode & 0o777) == "0o644"
    doc = json.loads(summary.read_text())
    gpu1 = [g for g in doc["gpus"] if g["index"] == 1]
    assert len(gpu1) == 1, doc["gpus"]
    g = gpu1[0]
    # what jobstats users ask for: busy share, SM and tensor activity, energy, verdicts
    assert g["busy_pct"] == 80 and g["stats"]["utilization.gpu [%]"]["mean"] == 80
    assert g["stats"]["gpm.sm_active [%]"]["mean"] == 50
    assert g["stats"]["gpm.tensor_active [%]"]["mean"] == 20
    assert g["energy_wh"] > 0 and g["duration_s"] > 3
    assert isinstance(doc["verdicts"], list)
    assert doc["inputs"] and str(run_dir) in json.dumps(doc["inputs"])
    if doc.get("job") is not None:  # issue 17's job block (scoped recording)
        assert doc["job"]["scheduler"] == "slurm" and doc["job"]["job_id"] == job
        assert doc["job"]["gpus"] == [1]
    meta = json.loads((tmp / "runs" / f"{job}.{slurm.node}" / "meta.json").read_text())
    # the recorder ended on the Epilog's SIGTERM with its files complete (not killed)
    assert (meta["end_reason"], meta["complete"], meta["cwd"]) == ("signal", True, "/")
    # the Epilog logs the summary just after it moved it in place
    log = poll("the Epilog's last line", lambda: f"summary in {summary}" in (
        t := (tmp / "gpuwatch-slurm.log").read_text()) and t, 30)
    assert f"prolog job {job} on {slurm.node}: recording GPUs 1 in {run_dir}" in log, log
