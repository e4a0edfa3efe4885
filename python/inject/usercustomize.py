"""gpuwatch's usercustomize (docs/inproc.md): where the job put its own sitecustomize before
gpuwatch's on PYTHONPATH, Python never ran gpuwatch's; this one, imported next by site where the
user site is enabled, starts the in-job data then (once per process) and runs the job's own
usercustomize, if any, as Python would have without this one."""
import _gpuwatch_site

_gpuwatch_site.start()
_gpuwatch_site.chain("usercustomize")
