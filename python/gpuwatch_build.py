"""The build backend of python/ (PEP 517): a wheel and an sdist of the one module gpuwatch.py with
the standard library alone, so that `pip install ./python` needs nothing from an index (issue 27:
setuptools>=61 could not be found offline). pyproject.toml names it with backend-path = ["."]."""
import base64
import hashlib
import io
import os
import re
import tarfile
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))
NAME = "gpuwatch"
SUMMARY = "Markers for gpuwatch: line up what a training script knows with what the GPU did"


def _version():
    with open(os.path.join(HERE, "gpuwatch.py"), encoding="utf-8") as f:
        return re.search(r'^__version__ = "([^"]+)"', f.read(), re.M).group(1)


def _metadata():
    return (f"Metadata-Version: 2.1\nName: {NAME}\nVersion: {_version()}\nSummary: {SUMMARY}\n"
            "License: MIT\nRequires-Python: >=3.8\n\n"
            "See gpuwatch.py's docstring and docs/markers.md of gpuwatch.\n")


def _record_line(path, data):
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{path},sha256={digest},{len(data)}\n"


def get_requires_for_build_wheel(config_settings=None):
    return []


def get_requires_for_build_sdist(config_settings=None):
    return []


def get_requires_for_build_editable(config_settings=None):
    return []


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    version = _version()
    info = f"{NAME}-{version}.dist-info"
    with open(os.path.join(HERE, "gpuwatch.py"), "rb") as f:
        module = f.read()
    files = [("gpuwatch.py", module),
             (f"{info}/METADATA", _metadata().encode()),
             (f"{info}/WHEEL", b"Wheel-Version: 1.0\nGenerator: gpuwatch_build\n"
                               b"Root-Is-Purelib: true\nTag: py3-none-any\n")]
    record = "".join(_record_line(p, d) for p, d in files) + f"{info}/RECORD,,\n"
    name = f"{NAME}-{version}-py3-none-any.whl"
    with zipfile.ZipFile(os.path.join(wheel_directory, name), "w", zipfile.ZIP_DEFLATED) as z:
        for path, data in files + [(f"{info}/RECORD", record.encode())]:
            z.writestr(zipfile.ZipInfo(path, date_time=(1980, 1, 1, 0, 0, 0)), data)
    return name


def build_editable(wheel_directory, config_settings=None, metadata_directory=None):
    return build_wheel(wheel_directory, config_settings, metadata_directory)


def build_sdist(sdist_directory, config_settings=None):
    base = f"{NAME}-{_version()}"
    name = base + ".tar.gz"
    with tarfile.open(os.path.join(sdist_directory, name), "w:gz") as t:
        for f in ("gpuwatch.py", "gpuwatch_build.py", "pyproject.toml"):
            t.add(os.path.join(HERE, f), arcname=f"{base}/{f}")
        pkg = _metadata().encode()
        ti = tarfile.TarInfo(f"{base}/PKG-INFO")
        ti.size = len(pkg)
        t.addfile(ti, io.BytesIO(pkg))
    return name
