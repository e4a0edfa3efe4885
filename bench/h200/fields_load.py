# bench/h200/fields.sh's job. 9 s on the GPU: host<->device copies of a pinned 512 MiB buffer (PCIe traffic both ways) and a
# bf16 matmul; prints the copy rate each second and saves gpuwatch's /metrics lines at 6 s.
import os, sys, time, urllib.request
import torch
out = sys.argv[1]
h = torch.empty(512 << 20, dtype=torch.uint8).pin_memory()
d = torch.empty(512 << 20, dtype=torch.uint8, device="cuda")
a = torch.randn(4096, 4096, device="cuda", dtype=torch.bfloat16)
t0 = time.time(); last = t0; moved_h2d = moved_d2h = 0; saved = False
with open(f"{out}/load_rates.txt", "w") as log:
    while time.time() - t0 < 9:
        d.copy_(h); moved_h2d += h.numel()
        h.copy_(d); moved_d2h += h.numel()
        a = a @ a; a = a / a.abs().max()
        torch.cuda.synchronize()
        now = time.time()
        if now - last >= 1:
            log.write(f"{now:.3f} h2d {moved_h2d / (now - last) / 2**20:.0f} MiB/s "
                      f"d2h {moved_d2h / (now - last) / 2**20:.0f} MiB/s\n")
            log.flush(); moved_h2d = moved_d2h = 0; last = now
        if not saved and now - t0 > 6:
            saved = True
            try:
                m = urllib.request.urlopen("http://127.0.0.1:9499/metrics", timeout=3).read().decode()
                with open(f"{out}/metrics.txt", "w") as f:
                    f.write("\n".join(l for l in m.splitlines()
                                      if any(k in l for k in ("PCIE", "NVLINK", "ENC_UTIL", "DEC_UTIL", "GPU_UTIL"))))
            except Exception as e:
                open(f"{out}/metrics.txt", "w").write(f"scrape failed: {e}\n")
