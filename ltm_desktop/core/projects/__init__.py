"""Project identity: which project a working directory belongs to (docs/projects.md).

Pure and light (no subprocess, no database): hooks resolve a directory on every turn.
``remote_url`` normalizes a git remote's URL, ``git_config`` finds it in the repository's
files without running git, ``identity`` chooses between it and the path.
"""
