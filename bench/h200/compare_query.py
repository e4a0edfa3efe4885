#!/usr/bin/env python3
"""Cell by cell: what nvidia-smi and `gpuwatch query` printed for the same --query-gpu fields at
the same moment (files written by bench/h200/query.sh).

    python3 bench/h200/compare_query.py DIR

For every pair DIR/NAME.nvsmi.csv / DIR/NAME.gw.csv: whether the headers are byte for byte
equal, then one line per column that differs in any row, with both values. Values that move
between two reads (power, clocks, utilisation, timestamps) may differ by a little; anything
else that differs is a formatting difference to explain."""
import sys
from pathlib import Path

MOVING = {"timestamp", "utilization.gpu [%]", "utilization.memory [%]", "power.draw [W]",
          "temperature.gpu", "temperature.memory", "clocks.current.sm [MHz]",
          "clocks.current.graphics [MHz]", "clocks.current.memory [MHz]", "memory.used [MiB]",
          "memory.free [MiB]", "clocks_event_reasons.active", "clocks_event_reasons.gpu_idle",
          "clocks_event_reasons.sw_power_cap", "pstate"}


def rows(path):
    lines = path.read_text().splitlines()
    return lines[0], [ln.split(", ") for ln in lines[1:] if ln]


def compare(nv_path, gw_path):
    nv_head, nv_rows = rows(nv_path)
    gw_head, gw_rows = rows(gw_path)
    print(f"== {nv_path.name[:-len('.nvsmi.csv')]}: header "
          f"{'identical' if nv_head == gw_head else 'DIFFERS'}; rows {len(nv_rows)} / {len(gw_rows)}")
    if nv_head != gw_head:
        print(f"   nvidia-smi: {nv_head}\n   gpuwatch:   {gw_head}")
    cols = nv_head.split(", ")
    same = 0
    for c, name in enumerate(cols):
        pairs = [(a[c] if c < len(a) else "?", b[c] if c < len(b) else "?")
                 for a, b in zip(nv_rows, gw_rows)]
        diff = [(a, b) for a, b in pairs if a != b]
        if not diff:
            same += 1
            continue
        kind = "moves between reads" if name in MOVING else "FORMAT?"
        shown = "; ".join(f"nvidia-smi '{a}' gpuwatch '{b}'" for a, b in diff[:3])
        print(f"   {name:<48} {kind:<20} {shown}")
    print(f"   {same} of {len(cols)} columns identical in every row")


def main():
    d = Path(sys.argv[1])
    pairs = sorted(d.glob("*.nvsmi.csv"))
    if not pairs:
        sys.exit(f"no *.nvsmi.csv in {d}")
    for nv in pairs:
        gw = nv.with_name(nv.name.replace(".nvsmi.csv", ".gw.csv"))
        if gw.exists():
            compare(nv, gw)


if __name__ == "__main__":
    main()
