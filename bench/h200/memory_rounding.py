#!/usr/bin/env python3
"""How nvidia-smi turns memory bytes into MiB: holds some GPU memory, then prints NVML's used
bytes (v1 and v2) next to nvidia-smi's memory.used at the same moment."""
import subprocess
import time

import pynvml as N
import torch

x = torch.empty(int(13.37e9), dtype=torch.uint8, device="cuda")
y = torch.empty(12345677, dtype=torch.uint8, device="cuda")
N.nvmlInit()
h = N.nvmlDeviceGetHandleByIndex(0)
for _ in range(3):
    v1 = N.nvmlDeviceGetMemoryInfo(h)
    v2 = N.nvmlDeviceGetMemoryInfo(h, version=N.nvmlMemory_v2)
    smi = subprocess.run(["nvidia-smi", "--query-gpu=memory.used,memory.free,memory.reserved,"
                          "memory.total", "--format=csv,noheader,nounits"],
                         capture_output=True, text=True).stdout.strip()
    print(f"v1 used {v1.used} B = {v1.used / 2**20:.3f} MiB; v2 used {v2.used} B = "
          f"{v2.used / 2**20:.3f} MiB, free {v2.free / 2**20:.3f}, reserved "
          f"{v2.reserved / 2**20:.3f}, total {v2.total / 2**20:.3f}; nvidia-smi {smi}")
    time.sleep(0.3)
