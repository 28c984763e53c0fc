"""``ltm-desktop outbox``: the writes this machine keeps for the shared database: those
waiting for it, and those its replay kept aside (a removal of a memory changed
elsewhere, a write the database refused), which a person queues again or dismisses
(docs/postgresql.md, "When the server is unreachable")."""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable
from datetime import datetime
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ltm_desktop.core.offline import QueuedWrite
    from ltm_desktop.outbox.review import KeptWrite

AddCommand = Callable[..., argparse.ArgumentParser]


def add_parsers(commands: Any, add_command: AddCommand) -> None:
    outbox = add_command(
        commands,
        "outbox",
        help="the writes waiting for the shared database, and those kept aside",
        description="This data dir's outbox (PostgreSQL only): writes queued while the "
        "database could not be reached, and writes its replay kept aside for a person. "
        "Reads and changes only the outbox file: works with the database down.",
    )
    actions = outbox.add_subparsers(dest="outbox_action", metavar="ACTION")
    listing = add_command(actions, "list", help="what waits and what is kept aside (default)")
    for parser in (outbox, listing):
        parser.add_argument("--json", action="store_true", help="print machine-readable JSON")
        parser.add_argument(
            "--all", action="store_true", help="also the kept writes dismissed earlier"
        )
    retry = add_command(
        actions,
        "retry",
        help="queue a kept write again",
        description="Queue kept write N again, after every waiting write. It is replayed "
        "against the version its writer saw (so a change made elsewhere keeps it aside "
        "again) unless --over-changes: then it is applied over that change.",
    )
    retry.add_argument("seq", metavar="N", type=_seq)
    retry.add_argument(
        "--over-changes",
        action="store_true",
        help="apply it over what was changed elsewhere meanwhile (no compare-and-swap)",
    )
    dismiss = add_command(
        actions,
        "dismiss",
        help="set a kept write aside for good (it stays on file, listed with --all)",
    )
    dismiss.add_argument("seq", metavar="N", type=_seq)


def _seq(text: str) -> int:
    number = text.removeprefix("#")
    if not number.isdigit() or int(number) <= 0:
        raise argparse.ArgumentTypeError(f"{text!r} is not a write number (see `outbox list`)")
    return int(number)


def _when(at: float) -> str:
    return datetime.fromtimestamp(at).strftime("%Y-%m-%d %H:%M")


def _line(write: QueuedWrite) -> str:
    return (
        f"#{write.seq}  {write.kind.value}  {write.memory_id}  in {write.project_id}  "
        f"by {write.actor}  queued {_when(write.queued_at)}"
    )


def _record(write: QueuedWrite) -> dict[str, Any]:
    return {
        "seq": write.seq,
        "kind": write.kind.value,
        "memory_id": write.memory_id,
        "project_id": write.project_id,
        "actor": write.actor,
        "queued_at": write.queued_at,
        "expected_updated_at": write.base_version,
        "fields": write.fields,
    }


def _kept_record(kept: KeptWrite) -> dict[str, Any]:
    record = _record(kept.write)
    record.update(reason=kept.reason, kept_at=kept.kept_at)
    if kept.dismissed_at is not None:
        record["dismissed_at"] = kept.dismissed_at
    return record


def _say(line: str) -> None:
    sys.stdout.write(line + "\n")


def _list(args: argparse.Namespace) -> int:
    from ltm_desktop.core.settings.paths import resolve_data_dir
    from ltm_desktop.outbox.review import read_outbox

    data_dir = resolve_data_dir(args.data_dir)
    listing = read_outbox(data_dir)
    if args.json:
        body: dict[str, Any] = {"data_dir": str(data_dir), "waiting": [], "kept": []}
        if listing is not None:
            body["waiting"] = [_record(w) for w in listing.waiting]
            body["kept"] = [_kept_record(k) for k in listing.kept]
            if args.all:
                body["dismissed"] = [_kept_record(k) for k in listing.dismissed]
        _say(json.dumps(body, indent=2, ensure_ascii=False))
        return 0
    if listing is None:
        _say(f"no outbox in {data_dir}: nothing was ever queued there")
        return 0
    _say(f"waiting: {len(listing.waiting)}")
    for write in listing.waiting:
        _say(f"  {_line(write)}")
    _say(f"kept aside: {len(listing.kept)}")
    for kept in listing.kept:
        _say(f"  {_line(kept.write)}")
        _say(f"      kept {_when(kept.kept_at)}: {kept.reason}")
    if listing.kept:
        _say("  queue one again: ltm-desktop outbox retry N [--over-changes]")
        _say("  set one aside for good: ltm-desktop outbox dismiss N")
    if args.all:
        _say(f"dismissed: {len(listing.dismissed)}")
        for kept in listing.dismissed:
            assert kept.dismissed_at is not None
            _say(f"  {_line(kept.write)}")
            _say(f"      kept: {kept.reason}; dismissed {_when(kept.dismissed_at)}")
    return 0


def _retry(args: argparse.Namespace) -> int:
    from ltm_desktop.core.settings.paths import resolve_data_dir
    from ltm_desktop.outbox.review import retry_kept

    write = retry_kept(resolve_data_dir(args.data_dir), args.seq, over_changes=args.over_changes)
    how = "over the changes made elsewhere" if args.over_changes else "as its writer saw it"
    _say(
        f"queued #{args.seq} again as #{write.seq} ({how}); the app or `serve` writes it "
        "once the database answers"
    )
    return 0


def _dismiss(args: argparse.Namespace) -> int:
    from ltm_desktop.core.settings.paths import resolve_data_dir
    from ltm_desktop.outbox.review import dismiss_kept

    dismiss_kept(resolve_data_dir(args.data_dir), args.seq, time.time())
    _say(f"dismissed #{args.seq}: it stays on file (`ltm-desktop outbox list --all`)")
    return 0


ACTIONS = {None: _list, "list": _list, "retry": _retry, "dismiss": _dismiss}


def cmd_outbox(args: argparse.Namespace) -> int:
    return ACTIONS[args.outbox_action](args)
