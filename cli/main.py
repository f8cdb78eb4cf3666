"""``bxb``: the command line. It holds no rules: it reads scenarios, opens the store, and prints
what replay/ computes."""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import Annotated, Any, NoReturn
from uuid import UUID

import msgspec
import typer

from blowbyblow.domain.core import BattleStarted, BlowByBlowError, RuleEvent
from blowbyblow.projections.battle import fold_battle
from blowbyblow.replay import logs
from blowbyblow.replay.codec import encode_json, to_builtins
from blowbyblow.replay.dice import (
    DiceSource,
    InteractiveChoices,
    ListedDice,
    PromptedDice,
    ScriptedChoices,
    SeededDice,
    iter_ints,
)
from blowbyblow.replay.export import ExportError, export_battle, import_battle, read_export
from blowbyblow.replay.judging import (
    BattleSealed,
    default_key_dir,
    load_private_key,
    load_public_key,
    new_keys,
)
from blowbyblow.replay.narrate import narrate
from blowbyblow.replay.registry import game_systems, get_game_system
from blowbyblow.replay.scenario import load_scenario
from blowbyblow.replay.service import (
    AlreadyRecorded,
    record,
    resolve_battle,
    save_events,
    seal_battle,
)
from blowbyblow.replay.store import BattleStore, LoggedEvent, default_db_path
from blowbyblow.replay.verify import Report, verify_battle
from blowbyblow.replay.whatif import first_divergence, parse_rulings, what_if

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


@app.command("rulesets")
def cmd_rulesets(as_json: Annotated[bool, typer.Option("--json")] = False) -> None:
    """List the game systems and their rulings (name, default, choices)."""
    rows = []
    for r in game_systems().values():
        rows.append(
            {
                "id": r.id,
                "version": r.version,
                "title": r.title,
                "game": r.game,
                "rulebook": r.rulebook.title,
                "rulings": [
                    {**to_builtins(x), "citation": r.rulebook.cite(x.rule)} for x in r.rulings
                ],
            }
        )
        if not as_json:
            typer.echo(f"{r.id} {r.version}: {r.title}  (rules: {r.rulebook.title})")
            for x in r.rulings:
                typer.echo(
                    f"    {x.name} = {x.default}  [{' | '.join(x.choices)}]  {x.summary} "
                    f"({r.rulebook.cite(x.rule)})"
                )
                if x.note:
                    typer.echo(f"        why a ruling: {x.note}")
    if as_json:
        typer.echo(encode_json(rows).decode())


def _dice_option(spec: str | None) -> DiceSource | None:
    if spec is None:
        return None
    if spec.startswith("seed:") and spec[5:]:
        return SeededDice(spec[5:])
    if spec == "physical":
        return PromptedDice()
    if spec.startswith("values:"):
        try:
            return ListedDice(list(iter_ints(spec[7:])))
        except ValueError:
            fail(f"--dice values: expected whole numbers such as values:4,2,6, not {spec[7:]!r}")
    fail(f"--dice: expected seed:TEXT, physical or values:1,2,3, not {spec!r}")


@app.command("record")
def cmd_record(  # noqa: PLR0913 - typer makes each parameter a command-line option
    scenario: Annotated[Path, typer.Argument(help="Scenario TOML file.")],
    dice: Annotated[
        str | None,
        typer.Option(
            "--dice",
            help="seed:TEXT (seeded digital dice), physical (prompt for each roll) or "
            "values:4,2,6 (physical dice listed). Default: the file's seed or dice list.",
        ),
    ] = None,
    label: Annotated[
        str | None, typer.Option("--label", help="Name the battle (default: the file's label).")
    ] = None,
    ruleset: Annotated[
        str | None,
        typer.Option("--ruleset", help="Record under this game system instead of the file's."),
    ] = None,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="Do not print the log.")] = False,
    ask: Annotated[
        bool,
        typer.Option(
            "--ask",
            help="Ask at a prompt for every choice the "
            "scenario's [choices] do not answer (default: the rules' default).",
        ),
    ] = False,
    fair: Annotated[
        bool,
        typer.Option(
            "--fair",
            help="Provably fair dice: record a commitment to a "
            "fresh secret seed now, reveal the seed when the battle is sealed.",
        ),
    ] = False,
) -> None:
    """Record a battle from a scenario file. Nothing is written unless every action is legal."""
    try:
        sc = load_scenario(scenario, ruleset)
        if label:
            sc = msgspec.structs.replace(sc, label=label)
        source = _dice_option(dice)
        if isinstance(source, SeededDice):
            sc = msgspec.structs.replace(sc, seed=source.seed, dice=None)
            source = None
        if fair and (source is not None or dice is not None):
            fail("--fair makes its own secret seed; do not combine it with --dice")
        store = open_store()
        choices = ScriptedChoices(sc.choices, fallback=InteractiveChoices()) if ask else None
        rec = record(store, sc, dice=source, choices=choices, fair=fair)
    except BlowByBlowError as e:
        fail(str(e))
    if not quiet:
        print_log(rec.events)
    typer.echo(
        f"recorded battle {rec.battle} ({sc.label!r}, {len(rec.events)} events) in {store_name()}"
    )


def store_name() -> str:
    """The store, as it may be printed: a PostgreSQL URL without its password."""
    name = OPTS.db or str(default_db_path())  # --db, or BXB_DB through typer
    return re.sub(r"(postgres(?:ql)?://[^:/@]*):[^@]*@", r"\1:***@", name)


@app.command("demo")
def cmd_demo(
    ruleset: Annotated[
        str, typer.Option("--ruleset", help="Game system id (see `bxb rulesets`).")
    ] = "necromunda-2023",
) -> None:
    """Record a demo combat on the store, print it blow by blow, and verify it."""
    try:
        rs = get_game_system(ruleset)
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
            typer.echo(
                encode_json(
                    {
                        "battle": str(b.battle),
                        "ruleset": b.ruleset,
                        "label": b.label,
                        "events": version,
                    }
                ).decode()
            )
        else:
            typer.echo(f"{b.battle}  {b.ruleset:<18} {version:>6} events  {b.label}")


@app.command("log")
def cmd_log(
    battle: Annotated[
        str | None, typer.Argument(help="Battle id, id prefix or label (default: the latest).")
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="JSON Lines, one event a line.")] = False,
) -> None:
    """The blow-by-blow account of a battle, with the rule behind every step."""
    store = open_store()
    print_log(_events(store, _battle(store, battle)), as_json)


@app.command("at")
def cmd_at(
    position: Annotated[int, typer.Argument(help="Event position (1 = the battle's start).")],
    battle: Annotated[
        str | None, typer.Argument(help="Battle id, id prefix or label (default: the latest).")
    ] = None,
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
    ruleset = get_game_system(first.ruleset)
    state = fold_battle(ruleset, [e.event for e in events])
    if as_json:
        typer.echo(
            encode_json(
                {
                    "battle": str(bid),
                    "position": position,
                    "of": total,
                    "event": type(events[-1].event).__name__,
                    "state": to_builtins(state),
                }
            ).decode()
        )
        return
    typer.echo(f"battle {bid} after position {position} of {total}:")
    typer.echo(f"  {narrate(ruleset, events[-1].event).strip()}")
    typer.echo(ruleset.describe_state(state))


def _verdict(report: Report) -> str:
    head = f"{report.battle} {report.label!r}"
    if report.ok:
        dice = f", {report.dice_checked} seeded dice recomputed" if report.dice_checked else ""
        notes = "".join(f"; {n}" for n in report.notes)
        return f"verify OK: {head}: {report.events} events, {report.commands} commands re-adjudicated{dice}, hash chain intact{notes}"
    assert report.problem is not None
    return f"verify FAILED: {head}: {report.problem.describe()}"


def _trusted(public_keys: list[str] | None) -> frozenset[str] | None:
    if not public_keys:
        return None
    try:
        return frozenset(load_public_key(k) for k in public_keys)
    except BlowByBlowError as e:
        fail(f"--public-key: {e}")


@app.command("verify")
def cmd_verify(
    battle: Annotated[
        str | None, typer.Argument(help="Battle id, prefix or label (default: every battle).")
    ] = None,
    file: Annotated[
        Path | None, typer.Option("--file", help="Verify an exported file instead of the store.")
    ] = None,
    public_key: Annotated[
        list[str] | None,
        typer.Option(
            "--public-key", help="Require a seal by this key (hex, or a .pub file); repeatable."
        ),
    ] = None,
) -> None:
    """Re-adjudicate every command from its recorded dice and choices and compare with the log;
    check the hash chain, the seal, and every seeded die. Exit 0 when all agree, 1 naming the
    first event that differs or cannot be read."""
    trusted = _trusted(public_key)
    if file is not None:
        try:
            text = file.read_bytes()
        except OSError as e:
            fail(f"{file}: cannot read: {e.strerror}")
        report = read_export(text, trusted).report
        typer.echo(_verdict(report))
        if not report.ok:
            raise typer.Exit(1)
        return
    store = open_store()
    targets = [_battle(store, battle)] if battle else [b.battle for b in store.battles()]
    if not targets:
        fail("the store holds no battles yet (try `bxb demo`)")
    failed = 0
    for i, bid in enumerate(targets, start=1):
        report = verify_battle(store, bid, trusted_keys=trusted)
        prefix = f"[{i}/{len(targets)}] " if len(targets) > 1 else ""
        typer.echo(prefix + _verdict(report))
        failed += not report.ok
    if len(targets) > 1:
        typer.echo(f"{len(targets) - failed} of {len(targets)} battles verified")
    if failed:
        raise typer.Exit(1)


keys_app = typer.Typer(help="Signing keys for sealing battles (Ed25519).", no_args_is_help=True)
app.add_typer(keys_app, name="keys")


@keys_app.command("new")
def cmd_keys_new(
    directory: Annotated[
        Path | None,
        typer.Option(
            "--dir", help=f"Where to write NAME.key and NAME.pub (default {default_key_dir()})."
        ),
    ] = None,
    name: Annotated[str, typer.Option("--name")] = "judge",
) -> None:
    """Make a new signing key pair (the private key file is readable by you alone)."""
    try:
        private, public = new_keys(directory or default_key_dir(), name)
    except BlowByBlowError as e:
        fail(str(e))
    typer.echo(f"private key: {private}\npublic key:  {public} ({public.read_text().strip()})")


@app.command("seal")
def cmd_seal(
    battle: Annotated[
        str | None, typer.Argument(help="Battle id, prefix or label (default: the latest).")
    ] = None,
    key: Annotated[
        Path | None,
        typer.Option(
            "--key", help=f"Private key file (default {default_key_dir() / 'judge.key'})."
        ),
    ] = None,
) -> None:
    """Verify a battle, then close it with a signed checkpoint (revealing a fair battle's seed)."""
    store = open_store()
    bid = _battle(store, battle)
    try:
        logged = seal_battle(store, bid, load_private_key(key or default_key_dir() / "judge.key"))
    except BlowByBlowError as e:
        fail(str(e))
    ev = logged.event
    assert isinstance(ev, BattleSealed)
    typer.echo(
        f"sealed battle {bid} at position {logged.position}: checkpoint over "
        f"{ev.checkpoint.length} events, last hash {ev.checkpoint.last_hash[:16]}…, "
        f"signed by {ev.public_key}" + (", seed revealed" if ev.checkpoint.seed else "")
    )


@app.command("export")
def cmd_export(
    battle: Annotated[
        str | None, typer.Argument(help="Battle id, prefix or label (default: the latest).")
    ] = None,
    out: Annotated[
        Path | None, typer.Option("--out", "-o", help="File to write (default: standard output).")
    ] = None,
) -> None:
    """Write a battle as a self-contained JSON Lines record (setup, events, rules, hash chain, seal)."""
    store = open_store()
    bid = _battle(store, battle)
    try:
        data = export_battle(store, bid)
    except BlowByBlowError as e:
        fail(str(e))
    if out is None:
        sys.stdout.write(data.decode())
    else:
        out.write_bytes(data)
        typer.echo(f"exported battle {bid} to {out}", err=True)


@app.command("import")
def cmd_import(
    file: Annotated[Path, typer.Argument(help="An exported JSON Lines file.")],
    public_key: Annotated[
        list[str] | None, typer.Option("--public-key", help="Require a seal by this key.")
    ] = None,
) -> None:
    """Verify an exported battle completely, then add it to the store; a file that fails is refused
    and nothing is written."""
    trusted = _trusted(public_key)
    try:
        text = file.read_bytes()
    except OSError as e:
        fail(f"{file}: cannot read: {e.strerror}")
    store = open_store()
    try:
        read = import_battle(store, text, trusted)
    except (ExportError, BlowByBlowError) as e:
        fail(str(e), code=1)
    typer.echo(
        f"imported battle {read.battle} ({read.report.label!r}, {len(read.events)} events), verified"
    )


def _side_by_side(left: str, right: str, width: int = 60) -> str:
    return f"  {left[:width]:<{width}} | {right[:width]}"


@app.command("whatif")
def cmd_whatif(
    battle: Annotated[
        str | None, typer.Argument(help="Battle id, prefix or label (default: the latest).")
    ] = None,
    ruling: Annotated[
        list[str] | None, typer.Option("--ruling", help="NAME=VALUE; repeatable.")
    ] = None,
    ruleset: Annotated[
        str | None, typer.Option("--ruleset", help="Re-run under another version of the same game.")
    ] = None,
    save: Annotated[
        bool,
        typer.Option("--save", help="Record the alternative as a new battle naming its origin."),
    ] = False,
) -> None:
    """Re-run a battle with the same dice and choices under other rulings; show where it diverges."""
    store = open_store()
    bid = _battle(store, battle)
    try:
        wi = what_if(_events(store, bid), parse_rulings(ruling or []), ruleset)
    except BlowByBlowError as e:
        fail(str(e))
    changed = ", ".join(ruling or []) or "(no ruling changed)"
    typer.echo(f"what-if of battle {bid} under {wi.ruleset.id}: {changed}")
    if wi.divergence is None:
        typer.echo("no divergence: every event is the same under these rulings")
    else:
        p = wi.divergence
        typer.echo(f"first divergence at position {p}:")
        typer.echo(_side_by_side("ORIGINAL", "WHAT-IF"))
        for q in range(max(2, p - 2), min(max(len(wi.original), len(wi.alternative)), p + 4) + 1):
            a = (
                narrate(wi.original_ruleset, wi.original[q - 1])
                if q <= len(wi.original)
                else "(ends)"
            )
            b = narrate(wi.ruleset, wi.alternative[q - 1]) if q <= len(wi.alternative) else "(ends)"
            mark = "*" if q >= p else " "
            typer.echo(f"{mark}{q:>4}" + _side_by_side(a.strip(), b.strip()))
    if wi.fresh_dice:
        typer.echo(
            f"dice the original never rolled, drawn from the battle's seed: {', '.join(wi.fresh_dice)}"
        )
    if wi.stopped:
        typer.echo(f"stopped: {wi.stopped}")
    typer.echo("\nstate at the end, original:")
    typer.echo(wi.original_ruleset.describe_state(wi.original_state))
    typer.echo("\nstate at the end, what-if:")
    typer.echo(wi.ruleset.describe_state(wi.alternative_state))
    if save:
        if wi.stopped:
            fail("not saved: the re-run did not complete")
        try:
            rec = save_events(store, wi.ruleset, wi.alternative)
        except BlowByBlowError as e:
            fail(str(e))
        typer.echo(f"saved as battle {rec.battle} (origin {bid})")


@app.command("diff")
def cmd_diff(
    a: Annotated[str, typer.Argument(help="First battle.")],
    b: Annotated[str, typer.Argument(help="Second battle.")],
) -> None:
    """Compare two battles event by event and show the first divergence in plain words."""
    store = open_store()
    ea, eb = _events(store, _battle(store, a)), _events(store, _battle(store, b))
    pos = first_divergence([e.event for e in ea], [e.event for e in eb])
    if pos is None:
        typer.echo(f"identical: {len(ea)} events")
        return
    for label, events in (("A", ea), ("B", eb)):
        if pos <= len(events):
            first = events[0].event
            assert isinstance(first, BattleStarted)
            text = narrate(get_game_system(first.ruleset), events[pos - 1].event)
        else:
            text = "(the battle ends before this position)"
        typer.echo(f"{label} position {pos}: {text.strip()}")
    typer.echo(f"first divergence at position {pos} (A has {len(ea)} events, B has {len(eb)})")
    raise typer.Exit(1)


def main() -> None:
    try:
        app()
    except BrokenPipeError:  # `bxb log | head`
        sys.stderr.close()


if __name__ == "__main__":
    main()
