"""engine.vectors keeps each scope's sum of vectors right through replacements and
removals, so that a centred search subtracts the mean of what is there now (the
ordering itself: tests/unit/search/test_hybrid.py, on every backend)."""

from __future__ import annotations

import struct

import numpy as np
import pytest

from ltm_desktop.engine.vectors.scope_vectors import ScopeVectors, quantize


def blob(*values: float) -> bytes:
    vector = np.array(values, dtype=np.float32)
    return quantize(struct.pack(f"<{len(values)}f", *(vector / np.linalg.norm(vector))))


def test_the_sum_follows_replaced_removed_and_erased_vectors() -> None:
    scope = ScopeVectors("m")  # rows: (pk, model, vector, seq, erased)
    scope.update(
        [
            (1, "m", blob(1, 0, 0), 1, 0),
            (2, "m", blob(0, 1, 0), 2, 0),
            (3, "m", blob(0, 0, 1), 3, 0),
        ]
    )
    assert scope.count == 3
    assert scope.total == pytest.approx([1, 1, 1], abs=0.01)
    scope.update([(2, "m", blob(1, 0, 0), 4, 0)])  # its text changed: a new vector
    assert scope.total == pytest.approx([2, 0, 1], abs=0.01)
    scope.update([(3, "other", blob(0, 0, 1), 5, 0), (1, None, None, 6, 0)])  # other model; none
    assert scope.count == 1
    assert scope.total == pytest.approx([1, 0, 0], abs=0.01)
    scope.update([(2, None, None, 7, 1)])  # erased
    assert scope.count == 0
    assert scope.nearest(struct.pack("<3f", 1, 0, 0), 5) == []
