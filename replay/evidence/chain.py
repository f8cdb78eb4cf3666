"""The log's integrity, before any rule is re-run: every record readable, the hash chain, the
battle id against its first event, and the seal (its signature and checkpoint, and the seal record
kept beside the battle, which catches trailing events deleted with the seal)."""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Iterator, Sequence
from uuid import UUID, uuid5

from blowbyblow.domain.judging import BattleSealed
from blowbyblow.replay.evidence.problems import Problem, rule_of
from blowbyblow.replay.evidence.seals import signature_ok
from blowbyblow.replay.store.log import (
    BATTLE_NAMESPACE,
    GENESIS,
    BattleStore,
    Link,
    LoggedEvent,
    NewerRecord,
    UnreadableEvent,
    chain_hash,
    logged_from,
    seal_id,
)


def check_chain(battle: UUID, events: Iterable[LoggedEvent]) -> Problem | None:
    scan = ChainScan(battle)
    for logged in events:
        scan.add(logged)
        if scan.broken is not None:
            return scan.broken
    return None


class ChainScan:
    """``check_chain`` and ``check_battle_id`` of a battle read record by record (streamed, in
    flat memory: ``bxb log`` and ``bxb export`` read a battle once to check it, then again to
    print it): the records counted, the first and the last, and the first problem."""

    def __init__(self, battle: UUID) -> None:
        self.battle = battle
        self.count = 0
        self.first: LoggedEvent | None = None
        self.last: LoggedEvent | None = None
        self.broken: Problem | None = None  # the first break in the chain
        self._prev = GENESIS

    def add(self, logged: LoggedEvent) -> None:
        self.count += 1
        if self.broken is None:
            self.broken = link_problem(self.battle, self.count, self._prev, logged)
            self._prev = logged.hash
        if self.first is None:
            self.first = logged
        self.last = logged

    @property
    def problem(self) -> Problem | None:
        """The chain's first break, else the battle id's problem, as ``check_chain(…) or
        check_battle_id(…)`` say them of the whole battle."""
        first = [] if self.first is None else [self.first]
        return self.broken or check_battle_id(self.battle, first)


def link_problem(
    battle: UUID, expected_position: int, prev: bytes, logged: LoggedEvent
) -> Problem | None:
    """What is wrong with one link of the chain: its position, its previous hash, its own."""
    if logged.position != expected_position:
        return Problem(
            expected_position,
            "sequence",
            f"expected position {expected_position}, found {logged.position}",
        )
    if logged.prev_hash != prev:
        return Problem(
            logged.position,
            "chain",
            "hash chain broken: previous hash differs",
            rule_of(logged.event),
        )
    link = Link(
        battle=battle,
        position=logged.position,
        prev=prev,
        format=logged.format,
        at=logged.recorded_at,
        data=logged.data,
    )
    if chain_hash(link) != logged.hash:
        return Problem(
            logged.position,
            "chain",
            "hash chain broken: the event's content does not match its hash",
            rule_of(logged.event),
        )
    return None


def battle_id_of(first: LoggedEvent) -> UUID:
    """The id a battle's first event names it by: ``store.battle_id_for`` over the first event's
    bytes as they were stored (not upcast), so a battle recorded in an older format keeps its id."""
    return uuid5(BATTLE_NAMESPACE, hashlib.sha256(first.data).hexdigest())


def check_battle_id(battle: UUID, events: Sequence[LoggedEvent]) -> Problem | None:
    """The battle id derives from its first event: a first event edited in place (rulings,
    setup, dice mode) with the chain recomputed, or a battle copied under another id, no longer
    matches. (A sealed battle's seal record is chained under its own id, not checked here.)"""
    if not events or events[0].position != 1:
        return None
    derived = battle_id_of(events[0])
    if derived == battle:
        return None
    return Problem(
        1,
        "identity",
        f"the battle is stored as {battle} but its first event names battle {derived}: "
        "its first event was changed, or the battle was copied under another id",
    )


def read_all(store: BattleStore, battle: UUID) -> tuple[list[LoggedEvent], Problem | None]:
    """Decode each stored record; stop at the first one that cannot be read."""
    events: list[LoggedEvent] = []
    for logged in stored_records(store, battle):
        if isinstance(logged, Problem):
            return events, logged
        events.append(logged)
    return events, None


def stored_records(
    store: BattleStore, battle: UUID, **span: int
) -> Iterator[LoggedEvent | Problem]:
    """The battle's records one by one, exactly as stored, a page at a time (``span``: ``gt``,
    ``lte``); the first that cannot be read as a Problem, and nothing after it."""
    for page in store.pages(battle, **span):
        for position, topic, state in page:
            try:
                yield logged_from(battle, position, topic, store._stored(state))
            except NewerRecord as e:  # not verified here: a newer release reads it, or it is forged
                yield Problem(
                    e.position,
                    "unreadable",
                    f"cannot be read: {e.reason}, or altered to look so; upgrade blowbyblow "
                    "to verify it",
                )
                return
            except UnreadableEvent as e:
                yield Problem(e.position, "unreadable", f"cannot be read: {e.reason}")
                return


def check_seal(
    battle: UUID, events: Sequence[LoggedEvent], trusted_keys: frozenset[str] | None
) -> tuple[BattleSealed | None, Problem | None]:
    """The seal, if the battle has one, and the first problem with it."""
    for logged in events[:-1]:
        if isinstance(logged.event, BattleSealed):
            return None, Problem(logged.position, "seal", "a seal in the middle of the battle")
    return check_last_seal(battle, events[-2:], len(events), trusted_keys)


def check_last_seal(
    battle: UUID,
    tail: Sequence[LoggedEvent],
    count: int,
    trusted_keys: frozenset[str] | None,
) -> tuple[BattleSealed | None, Problem | None]:
    """The seal in the last of ``tail`` (the battle's last two records; ``count`` records in
    all), if any, and the first problem with it."""
    last = tail[-1]
    if not isinstance(last.event, BattleSealed):
        if trusted_keys is not None:
            return None, Problem(
                last.position + 1,
                "seal",
                "the battle is not sealed, so no signature can be checked",
            )
        return None, None
    sealed = last.event
    cp = sealed.checkpoint
    if not signature_ok(sealed):
        return sealed, Problem(
            last.position, "seal", "the seal's signature does not match its checkpoint"
        )
    if trusted_keys is not None and sealed.public_key not in trusted_keys:
        return sealed, Problem(
            last.position, "seal", f"sealed with key {sealed.public_key[:16]}…, not a key you trust"
        )
    if cp.battle != str(battle):
        return sealed, Problem(last.position, "seal", f"the seal is for battle {cp.battle}")
    if cp.length != count - 1:
        return sealed, Problem(
            last.position,
            "seal",
            f"the seal covers {cp.length} events but {count - 1} precede it",
        )
    if len(tail) < 2 or cp.last_hash != tail[-2].hash.hex():
        return sealed, Problem(
            last.position, "seal", "the seal's last hash is not the hash of the event before it"
        )
    return sealed, None


def check_seal_record(
    store: BattleStore, battle: UUID, last: LoggedEvent | None, count: int
) -> Problem | None:
    """A battle once sealed must still end with exactly that seal: this catches the deletion of
    trailing events, the seal included. ``last`` is the battle's last record, ``count`` how
    many it has."""
    sid = seal_id(battle)
    try:
        records = store.read(sid)
    except UnreadableEvent as e:
        return Problem(count, "seal", f"the battle's seal record cannot be read: {e.reason}")
    if not records:
        if last is not None and isinstance(last.event, BattleSealed):
            return Problem(
                last.position,
                "seal",
                "the battle ends with a seal but the seal record kept beside it is missing",
            )
        return None
    record = records[0]
    if (
        len(records) != 1
        or check_chain(sid, records) is not None
        or not isinstance(record.event, BattleSealed)
    ):
        return Problem(count, "seal", "the battle's seal record has been altered")
    length = record.event.checkpoint.length
    if last is None or last.data != record.data:
        return Problem(
            min(count, length + 1) or 1,
            "seal",
            f"the battle was sealed after {length} events, but now has {count} "
            "and does not end with that seal: events were deleted or added",
        )
    return None
