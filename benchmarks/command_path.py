"""What a command costs the server in its own code, without the web framework, in instructions
(callgrind), whatever else the machine runs; measured by hand (never by a test):

    python benchmarks/command_path.py [--commands 10] [--typed] [--parts]
                                      [--server-python LABEL=PATH ...]

``benchmarks/instructions.py`` counts the whole ``bxb serve`` process (Litestar, uvicorn and
all). This counts only what a table page's command runs below them, in process, as the route
runs it: ``Service.play`` (the command built from the option, adjudicated, written, signed),
then the game's view and the page's parts rendered (``table_parts``); with ``--parts``, the
parts' rendering alone, again, over the same answers. On a throwaway PostgreSQL server (fsync
off: its work is another process's), with a signing key (receipts), logging at ``warning`` as a
server does; 4 Gangfight tables, 5 commands each to warm, then ``--commands`` more counted at
each (seeded dice, or ``--typed``: physical dice typed one request a roll, reviewed, then
written). ``--server-python``: another checkout's virtual environment, to put two versions side
by side (this file is run by it: both must have ``Service`` and ``table_parts``).
valgrind is not a dependency (``apt-get install valgrind``)."""

from __future__ import annotations

import argparse
import os
import random
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

TABLES = 4
WARM = 5


def _child(commands: int, typed: bool, parts: bool) -> None:
    """Run under callgrind (``--instr-atstart=no``): counts only what it switches on."""
    from uuid import UUID

    import msgspec
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
    from blowbyblow.replay.engine.logs import configure
    from blowbyblow.replay.store.log import BattleStore
    from blowbyblow.web.app import create_app
    from blowbyblow.web.schemas import PlayCommand, StartBattle
    from blowbyblow.web.table_parts import table_parts
    from blowbyblow.web.tournament import TournamentStore

    from pgserver import postgres_server  # the tests' throwaway server

    configure(level="warning")  # as bxb serve --log-level warning
    with postgres_server(fsync=False) as db:
        register = TournamentStore(db)
        register.new_tournament("load")
        made = register.add_tables("load", TABLES).tables
        app = create_app(BattleStore(db), register, key=Ed25519PrivateKey.generate())
        service, engine = app.state["server"].service, app.template_engine
        battles: list[UUID] = []
        for number, _ in made:
            how = {"ruleset": "gangfight", **({} if typed else {"seed": f"s{number}"})}
            start = msgspec.convert(how, StartBattle)
            battles.append(UUID(str(service.start("load", number, start).battle)))
        offered = {b: service.legal(b) for b in battles}  # then each answer's ``next``
        shown: list[tuple[Any, Any]] = []

        def command(battle: UUID) -> None:
            """One command as the table page writes it (benchmarks/instructions.py's)."""
            legal = offered[battle]
            rng = random.Random(f"{battle}-{legal.version}")
            body: dict[str, Any] = {
                "option": rng.randrange(len(legal.options)),
                "version": legal.version,
                "dice": [],
                "choices": {},
                "ask": typed,
                "review": typed,
                "page": True,
            }
            for _ in range(200):
                result = service.play(battle, msgspec.convert(body, PlayCommand))
                if result.status == "played":
                    view = service.view(battle, result.version)
                    result.page = table_parts(engine, result, view)
                    offered[battle] = result.next
                    shown.append((result, view))
                    return
                if result.status == "review":
                    body["review"] = False
                    continue
                need = result.need
                if need.kind == "dice":
                    body["dice"] = [
                        *body["dice"],
                        *(rng.randint(1, need.sides) for _ in range(need.n)),
                    ]
                else:
                    body["choices"] = {**body["choices"], need.key: need.default}
            raise RuntimeError("a command asked for more than 200 answers")

        def counted(on: bool) -> None:
            flag = "on" if on else "off"
            subprocess.run(
                ["callgrind_control", "-i", flag, str(os.getpid())], check=True, capture_output=True
            )

        for _ in range(WARM):
            for battle in battles:
                command(battle)
        shown.clear()
        if not parts:
            counted(True)
        for _ in range(commands):
            for battle in battles:
                command(battle)
        if not parts:
            counted(False)
        else:
            counted(True)
            for result, view in shown:
                table_parts(engine, result, view)
            counted(False)


def measure(python: str, commands: int, typed: bool, parts: bool) -> float:
    """Instructions a command of the code that ``python`` runs."""
    out = tempfile.mktemp(prefix="bxb-callgrind-")
    child = [
        *(python, __file__, "--child", "--commands", str(commands)),
        *(["--typed"] if typed else []),
        *(["--parts"] if parts else []),
    ]
    subprocess.run(
        [
            "valgrind",
            "--tool=callgrind",
            "--instr-atstart=no",
            f"--callgrind-out-file={out}",
            *child,
        ],
        check=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env={**os.environ, "PYTHONHASHSEED": "0"},  # the same dict layouts run after run
    )
    from instructions import callgrind_totals  # benchmarks/instructions.py's

    return callgrind_totals(out) / (TABLES * commands)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--commands", type=int, default=10, help="counted, at each table")
    parser.add_argument("--typed", action="store_true", help="physical dice, typed")
    parser.add_argument("--parts", action="store_true", help="the page's parts rendered alone")
    parser.add_argument("--server-python", nargs="+", default=[sys.executable])
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if not 1 <= args.commands <= 50:
        parser.error("--commands: 1 to 50")
    if args.child:
        _child(args.commands, args.typed, args.parts)
        return
    what = "the page's parts rendered" if args.parts else "a command's own code"
    print(f"| server | dice | {what}: instructions a command |")
    print("|---|---|---:|")
    for server in args.server_python:
        label, _, python = server.rpartition("=")
        found = measure(python, args.commands, args.typed, args.parts)
        dice = "typed" if args.typed else "seeded"
        print(f"| {label or python} | {dice} | {found / 1e6:.2f} M |", flush=True)


if __name__ == "__main__":
    main()
