"""The ``forget`` method: memories and observations of the scope, others refused by name."""

from __future__ import annotations

import pytest

from ltm_desktop.api.client import Client, InvalidParams

pytestmark = pytest.mark.every_backend

CWD = "/home/dev/src/shop"
OTHER = "/home/dev/src/billing"


def test_forget_memories_and_observations_of_the_scope(client: Client) -> None:
    mine = client.memory_add("Checkout uses the payment mock", cwd=CWD)["memory"]["id"]
    theirs = client.memory_add("Billing runs on Fridays", cwd=OTHER)["memory"]["id"]
    seen = client.observe("agent_end", "s1", cwd=CWD, user_text="the payment mock is flaky")
    assert seen is not None
    result = client.call(
        "forget",
        {"cwd": CWD, "memory_ids": [mine, theirs], "observation_ids": [seen["id"], "obs_x"]},
    )
    assert result["forgotten"] == {"memories": [mine], "observations": [seen["id"]]}
    assert result["already_forgotten"] == []
    refused = {r["id"]: r["reason"] for r in result["refused"]}
    assert "'billing'" in refused[theirs]
    assert refused["obs_x"] == "no observation has this id"
    assert client.memory_get(mine)["disabled"] is True
    assert client.memory_history(mine)[-1]["actor"] == "test-agent"
    assert client.memory_get(theirs)["disabled"] is False
    assert client.recall("payment mock", cwd=CWD, kinds=["observation"]) == []
    again = client.call("forget", {"cwd": CWD, "memory_ids": [mine]})
    assert again["already_forgotten"] == [mine]


@pytest.mark.parametrize(
    ("params", "param"),
    [
        ({"cwd": CWD}, "memory_ids"),
        ({"cwd": CWD, "memory_ids": "mem_1"}, "memory_ids"),
        ({"cwd": CWD, "observation_ids": [1]}, "observation_ids"),
        ({"memory_ids": ["mem_1"]}, "cwd"),
        ({"cwd": CWD, "memory_ids": ["mem_1"], "ids": []}, "ids"),
    ],
)
def test_forget_bad_params_name_the_parameter(
    client: Client, params: dict[str, object], param: str
) -> None:
    with pytest.raises(InvalidParams) as info:
        client.call("forget", params)
    assert info.value.data == {"param": param}
