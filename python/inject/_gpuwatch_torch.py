"""torch's side of gpuwatch's in-job data (docs/inproc.md): the import hook that patches torch
once the job imports it (never before), DataLoader pass and step timing, each loader's settings,
and whether autocast was entered and torch.compile called. _gpuwatch_inproc owns the process's
records; this module only feeds them.

Python 3.8 to 3.13; standard library only.
"""
import os
import sys
import time
import types

import _gpuwatch_inproc as _core

_flags = {"autocast_used": False, "torch_compile_used": False, "autocast_dtype": None}
_torch_ready = False  # torch imported whole (its module executed): safe to read from our thread


class _Pass:
    """One iteration over a loader: the time inside __next__ (waiting) and between calls."""

    __slots__ = ("proc", "loader", "n", "p_start", "steps", "wait", "between", "first_wait",
                 "last", "done", "i_p0", "i_steps", "i_wait", "i_between")

    def __init__(self, proc, loader, n):
        self.proc, self.loader, self.n = proc, loader, n
        self.p_start = self.i_p0 = time.perf_counter()
        self.steps = self.i_steps = 0
        self.wait = self.between = self.i_wait = self.i_between = 0.0
        self.first_wait = None
        self.last = None  # perf time the last batch was returned
        self.done = False

    def step(self, p0, p1):
        if self.last is not None:
            b = p0 - self.last
            self.between += b
            self.i_between += b
        w = p1 - p0
        self.wait += w
        self.i_wait += w
        self.steps += 1
        self.i_steps += 1
        if self.first_wait is None:
            self.first_wait = w
        self.last = p1
        if p1 - self.i_p0 >= _core.STEPS_EVERY_S:
            self.interval(p1)

    def interval(self, p1):
        proc = self.proc
        r = _core._r
        proc.emit("steps", loader=self.loader, **{"pass": self.n}, t0=r(proc.wall(self.i_p0)),
                  t1=r(proc.wall(p1)), steps=self.i_steps, wait_s=r(self.i_wait),
                  between_s=r(self.i_between))
        self.i_p0 = p1
        self.i_steps = 0
        self.i_wait = self.i_between = 0.0

    def finish(self, p0, p1):
        """The call that raised StopIteration: its time is waiting too (workers shut down)."""
        if self.done:
            return
        if self.last is not None:
            b = p0 - self.last
            self.between += b
            self.i_between += b
        self.wait += p1 - p0
        self.i_wait += p1 - p0
        self.end(p1, True)

    def abandon(self):
        if not self.done:
            self.end(self.last if self.last is not None else self.p_start, False)

    def end(self, p_end, complete):
        self.done = True
        proc = self.proc
        if proc.active.get(self.loader) is self:
            del proc.active[self.loader]
        if self.i_steps or self.i_wait or self.i_between:
            self.interval(max(p_end, self.i_p0))
        r = _core._r
        proc.emit("pass", loader=self.loader, **{"pass": self.n},
                  t_start=r(proc.wall(self.p_start)), t_end=r(proc.wall(p_end)),
                  steps=self.steps, wait_s=r(self.wait), between_s=r(self.between),
                  first_wait_s=r(self.first_wait), complete=complete)
        try:
            proc.write_memory()
        except Exception as e:
            proc.warn("memory", e)


# ---------------------------------------------------------------- the DataLoader


def _loader_info(loader):
    info = loader.__dict__.get("_gpuwatch")
    if info is None:  # made before we patched __init__ (cannot happen unless torch was early)
        info = _register(loader)
    return info


def _register(loader):
    proc = _core._proc
    info = {"id": proc.loaders, "passes": 0, "created_at": _creator(loader)}
    proc.loaders += 1
    loader.__dict__["_gpuwatch"] = info  # not setattr: DataLoader.__setattr__ has rules
    _patch_owner_iter(type(loader))
    return info


def _creator(loader):
    """file.py:LINE of the first frame outside torch (and past the loader's own __init__s)."""
    f = sys._getframe(2)
    cwd = _core._proc.cwd
    while f is not None:
        fn = f.f_code.co_filename
        own_init = f.f_code.co_name == "__init__" and f.f_locals.get("self") is loader
        if fn not in _core._OURS and "/torch/" not in fn and not own_init:
            return "%s:%d" % (_core._short_path(fn, cwd), f.f_lineno)
        f = f.f_back
    return None


def _loader_record(loader, info):
    g = getattr
    workers = g(loader, "num_workers", None)
    rec = {"loader": info["id"], "class": type(loader).__name__, "num_workers": workers,
           "batch_size": g(loader, "batch_size", None),
           "pin_memory": g(loader, "pin_memory", None),
           "persistent_workers": g(loader, "persistent_workers", None),
           "prefetch_factor": g(loader, "prefetch_factor", None) if workers else None,
           "drop_last": g(loader, "drop_last", None),
           "dataset": type(g(loader, "dataset", None)).__name__,
           "sampler": None, "batches": None, "start_method": None,
           "created_at": info.get("created_at")}
    sampler = g(loader, "sampler", None)
    rec["sampler"] = type(sampler).__name__ if sampler is not None else None
    try:
        rec["batches"] = int(len(loader))
    except Exception:
        rec["batches"] = None
    if workers:
        ctx = g(loader, "multiprocessing_context", None)
        try:
            if ctx is not None:
                rec["start_method"] = ctx.get_start_method()
            else:
                import multiprocessing
                rec["start_method"] = multiprocessing.get_start_method(allow_none=True) or "fork"
        except Exception:
            pass
    for k in ("batch_size", "prefetch_factor", "num_workers"):
        if not isinstance(rec[k], int) or isinstance(rec[k], bool):
            rec[k] = None
    for k in ("pin_memory", "persistent_workers", "drop_last"):
        if not isinstance(rec[k], bool):
            rec[k] = None
    return rec


_base_iter = None  # our DataLoader.__iter__ wrapper
_base_iter_cls = None  # torch's _BaseDataLoaderIter


def _patch_owner_iter(cls):
    """A DataLoader subclass with its own __iter__ (YOLO's InfiniteDataLoader, accelerate's) is
    timed there: the loop iterates what it returns, and the base __iter__ it may call inside
    is then left untimed."""
    for klass in cls.__mro__:
        if "__iter__" in klass.__dict__:
            owner = klass
            break
    else:
        return
    orig = owner.__dict__["__iter__"]
    if orig is _base_iter or getattr(orig, "_gpuwatch", False):
        return

    def __iter__(self):
        it = orig(self)
        try:
            if _core._proc is None or os.getpid() != _core._proc.pid:
                return it
            if isinstance(it, types.GeneratorType):
                return _timed(it, _core._proc.begin_pass(self))
            if _base_iter_cls is not None and isinstance(it, _base_iter_cls):
                it.__dict__["_gpuwatch_pass"] = _core._proc.begin_pass(self)
        except Exception as e:
            _core._proc.warn("dataloader", e)
        return it

    __iter__._gpuwatch = True
    __iter__.__wrapped__ = orig
    __iter__.__name__ = getattr(orig, "__name__", "__iter__")
    __iter__.__qualname__ = getattr(orig, "__qualname__", "__iter__")
    __iter__.__doc__ = getattr(orig, "__doc__", None)
    setattr(owner, "__iter__", __iter__)


def _guarded(fn, *args):
    try:
        fn(*args)
    except Exception as e:
        _core._proc.warn("dataloader", e)


def _timed_next(p, fetch, it):
    """One batch of pass p: fetch(it), its wait and the time since the last one recorded; the
    pass finished by the StopIteration that ends it (raised on)."""
    perf = time.perf_counter
    p0 = perf()
    try:
        item = fetch(it)
    except StopIteration:
        _guarded(p.finish, p0, perf())
        raise
    _guarded(p.step, p0, perf())
    return item


def _timed(gen, p):
    """A subclass's own generator __iter__ (_patch_owner_iter), timed batch by batch."""
    try:
        while True:
            try:
                item = _timed_next(p, next, gen)
            except StopIteration:
                return
            yield item
    finally:
        _guarded(p.abandon)
        gen.close()


def _patch_dataloader(mod):
    global _base_iter, _base_iter_cls
    DataLoader = mod.DataLoader
    base = mod._BaseDataLoaderIter
    if getattr(DataLoader.__init__, "_gpuwatch", False):
        return
    _base_iter_cls = base
    orig_init = DataLoader.__init__
    orig_iter = DataLoader.__iter__
    orig_next = base.__next__

    def __init__(self, *args, **kwargs):
        orig_init(self, *args, **kwargs)
        try:
            proc = _core._proc
            if proc is not None and os.getpid() == proc.pid and "_gpuwatch" not in self.__dict__:
                _register(self)
        except Exception as e:
            _core._proc.warn("dataloader", e)

    def __iter__(self):
        it = orig_iter(self)
        try:
            # a subclass's own __iter__ is timed there (_patch_owner_iter); a worker does not
            # time its loaders' passes, and a pass not on our process's pid is a fork's
            if type(self).__iter__ is __iter__ and _core._proc is not None and \
                    os.getpid() == _core._proc.pid and isinstance(it, base):
                it.__dict__["_gpuwatch_pass"] = _core._proc.begin_pass(self)
        except Exception as e:
            _core._proc.warn("dataloader", e)
        return it

    def __next__(self):
        p = self.__dict__.get("_gpuwatch_pass")
        if p is None or p.done:
            return orig_next(self)
        return _timed_next(p, orig_next, self)

    for fn, orig in ((__init__, orig_init), (__iter__, orig_iter), (__next__, orig_next)):
        fn._gpuwatch = True
        fn.__wrapped__ = orig
        fn.__doc__ = orig.__doc__
        fn.__qualname__ = orig.__qualname__
    _base_iter = __iter__
    DataLoader.__init__ = __init__
    DataLoader.__iter__ = __iter__
    base.__next__ = __next__


def _patch_autocast(torch):
    cls = getattr(torch, "autocast", None)
    if cls is None or getattr(cls.__enter__, "_gpuwatch", False):
        return
    orig = cls.__enter__

    def __enter__(self):
        r = orig(self)
        try:
            if getattr(self, "_enabled", False) and not _flags["autocast_used"]:
                _flags["autocast_used"] = True
                dtype = getattr(self, "fast_dtype", None)
                _flags["autocast_dtype"] = str(dtype).replace("torch.", "") if dtype else None
        except Exception as e:
            _core._proc.warn("autocast", e)
        return r

    __enter__._gpuwatch = True
    __enter__.__wrapped__ = orig
    __enter__.__qualname__ = orig.__qualname__
    cls.__enter__ = __enter__


def _patch_compile(torch):
    orig = getattr(torch, "compile", None)
    if orig is None or getattr(orig, "_gpuwatch", False):
        return

    def compile(*args, **kwargs):
        _flags["torch_compile_used"] = True
        return orig(*args, **kwargs)

    compile._gpuwatch = True
    compile.__wrapped__ = orig
    compile.__doc__ = orig.__doc__
    compile.__module__ = getattr(orig, "__module__", "torch")
    torch.compile = compile


def _after_torch(name, module):
    """Called when the job's import of `name` finished (the job imported it, not us)."""
    global _torch_ready
    if name == "torch":
        _torch_ready = True
        for hook, fn in (("autocast", _patch_autocast), ("compile", _patch_compile)):
            try:
                fn(module)
            except Exception as e:
                _core._proc.warn(hook, e)
        dl = sys.modules.get("torch.utils.data.dataloader")
        if dl is not None:
            _after_torch("torch.utils.data.dataloader", dl)
        _core._proc.write_process()
        return
    try:
        _patch_dataloader(module)
    except Exception as e:
        _core._proc.warn("dataloader", e)


class _Loader:
    """The real loader of a watched module, calling us once it has executed it."""

    def __init__(self, loader, name):
        self._gw_loader = loader
        self._gw_name = name

    def __getattr__(self, attr):
        if attr.startswith("_gw_"):
            raise AttributeError(attr)
        return getattr(self._gw_loader, attr)

    def create_module(self, spec):
        return self._gw_loader.create_module(spec)

    def exec_module(self, module):
        real = self._gw_loader
        try:
            real.exec_module(module)
        finally:
            try:
                if getattr(module, "__loader__", None) is self:
                    module.__loader__ = real
                spec = getattr(module, "__spec__", None)
                if spec is not None and spec.loader is self:
                    spec.loader = real
            except Exception:
                pass
        try:
            _after_torch(self._gw_name, module)
        except Exception as e:
            _core._proc.warn("import", e)


class _Finder:
    """On sys.meta_path: lets the job import torch (we never do) and patches it afterwards."""

    watch = ("torch", "torch.utils.data.dataloader")

    def find_spec(self, name, path=None, target=None):
        if name not in self.watch:
            return None
        try:
            return self._find(name, path, target)
        except Exception as e:  # the import goes on as if we were not here
            _core.report_failure("import", e)
            return None

    def _find(self, name, path, target):
        for finder in sys.meta_path:
            if finder is self:
                continue
            find = getattr(finder, "find_spec", None)
            if find is None:
                continue
            spec = find(name, path, target)
            if spec is not None:
                break
        else:
            return None
        if spec.loader is not None and hasattr(spec.loader, "exec_module"):
            spec.loader = _Loader(spec.loader, name)
        return spec

    def invalidate_caches(self):
        pass
