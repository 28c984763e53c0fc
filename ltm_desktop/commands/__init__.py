"""The command-line commands that move or inspect data: export, import, backup, restore, privacy, status."""
