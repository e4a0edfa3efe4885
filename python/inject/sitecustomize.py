"""gpuwatch's sitecustomize: in-job data for `gpuwatch run` (docs/inproc.md).

`gpuwatch run` puts the directory holding this file first on the job's PYTHONPATH, so every
Python process of the job that imports site (python -I, -E and -S ones do not) runs it at start.
It starts _gpuwatch_inproc (DataLoader step timing, settings, stack sampling, allocator) when
GPUWATCH_RUN_DIR names the run and GPUWATCH_PYTHON is not 0, then runs the next sitecustomize on
sys.path (Debian's, the job's own) exactly as Python would have without this one.

Nothing here raises into the job: a failure of ours is reported in the run directory and the job
goes on. An error in the next sitecustomize is the job's own and is left to site, as usual.
"""
import os
import sys


def _gpuwatch_start():
    if not os.environ.get("GPUWATCH_RUN_DIR"):
        return
    if os.environ.get("GPUWATCH_PYTHON", "1").strip().lower() in ("0", "false", "no", "off"):
        return
    try:
        import _gpuwatch_inproc
        _gpuwatch_inproc.start()
    except Exception as e:  # never into the job: say it where gpuwatch reads it
        try:
            import _gpuwatch_inproc
            _gpuwatch_inproc.report_failure("start", e)
        except Exception:
            pass


def _gpuwatch_next_sitecustomize():
    """The spec of the sitecustomize that Python would have found after this directory, or
    None."""
    here = os.path.dirname(os.path.realpath(__file__))
    rest = []
    for entry in sys.path:
        try:
            same = os.path.realpath(entry or os.getcwd()) == here
        except (OSError, ValueError):
            same = False
        if not same:
            rest.append(entry)
    from importlib.machinery import PathFinder
    return PathFinder.find_spec("sitecustomize", rest)


_gpuwatch_start()

try:
    _gpuwatch_spec = _gpuwatch_next_sitecustomize()
except Exception:
    _gpuwatch_spec = None
if _gpuwatch_spec is not None and _gpuwatch_spec.loader is not None:
    import importlib.util as _gpuwatch_util
    _gpuwatch_theirs = _gpuwatch_util.module_from_spec(_gpuwatch_spec)
    # `import sitecustomize` in the job gets theirs, as it would without gpuwatch
    sys.modules["sitecustomize"] = _gpuwatch_theirs
    try:
        _gpuwatch_spec.loader.exec_module(_gpuwatch_theirs)
    except BaseException:  # theirs failed: site reports it, as it would without gpuwatch
        sys.modules.pop("sitecustomize", None)
        raise
