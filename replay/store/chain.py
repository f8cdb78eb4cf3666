"""A battle's records and their hash chain: the stored ``Envelope`` (format version, the event's
canonical bytes, the previous hash and this one, the time recorded), a ``Link`` of the chain and
its hash, ``LoggedEvent`` (a record as read back), ``chain`` (new records hash-chained after a
head) and the ids derived from a battle's first event and its seal record. Nothing here imports
eventsourcing: a store is read without it (``replay/store/reading.py``); the mapper eventsourcing
writes records with is the application's (``log.py``)."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any
from uuid import UUID, uuid5

import msgspec

from blowbyblow.domain.core import BattleStarted, BlowByBlowError, Event
from blowbyblow.replay.engine.codec import Codec, codec_for, encode
from blowbyblow.replay.engine.formats import CURRENT_FORMAT, upcast
from blowbyblow.replay.store.persistence import NewerRecord, UnreadableEvent
from blowbyblow.replay.store.records import Stored

if TYPE_CHECKING:
    from eventsourcing.persistence import Mapper

CHAIN_ALGORITHM = "bxb-chain-v1"
GENESIS = bytes(32)
BATTLE_NAMESPACE = UUID("6f1f3c1e-6b8e-5d2a-9a49-0b1b0b1b0b1b")


class Envelope(msgspec.Struct, frozen=True, kw_only=True):
    """One stored record. ``event`` is the canonical msgpack of the event."""

    v: int
    event: msgspec.Raw
    prev: bytes
    hash: bytes
    at: str = ""  # wall-clock time recorded: in the hash chain, never compared by replay


ENVELOPE_DECODER = msgspec.msgpack.Decoder(Envelope)


class Link(msgspec.Struct, frozen=True, kw_only=True):
    """One link of a battle's hash chain: everything a record holds but its own hash."""

    battle: UUID
    position: int  # from 1
    prev: bytes  # the hash of the record before (GENESIS before the first)
    format: int  # the record format the event's bytes are in
    at: str  # wall-clock time recorded
    data: bytes  # the event's canonical bytes


_CHAIN_PREFIX = CHAIN_ALGORITHM.encode() + b"\x00"


def chain_hash(link: Link) -> bytes:
    """SHA-256 over everything a record holds: the algorithm name, battle id, position, previous
    hash, format version, recording time and the event's canonical bytes (hashed in one call
    over their concatenation: the same digest as feeding them one by one)."""
    stamp = link.at.encode()
    return hashlib.sha256(
        b"".join(
            (
                _CHAIN_PREFIX,
                link.battle.bytes,
                link.position.to_bytes(8, "big"),
                link.prev,
                link.format.to_bytes(4, "big"),
                len(stamp).to_bytes(4, "big"),
                stamp,
                link.data,
            )
        )
    ).digest()


class LoggedEvent(msgspec.Struct, frozen=True, kw_only=True, gc=False):
    """A battle's event as the store holds it (eventsourcing's domain event protocol). A
    msgspec Struct: a battle's reads make one per record, at a fraction of a dataclass's cost.
    Not tracked by the garbage collector, as events are not (``domain/core.py``)."""

    originator_id: UUID
    originator_version: int  # the event's position in its battle, from 1
    ruleset: str
    event: Event
    data: bytes  # canonical encoding of ``event``
    prev_hash: bytes
    hash: bytes
    recorded_at: str = ""
    format: int = CURRENT_FORMAT  # the record format the event's bytes were stored in

    @property
    def position(self) -> int:
        return self.originator_version

    @property
    def link(self) -> Link:
        """What this record's hash covers; ``chain_hash(logged.link)`` must be ``logged.hash``."""
        return Link(
            battle=self.originator_id,
            position=self.originator_version,
            prev=self.prev_hash,
            format=self.format,
            at=self.recorded_at,
            data=self.data,
        )


class Head(msgspec.Struct, frozen=True):
    """Where a battle's chain ends: what the next record chains to."""

    version: int
    hash: bytes
    sealed: bool
    indexed: bool = True  # the battle has an index row to move (a seal record has none)


def topic_of(ruleset: str, event: Event) -> str:
    return f"{ruleset}/{type(event).__name__}"


def newer_format(v: int) -> str:
    """What ``NewerRecord`` says of a record of format ``v``, above this release's."""
    return f"record format {v}; this release reads 1 to {CURRENT_FORMAT}"


def logged_from(battle: UUID | str, position: int, topic: str, state: bytes) -> LoggedEvent:
    """A stored record read exactly as stored (its event's bytes kept for the hash chain), its
    event upcast from an older format; UnreadableEvent naming what is wrong with it."""
    ruleset, _, type_name = topic.partition("/")
    codec: Codec | None = None
    try:
        envelope = ENVELOPE_DECODER.decode(state)
        data = bytes(envelope.event)
        codec = codec_for(ruleset)
        if envelope.v > CURRENT_FORMAT:
            raise NewerRecord(battle, position, newer_format(envelope.v))
        if envelope.v == CURRENT_FORMAT:
            event = codec.decode(data)
        else:
            event = codec.from_builtins(upcast(msgspec.msgpack.decode(data), envelope.v))
    except UnreadableEvent:
        raise
    except BlowByBlowError as e:
        raise UnreadableEvent(battle, position, str(e)) from e
    except (msgspec.DecodeError, msgspec.ValidationError, ValueError, TypeError) as e:
        if codec is not None and type_name not in codec.type_names:
            what = f"an event type this release lacks: {type_name}"
            raise NewerRecord(battle, position, what) from e
        raise UnreadableEvent(battle, position, str(e)) from e
    if type(event).__name__ != type_name:
        raise UnreadableEvent(
            battle,
            position,
            f"topic says {type_name} but the record holds {type(event).__name__}",
        )
    return LoggedEvent(
        originator_id=battle if isinstance(battle, UUID) else UUID(battle),
        originator_version=position,
        ruleset=ruleset,
        event=event,
        data=data,
        prev_hash=envelope.prev,
        hash=envelope.hash,
        recorded_at=envelope.at,
        format=envelope.v,
    )


def seal_id(battle: UUID) -> UUID:
    return uuid5(battle, "seal")


def chain(
    battle: UUID,
    ruleset: str,
    after: LoggedEvent | None,
    events: Sequence[Event],
    recorded_at: Sequence[str],
) -> list[LoggedEvent]:
    """LoggedEvents for ``events``, recorded at the times ``recorded_at``, each hash-chained to
    the one before: the first after ``after`` (None: at the start of a new chain)."""
    if after is None:
        return chain_after(battle, ruleset, (0, GENESIS), events, recorded_at)
    return chain_after(battle, ruleset, (after.position, after.hash), events, recorded_at)


def chain_after(
    battle: UUID,
    ruleset: str,
    after: tuple[int, bytes],
    events: Sequence[Event],
    recorded_at: Sequence[str],
) -> list[LoggedEvent]:
    """``chain`` after the record at position ``after[0]`` whose hash is ``after[1]``."""
    position, prev = after
    logged: list[LoggedEvent] = []
    head = _CHAIN_PREFIX + battle.bytes
    current = CURRENT_FORMAT.to_bytes(4, "big")
    for event, at in zip(events, recorded_at, strict=True):
        position += 1
        data = encode(event)
        stamp = at.encode()
        # chain_hash of this record's Link, written out: appending is the hot path
        digest = hashlib.sha256(
            b"".join(
                (
                    head,
                    position.to_bytes(8, "big"),
                    prev,
                    current,
                    len(stamp).to_bytes(4, "big"),
                    stamp,
                    data,
                )
            )
        ).digest()
        logged.append(
            LoggedEvent(
                originator_id=battle,
                originator_version=position,
                ruleset=ruleset,
                event=event,
                data=data,
                prev_hash=prev,
                hash=digest,
                recorded_at=at,
            )
        )
        prev = digest
    return logged


def stored_of(logged: LoggedEvent, mapper: Mapper[UUID]) -> Stored:
    """A record as the events table keeps it: its envelope's bytes under its topic."""
    state = encode(
        Envelope(
            v=logged.format,
            event=msgspec.Raw(logged.data),
            prev=logged.prev_hash,
            hash=logged.hash,
            at=logged.recorded_at,
        )
    )
    if mapper.compressor:
        state = mapper.compressor.compress(state)
    if mapper.cipher:
        state = mapper.cipher.encrypt(state)
    return (logged.originator_id, logged.position, topic_of(logged.ruleset, logged.event), state)


def battle_id_for(started: BattleStarted[Any]) -> UUID:
    """Deterministic: the same first event always names the same battle."""
    return uuid5(BATTLE_NAMESPACE, hashlib.sha256(encode(started)).hexdigest())


__all__ = [
    "BATTLE_NAMESPACE",
    "CHAIN_ALGORITHM",
    "ENVELOPE_DECODER",
    "GENESIS",
    "Envelope",
    "Head",
    "Link",
    "LoggedEvent",
    "battle_id_for",
    "chain",
    "chain_after",
    "chain_hash",
    "logged_from",
    "seal_id",
    "stored_of",
    "topic_of",
]
