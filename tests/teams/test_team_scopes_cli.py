"""The command line with a global scope per person (SQLite, set in the config): a Hermes
USER.md is imported into the person's own global scope (its row named for them), and
``--project team`` names the shared one (docs/teams.md). The real console script."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

from ltm_desktop.core.projects.ambient import personal_scope_id
from ltm_desktop.core.settings.paths import ENV_CONFIG
from tests.console import CONSOLE_SCRIPT


def test_hermes_preferences_go_to_your_global_and_team_to_the_teams(tmp_path: Path) -> None:
    config = tmp_path / "config.toml"
    config.write_text('[people]\nname = "ana"\nglobal = "personal"\n', encoding="utf-8")
    env = {**os.environ, ENV_CONFIG: str(config)}
    data = tmp_path / "data"
    hermes = tmp_path / ".hermes" / "memories"
    hermes.mkdir(parents=True)
    (hermes / "USER.md").write_text("Ana likes short answers\n§\n", encoding="utf-8")
    (tmp_path / "team.md").write_text("- Releases are tagged from main\n", encoding="utf-8")

    def ltm(*args: str) -> subprocess.CompletedProcess[str]:
        done = subprocess.run(
            [CONSOLE_SCRIPT, *args, "--data-dir", str(data)],
            capture_output=True,
            text=True,
            env=env,
            timeout=60,
            check=False,
        )
        assert done.returncode == 0, done.stderr
        return done

    ltm("import", str(hermes / "USER.md"))
    ltm("import", str(tmp_path / "team.md"), "--project", "team")
    listed = json.loads(ltm("projects", "list", "--json").stdout)["projects"]
    names = {p["project_id"]: p["name"] for p in listed}
    assert names[personal_scope_id("ana")] == "Global (ana)"
    exported = ltm("export", "--format", "jsonl").stdout.splitlines()
    scopes = {
        row["content"]: row["project_id"]
        for row in map(json.loads, exported)
        if row.get("type") == "memory"
    }
    assert scopes == {
        "Ana likes short answers": personal_scope_id("ana"),
        "Releases are tagged from main": "global",
    }
