"""The evidence of a dispute: a judge's rulings, notes and fork links signed with the judge's
Ed25519 key (as seals are, ``seals.py``), and the checks ``bxb verify`` makes of them: each
signature, what each names, and a child battle's link to its parent (the parent's record at the
fork position, its start, the commands the child kept, the ruling in the parent that names the
child). Signed bytes: the algorithm's name, 0x00, then the signed struct as MessagePack with
keys sorted (``bxb-ruling-v1``, ``bxb-note-v1``, ``bxb-fork-v1``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any
from uuid import UUID

import msgspec

from blowbyblow.domain.core import BattleStarted, CommandIssued, DiceRolled, Event
from blowbyblow.domain.judging import (
    CORRECTED_BY_JUDGE,
    BattleForked,
    CommandDropped,
    CommandFlagged,
    ContributionGiven,
    Decision,
    ForkLink,
    Note,
    NoteAdded,
    RulingChanged,
    RulingGiven,
)
from blowbyblow.projections.disputes import PlayedCommand, commands_played
from blowbyblow.replay.engine.codec import encode
from blowbyblow.replay.evidence.problems import Failed, Problem
from blowbyblow.replay.store.log import BattleStore, LoggedEvent, UnreadableEvent

if TYPE_CHECKING:
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

RULING_ALGORITHM = "bxb-ruling-v1"
NOTE_ALGORITHM = "bxb-note-v1"
FORK_ALGORITHM = "bxb-fork-v1"
DECISIONS = ("stands", "corrected", "rewound", "ruling-changed")

Signed = RulingGiven | NoteAdded | BattleForked


def _signed_bytes(algorithm: str, what: msgspec.Struct) -> bytes:
    return algorithm.encode() + b"\x00" + msgspec.msgpack.Encoder(order="sorted").encode(what)


def _sign(algorithm: str, what: msgspec.Struct, key: Ed25519PrivateKey) -> tuple[str, str]:
    from blowbyblow.replay.evidence.seals import public_hex

    return public_hex(key), key.sign(_signed_bytes(algorithm, what)).hex()


def sign_ruling(decision: Decision, key: Ed25519PrivateKey) -> RulingGiven:
    public, signature = _sign(RULING_ALGORITHM, decision, key)
    return RulingGiven(ruling=decision, public_key=public, signature=signature)


def sign_note(note: Note, key: Ed25519PrivateKey) -> NoteAdded:
    public, signature = _sign(NOTE_ALGORITHM, note, key)
    return NoteAdded(note=note, public_key=public, signature=signature)


def sign_link(link: ForkLink, key: Ed25519PrivateKey) -> BattleForked:
    public, signature = _sign(FORK_ALGORITHM, link, key)
    return BattleForked(link=link, public_key=public, signature=signature)


def _content(event: Signed) -> tuple[str, msgspec.Struct]:
    if isinstance(event, RulingGiven):
        return RULING_ALGORITHM, event.ruling
    if isinstance(event, NoteAdded):
        return NOTE_ALGORITHM, event.note
    return FORK_ALGORITHM, event.link


def signed_ok(event: Signed) -> bool:
    """Does the event's signature hold, by the public key it names, over what it says?"""
    from cryptography.exceptions import InvalidSignature
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

    algorithm, what = _content(event)
    try:
        Ed25519PublicKey.from_public_bytes(bytes.fromhex(event.public_key)).verify(
            bytes.fromhex(event.signature), _signed_bytes(algorithm, what)
        )
    except (InvalidSignature, ValueError):
        return False
    return True


def annotation_problem(battle: UUID, position: int, event: Event) -> str | None:
    """What is wrong with a flag, ruling or note at ``position`` of ``battle``: it must name
    an earlier position of this battle, and a ruling or note must carry its judge's signature."""
    if isinstance(event, CommandFlagged):
        if not event.by.strip() or not event.reason.strip():
            return "a flag must say who flags the command and why"
        return _earlier(event.position, position, "the flagged command")
    if isinstance(event, RulingGiven | NoteAdded):
        what = event.ruling if isinstance(event, RulingGiven) else event.note
        kind = "ruling" if isinstance(event, RulingGiven) else "note"
        if not signed_ok(event):
            return f"the judge's {kind} does not match its signature"
        if what.battle != str(battle):
            return f"the judge's {kind} was given in battle {what.battle}"
        if isinstance(what, Decision):
            if what.decision not in DECISIONS:
                return (
                    f"a ruling's decision is one of {', '.join(DECISIONS)}, not {what.decision!r}"
                )
            if what.length != position - 1:
                return f"the ruling was signed after {what.length} events, but stands at {position}"
            return _earlier(what.command_position, position, "the command ruled on")
        return _earlier(what.position, position, "the event noted")
    return None


def _earlier(named: int, position: int, what: str) -> str | None:
    if 1 <= named < position:
        return None
    return f"{what} is at position {named}, not an earlier position of the battle"


def fork_link_problem(battle: UUID, forked: BattleForked) -> str | None:
    """The child's own checks of its link (no parent needed): the judge's signature, and that
    the link was made for this battle."""
    if not signed_ok(forked):
        return "the fork's link to its parent does not match the judge's signature"
    if forked.link.battle != str(battle):
        return f"the fork's link was made for battle {forked.link.battle}"
    if forked.link.algorithm != FORK_ALGORITHM:
        return f"the fork's link says {forked.link.algorithm!r}, expected {FORK_ALGORITHM!r}"
    return None


def parent_problem(store: BattleStore, battle: UUID, child: Sequence[LoggedEvent]) -> str | None:
    """The child's link against its parent in ``store``: the parent's record at the fork
    position hashes as the link says; the child starts as the parent did (but for its label,
    its origin and the ruling the fork changed); its first commands are the parent's commands
    kept at the fork, byte for byte; the commands it replayed are the parent's next ones; and
    the parent holds a judge's ruling naming this child, by the same key."""
    forked = child[1].event
    assert isinstance(forked, BattleForked)
    link = forked.link
    try:
        parent = store.read(UUID(link.parent))
    except (UnreadableEvent, ValueError) as e:
        return f"the parent battle {link.parent} cannot be read: {e}"
    if not parent:
        return f"the parent battle {link.parent} is not in this store"
    if not 1 <= link.position <= len(parent):
        return f"the parent has {len(parent)} events, not the fork position {link.position}"
    if parent[link.position - 1].hash.hex() != link.parent_hash:
        return f"the parent's record at position {link.position} does not have the linked hash"
    events = [e.event for e in parent]
    child_events = [e.event for e in child]
    return (
        _start_problem(link, events[0], child_events[0])
        or _commands_problem(link, commands_played(events), commands_played(child_events))
        or _named_problem(battle, forked, parent)
        or (_inherited_problem(link, events, child_events) if link.dice else None)
    )


def _inherited_problem(link: ForkLink, parent: list[Event], child: list[Event]) -> str | None:
    """A fair fork's dice taken from its parent (every die before its sides' new values, and
    each one labelled ``inherited`` after them) are the parent's, under the key the parent
    rolled them (docs/dice.md, Fair dice in a fork)."""
    from blowbyblow.replay.evidence.fair_forks import INHERITED, parent_key, recorded_dice

    theirs = recorded_dice(parent)
    live_from = next(
        (n for n, e in enumerate(child, start=1) if n > 2 and isinstance(e, ContributionGiven)),
        None,
    )
    for command in commands_played(child):
        before = live_from is None or command.first < live_from
        for event in command.events:
            if not isinstance(event, DiceRolled) or event.source == CORRECTED_BY_JUDGE:
                continue
            if before or event.source == INHERITED:
                key = parent_key(link, event.key)
                if theirs.get(key) != event.values:
                    return (
                        f"die {event.key} of the child ({list(event.values)}) is not the "
                        f"parent's die {key} ({list(theirs.get(key, ())) or 'none'}): a fork "
                        "of a fair battle takes its parent's dice as they were rolled"
                    )
    return None


def _start_problem(link: ForkLink, parent: Event, child: Event) -> str | None:
    assert isinstance(parent, BattleStarted) and isinstance(child, BattleStarted)
    rulings = dict(parent.rulings)
    if isinstance(link.change, RulingChanged):
        rulings[link.change.name] = link.change.value
    expected = msgspec.structs.replace(
        parent, label=child.label, origin=link.parent, rulings=rulings
    )
    if encode(expected) != encode(child):
        return "the child does not start as its parent did (setup, rulings or dice differ)"
    return None


def _commands_problem(
    link: ForkLink, parent: list[PlayedCommand], child: list[PlayedCommand]
) -> str | None:
    kept = [c for c in parent if c.last <= link.position]
    if len(child) < len(kept) + link.replayed:
        return (
            f"the child has {len(child)} command(s), fewer than the {len(kept)} it kept and "
            f"{link.replayed} it replayed"
        )
    for ours, theirs in zip(child, kept, strict=False):
        if [encode(e) for e in ours.events] != [encode(e) for e in theirs.events]:
            return (
                f"the child's command {ours.index} is not the parent's command {theirs.index} "
                "as it stood at the fork"
            )
    dropped = link.change.index if isinstance(link.change, CommandDropped) else None
    later = [c for c in parent if c.last > link.position and c.index != dropped]
    for ours, theirs in zip(child[len(kept) : len(kept) + link.replayed], later, strict=False):
        if encode(_command(ours)) != encode(_command(theirs)):
            return (
                f"the child's command {ours.index} is not the parent's command {theirs.index} "
                "it says it replayed"
            )
    return None


def _command(played: PlayedCommand) -> Any:
    issued = played.events[0]
    assert isinstance(issued, CommandIssued)
    return issued.command


def _named_problem(battle: UUID, forked: BattleForked, parent: Sequence[LoggedEvent]) -> str | None:
    for logged in parent:
        event = logged.event
        if isinstance(event, RulingGiven) and event.ruling.child == str(battle):
            if event.public_key != forked.public_key:
                return "the parent's ruling naming this child was signed by another judge"
            if event.ruling.position != forked.link.position:
                return "the parent's ruling names another fork position"
            if event.ruling.last_hash != logged.prev_hash.hex():
                # The commands the child replayed are the parent's between the fork position
                # and this ruling: pinned by it, not by the link's hash at the fork position.
                return (
                    "the parent's ruling naming this child was signed over another log: the "
                    "parent was changed before it and the chain recomputed"
                )
            return None
    return f"the parent battle {forked.link.parent} holds no judge's ruling naming this child"


def untrusted(event: Signed, judge_keys: frozenset[str] | None) -> str | None:
    """Why a ruling, note or fork link is refused when the reader names the judges' keys
    (``bxb verify --ruling-key``): signed by another key, which anyone can make."""
    if judge_keys is None or event.public_key in judge_keys:
        return None
    kind = {RulingGiven: "ruling", NoteAdded: "note"}.get(type(event), "fork link")
    return f"the {kind} is signed by key {event.public_key[:16]}…, not a judge's key you trust"


def fork_link(
    battle: UUID,
    start_records: Sequence[LoggedEvent],
    start: int,
    judge_keys: frozenset[str] | None = None,
) -> BattleForked | None:
    """A child battle's link to its parent, right after its start: signed by the judge who
    forked (one of ``judge_keys``, when given), for this battle (its parent is checked by
    ``parent_problem`` where it is at hand)."""
    if len(start_records) <= start or not isinstance(start_records[start].event, BattleForked):
        return None
    logged = start_records[start]
    forked = logged.event
    assert isinstance(forked, BattleForked)
    message = fork_link_problem(battle, forked) or untrusted(forked, judge_keys)
    if message is not None:
        raise Failed(Problem(logged.position, "fork", message))
    return forked


def check_annotation(
    battle: UUID, logged: LoggedEvent, judge_keys: frozenset[str] | None = None
) -> str | None:
    """A flag, ruling or note (``annotation_problem``, raised as the verification's problem;
    a ruling or note signed by a key not in ``judge_keys``, when given); the child battle a
    ruling makes the battle give way to, if it names one."""
    event = logged.event
    message = annotation_problem(battle, logged.position, event)
    if (
        message is None
        and isinstance(event, RulingGiven)
        and event.ruling.last_hash != logged.prev_hash.hex()
    ):
        message = (
            "the judge signed the ruling over another log (its last hash is not the one "
            "before it): an event before the ruling was changed and the chain recomputed"
        )
    if message is None and isinstance(event, RulingGiven | NoteAdded):
        message = untrusted(event, judge_keys)
    if message is not None:
        raise Failed(Problem(logged.position, "dispute", message))
    return event.ruling.child if isinstance(event, RulingGiven) else None


__all__ = [
    "DECISIONS",
    "FORK_ALGORITHM",
    "NOTE_ALGORITHM",
    "RULING_ALGORITHM",
    "annotation_problem",
    "check_annotation",
    "fork_link",
    "fork_link_problem",
    "parent_problem",
    "sign_link",
    "sign_note",
    "sign_ruling",
    "signed_ok",
    "untrusted",
]
