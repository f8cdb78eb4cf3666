"""Recording and reading battles: ``bxb rulesets``, ``record``, ``demo``, ``battles``, ``log``, ``at``."""

from __future__ import annotations

import datetime
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any
from uuid import UUID

import msgspec
import typer

from blowbyblow.cli.app import (
    BAD,
    LOG_INDENT,
    OPTS,
    JudgeKeyOption,
    NumbersCommand,
    _battle,
    _events,
    _verdict,
    app,
    console,
    fail,
    no_stdin_here,
    open_store,
    print_line,
    print_log,
    print_wrapped,
    read_checked,
    say,
    say_lines,
    scenario_argument,
    system_of,
    unreadable,
)
from blowbyblow.cli.numbers import require_position
from blowbyblow.cli.quick import as_json_line, as_text
from blowbyblow.domain.core import BattleStarted, BlowByBlowError, RuleEvent
from blowbyblow.domain.judging import ContributionGiven, SeedEscrowed
from blowbyblow.domain.system import AnyScenario, GameSystem
from blowbyblow.projections.battle import VoidedCommand
from blowbyblow.replay.engine.codec import encode_json, to_builtins
from blowbyblow.replay.engine.narrate import narrate
from blowbyblow.replay.engine.registry import game_systems, get_game_system
from blowbyblow.replay.evidence.seals import ESCROW_KEY_TAG, default_key_dir, load_escrow_public_key
from blowbyblow.replay.store.log import (
    BattleInfo,
    BattleStore,
    LoggedEvent,
    default_db_path,
    store_label,
)

if TYPE_CHECKING:  # the rest is imported where used: `bxb at` loads what it uses (cli/main.py)
    from rich.console import Console

    from blowbyblow.replay.engine.dice import DiceSource
    from blowbyblow.replay.evidence.fairness import FairBattle, FairTerms


@app.command("rulesets")
def cmd_rulesets(
    as_json: Annotated[
        bool, typer.Option("--json", help="One JSON list: each game system with its rulings.")
    ] = False,
) -> None:
    """List the game systems and their rulings (name, default, choices)."""
    rows = []
    out = console()
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
            _print_ruleset(out, r)
    if as_json:
        typer.echo(encode_json(rows).decode())


def _print_ruleset(out: Console, r: GameSystem[Any, Any, Any]) -> None:
    print_wrapped(out, "", f"{r.id} {r.version}: {r.title}  (rules: {r.rulebook.title})", 4)
    for x in r.rulings:
        line = f"{x.name} = {x.default}  [{' | '.join(x.choices)}]  {x.summary} "
        print_wrapped(out, "    ", f"{line}({r.rulebook.cite(x.rule)})", 8)
        if x.note:
            print_wrapped(out, "        ", f"why a ruling: {x.note}")


def _scenario_to_record(scenario: Path, ruleset: str | None, dice: str | None) -> AnyScenario:
    if dice == "physical":
        no_stdin_here(scenario, "scenario", "the dice are typed on standard input")
    return scenario_argument(scenario, ruleset)


def _dice_option(spec: str | None) -> DiceSource | None:
    from blowbyblow.replay.engine.dice import ListedDice, PromptedDice, SeededDice, iter_ints

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


def _fair_terms(judge_keys: list[str] | None, contributions: list[str] | None) -> FairTerms:
    """--fair's judge keys, checked; every side's value is asked once the commitment is shown
    (at the prompt, or a line each from standard input). A value given on the command line was
    chosen before the commitment existed: refused (issue 26, hole 1)."""
    from blowbyblow.replay.evidence.fairness import BEFORE_THE_COMMITMENT, FairTerms

    default = default_key_dir() / "judge.escrow.pub"
    if not judge_keys and not default.exists():
        fail(
            f"--fair: no judge's escrow key at {default}; give --judge-key FILE (a judge's "
            "NAME.escrow.pub, made by `bxb keys new`) or --judge-key x25519:HEX"
        )
    try:
        keys = [ESCROW_KEY_TAG + load_escrow_public_key(k) for k in judge_keys or [str(default)]]
    except BlowByBlowError as e:
        fail(f"--judge-key: {e}")
    if contributions:
        fail(f"--contribution: {BEFORE_THE_COMMITMENT}")
    return FairTerms(judge_keys=keys, ask=_ask_contributions)


def _ask_contributions(fair: FairBattle) -> dict[str, str]:
    """At the table: the commitment is shown first, then each side types its value. Said on
    standard error: standard output is the record's (its log, or the --json line)."""
    from blowbyblow.replay.evidence.fairness import FairnessError, check_contributions

    typer.echo(
        f"fair battle {fair.battle}: the table's secret seed is committed: {fair.commitment}",
        err=True,
    )
    typer.echo("Each side now gives a value of its own (a word, a number, a phrase);", err=True)
    typer.echo(
        "the dice depend on every one, and on the seed above, kept secret until the seal.",
        err=True,
    )
    asked: dict[str, str] = {}
    for side in fair.missing:
        while True:
            typer.echo(f"{side}'s contribution: ", err=True, nl=False)
            try:
                text = input()
            except EOFError:
                typer.echo("", err=True)  # the error that follows goes on a line of its own
                raise
            try:
                asked.update(check_contributions(fair.sides, {side: text}))
                break
            except FairnessError as e:
                typer.echo(f"  not accepted: {e}", err=True)
    return asked


def _print_fair_start(events: Sequence[LoggedEvent]) -> None:
    first = events[0].event
    assert isinstance(first, BattleStarted)
    escrow = next(e.event for e in events if isinstance(e.event, SeedEscrowed))
    given = [e.event for e in events if isinstance(e.event, ContributionGiven)]
    typer.echo(f"fair dice: seed committed {first.dice.commitment}")
    typer.echo(
        "  escrowed to judge key(s) "
        + ", ".join(f"{ESCROW_KEY_TAG}{b.judge[:16]}…" for b in escrow.boxes)
    )
    typer.echo("  contributions: " + ", ".join(f"{g.side}={g.value!r}" for g in given))
    typer.echo(
        "  `bxb seal` (with the judge's key) reveals the seed; then `bxb verify` checks every die"
    )


@app.command("record")
def cmd_record(  # noqa: PLR0913 - typer makes each parameter a command-line option
    scenario: Annotated[Path, typer.Argument(help="Scenario TOML file (-: standard input).")],
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
            "scenario's \\[choices] do not answer (default: the rules' default).",
        ),
    ] = False,
    fair: Annotated[
        bool,
        typer.Option(
            "--fair",
            help="Provably fair dice: a fresh secret seed, committed and escrowed to the "
            "judge's key, mixed with a value from each side; the seal reveals it.",
        ),
    ] = False,
    judge_key: JudgeKeyOption = None,
    contribution: Annotated[
        list[str] | None,
        typer.Option(
            "--contribution",
            hidden=True,  # refused with the reason: a value given before the commitment
            help="Refused: each side's value is asked once the commitment is shown.",
        ),
    ] = None,
    key: Annotated[
        Path | None,
        typer.Option(
            "--key",
            help="The private key that signs the receipt of the battle's last position "
            f"(default {default_key_dir() / 'judge.key'}, if it exists).",
        ),
    ] = None,
    as_json: Annotated[
        bool,
        typer.Option("--json", help="Print one JSON object (battle, events, receipt), no log."),
    ] = False,
) -> None:
    """Record a battle from a scenario file. Nothing is written unless every action is legal;
    with --fair, the battle's start (commitment, escrow) is written first and stays, whatever
    its actions do; the commitment is shown, then each side's value is asked (at the prompt, or
    a line each from standard input). Prints the signed receipt of the last position (with a
    key): `bxb verify --receipt FILE` checks the log still holds it."""
    from blowbyblow.cli.terminal import table_key
    from blowbyblow.replay.battles.battle import Battle
    from blowbyblow.replay.engine.dice import InteractiveChoices, ScriptedChoices, SeededDice
    from blowbyblow.replay.engine.script import ActionRefused, ActionUnanswered, UnusedInput
    from blowbyblow.replay.evidence.fairness import FairnessError, StartedAndKept
    from blowbyblow.replay.evidence.receipts import sign_receipt

    signing = table_key(key)
    try:
        sc = _scenario_to_record(scenario, ruleset, dice)
        if label:
            sc = msgspec.structs.replace(sc, label=label)
        source = _dice_option(dice)
        if isinstance(source, SeededDice):
            sc = msgspec.structs.replace(sc, seed=source.seed, dice=None)
            source = None
        if fair and (source is not None or dice is not None):
            fail("--fair makes its own secret seed; do not combine it with --dice")
        if not fair and (judge_key or contribution):
            fail("--judge-key and --contribution go with --fair")
        terms = _fair_terms(judge_key, contribution) if fair else None  # before the store is made
        store = open_store(create=True)
        choices = ScriptedChoices(sc.choices, fallback=InteractiveChoices()) if ask else None
        door = Battle(store)
        if terms is not None:
            rec = door.start(sc, choices=choices, fair=terms)
        else:
            rec = door.start(sc, dice=source, choices=choices)
    except StartedAndKept as e:
        fail(str(e), code=1)
    except FairnessError as e:  # before anything is written: the contributions given
        fail(f"--contribution: {e}")
    except (ActionRefused, ActionUnanswered, UnusedInput) as e:
        hint = ""
        if dice is not None:
            hint = (
                f"; the file's actions were planned for its own dice, not these: to go on from "
                f"what these dice give, play it live (`bxb play {scenario}` without its actions)"
            )
        fail(f"{scenario}: {e}{hint}")
    except BlowByBlowError as e:
        fail(str(e))
    receipt = sign_receipt(signing, rec.id, rec.events[-1]) if signing else None
    if as_json:
        row: dict[str, Any] = {
            "battle": str(rec.id),
            "label": sc.label,
            "ruleset": rec.system.id,
            "events": len(rec.events),
            "store": store_name(),
            "receipt": to_builtins(receipt),
        }
        typer.echo(encode_json(row).decode())
        return
    if not quiet:
        print_log(rec.events)
    if fair:
        _print_fair_start(rec.events)
    typer.echo(
        f"recorded battle {rec.id} ({sc.label!r}, {len(rec.events)} events) in {store_name()}"
    )
    if receipt is None:
        typer.echo(
            f"(no receipt: no signing key at {default_key_dir() / 'judge.key'}; give --key "
            "FILE, or make one with `bxb keys new`)"
        )
    else:
        typer.echo(
            f"receipt (signed by {receipt.public_key[:16]}…; keep it: `bxb verify --receipt "
            "FILE` checks the log still holds these events):"
        )
        typer.echo(f"  {receipt.text()}")


def store_name() -> str:
    """The store, as it may be printed: a PostgreSQL URL without its password."""
    return store_label(OPTS.db or default_db_path())  # --db, or BXB_DB through typer


@app.command("demo")
def cmd_demo(
    ruleset: Annotated[
        str, typer.Option("--ruleset", help="Game system id (see `bxb rulesets`).")
    ] = "necromunda-2023",
) -> None:
    """Record a demo combat on the store, print it blow by blow, and verify it. Its dice are
    seeded: run again, the same battle is shown again from the store, and nothing is written."""
    from blowbyblow.replay.battles.battle import Battle
    from blowbyblow.replay.battles.record import AlreadyRecorded
    from blowbyblow.replay.evidence.verify import verify_battle

    try:
        rs = get_game_system(ruleset)
    except BlowByBlowError as e:
        fail(str(e))  # a usage error (2): an id `bxb rulesets` does not list
    try:
        store = open_store(create=True)
        scenario = rs.demo()
        # The demo's dice are seeded: run again, it is the same battle (its id is its start's
        # hash). Shown again as the store holds it, not kept a second time beside it.
        again: UUID | None = None
        try:
            rec = Battle(store).start(scenario)
            battle, events = rec.id, list(rec.events)
        except AlreadyRecorded as e:
            again, events = e.battle, _events(store, e.battle)
            battle = again
    except BlowByBlowError as e:  # the store cannot be used, or its demo not recorded
        fail(str(e), code=1)
    print_log(events)
    report = verify_battle(store, battle)
    typer.echo("")
    if again is None:
        say(f"battle {battle} ({scenario.label!r}) recorded in {store_name()}")
    else:
        say(
            f"the demo is already in {store_name()} as battle {battle} ({scenario.label!r}): "
            "shown again as it stands; nothing written"
        )
    say(_verdict(report))
    ref = "" if again is None else f" {str(battle)[:8]}"  # the latest battle may be another
    say(f"next: `bxb log{ref}`, `bxb at POSITION{ref}`, `bxb verify`, `bxb battles`")
    if not report.ok:
        raise typer.Exit(1)


ABANDONED_AFTER_HOURS = 24.0


@app.command("battles")
def cmd_battles(
    as_json: Annotated[bool, typer.Option("--json", help="JSON Lines, one battle a line.")] = False,
    abandoned_after: Annotated[
        float,
        typer.Option(
            "--abandoned-after",
            help="Hours without a new event after which a battle that is not sealed counts as "
            "abandoned.",
        ),
    ] = ABANDONED_AFTER_HOURS,
    rebuild: Annotated[
        bool,
        typer.Option(
            "--rebuild",
            help="Rebuild the battle index and the snapshots from the log first (they are "
            "kept as events are recorded; this is for a store edited by other means).",
        ),
    ] = False,
) -> None:
    """List the battles in the store, oldest first, each with its status: started (not sealed,
    played in within --abandoned-after hours, or with no command yet), abandoned (not sealed and
    nothing recorded for longer), superseded (a judge forked it: the table plays on in the child
    the ruling names), sealed; its commands played and voided; and whether `bxb
    verify` found it good as it stands, or `newer` when its last record is of a newer blowbyblow
    (this release cannot check it). Read from the battle index and each battle's last record."""
    if not abandoned_after >= 0:  # negative or nan: a battle played a minute ago, abandoned
        fail(f"--abandoned-after: expected hours, 0 or more, not {abandoned_after:g}")
    store = open_store()
    try:
        if rebuild:
            typer.echo(
                f"rebuilt the read models of {store.rebuild_read_models()} battles", err=True
            )
        battles = store.battles()
    except BlowByBlowError as e:
        fail(str(e), code=1)
    now = datetime.datetime.now(datetime.UTC)
    out = None if as_json else console()
    for b in battles:
        # a verdict is checked whole (the event type loads its game system); the rest by format
        newer = store.newer_record(b.battle, event_type=b.verified is not None)
        child = None if b.sealed else store.superseded_by(b.battle)
        shown = battle_status(b, now, abandoned_after, newer, child)
        if out is None:
            row = {"battle": str(b.battle), "ruleset": b.ruleset, "label": b.label, **shown}
            typer.echo(encode_json(row).decode())
        else:
            _print_battle(out, b, shown)


def _print_battle(out: Console, b: BattleInfo, shown: dict[str, Any]) -> None:
    """One line when it fits the width; else the id, status and verdict first, the rest wrapped
    under it."""
    verdict = "newer" if shown["newer"] else VERIFIED[shown["verified"]]
    counts = f"{shown['commands']:>3} played {shown['voided']:>2} voided  {shown['dice']:<8}"
    wide = (
        f"{b.battle}  {b.ruleset:<18} {shown['events']:>6} events  {shown['status']:<10} "
        f"{counts} {verdict:<10} {b.label}"
    )
    if len(wide) <= out.width:
        print_line(out, wide, soft_wrap=True)
        return
    print_line(out, f"{b.battle}  {shown['status']:<10} {verdict:<10} {b.ruleset}")
    rest = (
        f"{shown['events']} events, {shown['commands']} played, {shown['voided']} voided, "
        f"{shown['dice']} dice: {b.label}"
    )
    print_wrapped(out, "    ", rest)


VERIFIED = {True: "verified", False: "FAILED", None: "unverified"}


def battle_status(
    b: BattleInfo,
    now: datetime.datetime,
    abandoned_after: float,
    newer: str | None = None,
    superseded_by: UUID | None = None,
) -> dict[str, Any]:
    """What ``bxb battles`` says of a battle: its events, status, commands played and voided,
    dice mode, when its last event was recorded, verify's verdict on it as it stands (none
    when a newer blowbyblow wrote its last record: ``newer`` says what of it is newer), and the
    child a judge's fork made it give way to."""
    if b.sealed:
        status = "sealed"
    elif superseded_by is not None:
        status = "superseded"
    elif _hours_since(b.last_recorded, now) > abandoned_after:
        status = "abandoned"
    else:
        status = "started"
    return {
        "events": b.version,
        "status": status,
        "commands": b.commands,
        "voided": b.voided,
        "dice": b.dice or "?",
        "last_recorded": b.last_recorded,
        "verified": None if newer else b.verified,
        "newer": newer,
        "superseded_by": None if superseded_by is None else str(superseded_by),
    }


def _hours_since(stamp: str, now: datetime.datetime) -> float:
    try:
        then = datetime.datetime.fromisoformat(stamp)
    except ValueError:
        return 0.0
    return (now - then).total_seconds() / 3600


@app.command("log")
def cmd_log(
    battle: Annotated[
        str | None, typer.Argument(help="Battle id, id prefix or label (default: the latest).")
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="JSON Lines, one event a line.")] = False,
) -> None:
    """The blow-by-blow account of a battle, with the rule behind every step. A voided command
    is shown struck through (marked \\[voided] when the output is not a terminal), with the
    reason it was voided; it is not played."""
    store = open_store()
    bid = _battle(store, battle)
    # read twice, a page at a time (flat memory, whatever the battle's length): once to check
    # every record and find the voids (which can reach back to any command), then to print
    checked = read_checked(store, bid)
    voided, bad = checked.voided, checked.bad
    upto = 0 if checked.last is None else checked.last.position
    events = store.logged(bid, lte=upto)
    if as_json:
        print_json_log(events, voided)
    elif voided:
        print_struck_log(events, voided, bad)
    else:
        print_log(events, bad=bad)


def _after_command(store: BattleStore, battle: UUID, command: int) -> int:
    """The position of command ``command``'s last event (0: the start, or a fair start's last)."""
    from blowbyblow.projections.disputes import after_command, commands_played

    events = [e.event for e in _events(store, battle)]
    found = after_command(events, command, store.version(battle))
    if found is None:
        played = commands_played(events)
        last = played[-1].index if played else 0
        fail(f"--command: expected 0 to {last} (the commands that stand), not {command}")
    return found


def print_json_log(events: Iterable[LoggedEvent], voided: list[VoidedCommand]) -> None:
    """JSON Lines: position, type, rule, event, hash; and for an event of a voided command,
    ``voided_at``, the position of its ``CommandVoided``."""
    for logged in events:
        ev = logged.event
        line: dict[str, Any] = {"position": logged.position, "type": type(ev).__name__}
        if isinstance(ev, RuleEvent):
            line["rule"] = ev.rule
        line["event"] = to_builtins(ev)
        line["hash"] = logged.hash.hex()
        void = next((v for v in voided if v.covers(logged.position)), None)
        if void is not None:
            line["voided_at"] = void.voided_at
        typer.echo(msgspec.json.encode(line).decode())


def print_struck_log(
    events: Iterable[LoggedEvent], voided: list[VoidedCommand], bad: int | None = None
) -> None:
    """The log with each voided command's events struck through: Rich's strike style on a
    terminal, a plain ``[voided]`` mark otherwise (pipes, files, screen readers)."""
    from rich.text import Text

    ruleset, events = system_of(events)
    if ruleset is None:
        return
    out = console()
    for logged in events:
        text = narrate(ruleset, logged.event)
        void = next((v for v in voided if v.covers(logged.position)), None)
        prefix = f"{logged.position:>5}{BAD if logged.position == bad else '  '}"
        if void is None:
            print_wrapped(out, prefix, text, LOG_INDENT)
            continue
        why = f"  (voided at {void.voided_at} by {void.by}: {void.reason})"
        tail = why if logged.position == void.first else ""
        if out.is_terminal:
            line = Text()
            line.append(text, style="strike")
            line.append(tail)
        else:
            line = Text(f"[voided] {text}{tail}")
        print_wrapped(out, prefix, line, LOG_INDENT)


@app.command("at", cls=NumbersCommand)
def cmd_at(
    position: Annotated[
        str | None,
        typer.Argument(
            help="Event position (1 = the battle's start); with --command, leave it out.",
            show_default=False,
        ),
    ] = None,
    battle: Annotated[
        str | None, typer.Argument(help="Battle id, id prefix or label (default: the latest).")
    ] = None,
    command: Annotated[
        int | None,
        typer.Option(
            "--command",
            help="Step by command: the state right after command N (as `bxb log` "
            "numbers the commands that stand; 0: before the first).",
        ),
    ] = None,
    as_json: Annotated[
        bool, typer.Option("--json", help="One JSON object: the battle, the position, the state.")
    ] = False,
) -> None:
    """The state of a battle right after the event at POSITION (time travel), or right after
    command N (--command N). Voided commands are not played: at a position inside one, the
    state is the state before it. Reads the nearest snapshot and the events after it, never the
    whole battle (--command reads the battle's events to find where command N ends)."""
    if command is not None and position is not None and battle is None:
        position, battle = None, position  # `bxb at --command 3 BATTLE`
    if (position is None) == (command is None):
        fail("give a POSITION or --command N (one of them)")
    at_position = 0
    if position is not None:
        try:
            at_position = int(position)
        except ValueError:
            fail(f"invalid value for 'position': '{position}' is not a whole number (1: the start)")
    store = open_store()
    bid = _battle(store, battle)
    if command is not None:
        at_position = _after_command(store, bid, command)
    try:
        require_position(store, bid, at_position, "position")
        at = store.state_at(bid, at_position)
    except BlowByBlowError as e:
        unreadable(e)
    except ValueError as e:
        fail(f"{e} (run `bxb verify` for details)")
    if as_json:
        typer.echo(as_json_line(at))
        return
    header, texts = as_text(at)  # what the quick path prints too (cli/quick.py)
    typer.echo(header)
    for text in texts:
        say_lines(text)
