"""One spelling per remote: the forms of one repository's URL are one identity."""

from __future__ import annotations

import pytest

from ltm_desktop.core.projects.identity import remote_project_id
from ltm_desktop.core.projects.remote_url import normalize_remote_url

SHOP = "github.com/acme/shop"


@pytest.mark.parametrize(
    "url",
    [
        "git@github.com:acme/shop.git",
        "git@github.com:acme/shop",
        "github.com:acme/shop.git",
        "https://github.com/acme/shop",
        "https://github.com/acme/shop.git",
        "https://github.com/acme/shop.git/",
        "https://github.com/acme/shop/",
        "https://user:token@github.com/acme/shop.git/",
        "https://oauth2:ghp_abcdef0123456789@github.com/acme/shop.git",
        "http://github.com/acme/shop",
        "ssh://git@github.com/acme/shop.git",
        "ssh://git@github.com:22/acme/shop.git",
        "https://github.com:443/acme/shop",
        "git://github.com/acme/shop.git",
        "git+ssh://git@github.com/acme/shop.git",
        "HTTPS://GitHub.COM/acme/shop",
        "git@GITHUB.com:acme/shop.git",
        "https://github.com//acme//shop.git",
        "https://github.com/acme/shop.git?ref=main#readme",
        "  git@github.com:acme/shop.git\n",
    ],
)
def test_every_form_of_one_remote_is_one(url: str) -> None:
    assert normalize_remote_url(url) == SHOP


@pytest.mark.parametrize(
    ("url", "normalized"),
    [
        ("ssh://git@git.example.com:2222/team/shop.git", "git.example.com:2222/team/shop"),
        ("https://git.example.com:8443/team/shop", "git.example.com:8443/team/shop"),
        ("https://gitlab.com/Acme/Shop.git", "gitlab.com/Acme/Shop"),  # a path's case stays
        ("git@gitlab.com:group/sub/group/repo.git", "gitlab.com/group/sub/group/repo"),
        ("ssh://git@[::1]:2222/acme/shop.git", "[::1]:2222/acme/shop"),
        ("git@[fe80::1]:acme/shop.git", "[fe80::1]/acme/shop"),
        ("https://dev.azure.com/org/proj/_git/repo", "dev.azure.com/org/proj/_git/repo"),
        ("host.example:~alice/shop.git", "host.example/~alice/shop"),
    ],
)
def test_what_stays(url: str, normalized: str) -> None:
    assert normalize_remote_url(url) == normalized


@pytest.mark.parametrize(
    "url",
    [
        "",
        "   ",
        "/srv/git/shop.git",  # a directory of one machine
        "../shop.git",
        "file:///srv/git/shop.git",
        "C:\\repos\\shop",
        "C:/repos/shop",
        "https://github.com",  # no repository
        "https://github.com/.git",
        "ftp://example.com/shop.git",
        "https://exa mple.com/shop",
        "https://github.com:notaport/acme/shop",
        "git@github.com:",
    ],
)
def test_what_names_no_shared_repository(url: str) -> None:
    assert normalize_remote_url(url) is None


def test_a_token_is_never_kept() -> None:
    normalized = normalize_remote_url("https://bob:s3cr3t-token@github.com/acme/shop.git")
    assert normalized is not None
    assert "s3cr3t" not in normalized
    assert "bob" not in normalized


def test_the_id_is_a_stable_hash_of_the_normalized_url() -> None:
    # sha256("github.com/acme/shop") begins c566806a55dcd4dd (docs/projects.md)
    assert remote_project_id(SHOP) == "repo_c566806a55dcd4dd"
