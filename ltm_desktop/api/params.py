"""Typed access to a request's named params; anything unexpected is an error naming it."""

from __future__ import annotations

from typing import Any

from ltm_desktop.api.protocol import INVALID_PARAMS, RpcError
from ltm_desktop.core.errors import clipped
from ltm_desktop.core.rules import describe

_MISSING = object()


def invalid(name: str, problem: str) -> RpcError:
    """-32602 naming the parameter; ``problem`` may start with the name or not."""
    if problem.startswith(("must ", "is ", "may ", "unknown ")):
        problem = f"{name} {problem}"
    elif name not in problem:
        problem = f"{name}: {problem}"
    return RpcError(INVALID_PARAMS, f"invalid params: {problem}", {"param": name})


class Params:
    """Read each param once through a typed getter, then call ``done()``."""

    def __init__(self, raw: dict[str, Any]) -> None:
        self._raw = raw
        self._read: set[str] = set()

    def __contains__(self, name: str) -> bool:
        return name in self._raw

    def _value(self, name: str, required: bool) -> Any:
        self._read.add(name)
        value = self._raw.get(name, _MISSING)
        if value is _MISSING and required:
            raise invalid(name, "is required")
        return value

    def text(self, name: str, *, required: bool = False, nullable: bool = False) -> Any:
        value = self._value(name, required)
        if value is _MISSING or (value is None and (nullable or not required)):
            return None
        if not isinstance(value, str):
            raise invalid(name, f"must be a string, not {describe(value)}")
        return value

    def integer(self, name: str, *, required: bool = False, nullable: bool = False) -> int | None:
        value = self._value(name, required)
        if value is _MISSING or (value is None and (nullable or not required)):
            return None
        if isinstance(value, bool) or not isinstance(value, int):
            raise invalid(name, f"must be an integer, not {describe(value)}")
        return value

    def boolean(self, name: str, default: bool) -> bool:
        value = self._value(name, False)
        if value is _MISSING or value is None:
            return default
        if not isinstance(value, bool):
            raise invalid(name, f"must be true or false, not {describe(value)}")
        return value

    def strings(self, name: str) -> list[str] | None:
        value = self._value(name, False)
        if value is _MISSING or value is None:
            return None
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise invalid(name, "must be a list of strings")
        return value

    def raw(self, name: str) -> Any:
        """The value as sent (None when absent); for fields validated by the core."""
        value = self._value(name, False)
        return None if value is _MISSING else value

    def optional(self, name: str, default: Any) -> Any:
        """The value as sent, or ``default`` when absent or null (the core validates it)."""
        value = self._value(name, False)
        return default if value is _MISSING or value is None else value

    def present(self, name: str) -> bool:
        self._read.add(name)
        return name in self._raw

    def done(self) -> None:
        unknown = sorted(set(self._raw) - self._read)
        if unknown:
            raise invalid(clipped(unknown[0]), "is not a parameter of this method")
