"""The package's PEP 517 build backend, standard library only, so that `pip install ./python` needs
no build dependency and works offline: a wheel holding the pure-Python package `tile` (the shared
libraries it loads are found at run time, see tile/__init__.py), an sdist, and an editable wheel
(`pip install -e ./python`: a .pth file naming this folder). Name, version, summary and Python
requirement come from pyproject.toml's [project] table."""

import base64
import hashlib
import io
import pathlib
import re
import tarfile
import zipfile

HERE = pathlib.Path(__file__).resolve().parent
PACKAGE = "tile"


def _project():
    text = (HERE / "pyproject.toml").read_text()
    table = text.split("[project]", 1)[1].split("\n[", 1)[0]
    fields = dict(re.findall(r'^([a-z-]+)\s*=\s*"([^"]*)"', table, re.MULTILINE))
    return fields["name"], fields["version"], fields.get("description", ""), fields.get("requires-python")


def _metadata():
    name, version, summary, python = _project()
    lines = ["Metadata-Version: 2.1", f"Name: {name}", f"Version: {version}", f"Summary: {summary}",
             "License: Apache-2.0 WITH LLVM-exception", "Provides-Extra: torch", "Requires-Dist: torch; extra == \"torch\""]
    if python:
        lines.append(f"Requires-Python: {python}")
    return "\n".join(lines) + "\n"


def _dist_name():
    name, version, _, _ = _project()
    return f"{re.sub(r'[-_.]+', '_', name)}-{version}"


def _wheel(directory, files):
    """Writes a py3-none-any wheel of `files` (archive name -> bytes) into `directory`."""
    dist = _dist_name()
    info = f"{dist}.dist-info"
    files = dict(files)
    files[f"{info}/METADATA"] = _metadata().encode()
    files[f"{info}/WHEEL"] = b"Wheel-Version: 1.0\nGenerator: tile_build\nRoot-Is-Purelib: true\nTag: py3-none-any\n"
    record = []
    for path, data in files.items():
        digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
        record.append(f"{path},sha256={digest},{len(data)}")
    record.append(f"{info}/RECORD,,")
    files[f"{info}/RECORD"] = ("\n".join(record) + "\n").encode()
    wheel = f"{dist}-py3-none-any.whl"
    with zipfile.ZipFile(pathlib.Path(directory) / wheel, "w", zipfile.ZIP_DEFLATED) as archive:
        for path, data in files.items():
            archive.writestr(zipfile.ZipInfo(path, date_time=(1980, 1, 1, 0, 0, 0)), data)
    return wheel


def _sources():
    return sorted(path for path in (HERE / PACKAGE).rglob("*.py"))


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    return _wheel(wheel_directory, {path.relative_to(HERE).as_posix(): path.read_bytes() for path in _sources()})


def build_editable(wheel_directory, config_settings=None, metadata_directory=None):
    return _wheel(wheel_directory, {f"{_dist_name()}.pth": (str(HERE) + "\n").encode()})


def build_sdist(sdist_directory, config_settings=None):
    dist = _dist_name()
    sdist = f"{dist}.tar.gz"
    paths = [HERE / "pyproject.toml", HERE / "tile_build.py", *_sources()]
    with tarfile.open(pathlib.Path(sdist_directory) / sdist, "w:gz") as archive:
        for path in paths:
            archive.add(path, f"{dist}/{path.relative_to(HERE).as_posix()}")
        info = tarfile.TarInfo(f"{dist}/PKG-INFO")
        data = _metadata().encode()
        info.size = len(data)
        archive.addfile(info, io.BytesIO(data))
    return sdist
