"""What the server does with the store, in plain synchronous calls: start a battle at a table,
play one command (with dice typed at the table, or the battle's seeded dice), read the log and
the state at any position, verify, seal, export, import, what-if, diff, and a tournament's
tables with their status. The API (``web/api.py``) runs these in worker threads; every refusal
is an ``ApiError`` naming the field and the rule, and writes nothing.

No rules are decided here: commands go through the engine's one loop (``replay.engine.driver.Table``),
read-backs through the one fold (``projections.battle.fold_battle``)."""

from __future__ import annotations

import functools
import io
import re
import threading
import zipfile
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar
from uuid import UUID

import msgspec
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from blowbyblow.domain.core import (
    BattleStarted,
    BlowByBlowError,
    CommandIssued,
    CommandVoided,
    Event,
    RuleEvent,
    RuleViolation,
    RulingError,
    SetupError,
)
from blowbyblow.domain.judging import BattleSealed
from blowbyblow.domain.system import AnyGameSystem, OptionError, Scenario
from blowbyblow.projections.battle import fold, fold_battle, standing, voided_commands
from blowbyblow.replay.battles.service import (
    AlreadyRecorded,
    VoidRefused,
    record,
    save_events,
    seal_battle,
    void_command,
)
from blowbyblow.replay.battles.whatif import first_divergence, what_if
from blowbyblow.replay.engine.codec import to_builtins
from blowbyblow.replay.engine.dice import DiceError, ListedDice, ScriptedChoices, SeededDice
from blowbyblow.replay.engine.driver import Table
from blowbyblow.replay.engine.narrate import narrate
from blowbyblow.replay.engine.registry import UnknownGameSystem, game_systems, get_game_system
from blowbyblow.replay.engine.scenario import ScenarioError, check_values
from blowbyblow.replay.engine.script import UnusedInput
from blowbyblow.replay.evidence.export import ExportError, export_battle, import_battle
from blowbyblow.replay.evidence.fairness import (
    FairnessError,
    FairTerms,
    StartedAndKept,
    contribute,
    is_escrowed,
    open_fair,
    read_fair_start,
    sides_of,
    start_fair,
)
from blowbyblow.replay.evidence.receipts import Receipt, sign_receipt
from blowbyblow.replay.evidence.seals import (
    JudgingError,
    escrow_key,
    escrow_public_text,
    load_public_key,
)
from blowbyblow.replay.evidence.verify import Problem, Report, check_chain, read_all, verify_battle
from blowbyblow.replay.odds.explore import HowToExplore, Odds, recorded_odds
from blowbyblow.replay.store.find import BattleNotFound, resolve_battle
from blowbyblow.replay.store.log import BattleStore, LoggedEvent, StaleVersion, StoreError
from blowbyblow.web.schemas import (
    BattleSummary,
    BulkResult,
    Contributions,
    ContributionsResult,
    Dashboard,
    DiffResult,
    EventRow,
    FairInfo,
    ImportRequest,
    ImportResult,
    LegalOptions,
    ModifierRow,
    Need,
    PlayCommand,
    PlayResult,
    ProblemBody,
    RulesetInfo,
    RulingInfo,
    SealResult,
    StartBattle,
    StateAt,
    Status,
    TablePlace,
    TableRow,
    VerifyResult,
    VoidRequest,
    VoidResult,
    WhatIfRequest,
    WhatIfResult,
)
from blowbyblow.web.tournament import TableBattle, TournamentError, TournamentStore


class ApiError(BlowByBlowError):
    """A refusal: HTTP ``status``, the ``field`` at fault, the ``rule`` broken. Nothing written."""

    def __init__(self, status: int, field: str, rule: str, message: str) -> None:
        super().__init__(f"{field}: {message}")
        self.status = status
        self.field = field
        self.rule = rule
        self.message = message


# --- dice typed at the table, choices answered on the page -------------------------------------


class NeedDice(Exception):
    def __init__(self, key: str, n: int, sides: int, purpose: str, used: int) -> None:
        super().__init__(f"roll {key} needs {n}D{sides}")
        self.need = Need(
            kind="dice",
            key=key,
            n=n,
            sides=sides,
            prompt=f"{purpose or key}: roll {n}D{sides}",
            dice_used=used,
        )


class NeedChoice(Exception):
    def __init__(self, key: str, options: tuple[str, ...], default: str, prompt: str) -> None:
        super().__init__(f"choice {key} needs an answer")
        self.need = Need(
            kind="choice",
            key=key,
            options=list(options),
            default=default,
            prompt=prompt or key,
        )


class TypedDice:
    """Physical dice typed in at the table, taken in the order the rules ask for them; when
    they run out, the rules' next roll is asked for (``NeedDice``) and nothing is written."""

    source = "physical"

    def __init__(self, values: Sequence[int]) -> None:
        self._listed = ListedDice(values)
        self._values = list(values)
        self.used = 0

    def roll(self, key: str, n: int, sides: int, purpose: str) -> tuple[tuple[int, ...], str]:
        if self.used + n > len(self._values):
            raise NeedDice(key, n, sides, purpose, self.used)
        values, source = self._listed.roll(key, n, sides, purpose)
        self.used += n
        return values, source

    @property
    def unused(self) -> int:
        return len(self._values) - self.used


class PageChoices(ScriptedChoices):
    """Answers given by key; an unanswered choice is asked (``NeedChoice``) when ``ask``, or
    takes the rules' default otherwise (as ``bxb record`` does)."""

    def __init__(self, answers: Mapping[str, str], *, ask: bool) -> None:
        super().__init__(answers)
        self._ask = ask

    def choose(
        self, key: str, options: tuple[str, ...], default: str, prompt: str
    ) -> tuple[str, str]:
        short = key.split("/", 1)[1] if "/" in key else key
        if self._ask and key not in self._answers and short not in self._answers:
            raise NeedChoice(key, options, default, prompt)
        answer, source = super().choose(key, options, default, prompt)
        return answer, "interactive" if source == "scripted" and self._ask else source


# --- event rows -----------------------------------------------------------------------------


def _modifiers(data: Any, system: AnyGameSystem, found: list[ModifierRow]) -> None:
    """Every Modifier anywhere in an event's plain data, in order."""
    if isinstance(data, dict):
        if {"value", "cause", "rule"} <= data.keys() and isinstance(data["value"], int):
            found.append(
                ModifierRow(
                    value=data["value"],
                    cause=str(data["cause"]),
                    rule=str(data["rule"]),
                    citation=system.rulebook.cite(str(data["rule"])),
                )
            )
            return
        for value in data.values():
            _modifiers(value, system, found)
    elif isinstance(data, list):
        for value in data:
            _modifiers(value, system, found)


def event_row(system: AnyGameSystem, logged: LoggedEvent, command: int) -> EventRow:
    ev = logged.event
    data = to_builtins(ev)
    row = EventRow(
        position=logged.position,
        type=type(ev).__name__,
        text=narrate(system, ev).strip(),
        command=command,
        event=data if isinstance(data, dict) else {"value": data},
        hash=logged.hash.hex(),
    )
    if isinstance(ev, RuleEvent):
        row.rule = ev.rule
        row.citation = system.rulebook.cite(ev.rule)
        _modifiers(data, system, row.modifiers)
        row.numbers = {
            k: v
            for k, v in data.items()
            if isinstance(v, int) and not isinstance(v, bool) and k != "type"
        }
    return row


def event_rows(system: AnyGameSystem, events: Sequence[LoggedEvent]) -> list[EventRow]:
    """Rows of a battle's events from position 1; the rows of a voided command say which void
    (position and reason) leaves them out."""
    rows: list[EventRow] = []
    command = 0
    voided = voided_commands([e.event for e in events])
    for logged in events:
        if isinstance(logged.event, CommandIssued):
            command = logged.event.index
        row = event_row(system, logged, command)
        for v in voided:
            if v.covers(logged.position):
                row.voided_at, row.void_reason = v.voided_at, v.reason
        rows.append(row)
    return rows


def _plain_rows(system: AnyGameSystem, events: Sequence[Event]) -> list[EventRow]:
    """Rows of events not (yet) in the store: a what-if's."""
    rows: list[EventRow] = []
    command = 0
    for position, ev in enumerate(events, start=1):
        if isinstance(ev, CommandIssued):
            command = ev.index
        fake = LoggedEvent(
            originator_id=UUID(int=0),
            originator_version=position,
            ruleset=system.id,
            event=ev,
            data=b"",
            prev_hash=b"",
            hash=b"",
        )
        rows.append(event_row(system, fake, command))
    return rows


# --- the server's work ------------------------------------------------------------------------

_PATH = re.compile(r" - at `\$(.*)`$")


_T = TypeVar("_T")


def _bounded(field_name: str, value: _T) -> _T:
    """``value`` as posted, once every number in it is finite and of a size a record can hold
    (a command's ``turn`` of 10^30 fits Python's int and the command's type, not the log)."""
    try:
        check_values(value, field_name + ": ")
    except ScenarioError as e:
        raise ApiError(
            422, field_name, "numbers within the bounds a record holds", str(e)
        ) from None
    return value


def _validation(field_name: str, error: msgspec.ValidationError, rule: str) -> ApiError:
    """msgspec says '... - at `$.a[0].b`'; the field is then ``field_name.a[0].b``."""
    text = str(error)
    m = _PATH.search(text)
    if m:
        return ApiError(422, field_name + m.group(1), rule, text[: m.start()])
    return ApiError(422, field_name, rule, text)


ODDS_KEPT = 256  # odds answers kept in memory
HEADS_KEPT = 2048  # battles kept in memory at their head: the biggest events have 400 tables


@dataclass
class _Battle:
    """A battle as read: its events, game system and first event. Never changed once made (a
    battle that grows is a new ``_Battle``), so the requests of every thread may share it; what
    is worked out from it (the events that stand, the state after its last event, the commands
    the rules allow then) is worked out once."""

    id: UUID
    events: list[LoggedEvent]
    system: AnyGameSystem
    started: BattleStarted[Any]
    # The state after the last event, once known (the command that made it, or a read).
    head_state: Any = None
    _options: list[Any] | None = None

    @property
    def version(self) -> int:
        return len(self.events)

    @property
    def sealed(self) -> bool:
        return isinstance(self.events[-1].event, BattleSealed)

    @functools.cached_property
    def played(self) -> list[tuple[int, Event]]:
        """The events that stand (a voided command's are left out), with their positions."""
        return standing([e.event for e in self.events])

    @functools.cached_property
    def commands(self) -> int:
        """The commands that stand: the next command's number less one."""
        return sum(1 for _, e in self.played if isinstance(e, CommandIssued))

    @functools.cached_property
    def last_command(self) -> int:
        """The number of the last command that stands (the one a void may name); 0: none."""
        issued = [e.index for _, e in self.played if isinstance(e, CommandIssued)]
        return issued[-1] if issued else 0

    @functools.cached_property
    def voided(self) -> int:
        """How many commands are voided."""
        return len(voided_commands([e.event for e in self.events]))

    @property
    def rulings(self) -> dict[str, str]:
        """The rulings commands are adjudicated under: those recorded, read as the version the
        battle was started under reads them (as ``bxb play`` and verify do)."""
        return dict(
            self.system.rulings_in_force(self.started.ruleset_version, self.started.rulings)
        )

    def grown(self, logged: Sequence[LoggedEvent], state: Any = None) -> _Battle:
        """This battle with ``logged`` written after its last event; ``state``: the state after
        them when known, else folded from this one's when none of them voids a command."""
        if state is None and self.head_state is not None:
            plain = [e.event for e in logged]
            if not any(isinstance(e, CommandVoided) for e in plain):
                state = fold(self.system, self.head_state, plain)
        return _Battle(
            id=self.id,
            events=[*self.events, *logged],
            system=self.system,
            started=self.started,
            head_state=state,
        )


class _Behind(Exception):
    """The store is past the version a command was adjudicated from: nothing was written."""


@dataclass
class Service:
    """The store, the tournament register and the judges' signing key, shared by every request."""

    store: BattleStore
    tournaments: TournamentStore
    key: Ed25519PrivateKey | None = None  # seals, signs receipts, opens escrows
    # Escrow public keys (x25519:HEX) a fair battle's seed is encrypted to; none given: the
    # escrow key of ``key`` (the judges seal on this server with that same key).
    judge_keys: tuple[str, ...] = ()
    _verified: dict[tuple[UUID, int], VerifyResult] = field(default_factory=dict)
    # Odds of a recorded command, by (battle, position, budget, samples): a log only grows, so
    # the state before a recorded command never changes and neither do its odds.
    _odds: dict[tuple[UUID, int, int, int], Odds] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)
    # Each battle as this process last saw it at its head, the least recently used first: a
    # read checks it against the store's head (one small query) and reads only what was written
    # since; a command is adjudicated from it and appended at its version, which the store
    # refuses (StaleVersion) if anyone, in this process or another, wrote since.
    _heads: OrderedDict[UUID, _Battle] = field(default_factory=OrderedDict)
    _known: set[UUID] = field(default_factory=set)  # ids of battles this process has seen

    # --- reading --------------------------------------------------------------------------

    def battle_id(self, ref: str) -> UUID:
        """The battle ``ref`` names: a battle's id (looked up in the battle index, not the list
        of every battle), or what ``resolve_battle`` finds (id prefix, label)."""
        try:
            exact = UUID(ref)
        except ValueError:
            exact = None
        if (
            exact is not None
            and str(exact) == ref
            and (exact in self._known or self.store.models.head(exact) is not None)
        ):
            self._known.add(exact)
            return exact
        try:
            return resolve_battle(self.store, ref)
        except BattleNotFound as e:
            raise ApiError(
                404, "battle", "a battle named by id, id prefix or label", str(e)
            ) from None

    def read(self, battle: UUID) -> _Battle:
        """The battle as the store holds it now: this process's copy when the store's head is
        still the copy's last event, the copy and what was written since when the log grew
        after it, the whole log otherwise."""
        kept = self._kept(battle)
        if kept is not None:
            try:
                head = self.store.head(battle)
            except (StoreError, msgspec.DecodeError):
                head = None
            if head is not None and head.version == kept.version:
                if head.hash == kept.events[-1].hash:
                    return kept
            elif head is not None and head.version > kept.version:
                grown = self._grown(kept, head.version)
                if grown is not None:
                    return self._keep(grown)
        return self._keep(self._read_whole(battle))

    def _grown(self, kept: _Battle, version: int) -> _Battle | None:
        """``kept`` with the records after it up to ``version``, if they carry on its chain."""
        try:
            after = list(self.store.logged(kept.id, gt=kept.version, lte=version))
        except StoreError:
            return None
        if len(after) != version - kept.version or after[0].prev_hash != kept.events[-1].hash:
            return None
        return kept.grown(after)

    def _kept(self, battle: UUID) -> _Battle | None:
        with self._lock:
            kept = self._heads.get(battle)
            if kept is not None:
                self._heads.move_to_end(battle)
            return kept

    def _keep(self, b: _Battle) -> _Battle:
        """Keep ``b`` as the battle's head, unless a later one is kept already."""
        with self._lock:
            kept = self._heads.get(b.id)
            if kept is None or kept.version <= b.version:
                self._heads[b.id] = b
                self._heads.move_to_end(b.id)
            while len(self._heads) > HEADS_KEPT:
                self._heads.popitem(last=False)
            self._known.add(b.id)
        return b

    def _forget(self, battle: UUID) -> None:
        """This process wrote to the battle other than by a command: read it again next time."""
        with self._lock:
            self._heads.pop(battle, None)

    def _read_whole(self, battle: UUID) -> _Battle:
        try:
            events = self.store.read(battle)
        except StoreError as e:
            raise ApiError(
                409, "battle", "a battle must be readable (see verify)", str(e)
            ) from None
        if not events or not isinstance(events[0].event, BattleStarted):
            raise ApiError(404, "battle", "a battle named by id", f"no battle {battle}")
        first: BattleStarted[Any] = events[0].event
        try:
            system = get_game_system(first.ruleset)
        except UnknownGameSystem as e:
            raise ApiError(409, "battle", "the game system must be installed", str(e)) from None
        return _Battle(id=battle, events=events, system=system, started=first)

    def log(self, battle: UUID, after: int = 0) -> list[EventRow]:
        b = self.read(battle)
        return [r for r in event_rows(b.system, b.events) if r.position > after]

    def summary(self, battle: UUID) -> BattleSummary:
        try:
            b = self.read(battle)
        except ApiError:
            return self._unreadable(battle)
        place = self.tournaments.place_of(battle)
        return BattleSummary(
            battle=str(battle),
            label=b.started.label,
            ruleset=b.system.id,
            title=b.system.title,
            version=b.version,
            commands=b.commands,
            dice=b.started.dice.mode,
            rulings=dict(b.started.rulings),
            status=self._status(b, place),
            place=None
            if place is None
            else TablePlace(tournament=place.tournament, table=place.table, round=place.round),
            origin=b.started.origin,
            last_command=b.last_command,
            voided=b.voided,
            fair=self._fair_info(b),
        )

    def _fair_info(self, b: _Battle) -> FairInfo | None:
        """A fair battle's commitment and contributions (None for other dice, or a fair battle
        whose start cannot be read: verify says why)."""
        if not is_escrowed(b.started.dice) or b.started.origin is not None:
            return None
        try:
            given = read_fair_start([e.event for e in b.events]).contributions
        except FairnessError:
            return None
        sides = list(sides_of(b.system, b.started.setup))
        return FairInfo(
            commitment=b.started.dice.commitment or "",
            sides=sides,
            contributions=given,
            missing=[s for s in sides if s not in given],
        )

    def _unreadable(self, battle: UUID) -> BattleSummary:
        place = self.tournaments.place_of(battle)
        return BattleSummary(
            battle=str(battle),
            label="(unreadable)",
            ruleset="",
            title="",
            version=self.store.version(battle),
            commands=0,
            dice="",
            rulings={},
            status="verify failed",
            place=None
            if place is None
            else TablePlace(tournament=place.tournament, table=place.table, round=place.round),
        )

    def _status(self, b: _Battle, place: TableBattle | None) -> Status:
        if b.sealed:
            return "sealed"
        checked = self._verified.get((b.id, len(b.events)))
        if checked is not None and not checked.ok:
            return "verify failed"
        if (place is not None and place.finished) or not self._legal(b):
            return "finished"
        return "playing" if b.commands else "waiting"

    def _legal(self, b: _Battle) -> list[Any]:
        """The commands the rules allow after the battle's last event (worked out once)."""
        if b._options is None:
            state = self._state(b, b.version)
            b._options = list(b.system.legal_commands(state, b.started.rulings))
        return b._options

    def _state(self, b: _Battle, position: int) -> Any:
        """The battle's state right after ``position``: after its last event, the state kept
        with it once known; else through the store's read models (the nearest snapshot and the
        events after it); ``fold_battle`` over the events read when the store cannot say (the
        battle moved or was edited since they were read)."""
        if position == b.version and b.head_state is not None:
            return b.head_state
        try:
            at = self.store.state_at(b.id, position)
        except (BlowByBlowError, ValueError):
            at = None
        if at is not None and at.of == len(b.events):
            state = at.state
        else:
            state = fold_battle(b.system, [e.event for e in b.events], position)
        if position == b.version:
            b.head_state = state
        return state

    def legal(self, battle: UUID) -> LegalOptions:
        b = self.read(battle)
        options = [] if b.sealed else self._legal(b)
        return LegalOptions(battle=str(battle), version=len(b.events), options=options)

    def state_at(self, battle: UUID, position: int | None) -> StateAt:
        b = self.read(battle)
        total = len(b.events)
        at = total if position is None else position
        if not 1 <= at <= total:
            raise ApiError(
                422,
                "position",
                "a position of the battle",
                f"the battle has events 1 to {total}, not {at}",
            )
        state = self._state(b, at)
        rows = event_rows(b.system, b.events[:at])
        return StateAt(
            battle=str(battle),
            position=at,
            of=total,
            event=rows[-1],
            view=b.system.view(state),
            text=b.system.describe_state(state),
            state=to_builtins(state),
        )

    def odds(self, battle: UUID, position: int, budget: int, samples: int) -> Odds:
        """The odds of the recorded command holding ``position`` (``bxb odds --battle ID
        --position N``): exact within ``budget`` runs, else ``samples`` Monte Carlo samples."""
        key = (battle, position, budget, samples)
        cached = self._odds.get(key)
        if cached is not None:
            return cached
        b = self.read(battle)
        how = HowToExplore(budget=budget, samples=samples)
        try:
            found = recorded_odds([e.event for e in b.events], position, how)
        except BlowByBlowError as e:
            raise ApiError(
                422, "position", "a position of one of the battle's recorded commands", str(e)
            ) from None
        with self._lock:
            if len(self._odds) >= ODDS_KEPT:  # the oldest goes: dicts keep insertion order
                del self._odds[next(iter(self._odds))]
            self._odds[key] = found
        return found

    # --- starting and playing ---------------------------------------------------------------

    def start(self, tournament: str, table: int, req: StartBattle) -> BattleSummary:
        """Record a new battle at a table (and its commands, if a whole scenario is given)."""
        try:
            system = get_game_system(req.ruleset)
        except UnknownGameSystem as e:
            raise ApiError(422, "ruleset", "a game system of this server", str(e)) from None
        if table not in self.tournaments.tournament(tournament).tables:
            raise ApiError(
                404, "table", "a table of the tournament", f"no table {table} in {tournament}"
            )
        if req.round < 1:
            raise ApiError(422, "round", "rounds count from 1", f"round {req.round}")
        scenario = self._scenario(system, tournament, table, req)
        if req.fair:
            battle = self._start_fair(scenario, req)
            self.tournaments.assign(battle, tournament, table, req.round)
            return self.summary(battle)
        if req.contributions:
            raise ApiError(
                422, "contributions", "contributions go with fair dice", "give fair: true too"
            )
        dice = None if req.seed is not None else ListedDice(req.dice)
        try:
            recorded = record(
                self.store,
                scenario,
                dice=dice,
                choices=ScriptedChoices(req.choices),
                quiet=True,
            )
        except AlreadyRecorded as e:
            raise ApiError(409, "label", "one battle per label and setup", str(e)) from None
        except RulingError as e:
            raise ApiError(422, "rulings", "the game system's rulings", str(e)) from None
        except SetupError as e:
            raise ApiError(422, "setup", "a setup that hangs together", str(e)) from None
        except RuleViolation as e:
            raise ApiError(422, "commands", e.rule, e.message) from None
        except DiceError as e:
            raise ApiError(
                422, "dice", "one typed die for each the rules ask for", str(e)
            ) from None
        except UnusedInput as e:  # dice or answers left over: they were meant for other play
            raise ApiError(422, "dice", "exactly the dice the rules ask for", str(e)) from None
        self.tournaments.assign(recorded.battle, tournament, table, req.round)
        return self.summary(recorded.battle)

    def escrow_keys(self) -> list[str]:
        """The judges' escrow public keys a fair battle's seed is encrypted to."""
        if self.judge_keys:
            return list(self.judge_keys)
        return [] if self.key is None else [escrow_public_text(escrow_key(self.key))]

    def _start_fair(self, scenario: Any, req: StartBattle) -> UUID:
        """Write a fair battle's start (commitment, escrow) and the contributions given with it;
        the others come later (``contribute``), each before the first command."""
        if req.seed is not None or req.dice or req.commands:
            field_name = "seed" if req.seed is not None else "dice" if req.dice else "commands"
            raise ApiError(
                422,
                field_name,
                "a fair battle rolls its own dice, command by command",
                f"give no {field_name} with fair: true",
            )
        keys = self.escrow_keys()
        if not keys:
            raise ApiError(
                409,
                "fair",
                "fair dice are escrowed to the judges' key",
                "this server has no judge's key: start it with `bxb serve --key PATH` "
                "(or --judge-key x25519:HEX)",
            )
        terms = FairTerms(judge_keys=keys, contributions=req.contributions, keep_seed=True)
        try:
            return start_fair(self.store, scenario, terms).battle
        except StartedAndKept as e:  # written, but not its contributions: they can come later
            return e.battle
        except FairnessError as e:
            raise ApiError(
                422, "contributions", "one value per side of the setup", str(e)
            ) from None
        except RulingError as e:
            raise ApiError(422, "rulings", "the game system's rulings", str(e)) from None
        except SetupError as e:
            raise ApiError(422, "setup", "a setup that hangs together", str(e)) from None

    def contribute(self, battle: UUID, req: Contributions) -> ContributionsResult:
        """A fair battle's contributions, given at the table before the first command."""
        b = self.read(battle)
        if not is_escrowed(b.started.dice) or b.started.origin is not None:
            raise ApiError(
                409, "battle", "contributions go to a fair battle", f"battle {battle} is not fair"
            )
        try:
            self._forget(battle)  # whatever comes of it, read it again next time
            logged = contribute(self.store, battle, req.contributions)
        except StaleVersion as e:
            raise ApiError(409, "version", "give it to the battle as it stands", str(e)) from None
        except FairnessError as e:
            rule = "contributions come before command 1, one per side"
            raise ApiError(422, "contributions", rule, str(e)) from None
        after = self.read(battle)
        info = self._fair_info(after)
        assert info is not None
        return ContributionsResult(
            battle=str(battle),
            version=len(after.events),
            fair=info,
            receipt=self._receipt(battle, logged[-1]),
        )

    def _receipt(self, battle: UUID, last: LoggedEvent) -> Receipt | None:
        """The server's receipt for the battle's head at ``last`` (None: no signing key)."""
        return None if self.key is None else sign_receipt(self.key, battle, last)

    def receipt(self, battle: UUID) -> Receipt | None:
        """The receipt for the battle's head as the store holds it now (the table page shows it:
        the same line the last write handed out, an Ed25519 signature being deterministic)."""
        last = self.store.last(battle)
        return None if last is None else self._receipt(battle, last)

    def _scenario(
        self, system: AnyGameSystem, tournament: str, table: int, req: StartBattle
    ) -> Any:
        demo = system.demo()
        try:
            setup = (
                demo.setup if req.setup is None else msgspec.convert(req.setup, system.setup_type)
            )
        except msgspec.ValidationError as e:
            raise _validation("setup", e, f"the setup schema of {system.id}") from None
        commands = []
        for i, command in enumerate(req.commands):
            try:
                commands.append(msgspec.convert(command, system.command_type))
            except msgspec.ValidationError as e:
                raise _validation(
                    f"commands[{i}]", e, f"the command schema of {system.id}"
                ) from None
        _bounded("setup", setup)
        _bounded("commands", commands)
        return Scenario(
            ruleset=system.id,
            label=req.label or f"{tournament} round {req.round} table {table}",
            rulings=req.rulings,
            setup=setup,
            commands=commands,
            dice=None if req.seed is not None else list(req.dice),
            seed=req.seed,
            choices=req.choices,
        )

    def play(self, battle: UUID, req: PlayCommand) -> PlayResult:
        """Adjudicate one command against the battle as it stands; write its events in one
        transaction only if it completes, every typed die is used and nobody wrote first.

        The battle as this process last saw it is taken as it stands, unread: the append at its
        version is the check (the store refuses it if anyone wrote since). Then, or when the
        player saw another version, the battle is read; a command sent without a version is
        adjudicated again from what was read."""
        kept = self._kept(battle)
        if kept is not None and req.version in (None, kept.version):
            try:
                return self._play(kept, req)
            except _Behind as e:
                if req.version is not None:
                    raise ApiError(
                        409, "version", "play from the battle as it stands", str(e)
                    ) from None
        try:
            return self._play(self.read(battle), req)
        except _Behind as e:
            raise ApiError(409, "version", "play from the battle as it stands", str(e)) from None

    def _play(self, b: _Battle, req: PlayCommand) -> PlayResult:
        """``play`` from ``b``: _Behind when the store is past it (nothing written)."""
        battle = b.id
        version = b.version
        if b.sealed:
            raise ApiError(
                409,
                "battle",
                "a sealed battle takes no more commands",
                f"battle {battle} is sealed",
            )
        if req.version is not None and req.version != version:
            raise ApiError(
                409,
                "version",
                "play from the battle as it stands",
                f"the battle is at version {version}, not {req.version}: someone has played "
                "since; nothing was written",
            )
        state = self._state(b, version)
        command = self._command(b, state, req)
        dice = self._dice(b, req)
        try:
            rulings = b.rulings
        except RulingError as e:
            raise ApiError(409, "battle", "rulings this server reads", str(e)) from None
        table = Table(
            system=b.system,
            rulings=rulings,
            dice=dice,
            choices=PageChoices(req.choices, ask=req.ask),
            battle=str(battle),
        )
        plain = to_builtins(command)
        try:
            result = table.adjudicate(state, command, b.commands + 1, first_position=version + 1)
        except (NeedDice, NeedChoice) as e:
            return PlayResult(status="needs", version=version, need=e.need, command=plain)
        except RuleViolation as e:
            raise ApiError(422, "command", e.rule, e.message) from None
        except DiceError as e:
            raise ApiError(
                422,
                "dice" if "roll" in str(e) else "choices",
                "dice and choices the rules allow",
                str(e),
            ) from None
        if isinstance(dice, TypedDice) and dice.unused:
            raise ApiError(
                422,
                "dice",
                "every die typed is one the rules ask for",
                f"{dice.unused} die/dice typed beyond the {dice.used} this command rolls; "
                "nothing was written",
            )
        try:
            logged = self.store.append(battle, b.system.id, version, result.events)
        except StaleVersion as e:
            self._forget(battle)
            raise _Behind(str(e)) from None
        except StoreError as e:
            self._forget(battle)
            raise ApiError(
                409, "battle", "a sealed battle takes no more commands", str(e)
            ) from None
        self._keep(b.grown(logged, result.state))
        # the command's own rows: none of its events is voided yet
        rows = [event_row(b.system, e, result.index) for e in logged]
        return PlayResult(
            status="played",
            version=version + len(logged),
            events=rows,
            command=plain,
            receipt=self._receipt(battle, logged[-1]),
        )

    def _command(self, b: _Battle, state: Any, req: PlayCommand) -> Any:
        if (req.command is None) == (req.option is None):
            raise ApiError(
                422,
                "command",
                "one command: its JSON, or the index of a legal option",
                "give either command or option",
            )
        if req.command is not None:
            try:
                command = msgspec.convert(req.command, b.system.command_type)
            except msgspec.ValidationError as e:
                raise _validation("command", e, f"the command schema of {b.system.id}") from None
            return _bounded("command", command)
        options = b.system.legal_commands(state, b.started.rulings)
        assert req.option is not None
        if not 0 <= req.option < len(options):
            raise ApiError(
                422,
                "option",
                "an option the rules offer now (GET legal)",
                f"option {req.option}: the rules offer {len(options)} now",
            )
        try:
            return _bounded("picks", b.system.build_command(options[req.option], req.picks))
        except OptionError as e:
            raise ApiError(422, "picks", "a value the option allows", str(e)) from None

    def _dice(self, b: _Battle, req: PlayCommand) -> Any:
        mode = b.started.dice
        if mode.mode == "seeded" and mode.seed is not None:
            if req.dice:
                raise ApiError(
                    422, "dice", "a seeded battle rolls its own dice", "do not type dice for it"
                )
            return SeededDice(mode.seed)
        if mode.mode == "fair":
            if req.dice:
                raise ApiError(
                    422, "dice", "a fair battle rolls its own dice", "do not type dice for it"
                )
            return self._fair_dice(b)
        return TypedDice(req.dice)

    def _fair_dice(self, b: _Battle) -> Any:
        """A fair battle's dice: its seed from this server's kept copy, or from the escrow with
        the judges' key; only once every side has given its contribution."""
        if not is_escrowed(b.started.dice):
            raise ApiError(
                409, "battle", "fair dice escrowed to the judges", "play this battle with `bxb`"
            )
        info = self._fair_info(b)
        if info is not None and info.missing:
            raise ApiError(
                409,
                "contributions",
                "every side gives its contribution before command 1",
                f"waiting for the contribution of {', '.join(info.missing)}",
            )
        try:
            try:
                return open_fair(self.store, b.id).dice()
            except FairnessError:
                if self.key is None:
                    raise
                return open_fair(self.store, b.id, key=self.key).dice()
        except (FairnessError, JudgingError) as e:
            raise ApiError(
                409, "battle", "the fair seed kept here or opened with the judges' key", str(e)
            ) from None

    def void(self, battle: UUID, req: VoidRequest, by: str) -> VoidResult:
        """Record that the last command that stands is not played, who voided it and why
        (``replay.battles.service.void_command``); nothing is deleted."""
        if not req.reason.strip():
            raise ApiError(
                422, "reason", "a void says why", "give the reason the command is voided"
            )
        b = self.read(battle)
        if req.version is not None and req.version != len(b.events):
            raise ApiError(
                409,
                "version",
                "void from the battle as it stands",
                f"the battle is at version {len(b.events)}, not {req.version}: someone has "
                "written since; nothing was written",
            )
        who = f"{req.by.strip()} ({by})" if req.by.strip() else by
        try:
            self._forget(battle)  # whatever comes of it, read it again next time
            logged = void_command(
                self.store, battle, command=req.command, by=who, reason=req.reason
            )
        except StaleVersion as e:
            raise ApiError(409, "version", "void from the battle as it stands", str(e)) from None
        except VoidRefused as e:
            status = 409 if b.sealed else 422
            rule = "only the last command that stands is voided, before the seal"
            raise ApiError(status, "command", rule, str(e)) from None
        return VoidResult(
            battle=str(battle),
            command=req.command,
            position=logged.position,
            version=logged.position,
            by=who,
            reason=req.reason.strip(),
            receipt=self._receipt(battle, logged),
        )

    def finish(self, battle: UUID) -> BattleSummary:
        self.read(battle)
        if self.tournaments.place_of(battle) is None:
            raise ApiError(
                404, "battle", "a battle played at a table", f"battle {battle} is at no table"
            )
        self.tournaments.mark_finished(battle)
        return self.summary(battle)

    # --- judging ----------------------------------------------------------------------------

    def verify(self, battle: UUID) -> VerifyResult:
        report = _verify(self.store, battle)
        result = self._verify_result(report)
        with self._lock:
            self._verified[(battle, report.events)] = result
        return result

    def _verify_result(self, report: Report) -> VerifyResult:
        problem = None
        if report.problem is not None:
            p = report.problem
            citation = ""
            if p.rule and report.ruleset:
                try:
                    citation = get_game_system(report.ruleset).rulebook.cite(p.rule)
                except UnknownGameSystem:
                    citation = ""
            problem = ProblemBody(
                position=p.position,
                kind=p.kind,
                message=p.message,
                rule=p.rule,
                citation=citation,
                recorded=p.recorded,
                expected=p.expected,
            )
        return VerifyResult(
            battle=str(report.battle),
            ok=report.ok,
            label=report.label,
            events=report.events,
            commands=report.commands,
            dice_checked=report.dice_checked,
            problem=problem,
            notes=list(report.notes),
            text="verify OK" if report.ok else f"verify FAILED: {problem and p.describe()}",
        )

    def seal(self, battle: UUID) -> SealResult:
        if not any(isinstance(e.event, CommandIssued) for e in self.read(battle).events):
            raise ApiError(
                409, "battle", "a seal closes a battle that has begun", "no command played yet"
            )
        if self.key is None:
            raise ApiError(
                409,
                "key",
                "the server seals with the judges' signing key",
                "this server has no signing key: start it with `bxb serve --key PATH`",
            )
        try:
            self._forget(battle)  # whatever comes of it, read it again next time
            logged = seal_battle(self.store, battle, self.key)
        except (JudgingError, StaleVersion, StoreError) as e:
            raise ApiError(409, "battle", "a seal closes a battle that verifies", str(e)) from None
        ev = logged.event
        assert isinstance(ev, BattleSealed)
        return SealResult(
            battle=str(battle),
            position=logged.position,
            length=ev.checkpoint.length,
            last_hash=ev.checkpoint.last_hash,
            public_key=ev.public_key,
            seed_revealed=ev.checkpoint.seed is not None,
        )

    def export(self, battle: UUID) -> bytes:
        self.read(battle)
        try:
            return export_battle(self.store, battle)
        except BlowByBlowError as e:
            raise ApiError(409, "battle", "a readable battle", str(e)) from None

    def import_(self, req: ImportRequest) -> ImportResult:
        try:
            trusted = frozenset(load_public_key(k) for k in req.public_keys) or None
        except BlowByBlowError as e:
            raise ApiError(422, "public_keys", "hex Ed25519 public keys", str(e)) from None
        try:
            read = import_battle(self.store, req.text, trusted)
        except (ExportError, BlowByBlowError) as e:
            raise ApiError(422, "text", "an export that verifies completely", str(e)) from None
        return ImportResult(
            battle=str(read.battle), label=read.report.label, events=len(read.events)
        )

    def whatif(self, battle: UUID, req: WhatIfRequest) -> WhatIfResult:
        b = self.read(battle)
        try:
            wi = what_if(b.events, req.rulings, req.ruleset)
        except BlowByBlowError as e:
            raise ApiError(
                422, "rulings", "rulings and versions of the battle's game", str(e)
            ) from None
        saved = None
        if req.save:
            if wi.stopped:
                raise ApiError(409, "save", "only a re-run that completes is saved", wi.stopped)
            try:
                saved = str(save_events(self.store, wi.ruleset, wi.alternative).battle)
            except AlreadyRecorded as e:
                saved = str(e.battle)
        return WhatIfResult(
            battle=str(battle),
            ruleset=wi.ruleset.id,
            rulings=dict(wi.alternative[0].rulings)
            if isinstance(wi.alternative[0], BattleStarted)
            else {},
            divergence=wi.divergence,
            original=_plain_rows(wi.original_ruleset, wi.original),
            alternative=_plain_rows(wi.ruleset, wi.alternative),
            original_state=wi.original_ruleset.describe_state(wi.original_state),
            alternative_state=wi.ruleset.describe_state(wi.alternative_state),
            stopped=wi.stopped,
            fresh_dice=list(wi.fresh_dice),
            saved=saved,
        )

    def diff(self, a: UUID, b: UUID) -> DiffResult:
        ba, bb = self.read(a), self.read(b)
        pos = first_divergence([e.event for e in ba.events], [e.event for e in bb.events])
        result = DiffResult(
            a=str(a), b=str(b), divergence=pos, a_events=len(ba.events), b_events=len(bb.events)
        )
        if pos is not None:
            if pos <= len(ba.events):
                result.a_row = event_rows(ba.system, ba.events[:pos])[-1]
            if pos <= len(bb.events):
                result.b_row = event_rows(bb.system, bb.events[:pos])[-1]
        return result

    # --- the tournament ---------------------------------------------------------------------

    def dashboard(self, slug: str) -> Dashboard:
        try:
            tournament = self.tournaments.tournament(slug)
        except TournamentError as e:
            raise ApiError(404, "tournament", "a tournament of this server", str(e)) from None
        played = self.tournaments.battles(slug)
        rows: list[TableRow] = []
        for number in tournament.tables:
            at_table = [p for p in played if p.table == number]
            if not at_table:
                rows.append(TableRow(table=number, status="waiting"))
                continue
            latest = self.summary(at_table[-1].battle)
            rows.append(
                TableRow(table=number, status=latest.status, battle=latest, battles=len(at_table))
            )
        return Dashboard(
            tournament=slug,
            name=tournament.name,
            tables=rows,
            rounds=sorted({p.round for p in played}),
        )

    def verify_all(self, slug: str) -> BulkResult:
        results = [self.verify(p.battle) for p in self.tournaments.battles(slug)]
        return BulkResult(
            done=[r.battle for r in results if r.ok],
            failed={r.battle: r.text for r in results if not r.ok},
            verified=results,
        )

    def seal_finished(self, slug: str) -> BulkResult:
        done: list[str] = []
        failed: dict[str, str] = {}
        for placed in self.tournaments.battles(slug):
            if self.summary(placed.battle).status != "finished":
                continue
            try:
                done.append(self.seal(placed.battle).battle)
            except ApiError as e:
                failed[str(placed.battle)] = e.message
        return BulkResult(done=done, failed=failed)

    def export_round(self, slug: str, round_: int) -> bytes:
        """Every battle of a round, one export each, in a zip."""
        placed = [p for p in self.tournaments.battles(slug) if p.round == round_]
        if not placed:
            raise ApiError(
                404, "round", "a round with battles", f"{slug} has no battle in round {round_}"
            )
        out = io.BytesIO()
        with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
            for p in placed:
                z.writestr(
                    f"{slug}-round{round_}-table{p.table}-{p.battle}.jsonl", self.export(p.battle)
                )
        return out.getvalue()


def _verify(store: BattleStore, battle: UUID) -> Report:
    """``verify_battle``, and the same checks for a battle that has only begun: the engine's
    verification expects at least one command (it splits the log by command) and fails on a
    battle started live with none yet, so such a battle's records, chain and setup are checked
    here instead."""
    events, problem = read_all(store, battle)
    if problem is not None or any(isinstance(e.event, CommandIssued) for e in events):
        return verify_battle(store, battle)
    report = Report(battle=battle, events=len(events))
    if events and isinstance(events[0].event, BattleStarted):
        first = events[0].event
        report.label, report.ruleset = first.label, first.ruleset
        try:
            system = get_game_system(first.ruleset)
            system.validate_setup(first.setup)
            if system.resolve_rulings(first.rulings) != first.rulings:
                raise SetupError("the rulings recorded are not the full, valid set")
        except BlowByBlowError as e:
            report.problem = Problem(1, "setup", f"the setup is not valid: {e}")
            return report
    report.problem = check_chain(battle, events) or (
        None if len(events) == 1 else Problem(2, "sequence", "events before the first command")
    )
    return report


def rulesets() -> list[RulesetInfo]:
    return [
        RulesetInfo(
            id=s.id,
            title=s.title,
            game=s.game,
            version=s.version,
            rulebook=s.rulebook.title,
            rulings=[
                RulingInfo(
                    name=r.name,
                    default=r.default,
                    choices=list(r.choices),
                    summary=r.summary,
                    citation=s.rulebook.cite(r.rule),
                )
                for r in s.rulings
            ],
            setup_schema=s.setup_schema(),
            command_schema=s.command_schema(),
        )
        for s in game_systems().values()
    ]


__all__ = ["ApiError", "NeedChoice", "NeedDice", "PageChoices", "Service", "TypedDice", "rulesets"]
