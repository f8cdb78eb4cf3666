"""The judges' toolkit: ``bxb verify``, ``keys new``, ``seal``, ``export``, ``import``, ``whatif``,
``diff``, ``void``."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from blowbyblow.cli.app import (
    STDIO,
    KeyOption,
    NumbersCommand,
    _battle,
    _events,
    _verdict,
    app,
    console,
    fail,
    open_store,
    print_wrapped,
    read_checked,
    read_input,
    readable,
    say,
    say_lines,
    write_output,
)
from blowbyblow.cli.evidence import (
    load_receipts,
    receipt_keys,
    show_checkpoint,
    show_receipts,
    witnessing,
)
from blowbyblow.cli.numbers import require_command
from blowbyblow.domain.core import BattleStarted, BlowByBlowError, Event
from blowbyblow.domain.judging import BattleSealed
from blowbyblow.replay.battles.battle import Battle
from blowbyblow.replay.battles.diff import diff_battles
from blowbyblow.replay.battles.whatif import parse_dice, parse_rulings, what_if
from blowbyblow.replay.engine.narrate import narrate
from blowbyblow.replay.engine.registry import get_game_system
from blowbyblow.replay.evidence.export import ExportError, export_stream, read_export
from blowbyblow.replay.evidence.seals import (
    default_key_dir,
    key_files,
    load_private_key,
    load_public_key,
    new_keys,
    write_public_keys,
)
from blowbyblow.replay.evidence.verify import verify_battle
from blowbyblow.replay.store.log import LoggedEvent

if TYPE_CHECKING:
    from rich.console import Console


def _trusted(public_keys: list[str] | None, option: str = "--public-key") -> frozenset[str] | None:
    if not public_keys:
        return None
    try:
        return frozenset(load_public_key(k) for k in public_keys)
    except BlowByBlowError as e:
        fail(f"{option}: {e}")


@app.command("verify")
def cmd_verify(  # noqa: PLR0913 - typer makes each parameter a command-line option
    battle: Annotated[
        str | None, typer.Argument(help="Battle id, prefix or label (default: every battle).")
    ] = None,
    file: Annotated[
        Path | None,
        typer.Option(
            "--file", help="Verify an exported file (-: standard input) instead of the store."
        ),
    ] = None,
    public_key: Annotated[
        list[str] | None,
        typer.Option(
            "--public-key", help="Require a seal by this key (hex, or a .pub file); repeatable."
        ),
    ] = None,
    receipt: Annotated[
        list[Path] | None,
        typer.Option(
            "--receipt",
            help="A file of receipts (`bxb receipt`), or a witnessed receipt (`bxb root --proof "
            "BATTLE --checkpoint FILE`; checked with --log-key and --witnesses); -: standard "
            "input: check the log still holds each receipted head; repeatable.",
        ),
    ] = None,
    receipt_key: Annotated[
        list[str] | None,
        typer.Option("--receipt-key", help="Accept only receipts signed by this key; repeatable."),
    ] = None,
    ruling_key: Annotated[
        list[str] | None,
        typer.Option(
            "--ruling-key",
            help="The judge's public key (hex, or a .pub file): refuse a ruling, note or fork "
            "signed by any other; repeatable.",
        ),
    ] = None,
    checkpoint: Annotated[
        Path | None,
        typer.Option(
            "--checkpoint",
            help="A round's cosigned root (`bxb root --witnesses`): check its signature "
            "(--log-key), its quorum of cosignatures (--witnesses) and that the store's first "
            "battles still give it.",
        ),
    ] = None,
    log_key: Annotated[
        str | None,
        typer.Option("--log-key", help="With --checkpoint or witnessed receipts: the log's key."),
    ] = None,
    witnesses: Annotated[
        Path | None,
        typer.Option(
            "--witnesses",
            help="With --checkpoint or witnessed receipts: the witness policy whose quorum "
            "must have cosigned.",
        ),
    ] = None,
) -> None:
    """Re-adjudicate every command from its recorded dice and choices and compare with the log;
    check the hash chain, the battle id, the seal, and every die against the battle's dice mode;
    with --receipt, check the log against receipts kept by the players; with --checkpoint, the
    store against a root its witnesses cosigned. Exit 0 when all agree, 1 naming the first event
    that differs or cannot be read, or the receipt or checkpoint the log contradicts."""
    trusted = _trusted(public_key)
    judges = _trusted(ruling_key, "--ruling-key")
    receipts, signers = load_receipts(receipt or []), receipt_keys(receipt_key)
    if file is not None and checkpoint is not None:
        fail("--checkpoint checks a store's battles against a round's root, not an export")
    witnessed = witnessing(log_key, witnesses, receipts, checkpoint is not None)
    if file is not None:
        read = read_export(read_input(file, "--file"), trusted, judges)
        name = "standard input" if str(file) == STDIO else readable(str(file))
        typer.echo(_verdict(read.report, unread=name))
        if not show_receipts(read.events, receipts, signers, witnessed=witnessed):
            raise typer.Exit(1)
        if not read.report.ok:
            raise typer.Exit(1)
        return
    store = open_store()
    targets = (
        [_battle(store, battle)] if battle is not None else [b.battle for b in store.battles()]
    )
    if not targets and not receipts:
        fail("the store holds no battles yet (try `bxb demo`)")
    failed = 0
    for i, bid in enumerate(targets, start=1):
        report = verify_battle(store, bid, trusted_keys=trusted, judge_keys=judges)
        prefix = f"[{i}/{len(targets)}] " if len(targets) > 1 else ""
        typer.echo(prefix + _verdict(report))
        failed += not report.ok
    if len(targets) > 1:
        typer.echo(f"{len(targets) - failed} of {len(targets)} battles verified")
    only = targets[0] if battle is not None else None
    held = show_receipts(store, receipts, signers, only=only, witnessed=witnessed)
    if checkpoint is not None:
        assert witnessed is not None
        held = show_checkpoint(store, checkpoint, witnessed) and held
    if failed or not held:
        raise typer.Exit(1)


keys_app = typer.Typer(
    help="A judge's keys: one Ed25519 private key signs seals; the escrow key fair battles' "
    "seeds are encrypted to is derived from it.",
    no_args_is_help=True,
)
app.add_typer(keys_app, name="keys")


def _show_keys(private: Path, public: Path, escrow: Path) -> None:
    typer.echo(f"private key: {private} (yours alone: it signs seals and opens escrowed seeds)")
    typer.echo(f"public key:  {public} ({public.read_text().strip()}; for --public-key)")
    typer.echo(f"escrow key:  {escrow} ({escrow.read_text().strip()}; for record --fair)")


@keys_app.command("new")
def cmd_keys_new(
    directory: Annotated[
        Path | None,
        typer.Option(
            "--dir",
            help=f"Where to write NAME.key, NAME.pub and NAME.escrow.pub (default "
            f"{default_key_dir()}); a folder only you can open.",
        ),
    ] = None,
    name: Annotated[
        str, typer.Option("--name", help="The files' name: NAME.key, NAME.pub, NAME.escrow.pub.")
    ] = "judge",
) -> None:
    """Make a new key pair: the private key file (mode 0600, in a folder of mode 0700) and the
    two public keys to hand out, for checking seals and for escrowing fair seeds."""
    try:
        files = new_keys(directory or default_key_dir(), name)
    except BlowByBlowError as e:
        fail(str(e))
    _show_keys(*files)


@keys_app.command("public")
def cmd_keys_public(
    key: KeyOption = None,
) -> None:
    """Write NAME.pub and NAME.escrow.pub again beside a private key NAME.key (for a key made
    before escrow keys existed, or public files lost) and show them."""
    path = key or default_key_dir() / "judge.key"
    try:
        files = key_files(path)
        write_public_keys(files, load_private_key(path))
    except (BlowByBlowError, OSError) as e:
        fail(str(e))
    _show_keys(*files)


@app.command("seal")
def cmd_seal(
    battle: Annotated[
        str | None, typer.Argument(help="Battle id, prefix or label (default: the latest).")
    ] = None,
    key: KeyOption = None,
) -> None:
    """Verify a battle, then close it with a signed checkpoint. A fair battle's seed is opened
    from the escrow in the store with the key, checked against its commitment and revealed; the
    battle must verify with it, every die recomputed. Needs only the key, on any machine."""
    store = open_store()
    bid = _battle(store, battle)
    try:
        logged = Battle(store).seal(bid, load_private_key(key or default_key_dir() / "judge.key"))
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
        Path | None,
        typer.Option("--out", "-o", help="File to write (default, or -: standard output)."),
    ] = None,
) -> None:
    """Write a battle as a self-contained JSON Lines record (setup, events, rules, hash chain, seal)."""
    store = open_store()
    bid = _battle(store, battle)
    checked = read_checked(store, bid)  # read once to check it, then again as it is written
    try:
        lines = export_stream(store, bid, checked.first, checked.last, checked.records)
    except BlowByBlowError as e:
        fail(str(e))
    write_output(out, lines)
    if out is not None and str(out) != STDIO:
        typer.echo(f"exported battle {bid} to {out}", err=True)


@app.command("import")
def cmd_import(
    file: Annotated[Path, typer.Argument(help="An exported JSON Lines file (-: standard input).")],
    public_key: Annotated[
        list[str] | None, typer.Option("--public-key", help="Require a seal by this key.")
    ] = None,
) -> None:
    """Verify an exported battle completely, then add it to the store; a file that fails is refused
    and nothing is written."""
    trusted = _trusted(public_key)
    text = read_input(file, "exported file")
    store = open_store(create=True)
    try:
        read = Battle(store).import_(text, trusted)
    except (ExportError, BlowByBlowError) as e:
        fail(str(e), code=1)
    typer.echo(
        f"imported battle {read.battle} ({read.report.label!r}, {len(read.events)} events), verified"
    )


def _told(out: Console, prefix: str, text: str) -> None:
    """One event in words, whole, wrapped under its start (``prefix`` is its position)."""
    print_wrapped(out, prefix, text.strip())


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
    die: Annotated[
        list[str] | None,
        typer.Option(
            "--die",
            help="KEY=VALUES (e.g. c2/injury/nyx=3 or c1/hit/axe/nyx=4,6): a roll the original "
            "never made, for a battle of physical dice; repeatable.",
        ),
    ] = None,
) -> None:
    """Re-run a battle with the same dice and choices under other rulings; show where it diverges.
    A roll the original never made is drawn from the battle's seed, or, with physical dice,
    taken from --die (the re-run stops at the first one missing and names it)."""
    store = open_store()
    bid = _battle(store, battle)
    try:
        given = parse_dice(die or [])
        wi = what_if(_events(store, bid), parse_rulings(ruling or []), ruleset, given)
    except BlowByBlowError as e:
        fail(str(e))
    changed = ", ".join(ruling or []) or "(no ruling changed)"
    say(f"what-if of battle {bid} under {wi.ruleset.id}: {changed}", hang=4)
    if wi.divergence is None:
        typer.echo("no divergence: every event is the same under these rulings")
    else:
        p = wi.divergence
        typer.echo(f"first divergence at position {p} (A: the original, B: the what-if):")
        out = console()
        shown = wi.shown
        for q in range(max(2, p - 2), min(max(len(wi.original), len(shown)), p + 4) + 1):
            a = (
                narrate(wi.original_ruleset, wi.original[q - 1])
                if q <= len(wi.original)
                else "(ends)"
            )
            b = narrate(wi.ruleset, shown[q - 1]) if q <= len(shown) else "(ends)"
            # the original is the battle as played: its log position may differ (voided commands)
            moved = wi.log_position(q) != q and q <= len(wi.original)
            where = f"{q:>5}" + (f" (log {wi.log_position(q)})" if moved else "")
            if q < p:  # the same in both
                _told(out, f"{where}    ", a)
                continue
            _told(out, f"{where} A  ", a)
            _told(out, " " * len(where) + " B  ", b)
    if wi.fresh_dice:
        say(
            f"dice the original never rolled, drawn from the battle's seed: {', '.join(wi.fresh_dice)}",
            hang=4,
        )
    if wi.stopped:
        say(f"stopped: {wi.stopped}", hang=4)
    typer.echo("\nstate at the end, original:")
    say_lines(wi.original_ruleset.describe_state(wi.original_state))
    typer.echo("\nstate at the end, what-if:")
    say_lines(wi.ruleset.describe_state(wi.alternative_state))
    if save:
        if wi.stopped:
            fail("not saved: the re-run did not complete")
        try:
            saved = Battle(store).save(wi)
        except BlowByBlowError as e:
            fail(str(e))
        typer.echo(f"saved as battle {saved}")  # a what-if of the battle named above


@app.command("diff")
def cmd_diff(
    a: Annotated[str, typer.Argument(help="First battle.")],
    b: Annotated[str, typer.Argument(help="Second battle.")],
) -> None:
    """Compare two battles: first how they were set up (game system, label, dice, rulings,
    setup), then as played, event by event, showing the first divergent step of each, whole.
    Voided commands, a fair battle's escrow and contributions, a fork's link and the flags,
    rulings and notes are left out of both; positions are those of each battle's log."""
    store = open_store()
    ea, eb = _events(store, _battle(store, a)), _events(store, _battle(store, b))
    found = diff_battles(ea, eb)
    for line in found.start:
        say(line, hang=4)
    if found.divergence is None:
        left = found.left_out
        what = "voided commands, a fair start, a fork's link, notes"
        note = f" ({left} events left out: {what})" if left else ""
        typer.echo(f"play: identical{note}: {found.a.played} events")
        return
    pa, pb = found.a.position, found.b.position
    where = pa if pa == pb else f"{pa} of A, {pb} of B"
    typer.echo(
        f"play: first divergence at position {where} (A has {len(ea)} events, B has {len(eb)})"
    )
    out = console()
    for name, side, events in (("A", found.a, ea), ("B", found.b, eb)):
        _told(out, f"  {name} {side.position}: ", _step_words(events, side.event))
    raise typer.Exit(1)


def _step_words(events: list[LoggedEvent], event: Event | None) -> str:
    """An event of a battle in words; None: the battle ends before the divergence."""
    if event is None:
        return "(the battle ends before this)"
    first = events[0].event
    assert isinstance(first, BattleStarted)
    return narrate(get_game_system(first.ruleset), event).strip()


@app.command("void", cls=NumbersCommand)
def cmd_void(
    command: Annotated[
        int,
        typer.Argument(
            help="The command's number, as `bxb log` shows it ('Command 3'): the last command "
            "that stands (void later ones first, newest first)."
        ),
    ],
    reason: Annotated[str, typer.Option("--reason", help="Why it is voided (recorded).")],
    battle: Annotated[
        str | None,
        typer.Option("--battle", help="Battle id, prefix or label (default: the latest)."),
    ] = None,
    by: Annotated[
        str | None,
        typer.Option("--by", help="Who voids it (recorded; default: your login name)."),
    ] = None,
) -> None:
    """Void a command: record that it is not played, who voided it and why. Nothing is deleted:
    `bxb log` shows it struck through, and every read-back (`at`, verify, export, whatif, diff)
    leaves it out. Only the last command that stands may be voided."""
    store = open_store()
    bid = _battle(store, battle)
    events = require_command(store, bid, command, "command")
    door = Battle(store)
    try:
        door.keep(bid, events)  # read once: the void checks the store's head against it
        logged = door.void(bid, command, by=by or who_am_i(), reason=reason)
    except BlowByBlowError as e:
        fail(str(e), code=1)
    typer.echo(f"battle {bid}, position {logged.position}: {narrate_plain(logged)}")


def who_am_i() -> str:
    """Who is at the keyboard, for the record: the login name, or "player"."""
    return os.environ.get("USER") or os.environ.get("USERNAME") or "player"


def narrate_plain(logged: LoggedEvent) -> str:
    return narrate(get_game_system(logged.ruleset), logged.event)
