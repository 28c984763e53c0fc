"""A minimal agent loop with long-term memory, the whole cycle, offline.

    python examples/agent_loop.py [--data-dir DIR] [--cwd DIR]

A scripted fake model (no network) stands in for an LLM. Each turn the loop:

1. re-reads the project's ``## Long-Term Memory`` prompt section, so what was saved in
   one turn is in the system prompt of the next (``Toolbox.api().prompt_section``);
2. gives the model the memory tools from the catalogue (``Toolbox.definitions``) and
   runs the tool calls it makes (``Toolbox.execute``);
3. every N turns shows the model the nudge to save what is worth keeping, on a copy of
   the conversation (``Nudge.apply``): the stored conversation never contains it;
4. records the turn as an ``agent_end`` observation, and the conversation as a
   ``pre_compact`` one at the end, as an agent's hooks would.

It uses the running app's server when one serves the data dir (the window shows the
writes live), else the database directly.
"""

from __future__ import annotations

import argparse
import json
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ltm_desktop.agent.nudge import Nudge
from ltm_desktop.agent.tools.toolbox import Toolbox

Message = Mapping[str, Any]
SYSTEM = "You are a careful coding assistant."
USER_TURNS = (
    "Hi! What do you know about this project?",
    "We deploy with ./scripts/deploy.sh, from the release branch only.",
    "Please remember that for next time.",
    "How do we deploy?",
)


@dataclass
class ModelCall:
    """What the model was shown for one completion (kept so a reader can see the cycle)."""

    system: str
    messages: list[Message]
    tools: list[str]


@dataclass
class Reply:
    text: str = ""
    tool_calls: list[tuple[str, dict[str, Any]]] = field(default_factory=list)


class ScriptedModel:
    """A stand-in for an LLM: a few rules keyed on what it is shown, no network."""

    def __init__(self) -> None:
        self.calls: list[ModelCall] = []

    def __call__(
        self, system: str, messages: Sequence[Message], tools: list[dict[str, Any]]
    ) -> Reply:
        names = [t["name"] for t in tools]
        self.calls.append(ModelCall(system, [dict(m) for m in messages], names))
        last = messages[-1]
        if last["role"] == "tool":
            return Reply("Saved to long-term memory.")
        prompt = last["content"] if isinstance(last["content"], str) else ""
        if "remember" in prompt and "memory_write" in names:
            fact = "Deploy with ./scripts/deploy.sh from the release branch only."
            return Reply(
                tool_calls=[
                    (
                        "memory_write",
                        {"action": "add", "content": fact, "category": "skill", "importance": 8},
                    )
                ]
            )
        if "How do we deploy" in prompt:
            if "./scripts/deploy.sh" in system:  # it is in memory: the prompt section says so
                return Reply("Run ./scripts/deploy.sh, from the release branch only.")
            return Reply("I don't know yet.")
        if "memory_write" in prompt:  # the nudge joined the user's message this turn
            return Reply("Noted; I will save it if you want me to keep it.")
        return Reply("Nothing yet; tell me about it.")


@dataclass
class AgentLoop:
    """One session of the loop for the project at ``cwd``."""

    memory: Toolbox
    cwd: str
    model: Callable[[str, Sequence[Message], list[dict[str, Any]]], Reply]
    nudge: Nudge = field(default_factory=lambda: Nudge(interval=2))
    session_id: str = "example-session"
    messages: list[Message] = field(default_factory=list)  # the stored conversation

    def system_prompt(self) -> str:
        """Re-read every turn: a memory saved in the last turn is in this one."""
        section = self.memory.api().prompt_section(cwd=self.cwd)
        return f"{SYSTEM}\n\n{section}" if section else SYSTEM

    def turn(self, number: int, user_text: str) -> str:
        self.messages.append({"role": "user", "content": user_text})
        tools = self.memory.definitions("anthropic")
        while True:
            shown = self.nudge.apply(self.messages, number)  # a copy; never stored
            reply = self.model(self.system_prompt(), shown, tools)
            if not reply.tool_calls:
                break
            for name, arguments in reply.tool_calls:
                result = self.memory.execute(name, arguments, cwd=self.cwd)
                self.messages.append(
                    {"role": "assistant", "content": f"[{name}] {json.dumps(arguments)}"}
                )
                self.messages.append({"role": "tool", "content": result})
        self.messages.append({"role": "assistant", "content": reply.text})
        self.observe("agent_end", user_text=user_text, assistant_text=reply.text)
        return reply.text

    def observe(
        self,
        kind: str,
        *,
        user_text: str | None = None,
        assistant_text: str | None = None,
        messages_text: str | None = None,
    ) -> None:
        self.memory.api().observe(
            kind,
            self.session_id,
            cwd=self.cwd,
            user_text=user_text,
            assistant_text=assistant_text,
            messages_text=messages_text,
        )

    def run(self, user_turns: Sequence[str] = USER_TURNS) -> list[str]:
        answers = [self.turn(n, text) for n, text in enumerate(user_turns, start=1)]
        transcript = "\n".join(f"{m['role']}: {m['content']}" for m in self.messages)
        self.observe("pre_compact", messages_text=transcript)
        return answers


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", help="ltm-desktop's data dir (default: the usual one)")
    parser.add_argument("--cwd", default=os.getcwd(), help="the project's directory")
    args = parser.parse_args(argv)
    with Toolbox(data_dir=args.data_dir, client_name="example-agent", tools="all") as memory:
        loop = AgentLoop(memory, os.path.abspath(args.cwd), ScriptedModel())
        for question, answer in zip(USER_TURNS, loop.run(), strict=True):
            print(f"user:  {question}\nmodel: {answer}\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
