"""Files on disk, handled safely: atomic replacement, cross-process locks, private directories, regular files only."""
