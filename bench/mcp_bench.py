"""MCP server benchmark: start-up, and memory_search through MCP against the socket API.

Run on demand (not part of the test suite):

    .venv/bin/python bench/mcp_bench.py [--memories 100000] [--keep DIR]

Start-up is the wall time from spawning ``ltm-desktop mcp`` to the ``initialize``
reply and on to the ``tools/list`` reply (the MCP SDK's own stdio client, in this
process), p50 of ``--runs``, against spawning ``python -c pass`` in the same run; cold
(no server) both with the full instructions (MEMORY.md read at start) and with
``--instructions brief`` (what ``integrate`` writes): Codex 0.171 gives an MCP server
about a second (``mcp_optional_startup_grace_ms``) before a turn starts without its tools; measured with the app's server up (the
tools use its socket) and without one (the MCP server opens the 100k database itself).
The server is a real ``ltm-desktop serve``, so ``ltm-desktop mcp`` hands over to its warm
MCP process (``ltm_desktop.agent.mcp.warm``) as it does while the app runs.

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
    env = {"LTM_DESKTOP_SOCKET": os.environ.get("LTM_DESKTOP_SOCKET", "")}
    return StdioServerParameters(
        command=str(EXECUTABLE),
        args=["--data-dir", str(data_dir), "mcp", "--cwd", cwd, "--instructions", instructions],
        env={
            k: v
            for k, v in {**env, "XDG_RUNTIME_DIR": os.environ.get("XDG_RUNTIME_DIR", "")}.items()
            if v
        },
    )


async def time_to_tools(server: StdioServerParameters) -> tuple[float, float]:
    """Seconds from spawning the server to its ``initialize`` reply, and to its
    ``tools/list`` reply (what an agent needs before its first turn)."""
    with open(os.devnull, "w") as errlog:
        start = time.perf_counter()
        async with stdio_client(server, errlog=errlog) as (read, write):
            info = types.Implementation(name="bench", version="1")
            async with ClientSession(read, write, client_info=info) as session:
                await session.initialize()
                initialized = time.perf_counter() - start
                await session.list_tools()
                return initialized, time.perf_counter() - start
    raise AssertionError("unreachable")


def interpreter(code: str) -> float:
    start = time.perf_counter()
    subprocess.run([sys.executable, "-c", code], check=True)
    return time.perf_counter() - start


def startup(runs: int, server: StdioServerParameters) -> tuple[float, float, float, float]:
    """p50s of: ``ltm-desktop mcp`` to initialize, to tools/list, ``python -c pass``, and a
    bare import of the SDK's MCPServer (what any Python MCP server pays); interleaved."""
    initialized, listed, bare, sdk = [], [], [], []
    for _ in range(runs):
        bare.append(interpreter("pass"))
        # os._exit: the interpreter's teardown (freeing the SDK's classes) is not start-up
        sdk.append(
            interpreter("from mcp.server.mcpserver import MCPServer; import os; os._exit(0)")
        )
        first, tools = anyio.run(time_to_tools, server)
        initialized.append(first)
        listed.append(tools)
    medians = (statistics.median(x) for x in (initialized, listed, bare, sdk))
    return next(medians), next(medians), next(medians), next(medians)


def report_startup(
    label: str, mcp: float, tools: float, bare: float, sdk: float, *, warm: bool
) -> None:
    overhead = mcp - bare
    verdict = "ok" if overhead <= STARTUP_TARGET else "MISS"
    grace = "within" if tools <= CODEX_GRACE else "PAST"
    where = (
        "the warm process has it imported already"
        if warm
        else "this start pays it; the rest is ltm-desktop's"
    )
    print(
        f"  {label:31s} p50 {ms(mcp):6.1f} ms   python -c pass {ms(bare):5.1f} ms   "
        f"overhead {ms(overhead):6.1f} ms   target <={ms(STARTUP_TARGET):.0f} ms: {verdict}\n"
        f"  {'':31s} to tools/list {ms(tools):6.1f} ms: {grace} Codex's "
        f"{ms(CODEX_GRACE):.0f} ms start-up grace\n"
        f"  {'':31s} importing the SDK's MCPServer alone takes {ms(sdk - bare):6.1f} ms ({where})"
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
        print("start-up to the initialize reply")
        report_startup("no server (opens the database)", *startup(args.runs, mcp), warm=False)
        brief = params(workdir, cwd, "brief")
        report_startup("no server, --instructions brief", *startup(args.runs, brief), warm=False)
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
