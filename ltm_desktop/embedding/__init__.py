"""Embedders for semantic search (``core.seams.Embedder``), chosen by ``[search] embedder``.

Nothing here is imported until an embedder is made: numpy and the model load on first
use, so the command line and the hooks stay light.
"""
