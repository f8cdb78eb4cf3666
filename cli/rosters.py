"""``bxb roster``: an event's rosters, kept in the store per tournament (by player and name).

``import`` reads a roster file (the project's TOML or JSON format, docs/rosters.md, or a
BattleScribe ``.ros``/``.rosz``), ``list`` and ``export`` show and write them, ``edit`` records
what changed between rounds as edits (never retyped), ``history`` lists them. The register
itself is ``replay.rosters.register``; this module only reads arguments and prints."""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from blowbyblow.cli.app import (
    OPTS,
    STDIO,
    _missing_sqlite_file,
    app,
    fail,
    read_input,
    require_store,
    write_output,
)
from blowbyblow.cli.made import empty_file, register_to_read
from blowbyblow.domain.core import BlowByBlowError
from blowbyblow.replay.store.persistence import default_db_path

if TYPE_CHECKING:  # each command imports what it uses: `bxb --help` loads no roster code
    from blowbyblow.domain.roster import Edit, Roster
    from blowbyblow.replay.rosters.register import RosterRegister

roster_app = typer.Typer(
    help="An event's rosters: import, list, export, edit between rounds.", no_args_is_help=True
)
app.add_typer(roster_app, name="roster")

Tournament = Annotated[
    str, typer.Option("--tournament", "-t", help="The tournament's id (`bxb tournament list`).")
]
Player = Annotated[str, typer.Option("--player", "-p", help="The player whose roster it is.")]
Name = Annotated[str, typer.Option("--name", "-n", help="The roster's name.")]
BATTLESCRIBE = (".ros", ".rosz")


def _register(*, create: bool = False) -> RosterRegister:
    """The register on --db's store; only an import makes the store if there is none yet (a
    mistyped --db is named, not made empty)."""
    from blowbyblow.replay.rosters.register import RosterRegister

    if not create:
        require_store(OPTS.db)
    try:
        return RosterRegister(OPTS.db if create else register_to_read(OPTS.db, "bxb_rosters"))
    except ImportError as e:
        fail(f'--db: {e}: install with `pip install -e ".[postgres]"` for PostgreSQL')


def _known_tournament(slug: str) -> None:
    """Refuse (exit 2, nothing made) a tournament the store does not hold: a roster kept under
    it is on no tournament's rosters page, and a mistyped ``-t`` would keep it there unseen."""
    from blowbyblow.web.tournament import TournamentStore

    path = str(OPTS.db) if OPTS.db is not None else str(default_db_path())
    slugs: list[str] = []
    if _missing_sqlite_file(OPTS.db) is None and not empty_file(path):
        try:
            register = TournamentStore(register_to_read(OPTS.db, "bxb_tournaments"))
            slugs = [t.slug for t in register.tournaments()]
        except ImportError as e:
            fail(f'--db: {e}: install with `pip install -e ".[postgres]"` for PostgreSQL')
        except Exception as e:  # the database cannot be opened: say so in one line
            fail(f"--db: cannot open the store: {e}", code=1)
    if slug not in slugs:
        fail(
            f"--tournament: no tournament {slug!r} in this store; `bxb tournament list` lists "
            f"them, `bxb tournament new {slug}` makes one"
        )


def roster_from_file(path: Path, ruleset: str | None, player: str | None) -> Roster:
    """A roster from a file in the project's format (``ruleset``: the game system it must be
    for; ``player``: whose it is, if not the file's player), or a BattleScribe roster
    (``ruleset``: the game system its profiles are mapped onto), or a Yaktribe gang export
    (JSON with a ``gang``; ``ruleset``: the Necromunda it is for): each selection it could not
    map is printed on a line of its own, and kept in the roster's notes."""
    from blowbyblow.domain.roster import Roster
    from blowbyblow.replay.rosters.battlescribe import import_battlescribe
    from blowbyblow.replay.rosters.files import read_roster
    from blowbyblow.replay.rosters.yaktribe import import_yaktribe, is_yaktribe

    raw = read_input(path, "roster")
    source = "standard input" if str(path) == STDIO else str(path)  # as `bxb record -` says it
    lower = path.name.lower()
    imports = {
        "a BattleScribe roster": (lower.endswith(BATTLESCRIBE), import_battlescribe, "wh40k-2e"),
        "a Yaktribe gang": (
            lower.endswith(".json") and is_yaktribe(raw),
            import_yaktribe,
            "necromunda-legacy",
        ),
    }
    for kind, (found, make, other) in imports.items():
        if not found:
            continue
        if ruleset is None:
            fail(f"{source}: {kind} needs --ruleset (necromunda-2023 or {other})")
        imported = make(raw, source, ruleset, player or "")
        for line in imported.unmapped:
            typer.echo(f"not mapped: {line}", err=True)
        return imported.roster
    roster = read_roster(raw, source)
    if ruleset is not None and roster.ruleset != ruleset:
        fail(f"{source}: the roster is for {roster.ruleset}, not --ruleset {ruleset}", code=1)
    if player:
        roster = Roster(**{**_fields(roster), "player": player})
    return roster


def kept_roster(tournament: str, ref: str) -> Roster:
    """A roster kept for ``tournament``, named ``PLAYER/NAME``, as it stands now."""
    player, slash, name = ref.partition("/")
    if not slash or not player or not name:
        fail(f"--roster {ref!r}: with --tournament, expected PLAYER/NAME (`bxb roster list`)")
    return _register().get(tournament, player, name).roster


def _fields(roster: Roster) -> dict[str, Any]:
    return {f: getattr(roster, f) for f in roster.__struct_fields__}


def _members(roster: Roster) -> str:
    return ", ".join(f"{len(v)} {k}" for k, v in roster.forces.items())


@roster_app.command("import")
def cmd_import(
    file: Annotated[
        Path,
        typer.Argument(
            help="A roster: .toml or .json (docs/rosters.md), BattleScribe .ros/.rosz, or a "
            "Yaktribe gang export (.json)."
        ),
    ],
    tournament: Tournament,
    player: Annotated[
        str | None, typer.Option("--player", "-p", help="The player (default: the file's).")
    ] = None,
    ruleset: Annotated[
        str | None,
        typer.Option(
            "--ruleset", help="The game system (a BattleScribe roster is mapped onto it)."
        ),
    ] = None,
    replace: Annotated[
        bool, typer.Option("--replace", help="Keep it as a new version of a roster kept already.")
    ] = False,
) -> None:
    """Keep a roster for a tournament, by player and name, to use in every round."""
    try:
        roster = roster_from_file(file, ruleset, player)
        _known_tournament(tournament)
        kept = _register(create=True).add(tournament, roster, replace=replace)
    except BlowByBlowError as e:
        fail(str(e), code=1)
    typer.echo(
        f"kept {kept.roster.label} for {tournament}, version {kept.version}: "
        f"{_members(kept.roster)} ({kept.ruleset})"
    )


@roster_app.command("list")
def cmd_list(
    tournament: Annotated[
        str | None, typer.Option("--tournament", "-t", help="Only this tournament's rosters.")
    ] = None,
    player: Annotated[
        str | None, typer.Option("--player", "-p", help="Only this player's.")
    ] = None,
) -> None:
    """The rosters kept, each as it stands now."""
    try:
        kept = _register().rosters(tournament, player)
    except BlowByBlowError as e:
        fail(str(e), code=1)
    if not kept:
        typer.echo("no rosters kept yet (`bxb roster import FILE --tournament ID`)", err=True)
    for k in kept:
        typer.echo(
            f"{k.tournament}  {k.player}  {k.name!r}  {k.ruleset}  v{k.version}  "
            f"{_members(k.roster)}"
        )


@roster_app.command("export")
def cmd_export(  # noqa: PLR0913 - typer makes each parameter a command-line option
    tournament: Tournament,
    player: Player,
    name: Name,
    version: Annotated[
        int | None, typer.Option("--version", help="As it stood at this version (default: now).")
    ] = None,
    kind: Annotated[
        str | None, typer.Option("--format", help="toml or json (default: from --out, or toml).")
    ] = None,
    out: Annotated[
        Path | None, typer.Option("--out", "-o", help="File to write (default: standard output).")
    ] = None,
) -> None:
    """Write a kept roster in the project's format (`bxb new --roster` and `import` read it)."""
    from blowbyblow.replay.rosters.files import FORMATS, Format, format_of, write_roster

    chosen = kind or (format_of(str(out), b"") if out is not None else "toml")
    if chosen not in FORMATS:
        fail(f"--format: expected toml or json, not {chosen!r}")
    try:
        kept = _register().get(tournament, player, name, version)
    except BlowByBlowError as e:
        fail(str(e), code=1)
    fmt: Format = "json" if chosen == "json" else "toml"
    write_output(out, write_roster(kept.roster, fmt))


def _value(text: str) -> Any:
    """A value as typed: TOML (``4``, ``true``, ``["Melee"]``, ``"Krug"``), or else the text."""
    try:
        return tomllib.loads(f"v = {text}")["v"]
    except tomllib.TOMLDecodeError:
        return text


def parse_edits(sets: list[str], removes: list[str], adds: list[str]) -> list[Edit]:
    """``--set ID.FIELD=VALUE``, ``--remove ID``, ``--add KEY={ TOML table }`` as edits."""
    from blowbyblow.domain.roster import Add, Remove, SetField

    edits: list[Edit] = []
    for text in sets:
        target, eq, value = text.partition("=")
        ident, dot, field = target.strip().rpartition(".")
        if not eq or not dot or not ident or not field:
            fail(f"--set {text!r}: expected ID.FIELD=VALUE, e.g. krug.ws=4")
        edits.append(SetField(entry=ident, field=field, value=_value(value.strip())))
    edits += [Remove(entry=r) for r in removes]
    for text in adds:
        key, eq, table = text.partition("=")
        entry = _value(table.strip()) if eq else None
        if not isinstance(entry, dict) or not key.strip():
            fail(f'--add {text!r}: expected KEY={{ TOML table }}, e.g. fighters={{ id = "ulf" }}')
        edits.append(Add(to=key.strip(), value=entry))
    return edits


@roster_app.command("edit")
def cmd_edit(  # noqa: PLR0913 - typer makes each parameter a command-line option
    tournament: Tournament,
    player: Player,
    name: Name,
    set_: Annotated[
        list[str] | None,
        typer.Option("--set", help="ID.FIELD=VALUE: a new value (e.g. krug.ws=4, nyx.w=1)."),
    ] = None,
    remove: Annotated[
        list[str] | None, typer.Option("--remove", help="ID: an entry lost for good.")
    ] = None,
    add: Annotated[
        list[str] | None,
        typer.Option(
            "--add", help='KEY={ TOML table }: a new entry, e.g. fighters={ id = "ulf" }.'
        ),
    ] = None,
    reason: Annotated[str, typer.Option("--reason", help="Why (a lasting injury, ...).")] = "",
    round_: Annotated[
        int | None, typer.Option("--round", help="The round after which it changed.")
    ] = None,
) -> None:
    """Record what changed between rounds as edits (kept as the roster's history)."""
    from blowbyblow.replay.rosters.register import Change

    edits = parse_edits(set_ or [], remove or [], add or [])
    try:
        change = Change(tuple(edits), reason, round_)
        kept = _register().edit(tournament, player, name, change)
    except BlowByBlowError as e:
        fail(str(e), code=1)
    typer.echo(f"{kept.roster.label}: version {kept.version}, {_members(kept.roster)}")


@roster_app.command("history")
def cmd_history(tournament: Tournament, player: Player, name: Name) -> None:
    """Every version of a roster: its import, then each edit, why and after which round."""
    try:
        steps = _register().history(tournament, player, name)
    except BlowByBlowError as e:
        fail(str(e), code=1)
    from blowbyblow.domain.roster import edit_words

    for step in steps:
        after = f" after round {step.round}" if step.round is not None else ""
        what = "; ".join(edit_words(e) for e in step.edits) or "imported"
        why = f" ({step.reason})" if step.reason and step.edits else ""
        typer.echo(f"v{step.version}  {step.made}{after}: {what}{why}")
