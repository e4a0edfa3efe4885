"""Markers for gpuwatch: line up what a training script knows with what the GPU did.

Inside ``gpuwatch run`` (which exports GPUWATCH_RUN_DIR to the job), every call appends one
event line to the run's events.jsonl; the report takes its epochs from "epoch" marks, expects
GPU dips at "validation" marks, and lists every mark. Outside a run, calls do nothing (one notice on stderr per
process) and return False. No dependencies; torch is imported only by mark_memory().

    import gpuwatch
    gpuwatch.mark("epoch", n=3, total=10)
    gpuwatch.mark("step", n=1200, loss=0.71)
    gpuwatch.mark_memory()   # torch.cuda allocator statistics, in MiB

Each line is written with one os.write() on a descriptor opened with O_APPEND, so threads,
DataLoader workers and other processes (``gpuwatch mark`` from a shell) may mark at the same time
without tearing a line. The format is in docs/events.md; this file can be copied anywhere.
"""
import errno
import json
import math
import os
import stat
import sys
import threading
import time

__all__ = ["mark", "mark_memory", "run_dir", "enabled"]
__version__ = "0.1.0"

_notice_lock = threading.Lock()
_noticed_pid = None  # the process that printed the notice (a forked child prints its own)
_fd_lock = threading.Lock()
_fd = None  # (run directory, descriptor of its events.jsonl opened with O_APPEND)


def run_dir():
    """The run directory of the enclosing ``gpuwatch run``, or None."""
    return os.environ.get("GPUWATCH_RUN_DIR") or None


def enabled():
    """True when marks are recorded (inside a ``gpuwatch run``)."""
    d = run_dir()
    return d is not None and os.path.exists(os.path.join(d, "events.jsonl"))


def _notice(why):
    global _noticed_pid
    with _notice_lock:
        if _noticed_pid == os.getpid():
            return
        _noticed_pid = os.getpid()
    try:
        sys.stderr.write(f"gpuwatch: {why}: marks are not recorded\n")
    except (OSError, ValueError):
        pass


def _timestamp(t):
    ms = int(t * 1000)
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(ms // 1000)) + ".%03dZ" % (ms % 1000)


def _value(v):
    """A JSON value for a field: numbers, bools, None and strings as they are; numpy/torch
    scalars through .item(); NaN and infinities as None (JSON has no such numbers); else str()."""
    if v is None or isinstance(v, (bool, str, int)):
        return v
    if isinstance(v, float):
        return v if math.isfinite(v) else None
    item = getattr(v, "item", None)
    if callable(item):
        try:
            return _value(item())
        except (TypeError, ValueError, RuntimeError):
            pass
    return str(v)


def _descriptor(directory):
    """The O_APPEND descriptor of DIRECTORY/events.jsonl, opened once per run directory (a forked
    child shares it, which O_APPEND makes safe), or None when there is no such file."""
    global _fd
    cached = _fd
    if cached is not None and cached[0] == directory:
        return cached[1]
    with _fd_lock:
        if _fd is not None and _fd[0] == directory:
            return _fd[1]
        path = os.path.join(directory, "events.jsonl")
        # gpuwatch creates it when the run starts: without it there is no run (any more), and a
        # marker must not create files in whatever directory the variable names.
        if not os.path.exists(path):
            return None
        fd = _open_events(path)
        _fd = (directory, fd)  # a previous one stays open: another thread may be writing to it
        return fd


def _open_events(path):
    """events.jsonl for appending, as `gpuwatch mark` opens it: a symbolic link is not followed
    (another user could plant one to a file of yours), and anything but a regular file is refused
    (a FIFO would block the open, and the training, forever)."""
    flags = (os.O_WRONLY | os.O_APPEND | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_NOFOLLOW", 0)
             | getattr(os, "O_NONBLOCK", 0))
    not_regular = ("it is not a regular file (a FIFO or device; another user may have planted "
                   "it): remove it")
    try:
        fd = os.open(path, flags)
    except OSError as e:
        if e.errno == errno.ELOOP:
            raise OSError(e.errno, "it is a symbolic link, not followed (another user may have "
                          "planted it): remove it") from None
        if e.errno == errno.ENXIO:  # a FIFO without a reader
            raise OSError(errno.EINVAL, not_regular) from None
        raise
    st = os.fstat(fd)
    if not stat.S_ISREG(st.st_mode):
        os.close(fd)
        raise OSError(errno.EINVAL, not_regular)
    if st.st_uid != os.geteuid() or st.st_nlink != 1:  # another user's, or a hard link
        os.close(fd)
        raise OSError(errno.EPERM, f"it belongs to another user (uid {st.st_uid}) or has other "
                      f"names ({st.st_nlink} links): not the events.jsonl gpuwatch made; remove it")
    os.set_blocking(fd, True)
    return fd


def _append(fd, line):
    """Appends line whole or not at all: a write cut short (a full disk) is taken back, so that no
    partial line is left for the next one to be glued to."""
    data = line.encode("utf-8")
    written = 0
    try:
        while written < len(data):  # one write (O_APPEND keeps concurrent lines whole) but
            written += os.write(fd, data[written:])  # after a signal or a full disk
    except OSError:
        if written:
            try:
                end = os.lseek(fd, 0, os.SEEK_CUR)
                if os.fstat(fd).st_size == end:  # no other writer's line after ours
                    os.ftruncate(fd, end - written)
            except OSError:
                pass
        raise


def mark(text, /, **fields):
    """Records a marker named `text` with `fields` (numbers, strings, bools) now.

    Returns True when it was recorded, False outside a run or when the file cannot be written
    (a notice says so once per process; training goes on)."""
    directory = run_dir()
    try:
        fd = _descriptor(directory) if directory else None
    except OSError as e:
        _notice(f"cannot open {directory}/events.jsonl: {e.strerror}")
        return False
    if fd is None:
        _notice("not inside `gpuwatch run` (GPUWATCH_RUN_DIR names no run)")
        return False
    event = {"timestamp": _timestamp(time.time()), "type": "mark", "text": str(text),
             "fields": {str(k): _value(v) for k, v in fields.items()}, "pid": os.getpid()}
    line = json.dumps(event, separators=(",", ":"), allow_nan=False) + "\n"
    try:
        _append(fd, line)
    except OSError as e:
        _notice(f"cannot write {directory}/events.jsonl: {e.strerror}")
        return False
    return True


def mark_memory(text="memory", device=None, **fields):
    """Records PyTorch's CUDA allocator statistics for `device` (default: the current one) as a
    mark with fields allocated_mib, reserved_mib, max_allocated_mib and device.

    A no-op returning False when torch cannot be imported or CUDA is not available."""
    try:
        import torch
    except ImportError:
        return False
    cuda = getattr(torch, "cuda", None)
    if cuda is None or not cuda.is_available():
        return False
    if device is None:
        device = cuda.current_device()
    mib = 1024.0 * 1024.0
    stats = {
        "allocated_mib": round(cuda.memory_allocated(device) / mib, 1),
        "reserved_mib": round(cuda.memory_reserved(device) / mib, 1),
        "max_allocated_mib": round(cuda.max_memory_allocated(device) / mib, 1),
        "device": device if isinstance(device, int) else str(device),
    }
    stats.update(fields)
    return mark(text, **stats)
