"""The register of an event's rosters: each player's gang, army or side, kept per tournament
(by player and name), in the store's database beside the tournament register, in tables of its
own (``bxb_rosters``, ``bxb_roster_versions``).

A roster is never retyped: every change after it is imported (a lasting injury, a fighter lost,
a recruit) is a list of edits (``domain.roster.Edit``) stored with its reason and round, and the
roster each edit made; its history is the list of them. Every write is one transaction: a
roster that an edit would leave unfit for its game system is refused, and nothing is written."""

from __future__ import annotations

import datetime
import json
import re
import sqlite3
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import msgspec

from blowbyblow.domain.roster import Edit, Roster, RosterError, apply_edits, check_roster
from blowbyblow.replay.engine.registry import get_game_system
from blowbyblow.replay.store.log import persistence_env

_SCHEMA = (
    """create table if not exists bxb_rosters (
        tournament text not null, player text not null, name text not null,
        ruleset text not null, created text not null,
        primary key (tournament, player, name))""",
    # One row a version: the roster as it stands after it, and the edits that made it from
    # the version before (none for version 1, the import).
    """create table if not exists bxb_roster_versions (
        tournament text not null, player text not null, name text not null,
        version integer not null, roster text not null, edits text not null,
        reason text not null, round integer, made text not null,
        primary key (tournament, player, name, version))""",
)

TOURNAMENT = re.compile(r"^[a-z0-9][a-z0-9-]{0,39}$")  # as `bxb tournament new` takes it
MAX_REASON = 1000
MAX_ROUND = 1000
_EDITS = msgspec.json.Decoder(list[Edit])


@dataclass(frozen=True)
class Kept:
    """A roster as the register keeps it: whose, which version, and the roster itself."""

    tournament: str
    player: str
    name: str
    ruleset: str
    version: int
    roster: Roster


@dataclass(frozen=True)
class Change:
    """What changed between rounds: the edits, why, and the round after which."""

    edits: tuple[Edit, ...]
    reason: str = ""
    round: int | None = None


@dataclass(frozen=True)
class Version:
    """One step of a roster's history: the edits made (none for the import), why, after which
    round, when, and the roster they made."""

    version: int
    edits: tuple[Edit, ...]
    reason: str
    round: int | None
    made: str
    roster: Roster


def _now() -> str:
    return datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds")


def _check_tournament(slug: str) -> None:
    if not TOURNAMENT.match(slug):
        raise RosterError(
            f"--tournament {slug!r}: expected the tournament's id: 1 to 40 lower-case letters, "
            "digits or hyphens (as `bxb tournament list` shows it)"
        )


class RosterRegister:
    """The rosters of every tournament on one store (``db``: as ``--db`` gives it)."""

    def __init__(self, db: str | None = None) -> None:
        env = persistence_env(db)
        module = env["PERSISTENCE_MODULE"]
        self._pg = db if module == "eventsourcing.postgres" else None
        self._path = ":memory:" if module == "eventsourcing.popo" else env.get("SQLITE_DBNAME", "")
        self._memory: sqlite3.Connection | None = None
        if self._pg is None and self._path != ":memory:":
            Path(self._path).expanduser().parent.mkdir(parents=True, exist_ok=True)
        with self._run() as run:
            for statement in _SCHEMA:
                run(statement, ())

    @contextmanager
    def _run(self) -> Iterator[Any]:
        """A function running SQL with ``?`` marks in one transaction, on SQLite or PostgreSQL.
        A connection per transaction: the register is written by a person, not per command."""
        if self._pg is not None:
            with self._postgres(self._pg) as run:
                yield run
            return
        with self._sqlite() as run:
            yield run

    @staticmethod
    @contextmanager
    def _postgres(url: str) -> Iterator[Any]:
        import psycopg  # the postgres extra

        with psycopg.connect(url) as conn, conn.cursor() as cur:

            def run(sql: str, params: Sequence[Any]) -> list[tuple[Any, ...]]:
                cur.execute(sql.replace("?", "%s"), tuple(params))
                return list(cur.fetchall()) if cur.description else []

            yield run  # psycopg's connection block commits, or rolls back on an error

    @contextmanager
    def _sqlite(self) -> Iterator[Any]:
        conn = self._memory or sqlite3.connect(self._path, timeout=30, isolation_level=None)
        if self._path == ":memory:":
            self._memory = conn
        try:
            conn.execute("begin immediate")

            def run(sql: str, params: Sequence[Any]) -> list[tuple[Any, ...]]:
                return list(conn.execute(sql, tuple(params)).fetchall())

            yield run
            conn.execute("commit")
        except BaseException:
            if conn.in_transaction:  # none when `begin` failed: a file that is not a database
                conn.execute("rollback")
            raise
        finally:
            if conn is not self._memory:
                conn.close()

    # --- writing ------------------------------------------------------------------------------

    def add(
        self, tournament: str, roster: Roster, *, replace: bool = False, reason: str = ""
    ) -> Kept:
        """Keep ``roster`` for ``tournament`` under its player and name (version 1). A roster of
        that player and name is refused unless ``replace``, which keeps the old one's history
        and adds the new roster as a version of it."""
        _check_tournament(tournament)
        roster = check_roster(get_game_system(roster.ruleset), roster)
        with self._run() as run:
            last = self._last(run, tournament, roster.player, roster.name)
            if last is not None and not replace:
                raise RosterError(
                    f"{tournament}: {roster.label} is kept already (version {last.version}); "
                    "change it with `bxb roster edit`, or import again with --replace"
                )
            if last is not None and last.ruleset != roster.ruleset:
                raise RosterError(
                    f"{tournament}: {roster.label} is a {last.ruleset} roster, not {roster.ruleset}"
                )
            version = 1 if last is None else last.version + 1
            if last is None:
                run(
                    "insert into bxb_rosters (tournament, player, name, ruleset, created) "
                    "values (?, ?, ?, ?, ?)",
                    (tournament, roster.player, roster.name, roster.ruleset, _now()),
                )
            self._write(run, tournament, roster, version, Change((), reason or "imported"))
        return Kept(tournament, roster.player, roster.name, roster.ruleset, version, roster)

    def edit(self, tournament: str, player: str, name: str, change: Change) -> Kept:
        """Make ``change`` to the roster, as one new version; refused, with nothing written, if
        any of its edits leaves the roster unfit."""
        if not change.edits:
            raise RosterError("no edit given (--set, --remove or --add)")
        if len(change.reason) > MAX_REASON:
            raise RosterError(f"--reason: at most {MAX_REASON} characters")
        if change.round is not None and not 0 <= change.round <= MAX_ROUND:
            raise RosterError(f"--round: {change.round} is not a round (0 to {MAX_ROUND})")
        with self._run() as run:
            last = self._last(run, tournament, player, name)
            if last is None:
                raise self._missing(run, tournament, player, name)
            roster = apply_edits(get_game_system(last.ruleset), last.roster, change.edits)
            version = last.version + 1
            self._write(run, tournament, roster, version, change)
        return Kept(tournament, player, name, last.ruleset, version, roster)

    def _write(
        self, run: Any, tournament: str, roster: Roster, version: int, change: Change
    ) -> None:
        run(
            "insert into bxb_roster_versions (tournament, player, name, version, roster, edits, "
            "reason, round, made) values (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                tournament,
                roster.player,
                roster.name,
                version,
                msgspec.json.encode(roster).decode(),
                msgspec.json.encode(list(change.edits)).decode(),
                change.reason,
                change.round,
                _now(),
            ),
        )

    # --- reading ------------------------------------------------------------------------------

    def _last(self, run: Any, tournament: str, player: str, name: str) -> Kept | None:
        rows = run(
            "select r.ruleset, v.version, v.roster from bxb_rosters r join bxb_roster_versions v "
            "on v.tournament = r.tournament and v.player = r.player and v.name = r.name "
            "where r.tournament = ? and r.player = ? and r.name = ? "
            "order by v.version desc limit 1",
            (tournament, player, name),
        )
        if not rows:
            return None
        ruleset, version, text = rows[0]
        roster = msgspec.json.decode(text, type=Roster)
        return Kept(tournament, player, name, ruleset, int(version), roster)

    def _missing(self, run: Any, tournament: str, player: str, name: str) -> RosterError:
        kept = run(
            "select name from bxb_rosters where tournament = ? and player = ? order by name",
            (tournament, player),
        )
        known = ", ".join(repr(n) for (n,) in kept) or "none"
        return RosterError(
            f"{tournament}: no roster {name!r} of player {player!r}; theirs are: {known}"
        )

    def get(self, tournament: str, player: str, name: str, version: int | None = None) -> Kept:
        """The roster as it stands (or as it stood at ``version``)."""
        if version is None:
            with self._run() as run:
                last = self._last(run, tournament, player, name)
                if last is None:
                    raise self._missing(run, tournament, player, name)
            return last
        for step in self.history(tournament, player, name):
            if step.version == version:
                return Kept(tournament, player, name, step.roster.ruleset, version, step.roster)
        raise RosterError(f"{tournament}: {name!r} of {player!r} has no version {version}")

    def history(self, tournament: str, player: str, name: str) -> list[Version]:
        """Every version of the roster, the import first."""
        with self._run() as run:
            rows = run(
                "select version, edits, reason, round, made, roster from bxb_roster_versions "
                "where tournament = ? and player = ? and name = ? order by version",
                (tournament, player, name),
            )
            if not rows:
                raise self._missing(run, tournament, player, name)
        return [
            Version(
                version=int(v),
                edits=tuple(_EDITS.decode(edits)),
                reason=reason,
                round=None if rnd is None else int(rnd),
                made=made,
                roster=msgspec.json.decode(text, type=Roster),
            )
            for v, edits, reason, rnd, made, text in rows
        ]

    def rosters(self, tournament: str | None = None, player: str | None = None) -> list[Kept]:
        """The rosters kept (of one tournament, of one player), each as it stands now."""
        where, params = [], []
        for column, value in (("tournament", tournament), ("player", player)):
            if value is not None:
                where.append(f"r.{column} = ?")
                params.append(value)
        sql = (
            "select r.tournament, r.player, r.name, r.ruleset, v.version, v.roster "
            "from bxb_rosters r join bxb_roster_versions v on v.tournament = r.tournament "
            "and v.player = r.player and v.name = r.name and v.version = (select max(version) "
            "from bxb_roster_versions w where w.tournament = r.tournament and "
            "w.player = r.player and w.name = r.name)"
            + (" where " + " and ".join(where) if where else "")
            + " order by r.tournament, r.player, r.name"
        )
        with self._run() as run:
            rows = run(sql, params)
        return [
            Kept(t, p, n, rs, int(v), msgspec.json.decode(text, type=Roster))
            for t, p, n, rs, v, text in rows
        ]


def edits_json(edits: Sequence[Edit]) -> str:
    """Edits as the register stores them (and as `bxb roster history --json` shows them)."""
    return json.dumps(msgspec.to_builtins(list(edits)))


__all__ = ["Change", "Kept", "RosterRegister", "Version", "edits_json"]
