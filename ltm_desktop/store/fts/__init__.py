"""Full-text search in SQLite (FTS5): tables per scope, the query compiler, snippets, index rows and their repair."""
