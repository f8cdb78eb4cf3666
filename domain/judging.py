"""The engine's own events, beside the game systems': what judges and fair dice add to a battle's
log. A seal (``BattleSealed``) closes a battle with a signed checkpoint; a fair battle records
its seed escrowed to the judges (``SeedEscrowed``) and each side's contribution
(``ContributionGiven``). At a dispute, a player flags a command (``CommandFlagged``), a judge
rules (``RulingGiven``, signed), notes (``NoteAdded``, signed) and forks: a child battle's
position 2 links it to its parent (``BattleForked``, signed). Pure data: signing, checking and opening them is the evidence room's
work (``replay/evidence/``)."""

from __future__ import annotations

import msgspec

from blowbyblow.domain.core import BlowByBlowError, Event


class Checkpoint(msgspec.Struct, frozen=True, kw_only=True):
    """What a seal signs: the battle, how many events precede the seal, the hash of the last of
    them, and (fair mode) the revealed dice seed."""

    algorithm: str
    battle: str
    length: int
    last_hash: str  # hex
    seed: str | None = None


class BattleSealed(Event, frozen=True, kw_only=True):
    """The battle is closed: its checkpoint, signed."""

    checkpoint: Checkpoint
    public_key: str  # hex of the raw 32-byte Ed25519 public key
    signature: str  # hex


class EscrowBox(msgspec.Struct, frozen=True, kw_only=True):
    """The seed encrypted to one judge's escrow key."""

    judge: str  # hex of the judge's X25519 escrow public key
    sealed: str  # hex of HPKE's encapsulated key followed by the ciphertext


class SeedEscrowed(Event, frozen=True, kw_only=True):
    """Position 2 of a fair battle: its secret seed, readable only with a judge's private key
    (``bxb-escrow-v1``, docs/judging.md), so whoever seals it can reveal it from the store."""

    algorithm: str
    boxes: tuple[EscrowBox, ...]


class ContributionGiven(Event, frozen=True, kw_only=True):
    """A side's own value, given after the seed was committed: the dice depend on it."""

    side: str
    value: str


class JudgingError(BlowByBlowError):
    """A seal, a key, an escrow or a kept secret that cannot be made, read or trusted."""


# --- disputes at the table (docs/judging.md, Disputes) ----------------------------------------


class CommandFlagged(Event, frozen=True, kw_only=True):
    """A player says command ``index`` (its ``CommandIssued`` at ``position``) is disputed, and
    why, and calls a judge. An annotation: nothing is played or undone by it."""

    index: int
    position: int
    by: str
    reason: str


class DieCorrected(msgspec.Struct, frozen=True, kw_only=True, tag="die"):
    """A change a fork makes: the roll ``key`` (as the log keys it: ``c3/hit/1``) shows
    ``values`` instead of what was recorded (a die typed wrong)."""

    key: str
    values: tuple[int, ...]


class ChoiceCorrected(msgspec.Struct, frozen=True, kw_only=True, tag="choice"):
    """A change a fork makes: the question ``key`` (``c3/step8``) is answered ``answer``."""

    key: str
    answer: str


class CommandDropped(msgspec.Struct, frozen=True, kw_only=True, tag="void"):
    """A change a fork makes: command ``index`` of the parent is not played (a judge's void: the
    commands after it are played again, each taking the number before its own)."""

    index: int


class RulingChanged(msgspec.Struct, frozen=True, kw_only=True, tag="ruling"):
    """A change a fork makes: the ruling ``name`` takes ``value`` (for the whole child battle;
    the commands kept before the fork must come out as they were)."""

    name: str
    value: str


class Rewound(msgspec.Struct, frozen=True, kw_only=True, tag="rewind"):
    """A change a fork makes: nothing after the fork position is played again; the table plays
    on from there."""


# The source a die corrected by a judge's fork is recorded with: verification accepts it only
# where the child's signed link names that roll and those values.
CORRECTED_BY_JUDGE = "judge"

Change = DieCorrected | ChoiceCorrected | CommandDropped | RulingChanged | Rewound


class Decision(msgspec.Struct, frozen=True, kw_only=True):
    """What a judge signs when ruling (``bxb-ruling-v1``): in ``battle``, after its ``length``
    events (the last of them hashing to ``last_hash``), about command ``command`` (0: none;
    issued at ``command_position``), ``decision`` (``stands``, ``corrected``, ``rewound``,
    ``ruling-changed``) by ``judge``, because ``reason``. A decision other than ``stands`` names
    the ``child`` battle that goes on instead, forked at ``position`` with ``change``."""

    algorithm: str
    battle: str
    length: int
    last_hash: str  # hex
    command: int
    command_position: int  # where that command is issued (0: none)
    decision: str
    judge: str
    reason: str
    position: int = 0
    change: Change | None = None
    child: str | None = None


class RulingGiven(Event, frozen=True, kw_only=True):
    """A judge's ruling, signed with the judge's Ed25519 key (as a seal is)."""

    ruling: Decision
    public_key: str  # hex of the raw 32-byte Ed25519 public key
    signature: str  # hex


class Note(msgspec.Struct, frozen=True, kw_only=True):
    """What a judge signs when noting (``bxb-note-v1``): ``text`` about the event at
    ``position`` of ``battle``."""

    algorithm: str
    battle: str
    position: int
    judge: str
    text: str


class NoteAdded(Event, frozen=True, kw_only=True):
    """A judge's note attached to an event, signed with the judge's key."""

    note: Note
    public_key: str
    signature: str


class ForkLink(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True):
    """What a judge signs when forking (``bxb-fork-v1``): ``battle`` (the child) goes on from
    ``parent`` as it stood at ``position`` (the parent's record there hashing to
    ``parent_hash``), under ``change``; ``replayed`` of the parent's commands after the fork were
    played again, and ``stopped`` says why the replay stopped before the next one ("" when none
    was left). ``dice``, for a fork of a fair battle: the commitment (``bxb-commit-v1``) to the
    parent's dice seed, from which, with the child's id and its sides' new values, the child's
    own dice are drawn (docs/dice.md, Fair dice in a fork); the child's seal reveals that seed.
    Left out when empty, so a link signed before it existed reads and verifies as it was."""

    algorithm: str
    battle: str
    parent: str
    position: int
    parent_hash: str  # hex
    change: Change
    judge: str
    reason: str
    replayed: int
    stopped: str
    dice: str = ""  # hex; "" for a fork of seeded or physical dice


class BattleForked(Event, frozen=True, kw_only=True):
    """Position 2 of a child battle: its link to the parent, signed by the judge who forked."""

    link: ForkLink
    public_key: str
    signature: str


# Events that annotate a battle (after its start), played by nobody: every fold ignores them,
# verification checks them apart from the commands.
ANNOTATION_TYPES: tuple[type[Event], ...] = (CommandFlagged, RulingGiven, NoteAdded)

JUDGE_EVENT_TYPES: tuple[type[Event], ...] = (
    BattleSealed,
    SeedEscrowed,
    ContributionGiven,
    *ANNOTATION_TYPES,
    BattleForked,
)


__all__ = [
    "ANNOTATION_TYPES",
    "CORRECTED_BY_JUDGE",
    "JUDGE_EVENT_TYPES",
    "BattleForked",
    "BattleSealed",
    "Change",
    "Checkpoint",
    "ChoiceCorrected",
    "CommandDropped",
    "CommandFlagged",
    "ContributionGiven",
    "Decision",
    "DieCorrected",
    "EscrowBox",
    "ForkLink",
    "JudgingError",
    "Note",
    "NoteAdded",
    "Rewound",
    "RulingChanged",
    "RulingGiven",
    "SeedEscrowed",
]
