"""The method table, filled by ``@method`` from each handler's signature.

A handler is ``def name(call: Call, <params>) -> <result>``: every parameter after ``call``
is the request's param of the same name, read as its annotation says (``api.params``),
optional when it has a default. ``@method`` reads the signature once; a request is then
checked against it: its params in the signature's order, then any name the method does
not take (``-32602 invalid params: <name> is not a parameter of this method``). Only then
does the handler run.

This module imports no handler: ``api.methods`` imports them all, and the dispatcher gets
the table from there (``all_methods()``).
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, TypeVar, get_type_hints

from ltm_desktop.api.call import Call
from ltm_desktop.api.params import OMITTED, Reader, invalid, reader, spread_reader
from ltm_desktop.core.errors import clipped

F = TypeVar("F", bound=Callable[..., Any])


@dataclass(frozen=True, slots=True)
class Handler:
    """A handler and the readers of its parameters."""

    function: Callable[..., Any]
    readers: tuple[tuple[str, Reader], ...]
    spread: Reader | None  # **name: Unpack[SomeTypedDict]
    accepted: frozenset[str]

    @classmethod
    def of(cls, function: Callable[..., Any]) -> Handler:
        hints = get_type_hints(function, include_extras=True)
        first, *rest = inspect.signature(function).parameters.values()
        if hints.get(first.name) is not Call:
            raise TypeError(f"{function.__qualname__}: the first parameter must be a Call")
        readers: list[tuple[str, Reader]] = []
        spread = None
        for parameter in rest:
            hint = hints.get(parameter.name)
            if hint is None:
                raise TypeError(f"{function.__qualname__}: {parameter.name} has no annotation")
            if parameter.kind is parameter.VAR_KEYWORD:
                spread = spread_reader(parameter.name, hint)
            elif parameter.kind in (parameter.POSITIONAL_OR_KEYWORD, parameter.KEYWORD_ONLY):
                required = parameter.default is parameter.empty
                readers.append((parameter.name, reader(parameter.name, hint, required=required)))
            else:
                raise TypeError(f"{function.__qualname__}: {parameter} cannot be a param")
        names = [n for _, r in readers for n in r.names] + list(spread.names if spread else ())
        if len(names) != len(set(names)):
            raise TypeError(f"{function.__qualname__}: a param is read twice: {names}")
        return cls(function, tuple(readers), spread, frozenset(names))

    def __call__(self, call: Call, params: Mapping[str, Any]) -> Any:
        """Read ``params`` as the signature says, refuse the others, run the handler."""
        args = {}
        for name, read in self.readers:
            value = read.read(call, params)
            if value is not OMITTED:
                args[name] = value
        if self.spread is not None:
            args.update(self.spread.read(call, params))
        unknown = sorted(set(params) - self.accepted)
        if unknown:
            raise invalid(clipped(unknown[0]), "is not a parameter of this method")
        return self.function(call, **args)


@dataclass(slots=True)
class Method:
    """One method of the API, as registered."""

    name: str
    handler: Handler
    # Answers at once, without I/O that grows with the data, so the server runs it on its
    # event loop; it raises NotInline when the request needs the thread pool after all.
    at_once: Handler | None = None
    # False: it answers whatever the switches say ([memory] enabled, backend); the others
    # answer DISABLED or NOT_IMPLEMENTED before any param is read.
    gated: bool = True
    # A write: its answer is given once MEMORY.md has it (or with a warning), and it is
    # the server's "last action".
    writes: bool = False


TABLE: dict[str, Method] = {}  # complete once ``api.methods`` has imported every handler


def method(
    name: str, *, inline: bool = False, gated: bool = True, writes: bool = False
) -> Callable[[F], F]:
    """Register the decorated function as method ``name``.

    ``inline``: it answers at once, on the event loop (see ``Method.at_once``).
    """

    def register(function: F) -> F:
        if name in TABLE:
            raise ValueError(f"method {name!r} is registered twice")
        handler = Handler.of(function)
        TABLE[name] = Method(name, handler, handler if inline else None, gated, writes)
        return function

    return register


def inline_method(name: str) -> Callable[[F], F]:
    """Register the decorated function as the at-once variant of method ``name``
    (registered before it): it may raise NotInline to leave the request to ``name``."""

    def register(function: F) -> F:
        TABLE[name].at_once = Handler.of(function)
        return function

    return register
