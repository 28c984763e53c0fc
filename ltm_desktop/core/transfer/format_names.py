"""The names of the export and import formats, and the mark of our Markdown export, apart
from the code that reads and writes them: the command line offers them without loading
that code (start-up stays light), and the reader needs no part of the writer."""

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

MARKER = "<!-- ltm "  # starts the line that ends a memory in the Markdown export
