"""The memory tools, defined once: the catalogue, their arguments, what each does, and the shapes agent frameworks register."""
