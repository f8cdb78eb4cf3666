"""What a game system hands the engine, and nothing else: ``GameSystem[Setup, State, Command]``.

A game system is one package (``blowbyblow.domain.<game>`` for the shipped ones, any package of
any distribution for others) laid out the same way every time (see docs/adding-a-game-system.md):
setup, state, commands, events, rulings, the rulebook it cites, one module per rulebook step or
step group, its projection (fold and view), narration, a demo, and ``system.py``, which builds the
``GameSystem`` and is registered under the entry-point group ``blowbyblow.game_systems``.

Everything here is pure data and pure functions: the engine (``blowbyblow.replay``) drives a
system, front ends render it through ``view`` and ``legal_commands`` without knowing the game.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar, Union, get_origin

import msgspec
import msgspec.inspect as mi

from blowbyblow.domain.core import (
    BlowByBlowError,
    Command,
    Context,
    Event,
    Procedure,
    Ruling,
    RulingError,
)

SetupT = TypeVar("SetupT")
StateT = TypeVar("StateT")
CommandT = TypeVar("CommandT")
EventT = TypeVar("EventT", bound=Event)

ENTRY_POINT_GROUP = "blowbyblow.game_systems"


@dataclass(frozen=True)
class Concern(Generic[StateT]):
    """One fold of a game system's state (fighter status, Melee locks, ...) and the event types
    it reads: for any other event it must give back the state it was given, unchanged (tests
    check this for every type of every shipped system)."""

    evolve: Callable[[StateT, Any], StateT]
    reads: tuple[Any, ...]


def fold_by_event_type(
    *concerns: Concern[StateT], after_each: Callable[[StateT], StateT] | None = None
) -> Callable[[StateT, Event], StateT]:
    """A system's ``evolve`` from its ``concerns``: an event goes to the concerns that read its
    type, in the order given, then to ``after_each`` (a clean-up that depends on the state
    alone); any other event (most of a log: dice, choices, modifiers) leaves the state as it
    is after one dictionary lookup, where asking every concern in turn would cost a dozen
    ``isinstance`` checks. Replaying a log is mostly this."""
    readers: dict[type, list[Callable[[StateT, Any], StateT]]] = {}
    for concern in concerns:
        for kind in concern.reads:
            readers.setdefault(get_origin(kind) or kind, []).append(concern.evolve)
    folds = {kind: _in_turn(tuple(evolves), after_each) for kind, evolves in readers.items()}
    fold_of = folds.get

    def evolve(state: StateT, event: Event) -> StateT:
        fold = fold_of(type(event))
        return state if fold is None else fold(state, event)

    # Named after the system's own fold: a snapshot's fingerprint reads the source of the
    # package that ``evolve`` comes from (projections/snapshots.py).
    if concerns:
        evolve.__module__ = concerns[0].evolve.__module__
    return evolve


def _in_turn(
    evolves: tuple[Callable[[StateT, Any], StateT], ...],
    after_each: Callable[[StateT], StateT] | None,
) -> Callable[[StateT, Any], StateT]:
    if len(evolves) == 1 and after_each is None:
        return evolves[0]  # the common case, called directly

    def fold(state: StateT, event: Any) -> StateT:
        for evolve in evolves:
            state = evolve(state, event)
        return state if after_each is None else after_each(state)

    return fold


class Scenario(msgspec.Struct, Generic[SetupT, CommandT], frozen=True, kw_only=True):
    """A battle ready to record: a game system, its rulings, its setup and the commands to play.

    ``dice`` lists physical dice values in the order they are asked for; ``seed`` selects seeded
    digital dice instead."""

    ruleset: str
    label: str
    rulings: dict[str, str] = {}
    setup: SetupT
    commands: list[CommandT]
    dice: list[int] | None = None
    seed: str | None = None
    choices: dict[str, str] = {}


# --- citations ------------------------------------------------------------------------------


def _as_written(rule: str) -> str:
    return rule


@dataclass(frozen=True)
class Rulebook:
    """The published rules a system cites. Events carry a short reference in ``rule`` (e.g.
    ``"A11.4"``, ``"N23 CC 5"``); ``cite`` gives the citation a reader can look up in the book,
    e.g. "ASL Rulebook (2nd edition), A11.4"."""

    title: str
    section: Callable[[str], str] = _as_written  # a short reference -> the section in words

    def cite(self, rule: str) -> str:
        return f"{self.title}, {self.section(rule)}"


# --- what a front end shows -----------------------------------------------------------------


class Stat(msgspec.Struct, frozen=True, kw_only=True):
    """One figure of a fighter or unit worth showing (e.g. ``wounds`` = ``"1/2"``)."""

    name: str
    value: str


class UnitView(msgspec.Struct, frozen=True, kw_only=True):
    """A fighter, model or unit as a page or a prompt shows it."""

    id: str
    name: str
    side: str
    status: str  # in the game's own words ("Prone & Seriously Injured", "broken", …)
    stats: tuple[Stat, ...] = ()
    flags: tuple[str, ...] = ()  # short marks: "concealed", "broken", "prisoner", "charging", …
    location: str = ""  # where it is, when the game has places (an ASL Location)


class LockView(msgspec.Struct, frozen=True, kw_only=True):
    """Units held together: an engagement, a Melee, a combat, a threat range."""

    kind: str  # "engaged", "melee", "combat", "threat range", …
    members: tuple[str, ...]
    detail: str = ""


class PrisonerView(msgspec.Struct, frozen=True, kw_only=True):
    prisoner: str
    captor: str


class StateView(msgspec.Struct, frozen=True, kw_only=True):
    """A structured view of a state that any front end can render without knowing the game."""

    sides: tuple[str, ...]
    units: tuple[UnitView, ...]
    locks: tuple[LockView, ...] = ()
    concealed: tuple[str, ...] = ()
    prisoners: tuple[PrisonerView, ...] = ()
    phase: str = ""  # turn, phase, whose turn it is, in words
    notes: tuple[str, ...] = ()


class CommandOption(msgspec.Struct, frozen=True, kw_only=True, gc=False):
    """A command the rules allow now, as a front end offers it: who may give it, with what.

    ``fields`` are values already fixed (``{"attacker": "krug"}``); ``options`` maps a field to
    the values the rules allow for it (``{"targets": ("vex", "lira")}``); anything else the
    command takes has its default or is asked during adjudication."""

    type: str  # the command's tag, as in scenario files
    side: str  # the player (gang, side, army) who may give it; "" for the table (a new turn)
    actor: str = ""  # the fighter, model or unit that acts ("" for a player's command)
    fields: dict[str, str] = {}
    options: dict[str, tuple[str, ...]] = {}
    summary: str = ""


# --- what the odds count -------------------------------------------------------------------


@dataclass(frozen=True)
class Count(Generic[EventT]):
    """What one event of type ``event`` adds to a tally (``count``: a whole number), and whose
    it is: ``by`` gives the fighter, unit or side that scored it; for an event that names only
    whom it befell (a unit eliminated), ``against`` gives that one, and the count is the other
    side's when there are two. Neither: the count belongs to no side."""

    event: type[EventT]
    count: Callable[[EventT], int]
    by: Callable[[EventT], str] | None = None
    against: Callable[[EventT], str] | None = None


@dataclass(frozen=True)
class Tally:
    """A named count over a command's events (hits, kills, Partial Kills...), in the players'
    words; the odds give its distribution over the whole command and for each side."""

    name: str
    counts: tuple[Count[Any], ...]


def _no_scale() -> Mapping[str, int]:
    return {}


@dataclass(frozen=True)
class OddsRules:
    """What a game system adds to the odds' generic outcome (statuses, wounds, removals,
    captures, renames, and a count of each event type): its tallies; how bad each status in its
    own words is (``severity``: 0 unharmed, 3 gone) and each flag starting with a key of
    ``flag_severity``; and which of its rolls matter only as a multiset of dice
    (``order_insensitive``: glob patterns on the roll's key without the command's prefix, or on
    its purpose). An order-insensitive roll is a claim about the rules: it must not change the
    state the command leaves, whichever order the dice come in.

    ``unread``: the state with what no later step of any command reads, nor the odds'
    outcome shows (a unit's status, wounds lost, removal, capture, name and the marks the
    scale counts), written alike, so that the odds' branches that differ only in it meet. A
    claim about the rules too: two states it makes alike must go on alike to the command's
    end (Necromunda: an Out of Action fighter's Flesh Wounds and ammunition). Of what the
    outcome shows it may write alike only a unit's wounds, and only where no later step
    changes them (the odds take each branch's wounds lost from its own state, and raise if
    an outcome below changed them: Necromunda's fighter that no attack left can hit). It is given,
    besides the state, what ``done`` finds done in the command's record among the values a
    continuation holds (None if not asked), which the continuation's key holds too
    (Necromunda: who has chosen weapons in this command).

    ``unlabelled``: glob patterns on a choice's key without the command's prefix, for choices
    whose keys hold no label (``Label``): every number in them is a value the rules read (40K: a
    parry's place in the round), so every branch of the odds that reaches the choice from one
    point asks it under one key. A claim about the rules too: a choice keyed by a label must not
    match (the odds would share branches a script answers apart).

    ``unread_rolls``: glob patterns on a roll's key without the command's prefix (or on its
    purpose), for rolls whose dice nothing later in the command reads but what ``unread``
    writes alike, nor the odds' outcome shows: the odds explore such a roll once, by its first
    outcome, with the weight of all its faces (Necromunda: the older rules' Firepower dice and
    Ammo check of a pistol, which only mark it out of ammo). A claim about the rules too:
    every outcome of such a roll must go on as its first does, as far as the odds see (the
    units' outcomes and every count, a count of each rule step's events included)."""

    tallies: tuple[Tally, ...] = ()
    severity: Mapping[str, int] = field(default_factory=_no_scale)
    flag_severity: Mapping[str, int] = field(default_factory=_no_scale)
    order_insensitive: tuple[str, ...] = ()
    unread: Callable[[Any, Any], Any] | None = None
    done: Callable[[list[Any]], Any] | None = None
    unlabelled: tuple[str, ...] = ()
    unread_rolls: tuple[str, ...] = ()


# --- the interface ----------------------------------------------------------------------------


def _older(version: str, than: str) -> bool:
    """MAJOR.MINOR versions compared as numbers ("1.9" is older than "1.10")."""

    def parts(v: str) -> tuple[int, ...]:
        return tuple(int(p) for p in v.split("."))

    return parts(version) < parts(than)


class OptionError(BlowByBlowError):
    """A pick for a command option that the option does not allow."""


_MANY = (mi.VarTupleType, mi.ListType, mi.SetType, mi.FrozenSetType, mi.TupleType)


@functools.cache
def command_info(command_type: type[Command]) -> mi.StructType:
    """msgspec's account of a command type, worked out once: it is costly (it evaluates the
    type's annotations), a server builds a command from an option at every tap, and a prompt
    completes the typed syntax at every key press."""
    info = mi.type_info(command_type)
    assert isinstance(info, mi.StructType)
    return info


def _tag_of(command_type: type[Command]) -> str:
    return str(command_info(command_type).tag)


def _generic_command(
    command_types: tuple[type[Command], ...], option: CommandOption, picks: Mapping[str, str]
) -> Any:
    """Each fixed field and each pick (or first allowed value) is a field of the command; a
    field that holds several values gets the one picked."""
    matching = [c for c in command_types if _tag_of(c) == option.type]
    if not matching:
        raise OptionError(f"no command {option.type!r} in this game system")
    kinds = {f.name: f.type for f in command_info(matching[0]).fields}
    data: dict[str, Any] = {}
    chosen = {name: picks.get(name, allowed[0]) for name, allowed in option.options.items()}
    for name, value in [*option.fields.items(), *chosen.items()]:
        kind = kinds.get(name)
        if kind is None:
            raise OptionError(f"{option.type}: the command has no field {name!r}")
        if isinstance(kind, mi.UnionType):
            kind = next(x for x in kind.types if not isinstance(x, mi.NoneType))
        data[name] = [value] if isinstance(kind, _MANY) else value
    return msgspec.convert(data, matching[0], strict=False)


def _no_checks(setup: Any) -> None:
    return None


@dataclass(frozen=True, kw_only=True)
class RosterShape:
    """Where one side's force sits in this system's setup, so that a roster (a player's gang,
    army or side, kept from battle to battle: domain/roster.py) becomes part of a setup from
    the setup's own types, with no code written per system.

    ``members``: the setup fields listing a side's fighters, models or units (``("fighters",)``;
    ASL ``("units", "vehicles")``). ``side_field``: the field of each member naming its side,
    filled in from the roster (``"gang"``, ``"player"``, ``"side"``). ``shared``: pairs of a
    setup field of things members name by id and the member field naming them (40K
    ``("weapons", "weapons")``: ``models[].weapons`` lists ids from ``weapons``). ``sides``: the
    setup field listing the sides, if the setup has one (``"gangs"``); its entries are the side's
    id, or a table of the id, the roster's name and the roster's ``side`` table. ``complete``:
    what a system adds that no roster gives (ASL: a Location for each place a unit stands in),
    from the setup's data before it is checked."""

    members: tuple[str, ...]
    side_field: str
    shared: tuple[tuple[str, str], ...] = ()
    sides: str = ""
    complete: Callable[[dict[str, Any]], dict[str, Any]] | None = None


@dataclass(frozen=True)
class SetupChoice:
    """A value the rules list for a field of the setup, as a form offers it: ``label`` in the
    players' words; ``value`` the field's value, or, for an entry of a list of tables (an ASL
    counter such as "4-6-7"), the fields that entry fills in (the player then gives the rest:
    its id, side, Location)."""

    label: str
    value: Any


def _no_choices() -> Mapping[str, tuple[SetupChoice, ...]]:
    return {}


@dataclass(frozen=True, kw_only=True)
class GameSystem(Generic[SetupT, StateT, CommandT]):
    """One game system, one version of it: everything the engine and front ends need."""

    id: str  # the ruleset id recorded in every battle ("necromunda-2023")
    game: str  # the game it is a version of: what-if may move a battle between versions of one game
    version: str  # MAJOR.MINOR of this implementation of the rules; recorded in every battle
    title: str
    rulebook: Rulebook
    rulings: tuple[Ruling, ...]
    setup_type: type[SetupT]
    state_type: type[StateT]
    command_types: tuple[type[Command], ...]
    event_types: tuple[type[Event], ...]
    initial_state: Callable[[SetupT], StateT]
    evolve: Callable[[StateT, Event], StateT]
    procedure: Callable[[StateT, CommandT, Context], Procedure]
    narrate: Callable[[Event], str | None]
    describe_state: Callable[[StateT], str]
    view: Callable[[StateT], StateView]
    # The commands the rules allow in a state under the rulings in force (some rulings decide
    # what is legal: an action's cost, who may be attacked).
    legal_commands: Callable[[StateT, Mapping[str, str]], tuple[CommandOption, ...]]
    # How a front end's picks for an option become a command; None: the generic way (each
    # option field is a field of the command, a list field gets the one value picked).
    command_from_option: Callable[[CommandOption, Mapping[str, str]], CommandT] | None = None
    demo: Callable[[], Scenario[SetupT, CommandT]]
    validate_setup: Callable[[SetupT], None] = field(default=_no_checks)
    # How a player's roster fits the setup (None: this system takes no rosters).
    roster: RosterShape | None = None
    # The lists the rules have for setup fields (weapon traits, counters by their printed
    # values), by the field's path with ``[]`` for any entry of a list: ``"fighters[].weapons[]
    # .traits[]"``. A front end offers them as choices; a field with none takes what its type
    # allows (a Literal's values are already in the schema).
    setup_choices: Mapping[str, tuple[SetupChoice, ...]] = field(default_factory=_no_choices)
    # Older versions whose battles this one still re-adjudicates exactly: every change of the
    # rules since then is a ruling with ``since``/``before`` (see ``rulings_in_force``).
    reads_versions: tuple[str, ...] = ()
    # What the odds count for this system beyond the generic outcome (see ``OddsRules``).
    odds: OddsRules = field(default_factory=OddsRules)

    @property
    def command_type(self) -> Any:
        """The tagged union of this system's commands (a single type when it has one)."""
        if len(self.command_types) == 1:
            return self.command_types[0]
        return Union[tuple(self.command_types)]  # noqa: UP007 - built at run time

    def build_command(
        self, option: CommandOption, picks: Mapping[str, str] | None = None
    ) -> CommandT:
        """The command ``option`` stands for, with ``picks`` (field -> one of the values the
        option allows; a field not picked takes its first allowed value)."""
        picks = picks or {}
        for name, value in picks.items():
            allowed = option.options.get(name)
            if allowed is None:
                raise OptionError(f"{option.type}: {name!r} is not a choice of this command")
            if value not in allowed:
                raise OptionError(
                    f"{option.type}: {name} {value!r} is not one of {', '.join(allowed)}"
                )
        if self.command_from_option is not None:
            return self.command_from_option(option, picks)
        return _generic_command(self.command_types, option, picks)  # type: ignore[no-any-return]

    def setup_schema(self) -> dict[str, Any]:
        """JSON Schema (2020-12) of the setup a scenario file or a page gives."""
        return msgspec.json.schema(self.setup_type)

    def command_schema(self) -> dict[str, Any]:
        """JSON Schema (2020-12) of every command, a tagged union on ``type``."""
        return msgspec.json.schema(self.command_type)

    def ruling(self, name: str) -> Ruling:
        for r in self.rulings:
            if r.name == name:
                return r
        raise RulingError(
            f"{self.id} has no ruling {name!r}; it has: "
            f"{', '.join(sorted(r.name for r in self.rulings)) or 'none'}"
        )

    def rulings_in_force(self, version: str, recorded: Mapping[str, str]) -> dict[str, str]:
        """The rulings a battle recorded under ``version`` of this system is adjudicated with:
        the recorded ones, which must be complete and valid for that version, plus, for a
        ruling added since, the value that gives the rules as they were (``Ruling.before``)."""
        if version == self.version:
            complete = self.resolve_rulings(recorded)
            if complete != dict(recorded):
                raise RulingError("the rulings recorded are not the full, valid set")
            return complete
        if version not in self.reads_versions:
            readable = ", ".join((self.version, *self.reads_versions))
            raise RulingError(
                f"recorded under {self.id} {version}; this engine re-adjudicates {readable}"
            )
        for name in recorded:
            self.ruling(name)
        rulings: dict[str, str] = {}
        for r in self.rulings:
            if r.name in recorded:
                rulings[r.name] = r.check(recorded[r.name])
            elif r.since and _older(version, r.since):
                rulings[r.name] = r.check(r.before)
            else:
                raise RulingError(f"ruling {r.name!r} is missing from a battle of {version}")
        return rulings

    def resolve_rulings(self, given: Mapping[str, str]) -> dict[str, str]:
        """Every ruling of this system with its value: ``given`` where set, the default otherwise.
        Unknown names and values a ruling does not take are refused."""
        for name in given:
            self.ruling(name)
        return {r.name: r.check(str(given.get(r.name, r.default))) for r in self.rulings}


AnyGameSystem = GameSystem[Any, Any, Any]
AnyScenario = Scenario[Any, Any]

__all__ = [
    "ENTRY_POINT_GROUP",
    "AnyGameSystem",
    "AnyScenario",
    "CommandOption",
    "Concern",
    "Count",
    "GameSystem",
    "LockView",
    "OddsRules",
    "OptionError",
    "PrisonerView",
    "RosterShape",
    "Rulebook",
    "Scenario",
    "SetupChoice",
    "Stat",
    "StateView",
    "Tally",
    "UnitView",
    "command_info",
    "fold_by_event_type",
]
