"""MCP server benchmark: start-up, and memory_search through MCP against the socket API.

Run on demand (not part of the test suite):

    .venv/bin/python bench/mcp_bench.py [--memories 100000] [--keep DIR]

Start-up is the wall time from spawning ``ltm-desktop mcp`` to the ``initialize``
reply, on to the ``tools/list`` reply and to the first tool result (a ``memory_search``:
the target, 0.5 s over ``python -c pass``), with the MCP SDK's own stdio client in this
process, p50 of ``--runs``, against spawning ``python -c pass`` and importing the SDK
alone (``python -c "from mcp.server.mcpserver import MCPServer"``: the floor of any
Python MCP server, which this start pays too) in the same run; cold
(no server) both with the full instructions (MEMORY.md read at start) and with
``--instructions brief`` (what ``integrate`` writes): Codex 0.171 gives an MCP server
about a second (``mcp_optional_startup_grace_ms``) before a turn starts without its tools; measured with the app's server up (the
tools use its socket) and without one (the MCP server opens the 100k database itself).
The server is a real ``ltm-desktop serve``, so ``ltm-desktop mcp`` hands over to its warm
MCP process (``ltm_desktop.agent.mcp.warm``) as it does while the app runs.

Without a server, ``ltm-desktop mcp`` forks a process that opens the database while it
imports the SDK (``ltm_desktop.agent.mcp.forked``): on two free cores the first result
comes about when the SDK is imported. Figures (100k memories, 2 cores shared with other
work): before that, the first result took about 0.80 s (0.78 s over the bare
interpreter; the SDK alone 0.47 s of processor time).

The search round trip is ``memory_search`` through MCP (server up) against the same
search through the socket API's client (by project id, as the tool asks too),
interleaved, with distinct never-repeated queries on each side so that neither answers
from the other's cache: that row is the one the 2x target is for. The rows after it show
the protocols' fixed costs: a repeated (cached) query, where the search itself costs
almost nothing, and a request that does nothing (MCP ping, socket ``health``).
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import anyio
import mcp_types as types
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.api_bench import query_mix, unique_queries  # noqa: E402
from bench.dataset import largest_project, prepared_service  # noqa: E402
from ltm_desktop.api.client import Client  # noqa: E402

EXECUTABLE = Path(sys.executable).with_name("ltm-desktop")
STARTUP_TARGET = 0.5  # seconds over the bare interpreter
SEARCH_TARGET = 2.0  # times the socket API's round trip


def ms(seconds: float) -> float:
    return seconds * 1000


CODEX_GRACE = 1.0  # seconds Codex 0.171 waits for its MCP servers before a turn


def params(data_dir: Path, cwd: str, instructions: str = "full") -> StdioServerParameters:
    env = {  # PYTHONPATH: the code under test when it is not the installed one (a worktree)
        key: os.environ.get(key, "") for key in ("LTM_DESKTOP_SOCKET", "PYTHONPATH")
    }
    return StdioServerParameters(
        command=str(EXECUTABLE),
        args=["--data-dir", str(data_dir), "mcp", "--cwd", cwd, "--instructions", instructions],
        env={
            k: v
            for k, v in {**env, "XDG_RUNTIME_DIR": os.environ.get("XDG_RUNTIME_DIR", "")}.items()
            if v
        },
    )


async def time_to_first_result(server: StdioServerParameters) -> tuple[float, float, float]:
    """Seconds from spawning the server to its ``initialize`` reply, to its ``tools/list``
    reply (what an agent needs before its first turn) and to its first tool result."""
    with open(os.devnull, "w") as errlog:
        start = time.perf_counter()
        async with stdio_client(server, errlog=errlog) as (read, write):
            info = types.Implementation(name="bench", version="1")
            async with ClientSession(read, write, client_info=info) as session:
                await session.initialize()
                initialized = time.perf_counter() - start
                await session.list_tools()
                listed = time.perf_counter() - start
                result = await session.call_tool("memory_search", {"query": "release notes"})
                assert not result.is_error, result.content
                return initialized, listed, time.perf_counter() - start
    raise AssertionError("unreachable")


def interpreter(code: str) -> float:
    start = time.perf_counter()
    subprocess.run([sys.executable, "-c", code], check=True)
    return time.perf_counter() - start


@dataclass(frozen=True)
class Startup:
    """p50 seconds: to initialize, to tools/list, to the first tool result; and the
    baselines of the same run: ``python -c pass`` and the SDK's import alone."""

    initialized: float
    listed: float
    first_result: float
    bare: float
    sdk: float


def startup(runs: int, *servers: StdioServerParameters) -> list[Startup]:
    """``ltm-desktop mcp`` to initialize, to tools/list and to its first tool result,
    ``python -c pass``, and a bare import of the SDK's MCPServer (what any Python MCP
    server pays); interleaved, and with several ``servers`` (the code before a change),
    each one's start in turn within every run."""
    times: list[list[tuple[float, float, float, float, float]]] = [[] for _ in servers]
    for _ in range(runs):
        bare = interpreter("pass")
        # os._exit: the interpreter's teardown (freeing the SDK's classes) is not start-up
        sdk = interpreter("from mcp.server.mcpserver import MCPServer; import os; os._exit(0)")
        for server, timed in zip(servers, times, strict=True):
            timed.append((*anyio.run(time_to_first_result, server), bare, sdk))
    return [
        Startup(*(statistics.median(column) for column in zip(*timed, strict=True)))
        for timed in times
    ]


def against(server: StdioServerParameters, source: str) -> StdioServerParameters:
    """``server`` running the code in ``source`` (a checkout of the code before a change)."""
    return server.model_copy(update={"env": {**(server.env or {}), "PYTHONPATH": source}})


def report_startup(label: str, run: Startup, *, warm: bool) -> None:
    overhead = run.first_result - run.bare
    verdict = "ok" if overhead <= STARTUP_TARGET else "MISS"
    grace = "within" if run.listed <= CODEX_GRACE else "PAST"
    sdk = run.sdk - run.bare
    where = (
        "the warm process has it imported already"
        if warm
        else f"this start pays it; ltm-desktop adds {ms(overhead - sdk):.0f} ms to it"
    )
    print(
        f"  {label:31s} first result p50 {ms(run.first_result):6.1f} ms   python -c pass "
        f"{ms(run.bare):5.1f} ms   overhead {ms(overhead):6.1f} ms   "
        f"target <={ms(STARTUP_TARGET):.0f} ms: {verdict}\n"
        f"  {'':31s} initialize {ms(run.initialized):6.1f} ms, tools/list "
        f"{ms(run.listed):6.1f} ms: {grace} Codex's {ms(CODEX_GRACE):.0f} ms start-up grace\n"
        f"  {'':31s} importing the SDK's MCPServer alone takes {ms(sdk):6.1f} ms ({where})"
    )


async def search_round_trips(
    server: StdioServerParameters,
    client: Client,
    project: str,
    mcp_queries: list[str],
    api_queries: list[str],
) -> tuple[list[float], list[float]]:
    """(MCP ms, socket ms), one of each per step, each side with its own queries."""
    through_mcp, through_api = [], []
    with open(os.devnull, "w") as errlog:
        async with stdio_client(server, errlog=errlog) as (read, write):
            info = types.Implementation(name="bench", version="1")
            async with ClientSession(read, write, client_info=info) as session:
                await session.initialize()
                await session.call_tool("memory_search", {"query": "warm up"})
                client.memory_search("warm up", project_id=project, limit=5)
                for mine, theirs in zip(mcp_queries, api_queries, strict=True):
                    start = time.perf_counter()
                    result = await session.call_tool("memory_search", {"query": mine, "limit": 5})
                    through_mcp.append(ms(time.perf_counter() - start))
                    assert not result.is_error, result.content
                    start = time.perf_counter()
                    client.memory_search(theirs, project_id=project, limit=5)
                    through_api.append(ms(time.perf_counter() - start))
    return through_mcp, through_api


async def protocol_floor(server: StdioServerParameters, client: Client) -> tuple[float, float]:
    """p50 ms of an MCP ``ping`` and of the socket API's ``health``: each protocol's cost
    for a request that does nothing."""
    pings, healths = [], []
    with open(os.devnull, "w") as errlog:
        async with stdio_client(server, errlog=errlog) as (read, write):
            info = types.Implementation(name="bench", version="1")
            async with ClientSession(read, write, client_info=info) as session:
                await session.initialize()
                for _ in range(300):
                    start = time.perf_counter()
                    await session.send_ping()
                    pings.append(ms(time.perf_counter() - start))
                    start = time.perf_counter()
                    client.health()
                    healths.append(ms(time.perf_counter() - start))
    return statistics.median(pings), statistics.median(healths)


def report_search(label: str, through_mcp: list[float], through_api: list[float]) -> None:
    p50, base = statistics.median(through_mcp), statistics.median(through_api)
    verdict = "ok" if p50 <= SEARCH_TARGET * base else "MISS"
    print(
        f"  {label:34s} p50 MCP {p50:7.3f} ms   socket API {base:7.3f} ms   "
        f"x{p50 / base:5.2f}   target <=x{SEARCH_TARGET:.0f}: {verdict}"
    )


def start_server(data_dir: Path, socket_path: Path) -> subprocess.Popen[str]:
    server = subprocess.Popen(
        [str(EXECUTABLE), "--data-dir", str(data_dir), "serve", "--socket", str(socket_path)],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert server.stdout is not None
    print(server.stdout.readline().strip())
    return server


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--memories", type=int, default=100_000)
    parser.add_argument("--runs", type=int, default=10, help="start-ups timed per variant")
    parser.add_argument("--queries", type=int, default=300, help="searches timed on each side")
    parser.add_argument(
        "--keep",
        metavar="DIR",
        help="build the database in DIR once and keep it; each run works on a copy",
    )
    parser.add_argument(
        "--against",
        metavar="SRC",
        help="a source tree of the code before a change (e.g. `git archive` of main): its "
        "cold --instructions brief start is timed in the same runs, interleaved",
    )
    args = parser.parse_args()
    scratch = Path(tempfile.mkdtemp(prefix="ltm-mcp-bench-"))
    runtime = scratch / "run"
    runtime.mkdir(mode=0o700)
    os.environ["XDG_RUNTIME_DIR"] = str(runtime)  # no other server is found by accident
    workdir = scratch / "data"
    service = prepared_service(args.keep, workdir, args.memories)
    project = largest_project(service)
    cwd = next(p.path for p, _ in service.projects() if p.project_id == project)
    assert cwd is not None
    active = service.count_memories(project)
    service.close()
    print(f"project {cwd} ({active:,} active memories + global)\n")
    socket_path = scratch / "bench.sock"
    mcp = params(workdir, cwd)
    server: subprocess.Popen[str] | None = None
    try:
        print("start-up to the first tool result")
        report_startup("no server (opens the database)", *startup(args.runs, mcp), warm=False)
        brief = params(workdir, cwd, "brief")
        if args.against:
            now, before = startup(args.runs, brief, against(brief, args.against))
            report_startup("no server, --instructions brief", now, warm=False)
            report_startup(f"  the same, code in {args.against}", before, warm=False)
            print(f"  {'':31s} first result x{now.first_result / before.first_result:.2f}")
        else:
            report_startup(
                "no server, --instructions brief", *startup(args.runs, brief), warm=False
            )
        server = start_server(workdir, socket_path)
        os.environ["LTM_DESKTOP_SOCKET"] = str(socket_path)
        mcp = params(workdir, cwd)
        report_startup("server up (warm MCP process)", *startup(args.runs, mcp), warm=True)
        print("\nmemory_search round trip (limit 5, reinforcing), server up")
        seed = int(time.time())
        ours = unique_queries(args.queries, seed=seed)
        theirs = unique_queries(args.queries, seed=seed + 1)
        with Client(socket_path, client_name="bench") as client:
            unique = anyio.run(search_round_trips, mcp, client, project, ours, theirs)
            report_search(f"{args.queries} never-seen queries", *unique)
            mix = query_mix() * 3
            again = anyio.run(search_round_trips, mcp, client, project, mix, mix)
            report_search("40-query mix, asked again (cache)", *again)
            ping, health = anyio.run(protocol_floor, mcp, client)
            print(
                f"  {'a request doing nothing':34s} p50 MCP ping {ping:.3f} ms   socket health {health:.3f} ms"
            )
    finally:
        if server is not None:
            server.terminate()
            print(f"\nserver exited with {server.wait(timeout=30)} after SIGTERM")
        shutil.rmtree(scratch, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
