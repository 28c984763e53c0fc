"""The memory tools for Python harnesses: definitions to register, and ``execute``.

    from ltm_desktop.agent.tools.toolbox import Toolbox

    with Toolbox(client_name="my-agent", tools="all") as memory:
        tools = memory.definitions("openai")          # hand these to the model
        text = memory.execute("memory_search", {"query": "deploy"}, cwd="/home/me/src/shop")

Tools fail soft: ``execute`` always returns text for the model. A disabled memory
answers "Long-term memory is disabled", one that cannot be reached "Long-term memory is
unavailable: <reason>", bad arguments one line naming the argument; nothing raises.
"""

from __future__ import annotations

import atexit
import logging
import os
import threading
from collections.abc import Callable, Sequence
from types import TracebackType
from typing import Any

from ltm_desktop.agent.access import AccessError, MemoryAccess, Unavailable
from ltm_desktop.agent.tools.arguments import check_arguments
from ltm_desktop.agent.tools.catalogue import ToolSpec, select
from ltm_desktop.agent.tools.formats import render
from ltm_desktop.agent.tools.handlers import BadArguments, Refused, Reply, ToolAccess
from ltm_desktop.api.calls import ApiCalls
from ltm_desktop.api.protocol import INVALID_PARAMS
from ltm_desktop.api.shapes import ProjectShape
from ltm_desktop.core.errors import MemoryDisabled

log = logging.getLogger(__name__)
DISABLED = "Long-term memory is disabled"
UNAVAILABLE = "Long-term memory is unavailable: {reason}"
PathLike = str | os.PathLike[str] | None
Opener = Callable[[PathLike, PathLike, str], MemoryAccess]


class Toolbox:
    """The selected tools over one access, opened on the first call and reused.

    Args:
        access: the access to use (default: the server that serves ``data_dir`` if one
            runs, else the database opened in this process).
        client_name: who the writes are attributed to.
        tools: ``None`` (memory_write, memory_search), ``"all"``, or names.
        opener: how the access is opened when none is given, called as
            ``opener(data_dir, config, client_name)`` (default: ``connect.open_access``;
            ``ltm-desktop mcp`` passes one that opens it in a forked process).
    """

    def __init__(
        self,
        *,
        data_dir: str | os.PathLike[str] | None = None,
        config: str | os.PathLike[str] | None = None,
        client_name: str = "python-agent",
        tools: str | Sequence[str] | None = None,
        access: MemoryAccess | None = None,
        opener: Opener | None = None,
    ) -> None:
        self.tools = select(tools)
        self.client_name = client_name
        self._access = access
        self._owns_access = access is None
        self._data_dir, self._config = data_dir, config
        self._opener = opener
        self._projects: dict[str, ProjectShape] = {}  # by working directory
        self._lock = threading.Lock()

    # -- definitions ---------------------------------------------------------

    def definitions(self, fmt: str = "json") -> list[dict[str, Any]]:
        """The selected tools in ``fmt``: openai, anthropic, mcp or json."""
        return render(self.tools, fmt)

    # -- running -------------------------------------------------------------

    def access(self) -> MemoryAccess:
        """The access, opened on first use (raises Unavailable when it cannot be)."""
        with self._lock:
            if self._access is None:
                opener = self._opener or _open_access
                self._access = opener(self._data_dir, self._config, self.client_name)
                log.info("memory tools use the %s", self._access.describe())
            return self._access

    def api(self) -> ApiCalls:
        """The API's typed calls over the access (opened on first use, as ``access``)."""
        return ApiCalls(self.access())

    def memory_switched_off(self) -> bool:
        """Whether the config this toolbox reads says ``[memory] enabled = false``; read
        from the file alone, so that asking opens no store."""
        from ltm_desktop.core.settings.config import load_settings
        from ltm_desktop.core.settings.paths import resolve_config_path

        settings, _ = load_settings(resolve_config_path(self._config))
        return not settings.memory_enabled

    def set_client_name(self, name: str) -> None:
        """Attribute the writes from now on to ``name`` (e.g. an MCP client's name)."""
        self.client_name = name
        if self._access is not None:
            self._access.set_client(name)

    def execute(self, name: str, arguments: object, cwd: str) -> str:
        """Run a tool for the agent working in ``cwd``; the text for the model."""
        return self.run(name, arguments, cwd).text

    def run(self, name: str, arguments: object, cwd: str) -> Reply:
        """Run a tool; never raises. ``is_error`` tells whether it did what was asked."""
        spec = next((s for s in self.tools if s.name == name), None)
        if spec is None:
            names = ", ".join(s.name for s in self.tools)
            return Reply(f"Unknown tool {name!r}; the memory tools here are {names}.", True)
        try:
            return self._run(spec, arguments, cwd)
        except (BadArguments, AccessError) as exc:
            if isinstance(exc, AccessError) and exc.code != INVALID_PARAMS:
                return Reply(f"{name}: {exc}", True)
            return Reply(f"Invalid arguments for {name}: {exc}.", True)
        except Refused as exc:
            return Reply(f"{name}: refused: {exc}.", True)
        except MemoryDisabled:
            return Reply(DISABLED, True)
        except Unavailable as exc:
            log.warning("%s: memory unavailable: %s", name, exc)
            self._drop_access()
            return Reply(UNAVAILABLE.format(reason=exc), True)
        except Exception:
            log.exception("bug in the memory tool %s", name)
            reason = "an internal error in ltm-desktop (its log has the details)"
            return Reply(UNAVAILABLE.format(reason=reason), True)

    def _run(self, spec: ToolSpec, arguments: object, cwd: str) -> Reply:
        checked = check_arguments(spec.schema, arguments)
        if not isinstance(cwd, str) or not os.path.isabs(cwd):
            raise BadArguments(f"the working directory must be an absolute path; got {cwd!r}")
        return spec.handler(ToolAccess(self.api(), self._projects), cwd, checked)

    def _drop_access(self) -> None:
        """After a failure, the next call chooses again (the app may have quit or started)."""
        with self._lock:
            if self._owns_access and self._access is not None:
                access, self._access = self._access, None
                access.close()

    # -- lifetime ------------------------------------------------------------

    def close(self) -> None:
        """Close the access this toolbox opened (an access passed in stays open)."""
        with self._lock:
            if self._owns_access and self._access is not None:
                self._access.close()
                self._access = None

    def __enter__(self) -> Toolbox:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()


def _open_access(data_dir: PathLike, config: PathLike, client: str) -> MemoryAccess:
    """``connect.open_access``, imported when first needed (it brings in the core)."""
    from ltm_desktop.agent.connect import open_access

    return open_access(data_dir, config, client)


_default: Toolbox | None = None
_default_lock = threading.Lock()


def definitions(
    fmt: str = "json", tools: str | Sequence[str] | None = None
) -> list[dict[str, Any]]:
    """Tool definitions for an agent framework (see ``Toolbox.definitions``)."""
    return render(select(tools), fmt)


def execute(name: str, arguments: object, cwd: str) -> str:
    """Run any memory tool with a process-wide toolbox (opened on first use, closed at exit)."""
    global _default
    with _default_lock:
        if _default is None:
            _default = Toolbox(tools="all")
            atexit.register(_default.close)
        toolbox = _default
    return toolbox.execute(name, arguments, cwd)
