"""Prints a console-output fixture (progress_fixtures.py) with its redraws and sleeps:
python3 replay_output.py NAME [--stderr]."""
import sys
import time

sys.path.insert(0, __file__.rsplit("/", 1)[0])
from progress_fixtures import FIXTURES  # noqa: E402

stream = sys.stderr if "--stderr" in sys.argv else sys.stdout
for sleep_ms, text in FIXTURES[sys.argv[1]]():
    time.sleep(sleep_ms / 1000)
    stream.write(text)
    stream.flush()
