"""Qt item models over the service's data: rows are loaded by the task runner, never by views."""
