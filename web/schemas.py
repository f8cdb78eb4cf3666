"""What the JSON API takes and gives: msgspec Structs, from which the OpenAPI document is made.

Game data (a setup, a command, a state) is each game system's own; the API carries it as JSON
objects and checks it against the system's types (``GameSystem.setup_schema`` and
``command_schema`` describe them; ``GET /api/rulesets`` serves both)."""

from __future__ import annotations

from typing import Annotated, Any, Literal

import msgspec

from blowbyblow.domain.system import CommandOption, StateView
from blowbyblow.replay.battles.inputs import Need
from blowbyblow.replay.engine.scenario import MAX_ACTIONS, MAX_CHOICES, MAX_DICE, MAX_TEXT
from blowbyblow.replay.evidence.receipts import Receipt

Status = Literal["waiting", "playing", "finished", "sealed", "verify failed"]


def status_of(*, sealed: bool, failed: bool, finished: bool, commands: int) -> Status:
    """A battle's status as the pages and the API say it: sealed, else verify failed (verify
    found a problem at its present version), else finished (the table said so, or the rules
    allow no more command), else playing once a command stands."""
    if sealed:
        return "sealed"
    if failed:
        return "verify failed"
    if finished:
        return "finished"
    return "playing" if commands else "waiting"


class ErrorBody(msgspec.Struct, kw_only=True):
    """Every refusal: the HTTP status, the field at fault, the rule it breaks, in words."""

    status: int
    field: str  # "dice", "command.targets", "Authorization", "version", ...
    rule: str  # the rule broken: a rulebook section ("N23 CC 5") or the API's own rule
    message: str
    written: int = 0  # events written: always 0 for a refusal


# --- requests ---------------------------------------------------------------------------------

# Free text a request may carry, held to the bounds a scenario file is (docs/scenarios.md,
# Bounds): refused with 400 naming the field before anything is read further or written.
Text = Annotated[str, msgspec.Meta(max_length=MAX_TEXT)]
TextMap = Annotated[dict[Text, Text], msgspec.Meta(max_length=MAX_CHOICES)]
# A battle's version as a client read it: its count of events, never negative (400 naming it).
Version = Annotated[int, msgspec.Meta(ge=0)]


class StartBattle(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    """A new battle at a table. ``setup`` omitted: the game system's demo setup."""

    ruleset: Text
    label: Text = ""
    round: int = 1
    rulings: TextMap = {}
    setup: dict[str, Any] | None = None
    seed: Text | None = None  # seeded digital dice; None: physical dice typed at the table
    # Provably fair dice: a secret seed committed and escrowed to the judges, mixed with a value
    # from each side (given here or later, POST .../contributions, before the first command).
    fair: bool = False
    contributions: TextMap = {}  # side -> value, with ``fair``
    # a whole scenario at once, as `bxb record` does
    commands: Annotated[list[dict[str, Any]], msgspec.Meta(max_length=MAX_ACTIONS)] = []
    # physical dice for those commands, in the order they are asked for
    dice: Annotated[list[int], msgspec.Meta(max_length=MAX_DICE)] = []
    choices: TextMap = {}  # answers for those commands' choices, by key


class PlayCommand(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    """One command: as the game's JSON (``command``) or as a legal option with picks.

    ``dice``: physical dice, in the order the rules ask for them (a seeded battle rolls its own).
    ``choices``: answers by key (``c3/step8`` or ``step8``). ``ask``: True to be asked each
    unanswered choice (the answer comes back as ``needs``); False takes the rules' default.
    ``review``: True to have a complete command back as ``review`` (its events, nothing
    written) for the players to check what they typed; sent again without it, it is written.
    A fair battle's command is written at once (its dice are secret until then).
    Nothing is written until the command is complete."""

    version: Version | None = None  # the battle's version the player saw; stale or ahead: 409
    command: dict[str, Any] | None = None
    option: int | None = None  # index into GET /legal at that version
    picks: TextMap = {}
    dice: Annotated[list[int], msgspec.Meta(max_length=MAX_DICE)] = []
    choices: TextMap = {}
    ask: bool = False
    review: bool = False
    # The table page's own request: a command written comes back with the page's parts
    # rendered (``PlayResult.page``), so the page shows the battle as it stands without
    # loading itself again.
    page: bool = False


VOID_REASON_MAX = 500  # characters of a void's reason: a sentence or two, not a file
VOID_NAME_MAX = 80  # characters of the name a void may add


class VoidRequest(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    """Void a command: the number of the last command that stands (as the log numbers it), and
    why. Who voids it is the token's (the table or the judge); ``by`` may add a name, kept as a
    note in the reason, never as who voided it."""

    command: int
    reason: Annotated[str, msgspec.Meta(max_length=VOID_REASON_MAX)]
    by: Annotated[str, msgspec.Meta(max_length=VOID_NAME_MAX)] = ""
    version: Version | None = None  # the battle's version the player saw; stale or ahead: 409


class Contributions(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    """A fair battle's contributions: each side's own value, before the first command."""

    contributions: TextMap


class WhatIfRequest(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    rulings: TextMap = {}
    ruleset: Text | None = None
    save: bool = False


class ImportRequest(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    text: str  # an export, as `bxb export` writes it
    public_keys: Annotated[list[Text], msgspec.Meta(max_length=MAX_CHOICES)] = []


# --- responses --------------------------------------------------------------------------------


class ModifierRow(msgspec.Struct, kw_only=True):
    value: int
    cause: str
    rule: str
    citation: str


class EventRow(msgspec.Struct, kw_only=True):
    """One logged event as a judge reads it: its words, rule and citation, every modifier and
    every number it used (natural roll, target number, ...)."""

    position: int
    type: str
    text: str
    rule: str = ""
    citation: str = ""
    modifiers: list[ModifierRow] = []
    numbers: dict[str, int] = {}
    command: int = 0  # the command it belongs to (0: the battle's start)
    event: dict[str, Any] = {}
    hash: str = ""
    voided_at: int = 0  # the position of the CommandVoided that voids its command (0: stands)
    void_reason: str = ""


class TablePlace(msgspec.Struct, kw_only=True):
    tournament: str
    table: int
    round: int


class FairInfo(msgspec.Struct, kw_only=True):
    """A fair battle before its seal: the seed's commitment (the seed stays secret), the sides,
    what each has given, and who is still awaited."""

    commitment: str
    sides: list[str]
    contributions: dict[str, str]
    missing: list[str]


class BattleSummary(msgspec.Struct, kw_only=True):
    battle: str
    label: str
    ruleset: str
    title: str
    version: int
    commands: int
    dice: str  # physical | seeded | fair
    rulings: dict[str, str]
    status: Status
    place: TablePlace | None = None
    origin: str | None = None
    last_command: int = 0  # the last command that stands (the one a void names); 0: none
    voided: int = 0  # commands voided
    fair: FairInfo | None = None  # a fair battle's commitment and contributions


class PlayResult(msgspec.Struct, kw_only=True):
    """``played``: the command's events, written; ``needs``: nothing written, the rules ask for
    ``need`` first; ``review``: the events the complete command would write, nothing written."""

    status: Literal["played", "needs", "review"]
    version: int
    events: list[EventRow] = []
    need: Need | None = None
    command: dict[str, Any] | None = None
    # ``played``: the server's signed receipt for the battle's head after this command (None
    # when the server has no signing key). Keep it: `bxb verify --receipt` checks a log with it.
    receipt: Receipt | None = None
    # ``played``: the commands the rules allow next, at the new version (what ``GET legal``
    # would answer now): a phone plays on from them without reading the battle again.
    next: LegalOptions | None = None
    # ``played``, asked with ``page``: the table page's parts as they stand after the command
    # (HTML, rendered by the page's own templates).
    page: TableParts | None = None


class TableParts(msgspec.Struct, kw_only=True):
    """The parts of the table page a command changes, each rendered by the template the page
    itself uses (``web/templates/_table_*.html``): the page puts them in place."""

    last: str  # the command step by step (section #last), its rows those of the whole log too
    options: str  # the commands on offer next (the items of #options)
    void: str  # voiding the last command that stands (section #void-box)
    receipt: str  # the server's receipt (section #receipt-box)
    state: str  # the state after it (section #state)


class VoidResult(msgspec.Struct, kw_only=True):
    battle: str
    command: int  # the command voided
    position: int  # the CommandVoided's position
    version: int
    by: str
    reason: str
    receipt: Receipt | None = None


class ContributionsResult(msgspec.Struct, kw_only=True):
    battle: str
    version: int
    fair: FairInfo
    receipt: Receipt | None = None


class LegalOptions(msgspec.Struct, kw_only=True):
    battle: str
    version: int
    options: list[CommandOption]


class StateAt(msgspec.Struct, kw_only=True):
    """The state right after ``position`` (what ``bxb at`` prints), as the game's view, its text
    and its plain data."""

    battle: str
    position: int
    of: int
    event: EventRow
    view: StateView
    text: str
    state: Any


class ProblemBody(msgspec.Struct, kw_only=True):
    position: int
    kind: str
    message: str
    rule: str = ""
    citation: str = ""
    recorded: str = ""
    expected: str = ""


class VerifyResult(msgspec.Struct, kw_only=True):
    battle: str
    ok: bool
    label: str
    events: int
    commands: int
    dice_checked: int
    problem: ProblemBody | None = None
    notes: list[str] = []
    text: str = ""


class SealResult(msgspec.Struct, kw_only=True):
    battle: str
    position: int
    length: int
    last_hash: str
    public_key: str
    seed_revealed: bool


class WhatIfResult(msgspec.Struct, kw_only=True):
    battle: str
    ruleset: str
    rulings: dict[str, str]
    divergence: int | None
    original: list[EventRow]
    alternative: list[EventRow]
    original_state: str
    alternative_state: str
    stopped: str = ""
    fresh_dice: list[str] = []
    saved: str | None = None


class DiffResult(msgspec.Struct, kw_only=True):
    """Two battles compared as ``bxb diff`` does (``replay/battles/diff.py``): ``start``, how
    their starts differ, a line each; ``divergence``, the number of the first event as played
    that differs (None: play is the same), at log position ``a_position`` of A and
    ``b_position`` of B (one past the last event when that battle ends first), with each row."""

    a: str
    b: str
    divergence: int | None
    a_events: int
    b_events: int
    a_row: EventRow | None = None
    b_row: EventRow | None = None
    start: list[str] = []
    a_position: int = 0
    b_position: int = 0


class ImportResult(msgspec.Struct, kw_only=True):
    battle: str
    label: str
    events: int


class RulingInfo(msgspec.Struct, kw_only=True):
    """A ruling of a game system: the values it takes, its documented default, what it decides,
    the rulebook section it stands for, and why it is a ruling (``note``)."""

    name: str
    default: str
    choices: list[str]
    summary: str
    citation: str
    note: str = ""


class RulesetInfo(msgspec.Struct, kw_only=True):
    id: str
    title: str
    game: str
    version: str
    rulebook: str
    rulings: list[RulingInfo]
    setup_schema: dict[str, Any]
    command_schema: dict[str, Any]


class TableRow(msgspec.Struct, kw_only=True):
    table: int
    status: Status
    battle: BattleSummary | None = None
    battles: int = 0


class Dashboard(msgspec.Struct, kw_only=True):
    tournament: str
    name: str
    tables: list[TableRow]
    rounds: list[int]


class BulkResult(msgspec.Struct, kw_only=True):
    done: list[str]
    failed: dict[str, str] = {}
    verified: list[VerifyResult] = []
