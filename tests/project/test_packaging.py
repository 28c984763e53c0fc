"""What ships: desktop entry, metainfo and icons are valid and consistent, the wheel and
sdist carry them, install-desktop-entry installs them, and --self-test passes."""

from __future__ import annotations

import configparser
import os
import re
import shutil
import struct
import subprocess
import sys
import tarfile
import tomllib
import zipfile
from pathlib import Path
from xml.etree import ElementTree

import pytest

from ltm_desktop import __version__, desktop_entry, selftest
from ltm_desktop.cli import main
from ltm_desktop.resources import (
    APP_ID,
    DESKTOP_ENTRY,
    ICON_SIZES,
    METAINFO,
    icon_png_path,
    icon_svg_path,
    resource,
)

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "ltm_desktop" / "resources"
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
CONSOLE_SCRIPT = "ltm-desktop"
RESOURCE_FILES = [
    DESKTOP_ENTRY,
    METAINFO,
    icon_svg_path(),
    *(icon_png_path(size) for size in ICON_SIZES),
]


def read_entry(text: str) -> dict[str, str]:
    parser = configparser.ConfigParser(interpolation=None, strict=True)
    parser.optionxform = str  # type: ignore[assignment,method-assign]  # keys are case-sensitive
    parser.read_string(text)
    assert parser.sections() == ["Desktop Entry"]
    return dict(parser["Desktop Entry"])


def png_size(data: bytes) -> tuple[int, int]:
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    assert data[12:16] == b"IHDR"
    width, height = struct.unpack(">II", data[16:24])
    return width, height


def metainfo() -> ElementTree.Element:
    return ElementTree.fromstring((PACKAGE / METAINFO).read_bytes())


def validator(name: str) -> str:
    path = shutil.which(name)
    if path is None:
        package = {"desktop-file-validate": "desktop-file-utils", "appstreamcli": "appstream"}
        pytest.skip(f"{name} is not installed (Debian: apt-get install {package[name]})")
    return path


# -- the files themselves ------------------------------------------------------


def test_one_copy_of_each_resource_in_the_package() -> None:
    for name in RESOURCE_FILES:
        assert (PACKAGE / name).is_file(), name
        assert resource(name).read_bytes() == (PACKAGE / name).read_bytes()
    top_level = ROOT / "resources"
    assert [p.name for p in top_level.iterdir()] == ["README.md"], "resources/ only points here"


def test_one_app_id_everywhere() -> None:
    assert re.fullmatch(r"[a-z][a-z0-9_]*(\.[a-z][a-z0-9_]*){2,}", APP_ID)
    assert DESKTOP_ENTRY == "ltm-desktop.desktop"  # as the issue names it
    assert read_entry((PACKAGE / DESKTOP_ENTRY).read_text(encoding="utf-8"))["Icon"] == APP_ID
    root = metainfo()
    assert root.findtext("id") == APP_ID
    assert root.findtext("launchable[@type='desktop-id']") == DESKTOP_ENTRY
    gui_app = (ROOT / "ltm_desktop" / "gui" / "app.py").read_text(encoding="utf-8")
    assert re.search(r"^DESKTOP_FILE = DESKTOP_ID\b", gui_app, re.M)
    assert "setDesktopFileName(DESKTOP_FILE)" in gui_app


def test_desktop_entry_has_what_a_launcher_needs() -> None:
    entry = read_entry((PACKAGE / DESKTOP_ENTRY).read_text(encoding="utf-8"))
    assert entry["Type"] == "Application"
    assert entry["Name"] == "ltm-desktop"
    assert entry["Comment"]
    assert entry["Exec"].split()[0] == CONSOLE_SCRIPT
    assert PYPROJECT["project"]["scripts"][CONSOLE_SCRIPT] == "ltm_desktop.cli:main"
    assert entry["Terminal"] == "false"
    assert entry["Categories"].endswith(";")
    assert entry["StartupWMClass"] == CONSOLE_SCRIPT


def test_metainfo_describes_the_release() -> None:
    root = metainfo()
    assert root.get("type") == "desktop-application"
    assert root.findtext("metadata_license") == "CC0-1.0"
    license = PYPROJECT["project"]["license"]  # a table today, an SPDX string with setuptools 77+
    assert root.findtext("project_license") == (
        license if isinstance(license, str) else license["text"]
    )
    assert root.findtext("name") == "ltm-desktop"
    assert root.findtext("summary")
    assert root.findtext("developer/name")
    assert len(root.findall("description/p")) >= 1
    assert root.find("content_rating[@type='oars-1.1']") is not None
    assert root.findtext("provides/binary") == CONSOLE_SCRIPT
    releases = root.findall("releases/release")
    assert releases[0].get("version") == __version__, "the newest release comes first"
    assert re.fullmatch(r"\d{4}-\d{2}-\d{2}", releases[0].get("date", ""))


def test_metainfo_screenshot_is_a_committed_picture() -> None:
    image = metainfo().find("screenshots/screenshot[@type='default']/image")
    assert image is not None
    url = image.text or ""
    prefix = "https://raw.githubusercontent.com/ltm-desktop/ltm-desktop/main/"
    assert url.startswith(prefix)
    picture = ROOT / url.removeprefix(prefix)
    assert picture.is_file(), f"{url} does not name a file in this repository"
    assert png_size(picture.read_bytes()) == (int(image.get("width")), int(image.get("height")))  # type: ignore[arg-type]


@pytest.mark.parametrize("size", ICON_SIZES)
def test_icon_png_at_every_size(size: int) -> None:
    data = (PACKAGE / icon_png_path(size)).read_bytes()
    assert png_size(data) == (size, size)
    assert data[25] == 6, "RGBA, so the rounded corners stay transparent"


def test_icon_svg_is_a_square_svg() -> None:
    root = ElementTree.fromstring((PACKAGE / icon_svg_path()).read_bytes())
    assert root.tag == "{http://www.w3.org/2000/svg}svg"
    _, _, width, height = (float(v) for v in root.get("viewBox", "").split())
    assert width == height > 0


def test_desktop_file_validate() -> None:
    tool = validator("desktop-file-validate")
    done = subprocess.run(
        [tool, str(PACKAGE / DESKTOP_ENTRY)], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert not re.search(r"\b(error|warning):", done.stdout + done.stderr), done.stdout


def test_appstreamcli_validate() -> None:
    tool = validator("appstreamcli")
    done = subprocess.run(
        [tool, "validate", "--no-net", "--no-color", str(PACKAGE / METAINFO)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr


# -- the wheel and the sdist ---------------------------------------------------

BUILD = """
import sys
from setuptools import build_meta
print("BUILT", getattr(build_meta, sys.argv[1])(sys.argv[2]))
"""


def build(hook: str, source: Path, out: Path) -> str:
    """Run a PEP 517 hook in a fresh process (setuptools keeps state between builds)."""
    done = subprocess.run(
        [sys.executable, "-c", BUILD, hook, str(out)],
        cwd=source,
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    (name,) = re.findall(r"^BUILT (\S+)$", done.stdout, re.M)
    return name


@pytest.mark.slow
def test_wheel_and_sdist_carry_the_resources(tmp_path: Path) -> None:
    """Built by the project's own backend from a copy of the sources (offline, a few seconds)."""
    setuptools = pytest.importorskip("setuptools", reason="the build backend is not installed")
    if tuple(int(p) for p in setuptools.__version__.split(".")[:2]) < (70, 1):
        pytest.skip("setuptools < 70.1 cannot build a wheel alone; pip install -e '.[test]'")
    source = tmp_path / "src"
    shutil.copytree(
        ROOT / "ltm_desktop",
        source / "ltm_desktop",
        ignore=shutil.ignore_patterns("__pycache__", "*.pyc"),
    )
    for name in ("pyproject.toml", "README.md", "LICENSE"):
        shutil.copy(ROOT / name, source / name)
    out = tmp_path / "dist"
    wheel_name = build("build_wheel", source, out)
    sdist_name = build("build_sdist", source, out)
    assert wheel_name == f"ltm_desktop-{__version__}-py3-none-any.whl"
    with zipfile.ZipFile(out / wheel_name) as wheel:
        names = set(wheel.namelist())
        entry_points = wheel.read(f"ltm_desktop-{__version__}.dist-info/entry_points.txt")
    expected = {f"ltm_desktop/resources/{name}" for name in RESOURCE_FILES}
    assert expected <= names, sorted(expected - names)
    assert {"ltm_desktop/resources/__init__.py", "ltm_desktop/selftest.py"} <= names
    assert "ltm_desktop/py.typed" in names  # type hints ship with the package (PEP 561)
    model = {
        "ltm_desktop/embedding/model/tokenizer.json",
        "ltm_desktop/embedding/model/vectors.npz",
    }
    assert model <= names  # the static embedder's model: search by meaning needs no download
    assert f"ltm_desktop-{__version__}.dist-info/licenses/LICENSE" in names
    assert b"ltm-desktop = ltm_desktop.cli:main" in entry_points
    assert not [n for n in names if n.startswith(("tests/", "packaging/", "resources/"))]
    with tarfile.open(out / sdist_name) as sdist:
        members = {m.name.split("/", 1)[1] for m in sdist.getmembers() if "/" in m.name}
    assert {f"ltm_desktop/resources/{name}" for name in RESOURCE_FILES} <= members
    assert model <= members


# -- install-desktop-entry -----------------------------------------------------

needs_freedesktop = pytest.mark.skipif(
    not desktop_entry.supported(), reason="install-desktop-entry is for Linux desktops"
)


@needs_freedesktop
def test_install_desktop_entry_for_this_user(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    home = tmp_path / "xdg-data"
    monkeypatch.setenv("XDG_DATA_HOME", str(home))
    previous = os.umask(0)
    try:
        assert main(["install-desktop-entry"]) == 0
    finally:
        os.umask(previous)
    installed = home / "applications" / DESKTOP_ENTRY
    entry = read_entry(installed.read_text(encoding="utf-8"))
    command = entry["Exec"]
    assert Path(command).is_absolute(), command
    assert Path(command).is_file(), command
    assert entry["TryExec"] == command
    assert entry["Icon"] == APP_ID
    for size in ICON_SIZES:
        icon = home / "icons" / "hicolor" / f"{size}x{size}" / "apps" / f"{APP_ID}.png"
        assert icon.read_bytes() == (PACKAGE / icon_png_path(size)).read_bytes()
    assert (home / "icons/hicolor/scalable/apps" / f"{APP_ID}.svg").is_file()
    out = capsys.readouterr().out
    assert f"installed {installed}" in out
    new_dirs = [p for p in home.rglob("*") if p.is_dir()] + [home]
    assert all(p.stat().st_mode & 0o022 == 0 for p in new_dirs)  # even with umask 000
    if shutil.which("desktop-file-validate"):
        check = subprocess.run(["desktop-file-validate", str(installed)], capture_output=True)
        assert check.returncode == 0, check.stdout

    assert main(["install-desktop-entry", "--uninstall"]) == 0
    assert f"removed {installed}" in capsys.readouterr().out
    assert [p for p in home.rglob("*") if p.is_file()] == []


def test_install_desktop_entry_refuses_where_there_is_no_freedesktop(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(sys, "platform", "darwin")
    assert main(["install-desktop-entry"]) == 1
    assert "packaging/README.md" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("argv", "value"),
    [
        (["/usr/bin/ltm-desktop"], "/usr/bin/ltm-desktop"),
        (["/home/me/My Apps/ltm-desktop"], '"/home/me/My Apps/ltm-desktop"'),
        (["/opt/100%/ltm-desktop"], "/opt/100%%/ltm-desktop"),
        (["/opt/$x/ltm-desktop"], r'"/opt/\\$x/ltm-desktop"'),
        (["/usr/bin/python3", "-m", "ltm_desktop"], "/usr/bin/python3 -m ltm_desktop"),
    ],
)
def test_exec_value_is_quoted_as_the_spec_says(argv: list[str], value: str) -> None:
    assert desktop_entry.exec_value(argv) == value


def test_launcher_is_this_installation(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    script = tmp_path / "bin" / "ltm-desktop"
    script.parent.mkdir()
    script.write_text("#!/bin/sh\n")
    monkeypatch.setattr(sys, "argv", [str(script)])
    assert desktop_entry.launcher() == [str(script)]
    monkeypatch.setattr(sys, "frozen", True, raising=False)
    assert desktop_entry.launcher() == [sys.executable]


# -- --self-test ---------------------------------------------------------------


@pytest.mark.slow
def test_self_test_passes() -> None:
    """As a user runs it (a child process: it creates a QApplication)."""
    done = subprocess.run(
        [sys.executable, "-m", "ltm_desktop", "--self-test"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    assert [line.split()[1] for line in lines if line.startswith("  ok ")] == [
        "data",
        "api",
        "write",
        "search",
        "meaning",
        "precis",
        "window",
    ]
    assert lines[-1].startswith("self-test passed")


def test_self_test_fails_when_the_static_model_is_missing(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """A bundle that lost the model would search by words without a word said."""
    from ltm_desktop.embedding import static

    monkeypatch.setattr(static, "MODEL_DIR", tmp_path / "nowhere")
    monkeypatch.setattr(static.load_bundled, "__defaults__", (tmp_path / "nowhere",))
    test = selftest.SelfTest(tmp_path)
    try:
        test.open_data()
        with pytest.raises(selftest.SelfTestFailed, match="static model could not be loaded"):
            test.meaning()
    finally:
        test.close()


def test_self_test_reports_the_failing_step(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def broken(self: selftest.SelfTest) -> str:
        raise selftest.SelfTestFailed("no hits")

    monkeypatch.setattr(selftest.SelfTest, "search", broken)
    monkeypatch.setattr(selftest.SelfTest, "window", lambda self: pytest.fail("ran past a failure"))
    monkeypatch.setenv("QT_QPA_PLATFORM", "offscreen")  # run() sets it; restore it afterwards
    assert main(["--self-test"]) == 1
    out = capsys.readouterr().out
    assert "  FAIL search  SelfTestFailed: no hits" in out
    assert out.splitlines()[-1] == "self-test FAILED"


def test_self_test_takes_no_command(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        main(["--self-test", "status"])
    assert info.value.code == 2
