"""A hand-written PyTorch loop that prints JSON metric lines, started by torchrun with --tee so
each line carries torchrun's `[default0]:` label (issue 23's check on a real job): 3 epochs of
200 steps, a JSON line every 20 steps, an evaluation of 50 batches and a checkpoint after each
epoch."""
import json
import os
import time

import torch

dev = "cuda"
torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(2048, 4096), torch.nn.GELU(),
                            torch.nn.Linear(4096, 4096), torch.nn.GELU(),
                            torch.nn.Linear(4096, 10)).to(dev)
opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
x = torch.randn(512, 2048, device=dev)
y = torch.randint(0, 10, (512,), device=dev)
print("starting training: 3 epochs x 200 steps", flush=True)
for epoch in range(1, 4):
    t0 = time.time()
    for step in range(1, 201):
        loss = torch.nn.functional.cross_entropy(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        time.sleep(0.01)  # a data loader's share
        if step % 20 == 0:
            torch.cuda.synchronize()
            print(json.dumps({"epoch": epoch, "step": step, "loss": round(loss.item(), 4),
                              "step_time_s": round((time.time() - t0) / step, 4)}), flush=True)
    print(f"Running validation for epoch {epoch}", flush=True)
    with torch.no_grad():
        for _ in range(50):
            model(x)
            time.sleep(0.02)
    print(f"validation: epoch {epoch} accuracy 0.{epoch}1", flush=True)
    path = f"/tmp/ckpt_epoch{epoch}.pt"
    torch.save(model.state_dict(), path)
    print(f"Saved checkpoint to {path}", flush=True)
print("training done", flush=True)
