"""The remote URL read from a repository's files, without running git: real repositories
made with ``git init``, ``git worktree add`` and submodules."""

from __future__ import annotations

from pathlib import Path

import pytest

from ltm_desktop.core.projects.git_config import find_repository, parse_config, remote_url
from tests.unit.projects.gitrepos import clone_of, git

URL = "git@github.com:acme/shop.git"


def test_the_origin_of_a_clone_from_any_folder_in_it(tmp_path: Path) -> None:
    repo = clone_of(tmp_path / "shop", URL)
    deep = repo / "src" / "pkg"
    deep.mkdir(parents=True)
    found = remote_url(str(deep))
    assert found is not None
    repository, url = found
    assert url == URL
    assert repository.root == str(repo)
    assert repository.git_dir == str(repo / ".git")


def test_no_repository_or_no_remote_is_none(tmp_path: Path) -> None:
    plain = tmp_path / "plain"
    plain.mkdir()
    found = find_repository(str(plain))
    assert found is None or found.root != str(plain)  # tmp_path is in no repository of ours
    assert remote_url(str(clone_of(tmp_path / "local", None))) is None


def test_another_remote_name(tmp_path: Path) -> None:
    repo = clone_of(tmp_path / "shop", URL)
    git(repo, "remote", "add", "upstream", "https://github.com/upstream/shop")
    assert remote_url(str(repo), "upstream") == (
        find_repository(str(repo)),
        "https://github.com/upstream/shop",
    )
    assert remote_url(str(repo), "nowhere") is None


def test_a_linked_worktree_reads_its_repository_s_config(tmp_path: Path) -> None:
    repo = clone_of(tmp_path / "shop", URL, commit=True)
    tree = tmp_path / "shop-feature"
    git(repo, "worktree", "add", "-q", "-b", "feature", str(tree))
    assert (tree / ".git").is_file()  # "gitdir: .../.git/worktrees/shop-feature"
    found = remote_url(str(tree))
    assert found is not None
    repository, url = found
    assert url == URL
    assert repository.root == str(tree)
    assert repository.common_dir == str(repo / ".git")


def test_a_submodule_has_its_own_remote(tmp_path: Path) -> None:
    library = clone_of(tmp_path / "lib", "https://github.com/acme/lib.git", commit=True)
    repo = clone_of(tmp_path / "shop", URL, commit=True)
    git(
        repo,
        "-c",
        "protocol.file.allow=always",
        "submodule",
        "add",
        "-q",
        str(library),
        "vendor/lib",
    )
    sub = repo / "vendor" / "lib"
    assert (sub / ".git").is_file()
    found = remote_url(str(sub))
    assert found is not None
    assert found[1] == str(library)  # a submodule cloned from a path: its origin is that path
    assert found[0].root == str(sub)
    assert remote_url(str(repo))[1] == URL  # type: ignore[index]


def test_instead_of_rewrites_with_the_longest_prefix(tmp_path: Path) -> None:
    repo = clone_of(tmp_path / "shop", "gh:acme/shop")
    git(repo, "config", "url.git@github.com:.insteadOf", "gh:")
    git(repo, "config", "--add", "url.https://elsewhere/.insteadOf", "g")
    assert remote_url(str(repo))[1] == "git@github.com:acme/shop"  # type: ignore[index]


def test_an_unreadable_gitdir_pointer_is_no_repository(tmp_path: Path) -> None:
    odd = tmp_path / "odd"
    odd.mkdir()
    (odd / ".git").write_text("gitdir: /nowhere/at/all\n")
    found = find_repository(str(odd))
    assert found is None or found.root != str(odd)


@pytest.mark.parametrize(
    ("text", "url"),
    [
        ('[remote "origin"]\n\turl = git@h:a/b.git\n', "git@h:a/b.git"),
        ('[Remote "origin"]\n\tURL = "git@h:a/b.git" ; a comment\n', "git@h:a/b.git"),
        ('[remote "origin"]\n\turl = git@h:a/b.git # a comment\n', "git@h:a/b.git"),
        ('[remote "origin"]\n\turl = "https://h/a/b#x"\n', "https://h/a/b#x"),
        ('[remote "origin"]\n\turl = https://h/\\\na/b\n', "https://h/a/b"),
        ('[remote "origin"]\n\turl = https://h/\\\n a/b\n', "https://h/ a/b"),  # as git
        ('[remote "origin"]\n\turl = "a  b"  c   d  # x\n', "a  b  c   d"),  # as git
        ('[remote "origin"]\nurl = first\nurl = second\n', "first"),
        ('[remote "Origin"]\nurl = other\n[remote "origin"]\nurl = mine\n', "mine"),
        ("[remote.origin]\nurl = old-style\n", "old-style"),
        ('[include]\n\tpath = elsewhere\n[remote "origin"]\n\turl = x:y/z\n', "x:y/z"),
        ('garbage line\n[remote "origin"\nurl = broken-section\n', None),
        ("", None),
    ],
)
def test_config_syntax(text: str, url: str | None) -> None:
    assert parse_config(text).get("remote", "origin", "url") == url
