#!/usr/bin/env python3
"""What gpuwatch's in-job instrumentation (python/inject, docs/inproc.md) costs a Python-bound
training loop, and which part of it: a CPU-bound loop of deep call stacks (~60 frames: nested
nn.Modules whose path changes with the step, a few hundred distinct stacks), many small torch
ops, backward (which releases the GIL, as on a GPU) and a DataLoader with workers, run

  ab      (default) in ONE instrumented process, alternating short blocks of steps (shuffled
          each round) with the sampler thread stopped ("off") and running: "on" (as
          configured; a block is shorter than the 5 s between PID.stacks rewrites and
          budget checks, so this is the sampling alone), "on-norewrite", "on-wakeonly" (the
          thread wakes and takes the GIL at the rate but samples nothing), "on@HZ" (at that
          rate): the other load of a shared machine hits both sides of a pair alike;
  modes   separate processes, interleaved: plain python (no sitecustomize), the sitecustomize
          with GPUWATCH_PYTHON_HZ=0 (DataLoader timing and settings only), HZ=100 (as
          configured: the CPU budget included);

  parts   the sampler's pieces alone, in this process, at YOLOv9's size (~900 distinct
          stacks of 60 frames, a 3.3 MB PID.stacks): one sample of a 60-frame stack, the first
          and the later rewrites of PID.stacks (the sampler holds the GIL through them);

and prints, per variant, the median of the blocks' wall time per step and of the main thread's
CPU time per step, relative to the sampler-off (ab) or plain (modes) side.

    bench/inproc_micro.py [ab|modes] [--variants off,on,on@25] [--hz 100] [--reps 15]
                          [--steps 60] [--workers 2] [--depth 28] [--inject DIR] [--python P]

Writes nothing but a temporary run directory. Figures: docs/inproc.md, docs/performance.md."""
import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
INJECT = os.path.join(os.path.dirname(HERE), "python", "inject")


# ---------------------------------------------------------------- the job (child side)

def job_main(args):
    import torch
    from torch import nn
    from torch.utils.data import DataLoader, Dataset

    torch.set_num_threads(1)

    class Data(Dataset):
        def __len__(self):
            return 1 << 30

        def __getitem__(self, i):
            x = torch.full((16,), float(i % 7))
            for _ in range(4):  # a little Python work in the worker
                x = x * 1.0001
            return x

    def make_kind(name):
        def forward(self, x, step):
            x = torch.relu(self.lin(x)) * 0.5 + x * 0.5
            if self.kids:
                kid = self.kids[(step >> self.depth) % len(self.kids)]
                x = kid(x, step)
            return x
        forward.__qualname__ = name + ".forward"
        code = forward.__code__  # a code object of its own: a frame of its own in the stacks
        if hasattr(code, "co_qualname"):
            forward.__code__ = code.replace(co_qualname=name + ".forward")
        else:
            forward.__code__ = code.replace(co_name=name + "_forward")
        return type(name, (nn.Module,), {"forward": forward})

    kinds = [make_kind("Block%d" % k) for k in range(3)]

    def build(depth, k):
        m = kinds[k]()
        m.depth = depth
        m.lin = nn.Linear(16, 16)
        # branching near the leaves only: a few hundred distinct stacks, ~60 frames deep
        m.kids = nn.ModuleList([build(depth - 1, j) for j in (range(3) if depth <= 7 else
                                                               [k])]) if depth else []
        return m

    model = build(args.depth, 0)
    opt = torch.optim.SGD(model.parameters(), lr=1e-4)
    loader = DataLoader(Data(), batch_size=8, num_workers=args.workers,
                        persistent_workers=args.workers > 0)
    it = iter(loader)

    def step(n):
        x = next(it)
        y = model(x, n)
        loss = (y * y).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()

    def switches():
        """The main thread's voluntary context switches: each time it slept, on the GIL
        among others (a count: the other load of the machine does not blur it)."""
        try:
            import resource
            return resource.getrusage(resource.RUSAGE_THREAD).ru_nvcsw
        except (ImportError, AttributeError, OSError):
            return 0

    core = sys.modules.get("_gpuwatch_inproc")
    proc = core._proc if core is not None else None
    real_write = core._Process._write_stacks if core is not None else None

    real_sample = core._Process.sample if core is not None else None
    hz = proc.interval if proc is not None else 0.0
    spent = {}  # variant -> its sampler threads' CPU time
    cur = [None]

    def sampler(on, rewrite=True, sample=True, interval=None):
        """Stops the sampler thread, or (re)starts it as asked."""
        if proc is None:
            return
        th = proc.thread
        if th is not None and th.is_alive():
            proc.stopping = True
            th.join()
            spent[cur[0]] = spent.get(cur[0], 0.0) + proc.sampler_cpu_s
        if not on:
            return
        core._Process._write_stacks = real_write if rewrite else (lambda self: None)
        core._Process.sample = real_sample if sample else (lambda self: None)
        proc.interval = proc.interval_used = interval or hz
        proc.stopping = False
        proc.start_thread()

    setups = {"off": lambda: sampler(False), "on": lambda: sampler(True),
              "on-norewrite": lambda: sampler(True, rewrite=False),
              "on-wakeonly": lambda: sampler(True, rewrite=False, sample=False)}

    variants = ["off", "on"] if args.variants is None else args.variants.split(",")
    if args.mode != "ab":
        variants = ["as-is"]
    for n in range(args.steps):  # warm up: workers started, caches, the sampler's names
        step(n)
    blocks = {v: [] for v in variants}
    n = 0
    for _ in range(args.reps):
        order = list(variants)
        random.shuffle(order)
        for v in order:
            if v in setups:
                setups[v]()
            elif v.startswith("on@"):  # on at that rate (Hz)
                sampler(True, interval=1.0 / float(v[3:]))
            cur[0] = v
            s0 = switches()
            w0, c0 = time.perf_counter(), time.thread_time()
            for _ in range(args.steps):
                step(n)
                n += 1
            w1, c1 = time.perf_counter(), time.thread_time()
            blocks[v].append(((w1 - w0) / args.steps, (c1 - c0) / args.steps,
                              (switches() - s0) / args.steps))
    sampler(False)
    out = {"blocks": blocks}
    if proc is not None:
        out["sampler_cpu_share"] = {v: spent.get(v, 0.0) / sum(b[0] for b in blocks[v]) /
                                    args.steps for v in variants}
    if proc is not None:
        out["distinct_stacks"] = len(proc.counts)
        out["samples"] = proc.samples
        out["depth"] = max((len(k) for k in proc.counts), default=0)
    print("RESULT " + json.dumps(out), flush=True)


# ---------------------------------------------------------------- the pieces


def parts(args):
    import threading
    sys.path.insert(0, args.inject)
    os.environ["GPUWATCH_RUN_DIR"] = tempfile.mkdtemp(prefix="gw-micro-")
    os.environ["GPUWATCH_PYTHON_HZ"] = "0"
    import _gpuwatch_inproc as core
    core.start()
    p = core._proc
    p.stopping = True
    p.thread.join()
    rnd = random.Random(1)
    codes = []  # 300 functions of 20 files, YOLOv9-like names (~60 characters a frame)
    for i in range(300):
        ns = {}
        exec(compile("def RepNCSPELAN4_forward_%03d():\n    pass\n" % i,
                     os.path.join(os.getcwd(), "models", "common_module_%02d.py" % (i % 20)),
                     "exec"), ns)
        codes.append(ns["RepNCSPELAN4_forward_%03d" % i].__code__)
    prefixes = [[rnd.choice(codes) for _ in range(45)] for _ in range(30)]
    while len(p.counts) < 900:  # 30 loop stacks, each with its own leaves
        chain = rnd.choice(prefixes) + [rnd.choice(codes) for _ in range(15)]
        p.counts[tuple(map(id, chain))] = [chain, rnd.randint(1, 50), None]
    out = os.path.join(p.out_dir, "%d.stacks" % p.pid)
    t0 = time.perf_counter()
    p._write_stacks()
    first = time.perf_counter() - t0
    later = []
    for _ in range(21):
        t0 = time.perf_counter()
        p._write_stacks()
        later.append(time.perf_counter() - t0)
    print("PID.stacks of %d stacks, %.2f MB: first write %.1f ms, later rewrites %.2f ms "
          "(median of 21)" % (len(p.counts), os.path.getsize(out) / 1e6, first * 1e3,
                              med(later) * 1e3))

    def deep(n):
        return deep(n - 1) if n else ev.wait()
    ev = threading.Event()
    th = threading.Thread(target=deep, args=(57,))
    th.start()
    time.sleep(0.1)
    p.main_ident = th.ident
    p.counts = {}
    n = 20000
    t0 = time.perf_counter()
    for _ in range(n):
        p.sample()
    print("one sample of a %d-frame stack: %.2f us" %
          (max(map(len, p.counts)), (time.perf_counter() - t0) / n * 1e6))
    ev.set()
    th.join()


# ---------------------------------------------------------------- the driver


def child(args, extra_env, mode, variants=None):
    env = dict(os.environ)
    for k in ("PYTHONPATH", "GPUWATCH_RUN_DIR", "GPUWATCH_PYTHON_HZ", "GPUWATCH_PYTHON_FIRST_PID"):
        env.pop(k, None)
    env.update(extra_env)
    cmd = [args.python, os.path.abspath(__file__), "--child", mode, "--reps", str(args.reps),
           "--steps", str(args.steps), "--workers", str(args.workers),
           "--depth", str(args.depth)]
    if variants:
        cmd += ["--variants", variants]
    r = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=1800)
    for line in r.stdout.splitlines():
        if line.startswith("RESULT "):
            return json.loads(line[7:])
    sys.exit("the job failed (rc %d):\n%s" % (r.returncode, r.stderr[-3000:]))


def med(xs):
    return statistics.median(xs) if xs else float("nan")


def show(name, blocks, base):
    """The medians per step, and the median of the ratios to the base block of the same round
    (neighbours in time: the other load of the machine hits both alike)."""
    w = med([b[0] for b in blocks])
    c = med([b[1] for b in blocks])
    pairs = list(zip(blocks, base))
    rw = sorted(b[0] / a[0] - 1 for b, a in pairs)
    rc = sorted(b[1] / a[1] - 1 for b, a in pairs)
    q = len(rw) // 4
    print("%-20s %7.3f ms %+6.2f %% [%+5.1f,%+5.1f]  %7.3f ms %+6.2f %% [%+5.1f,%+5.1f] %6.1f" %
          (name, w * 1e3, med(rw) * 100, rw[q] * 100, rw[-q - 1] * 100, c * 1e3,
           med(rc) * 100, rc[q] * 100, rc[-q - 1] * 100, statistics.mean(b[2] for b in blocks)))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("mode", nargs="?", default="ab", choices=["ab", "modes", "parts"])
    ap.add_argument("--child", default=None)
    ap.add_argument("--reps", type=int, default=15)
    ap.add_argument("--steps", type=int, default=60)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--variants", default=None)
    ap.add_argument("--python", default=sys.executable)
    ap.add_argument("--hz", default="100")
    ap.add_argument("--inject", default=INJECT, help="the sitecustomize's directory")
    ap.add_argument("--depth", type=int, default=28)
    args = ap.parse_args()
    if args.child:
        args.mode = args.child
        return job_main(args)
    if args.mode == "parts":
        return parts(args)
    run_dir = tempfile.mkdtemp(prefix="gw-micro-")
    gw = {"PYTHONPATH": args.inject, "GPUWATCH_RUN_DIR": run_dir}
    hdr = ("%-20s %-29s %-29s %s\n%-20s %-29s %-29s %s" %
           ("", "wall/step, paired change", "main thread CPU/step, change", "sleeps",
            "", "(median [quartiles])", "(median [quartiles])", "/step"))
    if args.mode == "ab":
        res = child(args, dict(gw, GPUWATCH_PYTHON_HZ=args.hz), "ab",
                    args.variants or "off,on,on-norewrite")
        print("one instrumented process (HZ=%s), %d blocks of %d steps per variant, "
              "shuffled; %s distinct stacks, %s frames deep, %s samples" %
              (args.hz, args.reps, args.steps, res.get("distinct_stacks"), res.get("depth"),
               res.get("samples")))
        print(hdr)
        for v, blocks in res["blocks"].items():
            show("sampler " + v, blocks, res["blocks"]["off"])
        print("the sampler thread's CPU, share of one core: " +
              ", ".join("%s %.2f %%" % (v, x * 100) for v, x in res["sampler_cpu_share"].items()))
        return
    modes = {"plain": {}, "HZ=0": dict(gw, GPUWATCH_PYTHON_HZ="0"),
             "HZ=" + args.hz: dict(gw, GPUWATCH_PYTHON_HZ=args.hz)}
    got = {m: [] for m in modes}
    reps = max(1, args.reps // 5)
    one = argparse.Namespace(**vars(args))
    one.reps = 5
    for _ in range(reps):
        order = list(modes)
        random.shuffle(order)
        for m in order:
            got[m] += child(one, modes[m], "as-is")["blocks"]["as-is"]
    print("separate processes, %d of each, interleaved, %d blocks of %d steps each" %
          (reps, one.reps, args.steps))
    print(hdr)
    for m in modes:
        show(m, got[m], got["plain"])


if __name__ == "__main__":
    main()
