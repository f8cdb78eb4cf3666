"""``bxb``: the command line. It holds no rules: it reads scenarios, opens the store, and prints
what replay/ computes."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated, Any, NoReturn
from uuid import UUID

import msgspec
import typer

from blowbyblow.domain.core import BattleStarted, BlowByBlowError, RuleEvent
from blowbyblow.replay import logs
from blowbyblow.replay.codec import encode_json, to_builtins
from blowbyblow.replay.dice import DiceSource, ListedDice, PromptedDice, SeededDice, iter_ints
from blowbyblow.replay.driver import fold
from blowbyblow.replay.narrate import narrate
from blowbyblow.replay.rulesets import all_rulesets, get_ruleset
from blowbyblow.replay.scenario import load_scenario
from blowbyblow.replay.service import AlreadyRecorded, record, resolve_battle
from blowbyblow.replay.store import BattleStore, LoggedEvent, default_db_path
from blowbyblow.replay.verify import Report, verify_battle

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
    typer.Option("--db", envvar="BXB_DB", help="Store: a SQLite file path (default "
                 f"{default_db_path()}), ':memory:', or a postgresql:// URL."),
]


@app.callback()
def main_options(
    db: DbOption = None,
    log_json: Annotated[bool, typer.Option("--log-json", help="Log rule steps as JSON lines on stderr.")] = False,
    log_level: Annotated[str, typer.Option("--log-level", help="debug, info, warning or error. "
                                           "At info every rule step is logged to stderr.")] = "info",
) -> None:
    OPTS.db = db
    if log_level.lower() not in ("debug", "info", "warning", "error"):
        fail(f"--log-level: expected debug, info, warning or error, not {log_level!r}")
    logs.configure(json=log_json, level=log_level)


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
    ruleset = get_ruleset(first.ruleset)
    for logged in events:
        ev = logged.event
        if as_json:
            line: dict[str, Any] = {"position": logged.position, "type": type(ev).__name__}
            if isinstance(ev, RuleEvent):
                line["rule"] = ev.rule
            line["event"] = to_builtins(ev)
            line["hash"] = logged.hash.hex()
            typer.echo(encode_json(line).decode())
        else:
            typer.echo(f"{logged.position:>5}  {narrate(ruleset, ev)}")


@app.command("rulesets")
def cmd_rulesets(as_json: Annotated[bool, typer.Option("--json")] = False) -> None:
    """List the game systems and their rulings (name, default, choices)."""
    rows = []
    for r in all_rulesets().values():
        rows.append({"id": r.id, "version": r.version, "title": r.title, "source": r.source,
                     "rulings": [to_builtins(x) for x in r.rulings]})
        if not as_json:
            typer.echo(f"{r.id} {r.version}: {r.title}  (rules text: {r.source})")
            for x in r.rulings:
                typer.echo(f"    {x.name} = {x.default}  [{' | '.join(x.choices)}]  {x.summary} ({x.source})")
    if as_json:
        typer.echo(encode_json(rows).decode())


def _dice_option(spec: str | None) -> DiceSource | None:
    if spec is None:
        return None
    if spec.startswith("seed:") and spec[5:]:
        return SeededDice(spec[5:])
    if spec == "physical":
        return PromptedDice(read=lambda p: input(p))
    if spec.startswith("values:"):
        try:
            return ListedDice(list(iter_ints(spec[7:])))
        except ValueError:
            fail(f"--dice values: expected whole numbers such as values:4,2,6, not {spec[7:]!r}")
    fail(f"--dice: expected seed:TEXT, physical or values:1,2,3, not {spec!r}")


@app.command("record")
def cmd_record(
    scenario: Annotated[Path, typer.Argument(help="Scenario TOML file.")],
    dice: Annotated[str | None, typer.Option(
        "--dice", help="seed:TEXT (seeded digital dice), physical (prompt for each roll) or "
        "values:4,2,6 (physical dice listed). Default: the file's seed or dice list.")] = None,
    label: Annotated[str | None, typer.Option("--label", help="Name the battle (default: the file's label).")] = None,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="Do not print the log.")] = False,
) -> None:
    """Record a battle from a scenario file. Nothing is written unless every action is legal."""
    try:
        sc = load_scenario(scenario)
        if label:
            sc = msgspec.structs.replace(sc, label=label)
        source = _dice_option(dice)
        if source is not None and isinstance(source, SeededDice):
            sc = msgspec.structs.replace(sc, seed=source.seed, dice=None)
            source = None
        store = open_store()
        rec = record(store, sc, dice=source)
    except BlowByBlowError as e:
        fail(str(e))
    if not quiet:
        print_log(rec.events)
    typer.echo(f"recorded battle {rec.battle} ({sc.label!r}, {len(rec.events)} events) in {store_name()}")


def store_name() -> str:
    return OPTS.db or str(default_db_path())


@app.command("demo")
def cmd_demo(
    ruleset: Annotated[str, typer.Option("--ruleset", help="Game system id (see `bxb rulesets`).")] = "necromunda-2023",
) -> None:
    """Record a demo combat on the store, print it blow by blow, and verify it."""
    try:
        rs = get_ruleset(ruleset)
        store = open_store()
        scenario = rs.demo()
        base = scenario.label
        for attempt in range(1, 1000):
            try:
                rec = record(store, scenario)
                break
            except AlreadyRecorded:
                scenario = msgspec.structs.replace(scenario, label=f"{base} #{attempt + 1}")
        else:  # pragma: no cover
            fail("too many demo battles in this store")
    except BlowByBlowError as e:
        fail(str(e))
    print_log(rec.events)
    report = verify_battle(store, rec.battle)
    typer.echo("")
    typer.echo(f"battle {rec.battle} ({scenario.label!r}) recorded in {store_name()}")
    typer.echo(_verdict(report))
    typer.echo("next: `bxb log`, `bxb at POSITION`, `bxb verify`, `bxb battles`")
    if not report.ok:
        raise typer.Exit(1)


@app.command("battles")
def cmd_battles(as_json: Annotated[bool, typer.Option("--json")] = False) -> None:
    """List the battles in the store, oldest first."""
    store = open_store()
    for b in store.battles():
        version = store.version(b.battle)
        if as_json:
            typer.echo(encode_json({"battle": str(b.battle), "ruleset": b.ruleset, "label": b.label,
                                    "events": version}).decode())
        else:
            typer.echo(f"{b.battle}  {b.ruleset:<18} {version:>6} events  {b.label}")


@app.command("log")
def cmd_log(
    battle: Annotated[str | None, typer.Argument(help="Battle id, id prefix or label (default: the latest).")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="JSON Lines, one event a line.")] = False,
) -> None:
    """The blow-by-blow account of a battle, with the rule behind every step."""
    store = open_store()
    print_log(_events(store, _battle(store, battle)), as_json)


@app.command("at")
def cmd_at(
    position: Annotated[int, typer.Argument(help="Event position (1 = the battle's start).")],
    battle: Annotated[str | None, typer.Argument(help="Battle id, id prefix or label (default: the latest).")] = None,
    as_json: Annotated[bool, typer.Option("--json")] = False,
) -> None:
    """The state of a battle right after the event at POSITION (time travel)."""
    store = open_store()
    bid = _battle(store, battle)
    total = store.version(bid)
    if not 1 <= position <= total:
        fail(f"position: battle {bid} has events 1 to {total}, not {position}")
    events = _events(store, bid)[:position]
    first = events[0].event
    assert isinstance(first, BattleStarted)
    ruleset = get_ruleset(first.ruleset)
    state = fold(ruleset, ruleset.initial_state(first.setup), [e.event for e in events[1:]])
    if as_json:
        typer.echo(encode_json({"battle": str(bid), "position": position, "of": total,
                                "event": type(events[-1].event).__name__,
                                "state": to_builtins(state)}).decode())
        return
    typer.echo(f"battle {bid} after position {position} of {total}:")
    typer.echo(f"  {narrate(ruleset, events[-1].event).strip()}")
    typer.echo(ruleset.describe_state(state))


def _verdict(report: Report) -> str:
    head = f"{report.battle} {report.label!r}"
    if report.ok:
        dice = f", {report.dice_checked} seeded dice recomputed" if report.dice_checked else ""
        return f"verify OK: {head}: {report.events} events, {report.commands} commands re-adjudicated{dice}, hash chain intact"
    assert report.problem is not None
    return f"verify FAILED: {head}: {report.problem.describe()}"


@app.command("verify")
def cmd_verify(
    battle: Annotated[str | None, typer.Argument(help="Battle id, prefix or label (default: every battle).")] = None,
) -> None:
    """Re-adjudicate every command from its recorded dice and choices and compare with the log;
    check the hash chain and every seeded die. Exit 0 when all agree, 1 naming the first event
    that differs or cannot be read."""
    store = open_store()
    targets = [_battle(store, battle)] if battle else [b.battle for b in store.battles()]
    if not targets:
        fail("the store holds no battles yet (try `bxb demo`)")
    failed = 0
    for i, bid in enumerate(targets, start=1):
        report = verify_battle(store, bid)
        prefix = f"[{i}/{len(targets)}] " if len(targets) > 1 else ""
        typer.echo(prefix + _verdict(report))
        failed += not report.ok
    if len(targets) > 1:
        typer.echo(f"{len(targets) - failed} of {len(targets)} battles verified")
    if failed:
        raise typer.Exit(1)


def main() -> None:
    try:
        app()
    except BrokenPipeError:  # `bxb log | head`
        sys.stderr.close()


if __name__ == "__main__":
    main()
