#!/usr/bin/env python3
"""A stand-in training script for machines without a GPU: prints what a training loop prints,
at the pace of examples/scenarios/demo_training.json (which the fake NVML library plays), using
only the Python standard library. scripts/setup.sh runs it when no NVIDIA driver is found."""
import sys
import time

EPOCHS, STEPS = 3, 20
print("simulated training: no GPU work happens, the fake NVML library plays a scenario",
      flush=True)
time.sleep(2.0)  # start-up: loading the model and the data
for epoch in range(1, EPOCHS + 1):
    print(f"Epoch {epoch}/{EPOCHS}", flush=True)
    for step in range(1, STEPS + 1):
        time.sleep(0.2)
        if step % 5 == 0:
            print(f"  step {step}/{STEPS} loss {2.0 / (epoch * step) ** 0.5:.4f}", flush=True)
    print(f"validation {epoch}", flush=True)
    time.sleep(1.0)
print("done", flush=True)
sys.exit(0)
