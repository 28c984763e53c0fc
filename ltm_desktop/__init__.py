"""ltm-desktop: long-term memory for AI coding agents, curated by a human."""

__version__ = "0.1.0"
