#!/usr/bin/env python3
"""A stand-in for torchrun --standalone --nproc_per_node N --no-python CMD...: starts CMD N times
with the environment torchrun's elastic agent gives its workers (RANK, LOCAL_RANK, WORLD_SIZE,
LOCAL_WORLD_SIZE, GROUP_RANK, ROLE_RANK, ROLE_WORLD_SIZE, MASTER_ADDR, MASTER_PORT,
TORCHELASTIC_RUN_ID, TORCHELASTIC_RESTART_COUNT, TORCHELASTIC_MAX_RESTARTS) and exits with the
first non-zero exit status (tests/cli/test_torchrun_ranks.py)."""
import os
import subprocess
import sys
import uuid


def main(argv):
    nproc, i = 1, 0
    while i < len(argv) and argv[i].startswith("--"):
        a = argv[i]
        if a in ("--nproc_per_node", "--nproc-per-node"):
            nproc = int(argv[i + 1])
            i += 1
        elif a.startswith("--nproc_per_node=") or a.startswith("--nproc-per-node="):
            nproc = int(a.split("=", 1)[1])
        elif a not in ("--standalone", "--no-python", "--no_python"):
            sys.exit(f"fake_torchrun: unsupported option {a}")
        i += 1
    cmd = argv[i:]
    if not cmd:
        sys.exit("fake_torchrun: no command")
    run_id = os.environ.get("FAKE_TORCHRUN_RUN_ID", str(uuid.uuid4()))
    procs = []
    for rank in range(nproc):
        env = dict(os.environ, RANK=str(rank), LOCAL_RANK=str(rank), WORLD_SIZE=str(nproc),
                   LOCAL_WORLD_SIZE=str(nproc), GROUP_RANK="0", ROLE_RANK=str(rank),
                   ROLE_WORLD_SIZE=str(nproc), MASTER_ADDR="127.0.0.1", MASTER_PORT="29500",
                   TORCHELASTIC_RUN_ID=run_id, TORCHELASTIC_RESTART_COUNT="0",
                   TORCHELASTIC_MAX_RESTARTS="0")
        procs.append(subprocess.Popen(cmd, env=env))
    codes = [p.wait() for p in procs]
    sys.exit(next((c for c in codes if c), 0))


if __name__ == "__main__":
    main(sys.argv[1:])
