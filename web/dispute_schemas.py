"""What the JSON API takes and gives for a dispute (docs/judging.md, Disputes): a player's flag,
a judge's ruling, note and fork, and a battle's family. Who flags, rules or forks is the
token's, never text the request gives; every text is bounded."""

from __future__ import annotations

from typing import Annotated, Literal

import msgspec

from blowbyblow.replay.evidence.receipts import Receipt
from blowbyblow.web.schemas import EventRow, TablePlace

REASON_MAX = 300  # characters of a flag's or ruling's reason: a sentence or two
NOTE_MAX = 1000  # characters of a judge's note
NAME_MAX = 80  # characters of the name or side a flag may add
KEY_MAX = 200  # characters of a roll's or question's key (c3/hit/stub-gun/lia)
FACES_MAX = 100  # dice of one corrected roll

Reason = Annotated[str, msgspec.Meta(max_length=REASON_MAX)]


class FlagRequest(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    """A player flags command ``command`` (its number, as the log numbers the commands that
    stand) as disputed, and says why. Who flags is the token's (``table 2 of spring``); ``by``
    may add a name or side, kept as a note in the reason."""

    command: int
    reason: Reason
    by: Annotated[str, msgspec.Meta(max_length=NAME_MAX)] = ""


class RulingRequest(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    """A judge's ruling that command ``command`` stands as played (to change anything, fork)."""

    command: int
    reason: Reason


class NoteRequest(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    """A judge's note on the event at ``position``."""

    position: int
    text: Annotated[str, msgspec.Meta(max_length=NOTE_MAX)]


class ChangeBody(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    """What a fork changes: ``die`` (``key`` and its corrected ``values``), ``choice``
    (``key`` and its ``answer``), ``void`` (``command``, not played), ``ruling`` (``name`` and
    its ``value``), or ``rewind`` (nothing: the battle goes back to the position)."""

    kind: Literal["die", "choice", "void", "ruling", "rewind"] = "rewind"
    key: Annotated[str, msgspec.Meta(max_length=KEY_MAX)] = ""
    values: Annotated[
        list[Annotated[int, msgspec.Meta(ge=1, le=1000)]], msgspec.Meta(max_length=FACES_MAX)
    ] = []
    answer: Annotated[str, msgspec.Meta(max_length=KEY_MAX)] = ""
    command: int = 0
    name: Annotated[str, msgspec.Meta(max_length=KEY_MAX)] = ""
    value: Annotated[str, msgspec.Meta(max_length=KEY_MAX)] = ""


class ForkRequest(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    """Rewind the battle to ``position`` (or to just before command ``before``), with one
    ``change``, and go on in a child battle; ``preview``: work it out, write nothing."""

    change: ChangeBody = msgspec.field(default_factory=ChangeBody)
    reason: Reason = ""
    position: int | None = None
    before: int | None = None
    preview: bool = False


class DisputeResult(msgspec.Struct, kw_only=True):
    """A flag, ruling or note written: its row in the log, the battle's new version, and the
    server's receipt for the log's head (None without a signing key)."""

    battle: str
    position: int
    version: int
    row: EventRow
    receipt: Receipt | None = None


class ForkResult(msgspec.Struct, kw_only=True):
    """A fork (``written``) or its preview (nothing written): the child's id, how many of the
    parent's commands it kept as played and replayed under the change, why the replay stopped
    (the table plays on live from there; "" when none was left), the child's rows from the
    first replayed command on, and its state at the end in words; ``place``: the table that
    goes on in the child."""

    parent: str
    child: str
    written: bool
    position: int
    change: str
    kept: int
    replayed: int
    stopped: str
    disputed: int  # the command the ruling is about (0: none)
    rows: list[EventRow] = []
    state: str = ""
    place: TablePlace | None = None


class FamilyMember(msgspec.Struct, kw_only=True):
    """A battle of a family: where it came from (``parent``; None for the root) and how, in
    words, and the child that supersedes it (None: it goes on)."""

    battle: str
    label: str
    parent: str | None
    how: str
    superseded_by: str | None
    version: int
    depth: int


class Family(msgspec.Struct, kw_only=True):
    """The battles a battle was forked or re-run from and those from it, the root first, each
    after its parent; ``goes_on_in``: the one its table plays on in."""

    battle: str
    goes_on_in: str
    members: list[FamilyMember]


class CommandStep(msgspec.Struct, kw_only=True):
    """Where a position stands among the commands (the viewer steps by command): ``command``,
    the number of the command it falls in (0: the battle's start), issued at ``issued`` (0:
    none); ``previous``, the position to step back to (this command's start when inside it,
    else the command before's); ``next``, the next command's start (None: none after)."""

    position: int
    of: int
    command: int
    issued: int
    previous: int | None
    next: int | None


class Annotation(msgspec.Struct, kw_only=True):
    """A flag, ruling or note, at ``position``, about the event at ``about`` (a flag and a
    ruling: their command's ``CommandIssued``; a note: its event; 0: the battle as a whole)."""

    position: int
    about: int
    type: str
    text: str


__all__ = [
    "Annotation",
    "ChangeBody",
    "CommandStep",
    "DisputeResult",
    "Family",
    "FamilyMember",
    "FlagRequest",
    "ForkRequest",
    "ForkResult",
    "NoteRequest",
    "RulingRequest",
]
