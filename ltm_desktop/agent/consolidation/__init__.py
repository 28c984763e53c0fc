"""Consolidation's agent side: the merge prompt, the model that writes merges (the
``[extractor]`` endpoint, through the extractor's generator), the ``consolidate``
command and the periodic run. The rules are the core's (``core.consolidation``)."""
