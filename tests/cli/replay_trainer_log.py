"""Prints a vendored trainer log (tests/data/trainer-logs/NAME.log) with its own timing,
compressed: python3 replay_trainer_log.py PATH [SECONDS].

The log's own timestamps ("2023-03-22 09:30:39", "2020-05-08 18:56:16,649", "[03/15 07:47:57",
"04/21 21:03:53") space its lines, scaled so that the whole log takes SECONDS (default 2.5);
lines without one follow the line before 5 ms later. A log without timestamps is paced by what
its lines say: a Keras line's "- 109s" is its epoch's time, an evaluation result took a pause
before it, other lines 50 ms; then scaled the same way."""
import re
import sys
import time
from datetime import datetime

FULL = re.compile(r"(\d{4})-(\d\d)-(\d\d)[ T](\d\d):(\d\d):(\d\d)(?:[.,](\d+))?")
SHORT = re.compile(r"^\[?(\d\d)/(\d\d) (\d\d):(\d\d):(\d\d)")
GLOG = re.compile(r"^[IWEF](\d\d)(\d\d) (\d\d):(\d\d):(\d\d)\.(\d+)")
KERAS_S = re.compile(r"\] - (\d+)s |━ (\d+)s ")
EVAL = re.compile(r"\b(valid|validation|val|eval\w*|test)\b", re.I)


def own_time(line):
    found = FULL.findall(line)  # the last one: mmcv's bar runs into its logger's line
    if found:
        m = FULL.search(line, line.rfind(found[-1][0] + "-" + found[-1][1]))
    if found and m:
        y, mo, d, h, mi, s, frac = m.groups()
        t = datetime(int(y), int(mo), int(d), int(h), int(mi), int(s)).timestamp()
        return t + (float("0." + frac) if frac else 0.0)
    m = GLOG.search(line)  # Caffe's glog: "I0914 09:33:36.987599"
    if m:
        mo, d, h, mi, s, frac = m.groups()
        t = datetime(2000, int(mo), int(d), int(h), int(mi), int(s)).timestamp()
        return t + float("0." + frac)
    m = SHORT.search(line)
    if m:
        mo, d, h, mi, s = (int(x) for x in m.groups())
        return datetime(2000, mo, d, h, mi, s).timestamp()
    return None


def main():
    lines = open(sys.argv[1], encoding="utf-8").read().splitlines(keepends=True)
    budget = float(sys.argv[2]) if len(sys.argv) > 2 else 2.5
    times = [own_time(line) for line in lines]
    gaps = []
    if sum(t is not None for t in times) >= 2:
        last = None
        for t in times:
            gaps.append(0.0 if t is None or last is None else max(t - last, 0.0))
            last = t if t is not None else last
    else:
        for line in lines:
            m = KERAS_S.search(line)
            if m:
                gaps.append(float(m.group(1) or m.group(2)))
            elif EVAL.search(line):
                gaps.append(1.0)
            else:
                gaps.append(0.05)
    total = sum(gaps) or 1.0
    for line, gap in zip(lines, gaps):
        time.sleep(max(gap * budget / total, 0.005))
        sys.stdout.write(line)
        sys.stdout.flush()


main()
