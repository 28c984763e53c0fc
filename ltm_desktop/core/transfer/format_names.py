"""The names of the export and import formats, apart from the code that reads and writes
them: the command line offers them without loading that code (start-up stays light)."""

EXPORT_FORMATS = ("jsonl", "markdown")
IMPORT_FORMATS = (
    "auto",
    "jsonl",
    "markdown",
    "claude-md",
    "agents-md",
    "gemini-md",
    "hermes",
    "cline",
    "claude-auto-memory",
)
