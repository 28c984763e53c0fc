"""A request's named params, read into a handler's typed parameters.

``reader()`` turns one parameter of a handler's signature into a ``Reader``, once, when the
registry (``api.registry``) registers the handler; the reader then checks that param of
every request. What an annotation means:

* ``str``, ``int``, ``bool``, ``list[str]``: that JSON type, or ``-32602`` naming the
  param (``limit must be an integer, not a number (5.5)``);
* ``object`` or ``Any``: the value as sent, for the fields the core checks (a memory's
  ``content``...);
* ``Annotated[T, Between(...)]``, ``Annotated[T, Checked(...)]``: a range, or a check
  that may also convert the value (``Id``, ``conflicts.Version``);
* a ``Composite`` (``scopes.Scope``): one parameter read from several params;
* ``**name: Unpack[SomeTypedDict]``: the TypedDict's keys that the request gives, as sent
  (``null`` included: the edits of ``memory.update``).

A parameter with a default is optional and ``null`` counts as absent (the default
applies); a required one refuses ``null``: ``is required`` when any value would do,
else ``must be a string, not null``.
"""

from __future__ import annotations

import types
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import (
    Annotated,
    Any,
    ClassVar,
    Protocol,
    Self,
    TypedDict,
    Union,
    get_args,
    get_origin,
    is_typeddict,
)

from ltm_desktop.api.call import Call
from ltm_desktop.api.protocol import INVALID_PARAMS, RpcError
from ltm_desktop.core import rules
from ltm_desktop.core.records import EDITABLE_FIELDS
from ltm_desktop.core.rules import describe


class _Omitted:
    def __repr__(self) -> str:
        return "OMITTED"


OMITTED: Any = _Omitted()  # what a reader returns for an absent optional param


def invalid(name: str, problem: str) -> RpcError:
    """-32602 naming the parameter; ``problem`` may start with the name or not."""
    if problem.startswith(("must ", "is ", "may ", "unknown ")):
        problem = f"{name} {problem}"
    elif name not in problem:
        problem = f"{name}: {problem}"
    return RpcError(INVALID_PARAMS, f"invalid params: {problem}", {"param": name})


# -- what an annotation may say besides a JSON type ----------------------------


@dataclass(frozen=True, slots=True)
class Between:
    """An integer from ``low`` to ``high`` (None: no upper bound); ``problem`` is the
    message's end, with ``{low}``, ``{high}`` and ``{value}`` filled in."""

    low: int
    high: int | None = None
    problem: str = "must be between {low} and {high}; got {value}"

    def __call__(self, value: int, name: str) -> int:
        if value < self.low or (self.high is not None and value > self.high):
            raise invalid(name, self.problem.format(low=self.low, high=self.high, value=value))
        return value


@dataclass(frozen=True, slots=True)
class Checked:
    """``check(value, name)`` once the JSON type is right; it returns the value the handler
    gets (maybe converted) or raises (RpcError, or the core's InvalidInput naming the field).
    ``sent``: the JSON type on the wire when it is not the parameter's own type."""

    check: Callable[[Any, str], Any]
    sent: type | None = None


class Composite(ABC):
    """A parameter read from several params of a request (``Scope``: cwd or project_id).

    Optional (a default of None) when none of ``wire_names`` is given at all.
    """

    wire_names: ClassVar[tuple[str, ...]]

    @classmethod
    @abstractmethod
    def from_params(cls, call: Call, params: Mapping[str, Any]) -> Self:
        """Read and check the params (the service may be asked, as ``call.service``)."""


Id = Annotated[str, Checked(rules.check_text)]
"""An id (of a memory, of an inbox item): a non-empty string."""


class Edits(TypedDict, total=False):
    """The fields of a memory an edit may change (``EDITABLE_FIELDS``), as sent: the core
    checks them, and ``null`` is a value (``ttl_days: null``: never expires)."""

    title: Any
    content: Any
    category: Any
    importance: Any
    tags: Any
    ttl_days: Any
    files: Any


assert tuple(Edits.__annotations__) == EDITABLE_FIELDS  # one list of the editable fields


# -- the JSON types ------------------------------------------------------------


def _text(value: Any, name: str) -> str:
    if not isinstance(value, str):
        raise invalid(name, f"must be a string, not {describe(value)}")
    return value


def _integer(value: Any, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise invalid(name, f"must be an integer, not {describe(value)}")
    return value


def _boolean(value: Any, name: str) -> bool:
    if not isinstance(value, bool):
        raise invalid(name, f"must be true or false, not {describe(value)}")
    return value


def _strings(value: Any, name: str) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise invalid(name, "must be a list of strings")
    return value


JSON_TYPES: dict[Any, Callable[[Any, str], Any]] = {
    str: _text,
    int: _integer,
    bool: _boolean,
    list[str]: _strings,
}


# -- readers -------------------------------------------------------------------


class Reader(Protocol):
    """Reads one parameter of a handler from a request's params."""

    @property
    def names(self) -> tuple[str, ...]:
        """The params it reads (any other is refused)."""

    def read(self, call: Call, params: Mapping[str, Any]) -> Any:
        """The value for the handler, or OMITTED (its default applies)."""


@dataclass(frozen=True, slots=True)
class Field:
    """One param: its JSON type (None: any value), then its checks."""

    name: str
    json_type: Callable[[Any, str], Any] | None
    checks: tuple[Callable[[Any, str], Any], ...]
    required: bool

    @property
    def names(self) -> tuple[str, ...]:
        return (self.name,)

    def read(self, call: Call, params: Mapping[str, Any]) -> Any:
        value = params.get(self.name)
        if value is None:
            if not self.required:
                return OMITTED
            if self.json_type is None or self.name not in params:
                raise invalid(self.name, "is required")
        if self.json_type is not None:
            value = self.json_type(value, self.name)
        for check in self.checks:
            value = check(value, self.name)
        return value


@dataclass(frozen=True, slots=True)
class Built:
    """A ``Composite`` parameter."""

    kind: type[Composite]
    required: bool

    @property
    def names(self) -> tuple[str, ...]:
        return self.kind.wire_names

    def read(self, call: Call, params: Mapping[str, Any]) -> Any:
        if not self.required and not any(name in params for name in self.names):
            return OMITTED
        return self.kind.from_params(call, params)


@dataclass(frozen=True, slots=True)
class Gathered:
    """``**name: Unpack[SomeTypedDict]``: the keys given, as sent."""

    names: tuple[str, ...]

    def read(self, call: Call, params: Mapping[str, Any]) -> Any:
        return {name: params[name] for name in self.names if name in params}


def reader(name: str, hint: Any, *, required: bool) -> Reader:
    """The reader of parameter ``name`` annotated ``hint``; TypeError for an annotation it
    does not understand (at registration, not at the first request)."""
    base, marks = _unwrapped(hint)
    if isinstance(base, type) and issubclass(base, Composite):
        return Built(base, required)
    checks = tuple(m for m in marks if isinstance(m, Between)) + tuple(
        m.check for m in marks if isinstance(m, Checked)
    )
    sent = next((m.sent for m in marks if isinstance(m, Checked) and m.sent), base)
    if sent is Any or sent is object:
        return Field(name, None, checks, required)
    if sent not in JSON_TYPES:
        raise TypeError(f"parameter {name!r}: no reader for {hint!r}")
    return Field(name, JSON_TYPES[sent], checks, required)


def spread_reader(name: str, hint: Any) -> Reader:
    """The reader of ``**name: Unpack[SomeTypedDict]``."""
    (typed,) = get_args(hint) or (None,)
    if not is_typeddict(typed):
        raise TypeError(f"**{name}: annotate it Unpack[SomeTypedDict], not {hint!r}")
    return Gathered(tuple(typed.__annotations__))


def _unwrapped(hint: Any) -> tuple[Any, tuple[object, ...]]:
    """``hint`` without ``Annotated`` and ``| None``, and the Annotated metadata."""
    marks: tuple[object, ...] = ()
    while True:
        if get_origin(hint) is Annotated:
            marks += hint.__metadata__
            hint = hint.__origin__
            continue
        if get_origin(hint) in (Union, types.UnionType):
            rest = [a for a in get_args(hint) if a is not type(None)]
            if len(rest) == 1:
                hint = rest[0]
                continue
        return hint, marks
