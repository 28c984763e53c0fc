"""Moving memories: export and import files, other agents' memory files, and moves or copies between scopes."""
