"""What a cheating player with write access to the SQLite file can do, as helpers: rewrite a
battle with its hash chain recomputed (so the chain alone shows nothing), and the receipts a
table would have been handed after every command."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any
from uuid import UUID

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from blowbyblow.domain.core import BattleStarted, CommandIssued, Event
from blowbyblow.domain.system import AnyScenario
from blowbyblow.replay.engine.script import play
from blowbyblow.replay.evidence.receipts import Receipt, sign_receipt
from blowbyblow.replay.store.log import BattleStore, LoggedEvent, chain, seal_id


def delete_rows(db: Path, battle: UUID, after: int = 0) -> None:
    """Delete a battle's records after position ``after`` (0: the whole battle), and its seal
    record, straight from the SQLite file."""
    con = sqlite3.connect(db)
    try:
        con.execute(
            "delete from stored_events where originator_id=? and originator_version>?",
            (battle.hex, after),
        )
        if after == 0:
            con.execute("delete from stored_events where originator_id=?", (seal_id(battle).hex,))
        con.commit()
    finally:
        con.close()


def rewrite(
    db: Path,
    battle: UUID,
    events: Sequence[Event],
    times: Sequence[str],
    *,
    as_battle: UUID | None = None,
) -> list[LoggedEvent]:
    """Replace a battle with ``events`` recorded at ``times``, every hash recomputed: what a
    forger who can write the file does after editing or re-adjudicating a log."""
    delete_rows(db, battle)
    target = as_battle or battle
    first = events[0]
    assert isinstance(first, BattleStarted)
    logged = chain(target, first.ruleset, None, list(events), list(times))
    BattleStore(db).import_events(target, logged)
    return logged


def receipts_per_command(
    key: Ed25519PrivateKey, battle: UUID, logged: Sequence[LoggedEvent]
) -> list[Receipt]:
    """The receipts a table is handed as it plays: after the battle starts and after each
    command, for the head the store then had."""
    ends = [i - 1 for i, e in enumerate(logged) if isinstance(e.event, CommandIssued) and i > 0] + [
        len(logged) - 1
    ]
    return [sign_receipt(key, battle, logged[i]) for i in ends]


def first_that_plays(
    variants: Sequence[AnyScenario], check: Callable[[Any], bool] = lambda _: True
) -> tuple[int, list[Event]]:
    """The first variant of a scenario that the rules accept all the way through (a forger
    tries until one does), and its events."""
    for n, variant in enumerate(variants):
        try:
            played = play(variant)
        except Exception:
            continue
        if check(played):
            return n, played.events
    raise AssertionError("no variant of the scenario plays through")
