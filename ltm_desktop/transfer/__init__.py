"""Moving data in and out: the export, import, backup and restore commands."""
