"""The ``bxb`` Typer application and what its commands share: the store option, logging, errors,
finding a battle, printing a log. Commands live in their own modules (``cli/battles.py``,
``cli/judging.py``, ...), registered on ``app`` when ``cli/main.py`` imports them."""

from __future__ import annotations

from typing import Annotated, Any, NoReturn
from uuid import UUID

import msgspec
import typer

from blowbyblow.domain.core import BattleStarted, BlowByBlowError, RuleEvent
from blowbyblow.replay import logs
from blowbyblow.replay.codec import to_builtins
from blowbyblow.replay.narrate import narrate
from blowbyblow.replay.registry import get_game_system
from blowbyblow.replay.service import (
    resolve_battle,
)
from blowbyblow.replay.store import BattleStore, LoggedEvent, default_db_path
from blowbyblow.replay.verify import Report

app = typer.Typer(
    help="blowbyblow: adjudicate close combat, keep a blow-by-blow log, replay and verify it.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


class Options:
    db: str | None = None


OPTS = Options()

DbOption = Annotated[
    str | None,
    typer.Option(
        "--db",
        envvar="BXB_DB",
        help="Store: a SQLite file path (default "
        f"{default_db_path()}), ':memory:', or a postgresql:// URL.",
    ),
]


@app.callback()
def main_options(
    ctx: typer.Context,
    db: DbOption = None,
    log_json: Annotated[
        bool, typer.Option("--log-json", help="Log rule steps as JSON lines on stderr.")
    ] = False,
    log_level: Annotated[
        str | None,
        typer.Option(
            "--log-level",
            help="debug, info, warning or error. At info (the default, except for `bxb demo`, "
            "which prints the same steps in plain words) every rule step is logged to stderr.",
        ),
    ] = None,
) -> None:
    OPTS.db = db
    quiet_default = ctx.invoked_subcommand == "demo" and not log_json
    level = log_level or ("warning" if quiet_default else "info")
    if level.lower() not in ("debug", "info", "warning", "error"):
        fail(f"--log-level: expected debug, info, warning or error, not {level!r}")
    logs.configure(json=log_json, level=level)


def fail(message: str, code: int = 2) -> NoReturn:
    typer.echo(f"error: {message}", err=True)
    raise typer.Exit(code)


def open_store(db: str | None = None) -> BattleStore:
    return BattleStore(db if db is not None else OPTS.db)


def _battle(store: BattleStore, ref: str | None) -> UUID:
    try:
        return resolve_battle(store, ref)
    except BlowByBlowError as e:
        fail(str(e))


def _events(store: BattleStore, battle: UUID) -> list[LoggedEvent]:
    try:
        return store.read(battle)
    except BlowByBlowError as e:
        fail(f"{e} (run `bxb verify` for details)")


def print_log(events: list[LoggedEvent], as_json: bool = False) -> None:
    if not events:
        return
    first = events[0].event
    assert isinstance(first, BattleStarted)
    ruleset = get_game_system(first.ruleset)
    for logged in events:
        ev = logged.event
        if as_json:
            line: dict[str, Any] = {"position": logged.position, "type": type(ev).__name__}
            if isinstance(ev, RuleEvent):
                line["rule"] = ev.rule
            line["event"] = to_builtins(ev)
            line["hash"] = logged.hash.hex()
            typer.echo(msgspec.json.encode(line).decode())
        else:
            typer.echo(f"{logged.position:>5}  {narrate(ruleset, ev)}")


def _verdict(report: Report) -> str:
    head = f"{report.battle} {report.label!r}"
    if report.ok:
        dice = f", {report.dice_checked} seeded dice recomputed" if report.dice_checked else ""
        notes = "".join(f"; {n}" for n in report.notes)
        return f"verify OK: {head}: {report.events} events, {report.commands} commands re-adjudicated{dice}, hash chain intact{notes}"
    assert report.problem is not None
    return f"verify FAILED: {head}: {report.problem.describe()}"
