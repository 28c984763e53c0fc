"""MEMORY.md, a view of the database: the precis it renders, the markdown a memory cannot break, and keeping files in step."""
