"""What gpuwatch's sitecustomize.py and usercustomize.py do at a Python process's start
(docs/inproc.md): start the in-job data, then run the job's own module of the same name.

Python imports the first sitecustomize on sys.path, then, where the user site is enabled (not
under -s, PYTHONNOUSERSITE, a venv without system site packages, or a setuid process), the first
usercustomize. `gpuwatch run` puts this directory first on PYTHONPATH, so both are normally ours;
a job that puts its own sitecustomize before ours (YOLOv9's launcher does) hides ours, and our
usercustomize then starts the data instead. start() runs once per process, whichever comes
first."""
import os
import sys


def start():
    if not os.environ.get("GPUWATCH_RUN_DIR"):
        return
    if os.environ.get("GPUWATCH_PYTHON", "1").strip().lower() in ("0", "false", "no", "off"):
        return
    try:
        import _gpuwatch_inproc
        _gpuwatch_inproc.start()  # once: it returns at once when already started
    except Exception as e:  # never into the job: say it where gpuwatch reads it
        try:
            import _gpuwatch_inproc
            _gpuwatch_inproc.report_failure("start", e)
        except Exception:
            pass


def _next_spec(name):
    """The spec of the module `name` that Python would have found after this directory, or
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
    return PathFinder.find_spec(name, rest)


def chain(name):
    """Runs the job's own `name` (sitecustomize, usercustomize) after ours, as Python would have
    without ours: `import name` in the job then gets theirs. An error in theirs is raised to
    site, which reports it as it would without gpuwatch."""
    try:
        spec = _next_spec(name)
    except Exception:
        spec = None
    if spec is None or spec.loader is None:
        return
    import importlib.util
    theirs = importlib.util.module_from_spec(spec)
    sys.modules[name] = theirs
    try:
        spec.loader.exec_module(theirs)
    except BaseException:
        sys.modules.pop(name, None)
        raise
