"""``ltm-desktop projects`` through the console script on SQLite: merge two directories'
projects, detach a clone, and one-line errors for what cannot be done."""

from __future__ import annotations

from pathlib import Path

import pytest

from ltm_desktop.core.projects.identity import remote_project_id
from ltm_desktop.core.rules import project_id_for_cwd
from tests.console import assert_one_error_line, ltm
from tests.unit.projects.gitrepos import clone_of


def _import(data: Path, cwd: Path, text: str, *config: str) -> None:
    notes = cwd.parent / f"{abs(hash(text))}.md"
    notes.write_text(f"- {text}\n", encoding="utf-8")
    done = ltm(data, "import", "--cwd", str(cwd), str(notes), *config)
    assert done.returncode == 0, done.stderr


@pytest.mark.slow
def test_merge_by_directory_then_verify(tmp_path: Path) -> None:
    data = tmp_path / "data"
    a, b = tmp_path / "a", tmp_path / "b"
    a.mkdir()
    b.mkdir()
    _import(data, a, "Deploys go out on Fridays")
    _import(data, b, "Deploys go out on Fridays")
    _import(data, a, "Only in a")
    done = ltm(data, "projects", "merge", str(a), "into", str(b))
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == (
        f"merged {project_id_for_cwd(str(a))} into {project_id_for_cwd(str(b))}: 2 memories "
        "(1 created, 1 deduplicated), 0 observations, 1 paths"
    )
    assert ltm(data, "verify").returncode == 0
    listed = ltm(data, "projects", "list").stdout
    assert f"{project_id_for_cwd(str(b))}  b  (2 memories)" in listed
    assert f"{project_id_for_cwd(str(a))}  a  (0 memories)" in listed


@pytest.mark.slow
def test_detach_a_clone_under_the_remote_identity(tmp_path: Path) -> None:
    data = tmp_path / "data"
    config = tmp_path / "config.toml"
    config.write_text('[projects]\nidentity = "remote"\n', encoding="utf-8")
    clone = clone_of(tmp_path / "shop", "git@github.com:acme/shop.git")
    _import(data, clone, "Shared", "--config", str(config))
    shop = remote_project_id("github.com/acme/shop")
    which = ltm(data, "projects", "which", str(clone), "--config", str(config))
    assert which.stdout.startswith(shop)
    detached = ltm(data, "projects", "detach", str(clone), "--config", str(config))
    assert detached.returncode == 0, detached.stderr
    path_id = project_id_for_cwd(str(clone))
    assert detached.stdout.strip() == f"detached {clone}: it is {path_id} on this machine"
    which = ltm(data, "projects", "which", str(clone), "--config", str(config))
    assert which.stdout.startswith(path_id)


@pytest.mark.slow
def test_what_cannot_be_merged_is_one_error_line(tmp_path: Path) -> None:
    data = tmp_path / "data"
    (tmp_path / "a").mkdir()
    _import(data, tmp_path / "a", "Something")
    assert_one_error_line(
        ltm(data, "projects", "merge", "global", "into", str(tmp_path / "a")), "global scope"
    )
    assert_one_error_line(
        ltm(data, "projects", "merge", "repo_0123456789abcdef", "into", "global"), "global"
    )
    assert_one_error_line(
        ltm(data, "projects", "merge", str(tmp_path / "nowhere"), "into", str(tmp_path / "a")),
        "no project has the id",
    )
