"""A standard output that cannot be written is an error (docs/exit-codes.md), not a silent cut."""
import os
import subprocess

import pytest
from conftest import GW, SOURCE

RUN_DIR = SOURCE / "examples" / "recordings" / "h200-gpm-step"

pytestmark = pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")


def to_full(args):
    with open("/dev/full", "w") as full:
        return subprocess.run([GW] + args, stdout=full, stderr=subprocess.PIPE, text=True,
                              timeout=60)


@pytest.mark.parametrize("args", [["--version"], ["help", "run"], ["report", str(RUN_DIR)],
                                  ["report", str(RUN_DIR), "--json", "-"], ["plot", "--help"]])
def test_a_full_stdout_is_one_line_and_status_1(args):
    r = to_full(args)
    assert r.returncode == 1, (args, r.returncode, r.stderr)
    lines = r.stderr.strip().splitlines()
    # said by the command itself (report --json -: "cannot write stdout: No space left on
    # device"), else at the final flush, with the write's errno when stdio still has it
    assert lines[-1].startswith("gpuwatch"), lines
    assert ("could not write the output (" in lines[-1] and
            lines[-1].endswith("): free some space or write it elsewhere")) or \
        lines[-1].endswith("cannot write stdout: No space left on device"), lines
    assert len(lines) == 1, r.stderr


def test_the_same_commands_succeed_into_a_file(tmp_path):
    with open(tmp_path / "out", "w") as f:
        r = subprocess.run([GW, "report", str(RUN_DIR)], stdout=f, stderr=subprocess.PIPE,
                           text=True, timeout=60)
    assert r.returncode == 0 and r.stderr == ""
    assert (tmp_path / "out").read_text().startswith("gpuwatch report: 1 GPU")
