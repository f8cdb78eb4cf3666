"""The event store: an ``eventsourcing`` application whose aggregates are battles.

- Persistence is chosen by configuration, as eventsourcing does it: a SQLite file by default, an
  in-memory store (``:memory:``) for tests, PostgreSQL (``postgresql://user:pass@host:port/db``)
  for a tournament server with many tables writing at once.
- Events are encoded with msgspec (MessagePack) by ``MsgspecMapper``, not eventsourcing's JSON
  transcoder. A stored record is an ``Envelope``: the format version, the canonical event bytes,
  the hash chain (previous hash and this event's hash) and the wall-clock time it was recorded
  (covered by the hash chain, so it is evidence too, but never compared by replay).
- One command's events are appended in one ``insert_events`` call, i.e. one transaction, with
  optimistic concurrency on the battle's version: a writer holding a stale version gets
  ``StaleVersion`` and writes nothing.
"""

from __future__ import annotations

import datetime
import hashlib
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlparse
from uuid import UUID, uuid5

import msgspec
from eventsourcing.application import Application
from eventsourcing.persistence import (
    IntegrityError,
    Mapper,
    RecordConflictError,
    StoredEvent,
    Transcoder,
)

from blowbyblow.domain.core import BattleStarted, BlowByBlowError, Event
from blowbyblow.replay.codec import codec_for, encode
from blowbyblow.replay.formats import CURRENT_FORMAT, upcast
from blowbyblow.replay.judging import BattleSealed, SeedVault
from blowbyblow.replay.registry import game_systems

CHAIN_ALGORITHM = "bxb-chain-v1"
GENESIS = bytes(32)
BATTLE_NAMESPACE = UUID("6f1f3c1e-6b8e-5d2a-9a49-0b1b0b1b0b1b")


class StoreError(BlowByBlowError):
    pass


class StaleVersion(StoreError):
    pass


class UnreadableEvent(StoreError):
    def __init__(self, battle: UUID | str, position: int, reason: str) -> None:
        super().__init__(f"battle {battle}, position {position}: cannot be read: {reason}")
        self.position = position
        self.reason = reason


class Envelope(msgspec.Struct, frozen=True, kw_only=True):
    """One stored record. ``event`` is the canonical msgpack of the event."""

    v: int
    event: msgspec.Raw
    prev: bytes
    hash: bytes
    at: str = ""  # wall-clock time recorded: in the hash chain, never compared by replay


_ENVELOPE = msgspec.msgpack.Decoder(Envelope)


class Link(msgspec.Struct, frozen=True, kw_only=True):
    """One link of a battle's hash chain: everything a record holds but its own hash."""

    battle: UUID
    position: int  # from 1
    prev: bytes  # the hash of the record before (GENESIS before the first)
    format: int  # the record format the event's bytes are in
    at: str  # wall-clock time recorded
    data: bytes  # the event's canonical bytes


def chain_hash(link: Link) -> bytes:
    """SHA-256 over everything a record holds: the algorithm name, battle id, position, previous
    hash, format version, recording time and the event's canonical bytes."""
    h = hashlib.sha256()
    h.update(CHAIN_ALGORITHM.encode() + b"\x00")
    h.update(link.battle.bytes)
    h.update(link.position.to_bytes(8, "big"))
    h.update(link.prev)
    h.update(link.format.to_bytes(4, "big"))
    stamp = link.at.encode()
    h.update(len(stamp).to_bytes(4, "big") + stamp)
    h.update(link.data)
    return h.digest()


@dataclass(frozen=True)
class LoggedEvent:
    """A battle's event as the store holds it (eventsourcing's domain event protocol)."""

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


def topic_of(ruleset: str, event: Event) -> str:
    return f"{ruleset}/{type(event).__name__}"


class MsgspecMapper(Mapper[UUID]):
    """Maps LoggedEvent <-> eventsourcing StoredEvent with msgspec instead of a JSON transcoder."""

    def __init__(self, transcoder: Transcoder | None = None, **kwargs: Any) -> None:
        super().__init__(transcoder=transcoder or _Unused(), **kwargs)

    def to_stored_event(self, domain_event: Any) -> StoredEvent:
        assert isinstance(domain_event, LoggedEvent)
        state = encode(
            Envelope(
                v=domain_event.format,
                event=msgspec.Raw(domain_event.data),
                prev=domain_event.prev_hash,
                hash=domain_event.hash,
                at=domain_event.recorded_at,
            )
        )
        if self.compressor:
            state = self.compressor.compress(state)
        if self.cipher:
            state = self.cipher.encrypt(state)
        return StoredEvent(
            originator_id=domain_event.originator_id,
            originator_version=domain_event.originator_version,
            topic=topic_of(domain_event.ruleset, domain_event.event),
            state=state,
        )

    def to_domain_event(self, stored_event: StoredEvent) -> Any:
        battle = stored_event.originator_id
        position = stored_event.originator_version
        ruleset, _, type_name = stored_event.topic.partition("/")
        try:
            state = stored_event.state
            if self.cipher:
                state = self.cipher.decrypt(state)
            if self.compressor:
                state = self.compressor.decompress(state)
            envelope = _ENVELOPE.decode(state)
            data = bytes(envelope.event)
            codec = codec_for(ruleset)
            if envelope.v == CURRENT_FORMAT:
                event = codec.decode(data)
            else:
                event = codec.from_builtins(upcast(msgspec.msgpack.decode(data), envelope.v))
        except BlowByBlowError as e:
            raise UnreadableEvent(battle, position, str(e)) from e
        except (msgspec.DecodeError, msgspec.ValidationError, ValueError, TypeError) as e:
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


class _Unused(Transcoder):
    def encode(self, obj: Any) -> bytes:  # pragma: no cover
        raise NotImplementedError

    def decode(self, data: bytes) -> Any:  # pragma: no cover
        raise NotImplementedError


def default_db_path() -> Path:
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "blowbyblow" / "battles.sqlite"


def persistence_env(db: str | os.PathLike[str] | None) -> dict[str, str]:
    """eventsourcing configuration for a store spec: a file path, ``:memory:`` or a PostgreSQL URL."""
    spec = str(db) if db is not None else os.environ.get("BXB_DB") or str(default_db_path())
    if spec == ":memory:":
        return {"PERSISTENCE_MODULE": "eventsourcing.popo"}
    if spec.startswith(("postgres://", "postgresql://")):
        url = urlparse(spec)
        return {
            "PERSISTENCE_MODULE": "eventsourcing.postgres",
            "POSTGRES_DBNAME": url.path.lstrip("/") or "blowbyblow",
            "POSTGRES_HOST": url.hostname or "127.0.0.1",
            "POSTGRES_PORT": str(url.port or 5432),
            "POSTGRES_USER": unquote(url.username or "blowbyblow"),
            "POSTGRES_PASSWORD": unquote(url.password or ""),
        }
    path = Path(spec).expanduser()
    path.parent.mkdir(parents=True, exist_ok=True)
    return {"PERSISTENCE_MODULE": "eventsourcing.sqlite", "SQLITE_DBNAME": str(path)}


@dataclass(frozen=True)
class BattleInfo:
    battle: UUID
    ruleset: str
    label: str
    notification_id: int


class BattleStore(Application[UUID]):
    """The battles of one store."""

    name = "blowbyblow"

    def __init__(self, db: str | os.PathLike[str] | None = None) -> None:
        env = persistence_env(db)
        self.spec = str(db) if db is not None else None
        super().__init__(env=env)
        if env["PERSISTENCE_MODULE"] == "eventsourcing.sqlite":
            self.vault = SeedVault(Path(env["SQLITE_DBNAME"]).with_suffix(".seeds"))
        elif env["PERSISTENCE_MODULE"] == "eventsourcing.postgres":
            self.vault = SeedVault(default_db_path().parent / "seeds")
        else:
            self.vault = SeedVault(None)

    def construct_mapper(self) -> Mapper[UUID]:
        return MsgspecMapper(cipher=self.factory.cipher(), compressor=self.factory.compressor())

    # --- reading ---------------------------------------------------------------------------

    def read(self, battle: UUID, *, lte: int | None = None) -> list[LoggedEvent]:
        """Every event of ``battle`` up to position ``lte``; UnreadableEvent at the first bad one."""
        return [e for e in self.events.get(battle, lte=lte) if isinstance(e, LoggedEvent)]

    def read_stored(self, battle: UUID) -> Sequence[StoredEvent]:
        return self.recorder.select_events(battle)

    def version(self, battle: UUID) -> int:
        last = self.recorder.select_events(battle, desc=True, limit=1)
        return last[0].originator_version if last else 0

    def last(self, battle: UUID) -> LoggedEvent | None:
        found = list(self.events.get(battle, desc=True, limit=1))
        return found[0] if found and isinstance(found[0], LoggedEvent) else None

    def battles(self) -> list[BattleInfo]:
        """Every battle in the store, oldest first (by when its first event was recorded)."""
        topics = [f"{r}/BattleStarted" for r in sorted(game_systems())]
        found: list[BattleInfo] = []
        start = 1
        while True:
            page = self.recorder.select_notifications(start=start, limit=500, topics=topics)
            for n in page:
                ruleset = n.topic.partition("/")[0]
                label = ""
                try:
                    event = self.mapper.to_domain_event(n)
                    if isinstance(event, LoggedEvent) and isinstance(event.event, BattleStarted):
                        label = event.event.label
                except UnreadableEvent:
                    label = "(unreadable)"
                found.append(
                    BattleInfo(
                        battle=UUID(str(n.originator_id)),
                        ruleset=ruleset,
                        label=label,
                        notification_id=n.id,
                    )
                )
            if len(page) < 500:
                return found
            start = page[-1].id + 1

    # --- writing ---------------------------------------------------------------------------

    def append(
        self,
        battle: UUID,
        ruleset: str,
        expected_version: int,
        events: Sequence[Event],
        *,
        recorded_at: Sequence[str] | None = None,
    ) -> list[LoggedEvent]:
        """Append one command's events at ``expected_version + 1`` onward, in one transaction.

        Raises StaleVersion, writing nothing, when the battle is no longer at
        ``expected_version``; StoreError when the battle is sealed."""
        last = self.last(battle)
        current = last.position if last else 0
        if current != expected_version:
            raise StaleVersion(
                f"battle {battle} is at version {current}, not {expected_version}: "
                "someone else has recorded since you read it; nothing was written"
            )
        if last is not None and isinstance(last.event, BattleSealed):
            raise StoreError(f"battle {battle} is sealed; nothing more can be recorded in it")
        now = datetime.datetime.now(datetime.UTC).isoformat(timespec="milliseconds")
        logged = chain(battle, ruleset, last, events, recorded_at or [now] * len(events))
        self._save(battle, expected_version, logged)
        return logged

    def _save(self, battle: UUID, expected_version: int, logged: Sequence[Any]) -> None:
        try:
            self.save(*logged)
        except (IntegrityError, RecordConflictError) as e:
            raise StaleVersion(
                f"battle {battle} moved past version {expected_version} while writing; "
                "nothing was written"
            ) from e

    def seal(self, battle: UUID, ruleset: str, sealed: BattleSealed) -> LoggedEvent:
        """Append the seal to the battle and to its seal record, in one transaction."""
        version = sealed.checkpoint.length
        last = self.last(battle)
        if (
            last is None
            or last.position != version
            or last.hash.hex() != sealed.checkpoint.last_hash
        ):
            raise StaleVersion(f"battle {battle} is not at the checkpoint's version {version}")
        if isinstance(last.event, BattleSealed):
            raise StoreError(f"battle {battle} is sealed already")
        now = datetime.datetime.now(datetime.UTC).isoformat(timespec="milliseconds")
        [in_battle] = chain(battle, ruleset, last, [sealed], [now])
        sid = seal_id(battle)
        [record] = chain(sid, ruleset, None, [sealed], [now])
        self._save(battle, version, [in_battle, record])
        return in_battle

    def import_events(self, battle: UUID, logged: Sequence[LoggedEvent]) -> None:
        """Write a verified battle read from an export, hashes and times as they were,
        with its seal record if sealed, in one transaction."""
        extra: list[LoggedEvent] = []
        if logged and isinstance(logged[-1].event, BattleSealed):
            last = logged[-1]
            [record] = chain(seal_id(battle), last.ruleset, None, [last.event], [last.recorded_at])
            extra.append(record)
        self._save(battle, 0, [*logged, *extra])


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
    prev = after.hash if after is not None else GENESIS
    position = after.position if after is not None else 0
    logged: list[LoggedEvent] = []
    for event, at in zip(events, recorded_at, strict=True):
        position += 1
        data = encode(event)
        link = Link(
            battle=battle, position=position, prev=prev, format=CURRENT_FORMAT, at=at, data=data
        )
        digest = chain_hash(link)
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


def battle_id_for(started: BattleStarted[Any]) -> UUID:
    """Deterministic: the same first event always names the same battle."""
    return uuid5(BATTLE_NAMESPACE, hashlib.sha256(encode(started)).hexdigest())
