"""gpuwatch's sitecustomize: in-job data for `gpuwatch run` (docs/inproc.md).

`gpuwatch run` puts the directory holding this file first on the job's PYTHONPATH, so every
Python process of the job that imports site (python -I, -E and -S ones do not) runs it at start.
It starts _gpuwatch_inproc (DataLoader step timing, settings, stack sampling, allocator) when
GPUWATCH_RUN_DIR names the run and GPUWATCH_PYTHON is not 0, then runs the next sitecustomize on
sys.path (Debian's, the job's own) exactly as Python would have without this one
(_gpuwatch_site.py; usercustomize.py beside it covers a job whose own sitecustomize hides this).

Nothing here raises into the job: a failure of ours is reported in the run directory and the job
goes on. An error in the next sitecustomize is the job's own and is left to site, as usual.
"""
import _gpuwatch_site

_gpuwatch_site.start()
_gpuwatch_site.chain("sitecustomize")
