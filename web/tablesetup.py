"""A table's setup before its battle: entered on the players' phones (the form of
``web/forms.py``), kept in the tournament register's database while it is being entered, shown
to each side, and started through the front door (``Service.start`` -> ``Battle.start``, the
setup in the battle's first event) once every side has confirmed the revision it saw, or when
a judge starts it. A setup is written only whole and valid (the command line's checks): a field
typed wrong writes nothing. Any change makes a new revision and clears the confirmations.

Each side's part is its own once a phone has taken that side (``web/setup_sides.py``): the
other phone's saves leave it as it is, and only its phone confirms for it. Every change is
published as a ``setup`` note on the table's live stream, so the other phone sees it at once."""

from __future__ import annotations

import datetime
import json
from typing import Annotated, Any

import msgspec
from msgspec import Meta

from blowbyblow.domain.system import AnyGameSystem, UnitView
from blowbyblow.replay.engine.registry import UnknownGameSystem, get_game_system
from blowbyblow.web.errors import ApiError
from blowbyblow.web.forms import MAX_NAME, setup_problem
from blowbyblow.web.schemas import BattleSummary, StartBattle
from blowbyblow.web.service import Service
from blowbyblow.web.setup_sides import (
    ClaimSide,
    SideClaim,
    check_parts,
    claim,
    claims,
    holder,
    named_sides,
    release,
)


class DraftSetup(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    """A table's setup as a phone sends it; ``revision``: the one the phone last saw (0: none).

    The dice: ``seed`` for seeded digital dice, ``fair`` for fair digital dice (a seed the
    server commits to when the battle starts, mixed with a value from each side given after
    that commitment is shown, on the table page), neither for physical dice typed at the
    table. ``rulings``: the rulings the event plays with (each one not given takes its
    documented default); all of them are recorded in the battle's first event."""

    ruleset: Annotated[str, Meta(max_length=MAX_NAME)]
    setup: dict[str, Any]
    round: int = 1
    rulings: Annotated[dict[str, str], Meta(max_length=100)] = {}
    seed: Annotated[str, Meta(min_length=1, max_length=MAX_NAME)] | None = None
    fair: bool = False
    revision: Annotated[int, Meta(ge=0)] = 0
    # the side this phone has taken and its key (never stored): its part may change
    side: Annotated[str, Meta(max_length=MAX_NAME)] = ""
    key: Annotated[str, Meta(max_length=MAX_NAME)] = ""


def _moved(at: int, seen: int, why: str) -> str:
    """Why a setup seen at revision ``seen`` is not the one at ``at``: ``why``, or none it had."""
    return f"revision {seen} is ahead of it" if seen > at else why


class ConfirmSetup(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    side: Annotated[str, Meta(max_length=MAX_NAME)]
    revision: Annotated[int, Meta(ge=0)]  # the revision this side saw and agrees to
    key: Annotated[str, Meta(max_length=MAX_NAME)] = ""  # a side taken: its phone's key


class Force(msgspec.Struct, frozen=True, kw_only=True):
    """One side's force as entered, as the opponent's phone shows it."""

    side: str
    units: list[UnitView]


class PendingSetup(msgspec.Struct, frozen=True, kw_only=True):
    tournament: str
    table: int
    draft: DraftSetup | None  # None: nothing entered yet (or the battle has started)
    sides: list[str] = []
    confirmed: list[str] = []
    forces: list[Force] = []
    battle: BattleSummary | None = None  # the battle once it has started
    problem: str = ""  # what still keeps the setup from starting (the command line's words)
    named: list[str] = []  # the sides the setup names so far, whole or not
    claimed: list[str] = []  # the sides a phone has taken


def _now() -> str:
    return datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds")


def system_of(ruleset: str, status: int = 422) -> AnyGameSystem:
    """The game system ``ruleset`` names; else ``status`` (404 where the path names it, as
    ``/api/rulesets/ID/quick`` answers)."""
    try:
        return get_game_system(ruleset)
    except UnknownGameSystem as e:
        raise ApiError(status, "ruleset", "a game system of this server", str(e)) from None


def _forces(system: AnyGameSystem, setup: Any) -> tuple[list[str], list[Force]]:
    view = system.view(system.initial_state(setup))
    forces = [Force(side=s, units=[u for u in view.units if u.side == s]) for s in view.sides]
    return list(view.sides), forces


def _checked(draft: DraftSetup, whole: bool = True) -> tuple[AnyGameSystem, Any]:
    """The draft's game system and setup, or the command line's error (nothing written). Not
    ``whole``: every field as its type wants it, but the fighters may still name one the other
    side has yet to enter (a draft half entered)."""
    system = system_of(draft.ruleset)
    problem = setup_problem(system, draft.setup, draft.rulings, whole=whole)
    if problem:
        field = problem.removeprefix("setup: ").split(": ", 1)[0]
        raise ApiError(422, f"setup.{field}", f"the setup of {system.id}", problem)
    if draft.round < 1:
        raise ApiError(422, "round", "rounds count from 1", f"round {draft.round}")
    if draft.fair and draft.seed is not None:
        raise ApiError(
            422, "fair", "one kind of dice", "seeded dice or fair dice, not both: give one"
        )
    return system, msgspec.convert(draft.setup, system.setup_type)


class TableSetups:
    """The pending setups of a tournament's tables, in the register's database."""

    def __init__(self, service: Service) -> None:
        self.service = service
        self._db = service.tournaments.database

    def _row(self, cur: Any, tournament: str, table: int) -> tuple[DraftSetup, list[str]] | None:
        rows = cur.run(
            "select body, confirmed from bxb_pending_setups "
            "where tournament = ? and table_number = ?",
            (tournament, table),
        )
        if not rows:
            return None
        return msgspec.json.decode(rows[0][0], type=DraftSetup), json.loads(rows[0][1])

    def _table(self, tournament: str, table: int) -> None:
        if table not in self.service.tournaments.tournament(tournament).tables:
            raise ApiError(
                404, "table", "a table of the tournament", f"no table {table} in {tournament}"
            )

    def pending(self, tournament: str, table: int) -> PendingSetup:
        self._table(tournament, table)
        with self._db.cursor() as cur:
            found = self._row(cur, tournament, table)
            taken = claims(cur, tournament, table)
        return self._pending(tournament, table, found, taken)

    def _pending(
        self,
        tournament: str,
        table: int,
        found: tuple[DraftSetup, list[str]] | None,
        taken: dict[str, str],
    ) -> PendingSetup:
        claimed = sorted(taken)
        if found is None:
            return PendingSetup(tournament=tournament, table=table, draft=None, claimed=claimed)
        draft, confirmed = found
        named = named_sides(system_of(draft.ruleset), draft.setup)
        try:
            system, setup = _checked(draft)
        except ApiError as e:
            return PendingSetup(
                tournament=tournament,
                table=table,
                draft=draft,
                problem=e.message,
                named=named,
                claimed=claimed,
            )
        sides, forces = _forces(system, setup)
        return PendingSetup(
            tournament=tournament,
            table=table,
            draft=draft,
            sides=sides,
            confirmed=confirmed,
            forces=forces,
            named=named,
            claimed=claimed,
        )

    def claim(self, tournament: str, table: int, req: ClaimSide, judge: bool) -> SideClaim:
        """This phone takes a side (see ``web/setup_sides.py``); its key is shown this once."""
        self._table(tournament, table)
        with self._db.cursor() as cur:
            return claim(cur, tournament, table, req.side, judge)

    def save(
        self, tournament: str, table: int, draft: DraftSetup, judge: bool = False
    ) -> PendingSetup:
        """Write a new revision of the table's setup (whole and valid), clearing confirmations.
        A side another phone has taken is left as it is (a change to it: 403), unless a judge
        writes."""
        self._table(tournament, table)
        system, _ = _checked(draft, whole=False)
        if draft.fair and not self.service.escrow_keys():
            raise ApiError(
                422,
                "fair",
                "fair dice need an escrow key (bxb serve --key or --judge-key)",
                "this server has no key to escrow a fair seed to: choose seeded or typed dice",
            )
        with self._db.cursor() as cur:
            found = self._row(cur, tournament, table)
            revision = found[0].revision if found else 0
            if draft.revision != revision:
                raise ApiError(
                    409,
                    "revision",
                    "a change to the setup as it stands",
                    f"the setup is at revision {revision}, not {draft.revision}: "
                    + _moved(revision, draft.revision, "the other phone changed it")
                    + "; reload it, nothing was written",
                )
            taken = claims(cur, tournament, table)
            mine = holder(taken, draft.side, draft.key)
            if not judge:
                check_parts(system, found[0].setup if found else {}, draft.setup, taken, mine)
            saved = msgspec.structs.replace(draft, revision=revision + 1, side="", key="")
            body = msgspec.json.encode(saved).decode()
            if found:
                cur.run(
                    "update bxb_pending_setups set body = ?, revision = ?, confirmed = ?, "
                    "updated = ? where tournament = ? and table_number = ?",
                    (body, saved.revision, "[]", _now(), tournament, table),
                )
            else:
                cur.run(
                    "insert into bxb_pending_setups (tournament, table_number, body, revision, "
                    "confirmed, updated) values (?, ?, ?, ?, ?, ?)",
                    (tournament, table, body, saved.revision, "[]", _now()),
                )
        return self._pending(tournament, table, (saved, []), taken)

    def confirm(
        self, tournament: str, table: int, req: ConfirmSetup, judge: bool = False
    ) -> PendingSetup:
        """One side agrees to the revision it saw; when every side has, the battle starts."""
        self._table(tournament, table)
        with self._db.cursor() as cur:
            found = self._row(cur, tournament, table)
            if found is None:
                raise ApiError(404, "setup", "a setup entered at this table", "nothing entered")
            draft, confirmed = found
            if req.revision != draft.revision:
                raise ApiError(
                    409,
                    "revision",
                    "a confirmation of the setup as it stands",
                    f"the setup is at revision {draft.revision}, not {req.revision}: "
                    + _moved(draft.revision, req.revision, "it changed since you saw it")
                    + "; look again",
                )
            system, setup = _checked(draft)
            sides, _ = _forces(system, setup)
            if req.side not in sides:
                raise ApiError(
                    422, "side", "a side of the setup", f"{req.side!r}: the sides are {sides}"
                )
            taken = claims(cur, tournament, table)
            if req.side in taken and not judge:
                holder(taken, req.side, req.key)
            confirmed = sorted({*confirmed, req.side})
            cur.run(
                "update bxb_pending_setups set confirmed = ?, updated = ? "
                "where tournament = ? and table_number = ?",
                (json.dumps(confirmed), _now(), tournament, table),
            )
        if set(confirmed) >= set(sides):
            return self.start(tournament, table)
        return self._pending(tournament, table, (draft, confirmed), taken)

    def start(self, tournament: str, table: int) -> PendingSetup:
        """Start the battle from the table's setup (every side confirmed, or a judge says so);
        the pending setup goes once the battle is written."""
        pending = self.pending(tournament, table)
        draft = pending.draft
        if draft is None:
            raise ApiError(404, "setup", "a setup entered at this table", "nothing entered")
        summary = self.service.start(
            tournament,
            table,
            StartBattle(
                ruleset=draft.ruleset,
                round=draft.round,
                rulings=draft.rulings,
                setup=draft.setup,
                seed=draft.seed,
                fair=draft.fair,
            ),
        )
        with self._db.cursor() as cur:
            cur.run(
                "delete from bxb_pending_setups where tournament = ? and table_number = ?",
                (tournament, table),
            )
            release(cur, tournament, table)
        return PendingSetup(tournament=tournament, table=table, draft=None, battle=summary)


__all__ = ["ConfirmSetup", "DraftSetup", "PendingSetup", "TableSetups"]
