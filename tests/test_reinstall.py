"""A fix that moves an installed torch to another build of the same version must make pip replace
it: pip keeps an installed distribution whose version satisfies ``torch==V`` whatever its local
label (``2.11.0`` satisfies ``==2.11.0`` as ``2.11.0+cu126`` does), so a plain ``pip install`` of the
other build from another index does nothing. The first test runs pip on two local wheels of one
version to show it; the second holds every change's fix to it."""
from __future__ import annotations

import re
import subprocess
import sys
import zipfile
from pathlib import Path

INSTALL = re.compile(r"pip install (?P<flags>(?:-\S+ )*)torch==(?P<v>[\d.]+)(?P<rest>.*)")
REINSTALL = ("--force-reinstall", "-U", "--upgrade")


def _wheel(folder: Path, version: str) -> None:
    folder.mkdir()
    info = f"fakepkg-{version}.dist-info"
    with zipfile.ZipFile(folder / f"fakepkg-{version}-py3-none-any.whl", "w") as z:
        z.writestr("fakepkg/__init__.py", f"BUILD = {version!r}\n")
        z.writestr(f"{info}/METADATA", f"Metadata-Version: 2.1\nName: fakepkg\nVersion: {version}\n")
        z.writestr(f"{info}/WHEEL", "Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\nTag: py3-none-any\n")
        z.writestr(f"{info}/RECORD", "")


def test_pip_keeps_another_build_of_the_same_version_unless_told_to_reinstall(tmp_path):
    _wheel(tmp_path / "pypi", "1.0")
    _wheel(tmp_path / "cu126", "1.0+cu126")
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    py = str(venv / "bin" / "python")

    def pip(*args: str) -> None:
        subprocess.run([py, "-m", "pip", "--disable-pip-version-check", "install", "--quiet", "--no-index", *args], check=True)

    def build() -> str:
        return subprocess.run([py, "-c", "import fakepkg; print(fakepkg.BUILD)"], capture_output=True, text=True, check=True).stdout.strip()

    pip("--find-links", str(tmp_path / "pypi"), "fakepkg==1.0")
    assert build() == "1.0"
    pip("--find-links", str(tmp_path / "cu126"), "fakepkg==1.0")
    assert build() == "1.0", "a plain install of the other build replaced the installed one"
    pip("--force-reinstall", "--find-links", str(tmp_path / "cu126"), "fakepkg==1.0")
    assert build() == "1.0+cu126"


def _installs(code: str | None) -> list[re.Match]:
    return [m for m in map(INSTALL.search, (code or "").splitlines()) if m]


def test_a_fix_that_swaps_the_build_of_an_installed_version_reinstalls(factbase):
    """Where the page's ``before`` installs ``torch==V`` and pip accepts it (no pip error: the change
    shows at run time), an ``after`` that installs ``torch==V`` from another index must reinstall."""
    bad, seen = [], 0
    for c in factbase.changes():
        if c.fix is None or c.fix.language != "bash" or any(e.origin == "pip" for e in c.errors):
            continue
        before = {m["v"] for m in _installs(c.fix.before)}
        for m in _installs(c.fix.after):
            if m["v"] in before and "--index-url" in m.group(0):
                seen += 1
                if not any(f in m["flags"].split() for f in REINSTALL):
                    bad.append(f"{c.id}: {m.group(0)}")
    assert seen >= 2, "no fix swaps the build of an installed version: the test reads nothing"
    assert not bad, "pip keeps the installed torch of the same version; add --force-reinstall:\n" + "\n".join(bad)
