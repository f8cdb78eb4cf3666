"""What a command costs the tournament server in instructions, whatever else the machine runs,
measured by hand (never by a test):

    python benchmarks/instructions.py [--commands 10] [--judges 0 8] [--typed | --ask] [--key]
                                      [--server-python LABEL=PATH ...] [--keep DIR]

For each server (``--server-python``: another checkout's virtual environment, to put two
versions side by side) and each number of judges, it starts ``bxb serve`` under valgrind's
callgrind on a throwaway PostgreSQL server (fsync off: the database's work is not counted, only
the server process's), starts a Gangfight battle at each of 4 tables, writes 5 commands at
each to warm the server, then counts the server's instructions while it writes ``--commands``
more at each, as the table page writes them (``page: true``; seeded dice, or with ``--typed``
physical dice typed one request a roll, reviewed, then written; with ``--ask``, seeded dice and
each choice asked, a request each, as the page asks them), with ``--judges`` streams of
the tournament listening (each must hear every command; counted from when they all listen, as
a judge's stream stays open all through a tournament: until 2026-11-28's sixth sitting the
count began before they opened, each stream's opening request counted too). It prints
instructions a command, all requests included. ``--key``: the server signs a receipt for each
write, as in ``benchmarks/server.py``'s mix (a throwaway key); without it, none. valgrind is not a dependency (``apt-get install valgrind``); the server runs
about 50 times slower under it, so keep the commands few."""

from __future__ import annotations

import argparse
import asyncio
import random
import subprocess
import sys
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import httpx

from blowbyblow.replay.evidence.seals import new_keys
from blowbyblow.web.tournament import TournamentStore

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from phones import link
from server import free_port, listen, wait_serving  # benchmarks/server.py's own

from pgserver import postgres_server  # the tests' throwaway server

TABLES = 4
WARM = 5  # commands a table before counting


async def _command(  # noqa: PLR0913 - the table, what it saw, how it answers
    client: httpx.AsyncClient,
    battle: str,
    token: str,
    legal: dict[str, Any],
    typed: bool,
    ask: bool = False,
) -> dict[str, Any]:
    """One command written as the table page writes it; the options on offer next."""
    rng = random.Random(f"{battle}-{legal['version']}")
    body: dict[str, Any] = {
        "option": rng.randrange(len(legal["options"])),
        "version": legal["version"],
        "dice": [],
        "choices": {},
        "ask": typed or ask,
        "review": typed,
        "page": True,
    }
    headers = {"Authorization": f"Bearer {token}"}
    for _ in range(200):
        r = await client.post(f"/api/battles/{battle}/commands", json=body, headers=headers)
        if r.status_code == 201:
            found: dict[str, Any] = r.json()["next"]
            return found
        r.raise_for_status()
        answer = r.json()
        if answer["status"] == "review":
            body["review"] = False
            continue
        first = answer["need"]
        for need in [first, *first.get("then", [])]:  # the questions a default leads to, too
            if need["kind"] == "dice":
                body["dice"] += [rng.randint(1, need["sides"]) for _ in range(need["n"])]
            else:
                body["choices"][need["key"]] = need["default"]
    raise RuntimeError("a command asked for more than 200 answers")


async def _play(  # noqa: PLR0913 - the run's settings, and its counter
    base: str,
    tables: list[tuple[str, str]],
    commands: int,
    judges: int,
    typed: bool,
    counted: Callable[[bool], None] = lambda on: None,
    ask: bool = False,
) -> None:
    """The tables' commands, with ``judges`` streams listening; ``counted`` is told when the
    streams are open (on) and when every note has been heard (off): a judge's stream stays open
    all through a tournament, so its opening is not a command's cost."""
    ready = [asyncio.Event() for _ in range(judges)]
    heard = [[0] for _ in range(judges)]
    path = "/api/tournaments/load/stream"
    streams = [
        asyncio.create_task(listen(link("httpx", base), path, heard[i], ready[i]))
        for i in range(judges)
    ]
    await asyncio.gather(*(r.wait() for r in ready))
    counted(True)

    async def table(battle: str, token: str) -> None:
        async with httpx.AsyncClient(base_url=base, timeout=600) as client:
            legal = (await client.get(f"/api/battles/{battle}/legal")).json()
            for _ in range(commands):
                legal = await _command(client, battle, token, legal, typed, ask)

    await asyncio.gather(*(table(b, t) for b, t in tables))
    await asyncio.sleep(2.0)  # the last notes on their way
    counted(False)
    for task in streams:
        task.cancel()
    await asyncio.gather(*streams, return_exceptions=True)
    if any(h[0] < TABLES * commands for h in heard):
        raise RuntimeError("a judge did not hear every command")


def load_tournament(
    db: str, folder: Path, signing: bool
) -> tuple[tuple[tuple[int, str], ...], list[str]]:
    """The tournament ``load`` with ``TABLES`` tables in the store ``db`` (its tables' numbers
    and tokens), and ``bxb serve``'s ``--key`` option: a signing key made in ``folder`` when
    ``signing``, else none."""
    key = ["--key", str(new_keys(folder / "keys").private)] if signing else []
    register = TournamentStore(db)
    register.new_tournament("load")
    return register.add_tables("load", TABLES).tables, key


def open_tables(
    base: str, made: Sequence[tuple[int, str]], typed: bool, timeout: float
) -> list[tuple[str, str]]:
    """Each table's Gangfight battle opened through the server (seeded unless ``typed``): its
    battle's id and its token."""
    tables = []
    for number, token in made:
        r = httpx.post(
            f"{base}/api/tournaments/load/tables/{number}/battles",
            json={"ruleset": "gangfight", **({} if typed else {"seed": f"s{number}"})},
            headers={"Authorization": f"Bearer {token}"},
            timeout=timeout,
        )
        r.raise_for_status()
        tables.append((str(r.json()["battle"]), token))
    return tables


def measure(  # noqa: PLR0913 - the server, what it plays, and where its files go
    python: str,
    commands: int,
    judges: int,
    typed: bool,
    keep: Path | None = None,
    signing: bool = False,
    ask: bool = False,
) -> float:
    """Instructions a command of the server run by ``python``; with ``keep``, callgrind's
    files are left there (``callgrind_annotate FILE``: where the instructions went);
    ``signing``: with a signing key (a receipt for each write)."""
    out = tempfile.mktemp(prefix="bxb-callgrind-", dir=keep)
    with postgres_server(fsync=False) as db, tempfile.TemporaryDirectory() as folder:
        made, key = load_tournament(db, Path(folder), signing)
        port = free_port()
        server = subprocess.Popen(
            [
                *("valgrind", "--tool=callgrind", "--instr-atstart=no"),
                f"--callgrind-out-file={out}",
                *(python, "-m", "blowbyblow.cli.main", "--db", db, "--log-level", "warning"),
                *("serve", "--port", str(port), *key),
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        base = f"http://127.0.0.1:{port}"
        try:
            wait_serving(
                base, server, patience=600, ask=60, pause=0.5, what="bxb serve under valgrind"
            )
            tables = open_tables(base, made, typed, timeout=600)
            asyncio.run(_play(base, tables, WARM, judges, typed, ask=ask))

            def counted(on: bool) -> None:
                flag = "on" if on else "off"
                subprocess.run(
                    ["callgrind_control", "-i", flag, str(server.pid)],
                    check=True,
                    capture_output=True,
                )

            asyncio.run(_play(base, tables, commands, judges, typed, counted, ask))
        finally:
            server.terminate()
            server.wait(timeout=300)
    return callgrind_totals(out, remove=keep is None) / (TABLES * commands)


def callgrind_totals(out: str, remove: bool = True) -> int:
    """The instructions callgrind counted into ``out`` (each of its parts), the files removed
    unless asked to keep them."""
    total = 0
    for part in Path(out).parent.glob(Path(out).name + "*"):
        for line in part.read_text().splitlines():
            if line.startswith("totals:"):
                total += int(line.split()[1])
        if remove:
            part.unlink()
    return total


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--commands", type=int, default=10, help="counted, at each table")
    parser.add_argument("--judges", type=int, nargs="+", default=[0, 8])
    parser.add_argument("--typed", action="store_true", help="physical dice, typed")
    parser.add_argument(
        "--ask",
        action="store_true",
        help="seeded dice, each choice asked and answered with its default, as the page asks",
    )
    parser.add_argument("--server-python", nargs="+", default=[sys.executable])
    parser.add_argument("--key", action="store_true", help="sign a receipt for each write")
    parser.add_argument(
        "--keep", type=Path, help="a folder to keep callgrind's files in, for callgrind_annotate"
    )
    args = parser.parse_args()
    if not 1 <= args.commands <= 50 or any(not 0 <= j <= 50 for j in args.judges):
        parser.error("--commands: 1 to 50; --judges: 0 to 50 each")
    print("| server | dice | judges | instructions a command |")
    print("|---|---|---:|---:|")
    for judges in args.judges:
        for server in args.server_python:
            label, _, python = server.rpartition("=")
            found = measure(
                python, args.commands, judges, args.typed, args.keep, args.key, args.ask
            )
            dice = ("typed" if args.typed else "seeded, asked" if args.ask else "seeded") + (
                ", signed" if args.key else ""
            )
            print(f"| {label or python} | {dice} | {judges} | {found / 1e6:.2f} M |", flush=True)


if __name__ == "__main__":
    main()
