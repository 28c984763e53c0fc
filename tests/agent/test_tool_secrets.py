"""An agent's memory_write with a credential is refused by the core, over the socket and
in-process alike, and the reply says what and where without repeating the secret."""

from __future__ import annotations

from tests.agent.conftest import CWD, Memory

AWS_KEY = "AKIAIOSFODNN7EXAMPLE"


def test_memory_write_with_a_key_is_refused_without_echoing_it(memory: Memory) -> None:
    reply = memory.tools.run(
        "memory_write", {"action": "add", "content": f"Uploads use {AWS_KEY}"}, CWD
    )
    assert reply.is_error
    assert "AWS Access Key" in reply.text
    assert "line 1, column 13" in reply.text
    assert AWS_KEY not in reply.text
    assert memory.service.count_memories(memory.project()) == 0
