"""In-job data for `gpuwatch run`, loaded by gpuwatch's sitecustomize (docs/inproc.md).

In each Python process of the job it writes, under RUN/python/ (RUN = $GPUWATCH_RUN_DIR):
  PID.jsonl   records, one JSON object a line: process, settings, loader, pass, steps, memory,
              stacks, warning, exit (the format: docs/inproc.md)
  PID.stacks  collapsed Python stacks of the process's main thread, sampled ~100 times a second
by wrapping torch's DataLoader when the job imports torch (never importing it itself;
_gpuwatch_torch.py), reading settings, and sampling stacks from a daemon thread that
os.register_at_fork restarts in forked children (DataLoader workers). It must never raise into
the job: every hook is guarded, and the first failure of a hook is written once as a "warning"
record and a python_warning event in RUN/events.jsonl; the hook is then left off.

Python 3.8 to 3.13; standard library only.
"""
import atexit
import json
import os
import sys
import threading
import time

SAMPLE_HZ_DEFAULT = 100.0
# the sampler's own CPU, in % of one core, above which it samples less often (down to
# MAX_INTERVAL_S): each sample takes the GIL from the job's threads, and where waking a thread is
# expensive (virtual machines) that hand-off costs the job several times the sampler's own CPU
# (docs/inproc.md, "Overhead"); GPUWATCH_PYTHON_CPU_PCT sets it, 0: always GPUWATCH_PYTHON_HZ
CPU_PCT_DEFAULT = 0.25
MAX_INTERVAL_S = 0.1
STEPS_EVERY_S = 2.0  # "steps" interval records, and the flush of PID.jsonl
STACKS_EVERY_S = 5.0  # PID.stacks rewrite and the "memory" record
ROLE_EVERY_S = 0.5  # is this process a DataLoader worker yet?
MAX_DEPTH = 256  # frames kept per sample (the leaf side)
# A sample taken this long after its time waited for the GIL: the main thread was running Python
# then, and the sample shows where it let go of the GIL (often the next torch or C call), not
# where it was: such samples undercount pure-Python code (docs/inproc.md, Limits)
LATE_S = 0.001
_HERE = os.path.abspath(__file__)
if _HERE.endswith((".pyc", ".pyo")):
    _HERE = _HERE[:-1]
_OURS = {os.path.join(os.path.dirname(_HERE), name)  # frames never shown in stacks
         for name in ("_gpuwatch_inproc.py", "_gpuwatch_torch.py", "_gpuwatch_site.py",
                      "sitecustomize.py", "usercustomize.py")}

_gt = None  # _gpuwatch_torch, imported by start()
_proc = None  # the _Process of this process (a forked child makes its own)


def _now():
    return time.time()


def _r(x):
    return None if x is None else round(x, 6)


class _Process:
    """Everything this process records; replaced in a forked child."""

    def __init__(self, run_dir, start_method):
        self.run_dir = run_dir
        self.out_dir = os.path.join(run_dir, "python")
        self.pid = os.getpid()
        self.wall0 = time.time()
        self.perf0 = time.perf_counter()
        self.cwd = _cwd()
        self.lock = threading.Lock()  # pending
        self.write_lock = threading.Lock()  # the files
        self.pending = []  # lines not yet written
        self.disabled = False  # the run directory cannot be written: record nothing more
        self.out_made = False  # RUN/python made (by this process)
        self.warned = set()
        # ids of the code objects of a stack (leaf first) -> [those code objects, samples, its
        # text when last written (worker?, b"frame;frame")]:
        # hashing code objects is slow (their constants, nested code included), ids are not,
        # and the list keeps the code objects alive so that their ids stay theirs
        self.counts = {}
        self.samples = 0
        self.late_samples = 0  # taken over LATE_S after their time: the GIL was held (Python ran)
        self.sampler_cpu_s = 0.0
        self.frame_names = {}  # id of a code object -> "function (file:LINE)"
        self.role = "other"
        self.worker_id = None
        self.start_method = start_method
        self.process_rec = None
        self.settings_rec = None
        self.loaders = 0
        self.active = {}  # loader id -> its _Pass (_gpuwatch_torch) not ended
        self.stopping = False
        self.thread = None
        self.main_ident = threading.main_thread().ident
        hz = _env_float("GPUWATCH_PYTHON_HZ", SAMPLE_HZ_DEFAULT)
        self.interval = 1.0 / hz if hz > 0 else 0.0
        self.interval_used = self.interval  # stretched by the CPU budget (run)
        self.cpu_budget = max(0.0, _env_float("GPUWATCH_PYTHON_CPU_PCT", CPU_PCT_DEFAULT)) / 100
        self.exited = False

    def wall(self, perf):
        return self.wall0 + (perf - self.perf0)

    # ---- records ----
    def emit(self, kind, **fields):
        rec = {"t": round(_now(), 6), "kind": kind}
        rec.update(fields)
        line = json.dumps(rec, separators=(",", ":"), default=str) + "\n"
        with self.lock:
            if not self.disabled:
                self.pending.append(line)

    def flush(self):
        with self.write_lock:
            with self.lock:
                if self.disabled or not self.pending:
                    return
                data = "".join(self.pending).encode("utf-8")
                self.pending = []
            try:
                os.makedirs(self.out_dir, exist_ok=True)
                path = os.path.join(self.out_dir, "%d.jsonl" % self.pid)
                flags = os.O_WRONLY | os.O_CREAT | os.O_APPEND | getattr(os, "O_CLOEXEC", 0)
                # opened for each flush and closed: a descriptor kept open would be closed by a
                # job that closes them all (python-daemon, os.closerange) and its number given
                # to the job's next file, which would then get our records
                fd = os.open(path, flags, 0o644)
                try:
                    while data:
                        data = data[os.write(fd, data):]
                finally:
                    os.close(fd)
            except OSError as e:
                with self.lock:
                    self.disabled = True  # read-only or full: the job goes on without us
                    self.pending = []
                _event_warning(self.run_dir, "write", "cannot write %s: %s" %
                               (self.out_dir, e.strerror or e))

    def warn(self, hook, exc):
        if hook in self.warned:
            return
        self.warned.add(hook)
        msg = "%s: %s" % (type(exc).__name__, exc)
        self.emit("warning", hook=hook, message=msg[:300])
        _event_warning(self.run_dir, hook, msg[:300])

    def write_process(self):
        torch = _torch()
        rec = {"pid": self.pid, "ppid": os.getppid(), "role": self.role,
               "worker_id": self.worker_id, "python": "%d.%d.%d" % sys.version_info[:3],
               "torch": getattr(torch, "__version__", None) if torch else None,
               "start_method": self.start_method, "rank": _env_int("RANK"),
               "local_rank": _env_int("LOCAL_RANK"), "world_size": _env_int("WORLD_SIZE")}
        if torch and not isinstance(rec["torch"], (str, type(None))):
            rec["torch"] = str(rec["torch"])
        if rec != self.process_rec:
            self.process_rec = rec
            self.emit("process", **rec)

    def write_settings(self):
        rec = _settings()
        if rec != self.settings_rec:
            self.settings_rec = rec
            self.emit("settings", **rec)

    def become(self, role, worker_id=None):
        if self.role != role or self.worker_id != worker_id:
            self.role, self.worker_id = role, worker_id
            self.write_process()
            self.write_settings()

    # ---- stacks ----
    def sample(self):
        f = sys._current_frames().get(self.main_ident)
        if f is None:
            return
        codes = []
        add = codes.append
        n = 0
        while f is not None and n < MAX_DEPTH:
            add(f.f_code)
            f = f.f_back
            n += 1
        key = tuple(map(id, codes))
        entry = self.counts.get(key)
        if entry is None:
            self.counts[key] = [codes, 1, None]
        else:
            entry[1] += 1
        self.samples += 1

    def frame_name(self, code):
        name = self.frame_names.get(id(code))
        if name is None:
            func = getattr(code, "co_qualname", code.co_name)
            name = "%s (%s:%d)" % (func, _short_path(code.co_filename, self.cwd),
                                   code.co_firstlineno)
            name = name.replace(";", ":").replace("\n", " ")
            self.frame_names[id(code)] = name
        return name

    def write_stacks(self):
        with self.write_lock:
            self._write_stacks()

    def _write_stacks(self):
        if self.disabled:
            return
        # the sampler holds the GIL while it builds this: a stack's text is made and encoded
        # once, when first written (YOLOv9: ~800 stacks, 3 MB), and each rewrite only joins
        # those bytes with the counts and writes them with one system call
        parts = []
        add = parts.append
        worker = self.role == "worker"
        for entry in list(self.counts.values()):
            cached = entry[2]
            if cached is None or cached[0] != worker:
                codes = entry[0]
                if worker:  # from torch's worker loop down: not the fork's frames of the parent
                    codes = _worker_part(codes)
                names = [self.frame_name(c) for c in reversed(codes) if c.co_filename not in _OURS]
                cached = entry[2] = (worker, ";".join(names).encode("utf-8", "replace"))
            if cached[1]:
                add(cached[1])
                add(b" %d\n" % entry[1])
        data = b"".join(parts)
        path = os.path.join(self.out_dir, "%d.stacks" % self.pid)
        tmp = path + ".tmp"
        try:
            if not self.out_made:
                os.makedirs(self.out_dir, exist_ok=True)
                self.out_made = True
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_CLOEXEC", 0),
                         0o644)
            try:
                view = memoryview(data)
                while view:
                    view = view[os.write(fd, view):]
            finally:
                os.close(fd)
            os.replace(tmp, path)
        except OSError as e:
            with self.lock:
                self.disabled = True
                self.pending = []
            _event_warning(self.run_dir, "write", "cannot write %s: %s" % (path, e.strerror or e))
            return
        self.emit("stacks", samples=self.samples, late_samples=self.late_samples,
                  interval_s=_r(self.interval),
                  interval_used_s=_r(self.interval_used),
                  sampler_cpu_s=round(self.sampler_cpu_s, 4))

    # ---- the sampler thread ----
    def start_thread(self):
        self.thread = threading.Thread(target=self.run, name="gpuwatch-sampler", daemon=True)
        self.thread.start()

    def run(self):
        cpu0 = time.thread_time()
        t = time.monotonic()
        step = self.interval or ROLE_EVERY_S
        next_role = t
        next_flush = t + STEPS_EVERY_S
        next_stacks = t + STACKS_EVERY_S
        sampling = self.interval > 0
        mark = (t, 0.0)  # (monotonic, thread CPU) at the last budget check
        while not self.stopping:
            t += step
            delay = t - time.monotonic()
            if delay > 0:
                time.sleep(delay)  # and then waits for the GIL
                if self.stopping:
                    break
            woke = time.monotonic()
            late = woke - t > LATE_S
            if delay <= 0:
                t = woke  # fell behind (a long GIL hold): no burst to catch up
            now = t
            try:
                if sampling:
                    self.sample()
                    self.late_samples += late
            except Exception as e:
                sampling = False
                self.warn("stacks", e)
            try:
                if now >= next_role:  # (thread_time is a system call in some sandboxes)
                    next_role = now + ROLE_EVERY_S
                    self.check_role()
                    self.sampler_cpu_s = time.thread_time() - cpu0
                if now >= next_flush:
                    next_flush = now + STEPS_EVERY_S
                    self.write_settings()
                    self.flush()
                if now >= next_stacks:
                    next_stacks = now + STACKS_EVERY_S
                    self.sampler_cpu_s = time.thread_time() - cpu0
                    if sampling and self.cpu_budget > 0:
                        step = self.within_budget(step, self.sampler_cpu_s - mark[1],
                                                  now - mark[0])
                        mark = (now, self.sampler_cpu_s)
                    self.write_memory()
                    self.write_stacks()
                    self.flush()
            except Exception as e:
                self.warn("sampler", e)
        self.sampler_cpu_s = time.thread_time() - cpu0

    def within_budget(self, step, cpu_s, wall_s):
        """The sampling interval that keeps this thread's CPU near the budget, given what it
        took over the last wall_s seconds at `step`: never shorter than the one asked for
        (GPUWATCH_PYTHON_HZ), never longer than MAX_INTERVAL_S (or the one asked for); changed
        only by more than 20 %, so that a steady job keeps one rate."""
        if wall_s <= 0:
            return step
        want = step * (cpu_s / wall_s) / self.cpu_budget
        want = min(max(want, self.interval), max(MAX_INTERVAL_S, self.interval))
        if want > step * 1.2 or want < step / 1.2:
            step = want
            self.interval_used = step
        return step

    def check_role(self):
        if self.role == "worker" and self.worker_id is not None:
            return
        w = sys.modules.get("torch.utils.data._utils.worker")
        info = getattr(w, "_worker_info", None) if w is not None else None
        if info is not None:
            self.become("worker", getattr(info, "id", None))

    def write_memory(self):
        if self.role == "worker" or not _gt._torch_ready:
            return
        cuda = getattr(_torch(), "cuda", None)
        if cuda is None or not cuda.is_initialized():  # never initialise CUDA ourselves
            return
        for d in range(cuda.device_count()):
            reserved = cuda.memory_reserved(d)
            peak = cuda.max_memory_allocated(d)
            if reserved or peak:
                self.emit("memory", device=d, allocated_bytes=int(cuda.memory_allocated(d)),
                          reserved_bytes=int(reserved), max_allocated_bytes=int(peak))

    # ---- passes ----
    def begin_pass(self, loader):
        info = _gt._loader_info(loader)
        old = self.active.pop(info["id"], None)
        if old is not None:
            old.abandon()
        if not info.get("written"):
            info["written"] = True
            self.emit("loader", **_gt._loader_record(loader, info))
        if self.role != "worker":
            self.become("main")
        p = _gt._Pass(self, info["id"], info["passes"])
        info["passes"] += 1
        self.active[info["id"]] = p
        return p

    def at_exit(self):
        if self.exited or os.getpid() != self.pid:
            return
        self.exited = True
        self.stopping = True
        th = self.thread
        if th is not None and th is not threading.current_thread():
            th.join(0.5)
        for p in list(self.active.values()):
            p.abandon()
        try:
            self.check_role()  # a worker that ended before the sampler looked
            self.write_settings()
            self.write_memory()
        except Exception as e:
            self.warn("exit", e)
        self.write_stacks()
        self.emit("exit")
        self.flush()


# ---------------------------------------------------------------- helpers


def _env_int(name):
    try:
        return int(os.environ[name])
    except (KeyError, ValueError):
        return None


def _env_float(name, default):
    try:
        return float(os.environ[name])
    except (KeyError, ValueError):
        return default


def _cwd():
    try:
        return os.getcwd()
    except OSError:
        return None


def _short_path(path, cwd):
    """file relative to the job's cwd when under it, site-packages-relative for installed
    packages, else its base name (docs/inproc.md)."""
    for marker in ("/site-packages/", "/dist-packages/"):
        i = path.rfind(marker)
        if i >= 0:
            return path[i + len(marker):]
    if cwd and path.startswith(cwd + os.sep):
        return path[len(cwd) + 1:]
    return os.path.basename(path)


def _worker_part(codes):
    """A worker's stack (leaf first) from torch's _worker_loop down, or before it is reached
    from multiprocessing's _bootstrap down, or in the moments between fork and _bootstrap from
    popen_fork's _launch down: what a fork inherited of its parent's stack goes."""
    for name in ("_worker_loop", "_bootstrap", "_launch"):
        for i in range(len(codes) - 1, -1, -1):
            if codes[i].co_name == name:
                return codes[:i + 1]
    return codes


def _torch():
    return sys.modules.get("torch")


def _event_warning(run_dir, hook, message):
    """One python_warning event per hook for the whole job in RUN/events.jsonl (the append of
    python/gpuwatch.py's mark()); RUN/python/.warned-HOOK keeps the other processes quiet."""
    try:
        marker = os.path.join(run_dir, "python", ".warned-" + hook)
        events = os.path.join(run_dir, "events.jsonl")
        if not os.path.exists(events):
            return
        try:
            os.makedirs(os.path.dirname(marker), exist_ok=True)
            os.close(os.open(marker, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644))
        except FileExistsError:
            return
        except OSError:
            pass  # cannot dedupe (read-only python/): still say it
        t = time.time()
        ms = int(t * 1000)
        stamp = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(ms // 1000)) + ".%03dZ" % (ms % 1000)
        line = json.dumps({"timestamp": stamp, "type": "python_warning", "pid": os.getpid(),
                           "hook": hook, "message": "in-job instrumentation: %s (the job goes "
                           "on; this part is off)" % message}, separators=(",", ":")) + "\n"
        fd = os.open(events, os.O_WRONLY | os.O_APPEND | getattr(os, "O_CLOEXEC", 0))
        try:
            os.write(fd, line.encode("utf-8"))
        finally:
            os.close(fd)
    except Exception:
        pass


def report_failure(hook, exc):
    """A failure before or outside a _Process (sitecustomize's start)."""
    if _proc is not None:
        _proc.warn(hook, exc)
    else:
        run_dir = os.environ.get("GPUWATCH_RUN_DIR")
        if run_dir:
            _event_warning(run_dir, hook, "%s: %s" % (type(exc).__name__, exc))


# ---------------------------------------------------------------- settings

_cgroup_cores = ["unread"]


def _cgroup_limit():
    """cpu.max (cgroup v2) or cfs_quota_us/cfs_period_us (v1) as cores, the tightest along the
    process's cgroup path; None when unlimited or unreadable."""
    if _cgroup_cores[0] != "unread":
        return _cgroup_cores[0]
    best = None
    try:
        with open("/proc/self/cgroup") as fh:
            lines = fh.read().splitlines()
    except OSError:
        lines = []
    for line in lines:
        parts = line.split(":", 2)
        if len(parts) != 3:
            continue
        rel = parts[2].strip("/")
        if parts[0] == "0":
            roots = ["/sys/fs/cgroup"]
        elif "cpu" in parts[1].split(","):
            roots = ["/sys/fs/cgroup/" + parts[1], "/sys/fs/cgroup/cpu,cpuacct",
                     "/sys/fs/cgroup/cpu"]
        else:
            continue
        for root in roots:
            if not os.path.isdir(root):
                continue
            path = rel
            while True:
                d = os.path.join(root, path) if path else root
                cores = _read_quota(d, parts[0] == "0")
                if cores is not None and (best is None or cores < best):
                    best = cores
                if not path:
                    break
                path = os.path.dirname(path)
            break
    _cgroup_cores[0] = best
    return best


def _read_quota(d, v2):
    try:
        if v2:
            with open(os.path.join(d, "cpu.max")) as fh:
                quota, period = fh.read().split()[:2]
            if quota == "max":
                return None
        else:
            with open(os.path.join(d, "cpu.cfs_quota_us")) as fh:
                quota = fh.read().strip()
            with open(os.path.join(d, "cpu.cfs_period_us")) as fh:
                period = fh.read().strip()
            if int(quota) <= 0:
                return None
        return round(int(quota) / int(period), 3)
    except (OSError, ValueError, ZeroDivisionError):
        return None


def _settings():
    torch = _torch() if _gt._torch_ready else None
    rec = {"torch_num_threads": None, "torch_num_interop_threads": None, "cv2_num_threads": None,
           "cudnn_benchmark": None}
    if torch is not None:
        rec["torch_num_threads"] = _call(torch, "get_num_threads")
        rec["torch_num_interop_threads"] = _call(torch, "get_num_interop_threads")
        cudnn = getattr(getattr(torch, "backends", None), "cudnn", None)
        bench = getattr(cudnn, "benchmark", None)
        rec["cudnn_benchmark"] = bench if isinstance(bench, bool) else None
    cv2 = sys.modules.get("cv2")
    if cv2 is not None:
        rec["cv2_num_threads"] = _call(cv2, "getNumThreads")
    rec["autocast_used"] = _gt._flags["autocast_used"]
    if _gt._flags["autocast_dtype"]:
        rec["autocast_dtype"] = _gt._flags["autocast_dtype"]
    rec["torch_compile_used"] = _gt._flags["torch_compile_used"]
    try:
        rec["affinity_cores"] = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        rec["affinity_cores"] = None
    rec["cgroup_cpu_limit_cores"] = _cgroup_limit()
    rec["os_cpu_count"] = os.cpu_count()
    return rec


def _call(mod, name):
    fn = getattr(mod, name, None)
    if fn is None:
        return None
    try:
        v = fn()
        return int(v)
    except Exception:
        return None


# ---------------------------------------------------------------- start and fork


def _after_fork_child():
    """In a forked child (a DataLoader worker, a multiprocessing fork): a fresh record of its
    own, and a sampler thread (threads do not survive fork)."""
    global _proc
    parent = _proc
    if parent is None:
        return
    try:
        method = "fork"
        worker = False  # forked by torch's _MultiProcessingDataLoaderIter.__init__
        loader_py = os.path.join("torch", "utils", "data", "dataloader.py")
        f = sys._getframe(1)
        while f is not None:
            code = f.f_code
            if code.co_filename.endswith(os.path.join("multiprocessing", "forkserver.py")):
                method = "forkserver"
                break
            if code.co_name == "__init__" and code.co_filename.endswith(loader_py):
                worker = True
            f = f.f_back
        _proc = _Process(parent.run_dir, method)
        if worker:  # known now, not at the sampler's next look: a worker killed at once counts
            _proc.role = "worker"
        _proc.warned = set(parent.warned)
        _proc.disabled = parent.disabled
        _proc.loaders = parent.loaders
        _proc.write_process()
        _proc.write_settings()
        _proc.flush()  # now: a worker killed (OOM, SIGTERM) in its first 2 s is still counted
        mp_util = sys.modules.get("multiprocessing.util")
        if mp_util is not None:
            # multiprocessing ends a forked child with os._exit: no atexit there, but its
            # finalizers run (registered after its own after-fork clean-up)
            mp_util.register_after_fork(_proc, _register_mp_finalizer)
        _proc.start_thread()
    except Exception as e:
        report_failure("fork", e)


def _register_mp_finalizer(proc):
    try:
        mp_util = sys.modules.get("multiprocessing.util")
        mp_util.Finalize(None, _at_exit, exitpriority=-100)
    except Exception as e:
        proc.warn("fork", e)


def _at_exit():
    p = _proc
    if p is None:
        return
    try:
        p.at_exit()
    except Exception as e:
        try:
            p.warn("exit", e)
            p.flush()
        except Exception:
            pass


def _spawned():
    argv = getattr(sys, "argv", None) or []
    return "spawn" if "--multiprocessing-fork" in argv else None


def start():
    """Called by sitecustomize in every Python process of the job (GPUWATCH_RUN_DIR is set)."""
    global _proc, _gt
    if _proc is not None:
        return
    import _gpuwatch_torch
    _gt = _gpuwatch_torch
    run_dir = os.environ["GPUWATCH_RUN_DIR"]
    _proc = _Process(run_dir, _spawned())
    first = os.environ.get("GPUWATCH_PYTHON_FIRST_PID")
    if not first:
        os.environ["GPUWATCH_PYTHON_FIRST_PID"] = str(_proc.pid)
        _proc.role = "main"
    _proc.write_process()
    _proc.write_settings()
    _proc.flush()  # now, not in 2 s: a process killed before that is still counted
    if "torch" in sys.modules:  # imported before us (cannot happen from site, but be safe)
        _gt._after_torch("torch", sys.modules["torch"])
    else:
        sys.meta_path.insert(0, _gt._Finder())
    atexit.register(_at_exit)
    if hasattr(os, "register_at_fork"):
        os.register_at_fork(after_in_child=_after_fork_child)
    _proc.start_thread()
