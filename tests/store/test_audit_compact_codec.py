"""The codec of a new memory's audit event (``engine.audit_compact``): exact both ways,
and anything it did not write is left as it is."""

from __future__ import annotations

import json
from typing import Any

import pytest

from ltm_desktop.core.history.auditing import AUDITED_FIELDS
from ltm_desktop.engine.audit_compact import MARK, RECORD_ORDER, compact, expand

EVENT = ("mem_a", "proj_a", 2.0, "gui")  # memory id, scope, at, actor


@pytest.mark.parametrize(
    "after",
    [
        {"id": "mem_b", "title": "t"},  # another memory's id
        {"title": "t", "id": "mem_a", "project_id": "proj_a"},  # not in the record's order
        {"created_at": 1.5, "updated_at": 2.0, "disabled": 0, "ttl_days": 0},  # said otherwise
        {"id": "mem_a", "project_id": "proj_a", "title": "t", "created_at": 2.0, "source": "gui"},
        {MARK: "x", "title": "t"},  # someone's own key
        {"id": "mem_a", "created_at": 2, "disabled": 0, "source": "gui", "note": 1},  # types
        {"id": "mem_a", "note": 1, "title": "t"},  # a field after a note
        {},
    ],
)
def test_a_record_comes_back_as_it_was_written(after: dict[str, Any]) -> None:
    shorter = compact(after, *EVENT)
    assert json.dumps(expand(shorter, *EVENT)) == json.dumps(after)


@pytest.mark.parametrize(
    "after", [{"id": "mem_b", "title": "t"}, {"title": "t", "id": "mem_a"}, {MARK: 3, "x": 1}]
)
def test_nothing_is_left_out_unless_it_comes_back_exactly(after: dict[str, Any]) -> None:
    assert compact(after, *EVENT) is after


@pytest.mark.parametrize("mark", ["x", True, -1, 0, 1 << 20, 1.5])
def test_a_mark_it_did_not_write_is_shown_as_stored(mark: object) -> None:
    values = {MARK: mark, "title": "t"}
    assert expand(values, *EVENT) is values


def test_a_third_of_a_new_memorys_record_is_left_out() -> None:
    record = {
        "id": "mem_a",
        "project_id": "proj_a",
        "title": "Deploys",
        "content": "Deploys go out on Tuesdays after the freeze",
        "category": "knowledge",
        "importance": 5,
        "tags": ["ops"],
        "created_at": 2.0,
        "updated_at": 2.0,
        "ttl_days": None,
        "disabled": False,
        "source": "gui",
        "superseded_by": None,
        "review_state": None,
    }
    shorter = compact(record, *EVENT)
    assert shorter is not None
    assert shorter[MARK] == 511
    assert len(json.dumps(shorter)) < 0.67 * len(json.dumps(record))


def test_the_stored_order_is_the_models_record_order() -> None:
    """Not required (a record in another order is stored whole), but a change to the
    model's order would stop every new event being compacted: noticed here."""
    assert RECORD_ORDER == AUDITED_FIELDS
