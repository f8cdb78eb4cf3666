"""The vocabulary every game system's rules are written in.

A rule *procedure* is a generator. It never rolls dice, reads a clock or asks a person itself:
it yields requests and rule-step events, and the driver (``blowbyblow.replay.engine.driver``) answers.

- ``values = yield from roll("hit/knife/1", 1)``: ask for dice, get their values back;
- ``answer = yield from ask("step8", ("coup-de-grace", "consolidate"), default="consolidate")``;
- ``state = yield from emit(SomeRuleEvent(...))``: record a rule step; the driver folds it into
  the state at once and sends the new state back, so later steps decide on what is now true.

Nothing here knows any game system. Events are msgspec frozen structs in tagged unions
(``type`` is the class name); each game system defines its own events, commands, setup and state.
"""

from __future__ import annotations

from collections.abc import Callable, Generator, Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any, Generic, TypeVar

import msgspec

S = TypeVar("S")
C = TypeVar("C")
St = TypeVar("St")
T = TypeVar("T")


class Event(msgspec.Struct, frozen=True, kw_only=True, tag_field="type", tag=True, gc=False):
    """Base of every logged event. ``type`` (the tag) is the class name.

    Not tracked by the garbage collector (``gc=False``, every subclass too): an event is a frozen
    value that can take no part in a reference cycle, and a server holds thousands of them (each
    battle's log at its head), which every full collection walked otherwise."""


class RuleEvent(Event, frozen=True, kw_only=True):
    """A derived event: one rule step, naming the rule it applies (e.g. ``"N23 CC 5"``)."""

    rule: str


class Command(msgspec.Struct, frozen=True, kw_only=True, tag_field="type", tag=str.lower, gc=False):
    """Base of a player's command (an action to adjudicate). Tag: the class name, lower-cased."""


class Modifier(msgspec.Struct, frozen=True, kw_only=True, gc=False):
    """One modifier to a roll, with its cause and the rule that grants it."""

    value: int
    cause: str
    rule: str


class Ruling(msgspec.Struct, frozen=True, kw_only=True):
    """A named decision where the rules text is ambiguous, has variants, or relies on a value we
    could not confirm. The rulings in force are recorded when a battle starts."""

    name: str  # lower-case words joined by hyphens, no system prefix ("coup-de-grace-effect")
    default: str
    choices: tuple[str, ...]
    summary: str
    rule: str  # the rulebook section the ruling stands for, as events cite it ("A11.4")
    note: str = ""  # why it is a ruling: the ambiguity, the variant, or the unconfirmed value
    # A ruling added by a later version of its game system: ``since`` is that version, and
    # ``before`` the value that gives the rules as they were before it, so a battle recorded
    # under an older version (whose rulings lack this one) is re-adjudicated exactly as it was.
    since: str = ""
    before: str = ""

    def check(self, value: str) -> str:
        if self.choices and value not in self.choices:
            raise RulingError(
                f"ruling {self.name!r}: {value!r} is not one of {', '.join(self.choices)}"
            )
        return value


# --- labels -----------------------------------------------------------------------------------


class Label:
    """A running number that only names things: a hit's number in its rolls' keys (``hit/3/
    wound``), in their purposes and in the events that say which hit. A claim about the rules,
    as ``Roll.counts`` is: nothing they decide reads it (no comparison, no arithmetic), so two
    points of a procedure that differ only in labels go on alike, and the odds share what lies
    below them (docs/odds.md; a choice keyed by a label, answered by a script by its key, is
    watched for there). It formats as its number, and ``number`` is that number for an event's
    field; play, dice and the log are the same with or without it."""

    __slots__ = ("number",)

    def __init__(self, number: int) -> None:
        if type(number) is not int or number < 0:
            raise ValueError(f"a label is a whole number from 0, not {number!r}")
        self.number = number

    def __str__(self) -> str:
        return str(self.number)

    def __format__(self, spec: str) -> str:
        return format(self.number, spec)

    def __repr__(self) -> str:
        return f"Label({self.number})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Label) and other.number == self.number

    def __hash__(self) -> int:
        return hash(("label", self.number))


def numbered(count: int, first: int = 1) -> tuple[Label, ...]:
    """``count`` labels from ``first`` on: ``for hit in numbered(hits)`` numbers the hits."""
    return tuple(Label(n) for n in range(first, first + count))


class Recorded(Generic[T]):
    """A value a procedure holds only to record it in an event later: what the dice were before
    a parry turned one aside, where that die stood among them. A claim about the rules, as
    ``Label`` is: nothing they decide reads it again, so two points of a procedure that differ
    only in recorded values go on alike, and the odds share what lies below them (docs/odds.md).
    ``value`` is the value, for the event's field; it cannot be compared, tested or formatted
    (a rule that read it would raise), so play, dice and the log are the same with or without
    it."""

    __slots__ = ("value",)

    def __init__(self, value: T) -> None:
        self.value = value

    def __repr__(self) -> str:
        return f"Recorded({self.value!r})"

    def _read(self, *_: object) -> Any:
        raise TypeError("a recorded value is only recorded: read its value into an event")

    __eq__ = __lt__ = __le__ = __gt__ = __ge__ = _read
    __bool__ = __str__ = __format__ = __index__ = _read
    __hash__ = None  # type: ignore[assignment]


# --- requests a procedure yields ------------------------------------------------------------


class Roll(msgspec.Struct, frozen=True, kw_only=True):
    """Ask the driver for ``n`` dice of ``sides`` sides. ``key`` names the roll within the
    command (e.g. ``"hit/knife/2"``); the driver prefixes the command's number, so the same roll
    keeps its key when a what-if re-run takes another path."""

    key: str
    n: int = 1
    sides: int = 6
    purpose: str = ""
    # The rules read these dice only as a pool counted against these numbers: how many show at
    # least each of them (``(4,)``: how many 4+; ``(tn, 6)``: the successes and the 6s), never
    # which die shows what. A claim about the rules: the odds then weigh each count once rather
    # than every face (docs/odds.md); play, dice and the log are the same. (): every die read.
    counts: tuple[int, ...] = ()
    # With ``counts``: the rules read the ``highest`` highest dice by their faces too (a Combat
    # Score's highest die, the dice a parry may turn aside), and the others only by the counts.
    # The same kind of claim; 0: only the counts are read.
    highest: int = 0


class Ask(msgspec.Struct, frozen=True, kw_only=True):
    """Ask the controlling player to choose one of ``options``."""

    key: str
    options: tuple[str, ...]
    default: str
    prompt: str = ""


# --- the inputs a battle records (core events, shared by every game system) -----------------


class DiceSpec(msgspec.Struct, frozen=True, kw_only=True):
    """How the battle's digital dice are made. ``seed`` is None for physical dice, and in fair
    mode until it is revealed; ``commitment`` is the hash of the seed in fair mode."""

    mode: str  # "seeded" | "physical" | "fair"
    algorithm: str = ""
    seed: str | None = None
    commitment: str | None = None


class BattleStarted(Event, Generic[S], frozen=True, kw_only=True):
    """Position 1 of every battle: the game system, its version, the rulings in force, the setup."""

    format_version: int
    ruleset: str
    ruleset_version: str
    label: str
    rulings: dict[str, str]
    dice: DiceSpec
    setup: S
    origin: str | None = None  # the battle a what-if re-run was made from


class CommandIssued(Event, Generic[C], frozen=True, kw_only=True):
    """A player's command, before the rule steps it produces."""

    index: int
    command: C


class DiceRolled(Event, frozen=True, kw_only=True):
    """Dice values, as an input: ``source`` is seeded, physical or imported."""

    key: str
    sides: int
    values: tuple[int, ...]
    source: str
    purpose: str = ""


class ChoiceMade(Event, frozen=True, kw_only=True):
    """A player's choice, as an input: ``source`` is scripted, interactive or default."""

    key: str
    options: tuple[str, ...]
    answer: str
    source: str


class CommandVoided(Event, frozen=True, kw_only=True):
    """A correction, as an input: the command numbered ``index``, whose ``CommandIssued`` stands
    at ``position``, is not played. Nothing is deleted: the voided command's events stay in the
    log (evidence), and every read-back leaves them out. ``by`` names who voided it, ``reason``
    says why (a die typed wrong, a rule misapplied). Only the last command that stands may be
    voided, so the next command played takes the voided one's number again."""

    index: int
    position: int
    by: str
    reason: str


CORE_EVENT_TYPES: tuple[type[Event], ...] = (DiceRolled, ChoiceMade, CommandVoided)


# --- errors ---------------------------------------------------------------------------------


class BlowByBlowError(Exception):
    """Base of the errors a user can cause and should read."""


class RulingError(BlowByBlowError):
    """An unknown ruling or a value it does not take."""


class RuleViolation(BlowByBlowError):
    """A command the rules do not allow in the current state. Nothing is written."""

    def __init__(self, rule: str, message: str) -> None:
        super().__init__(f"{rule}: {message}")
        self.rule = rule
        self.message = message


class SetupError(BlowByBlowError):
    """A setup that does not hang together (unknown fighter named, duplicate ids, …)."""


# --- procedure helpers ----------------------------------------------------------------------

Step = Roll | Ask | Event
Procedure = Generator[Step, Any, None]


def roll(  # noqa: PLR0913 - a roll's dice, then what the rules read of them
    key: str,
    n: int = 1,
    sides: int = 6,
    purpose: str = "",
    counts: tuple[int, ...] = (),
    highest: int = 0,
) -> Generator[Step, Any, tuple[int, ...]]:
    """Yield a dice request; return the values the driver gives back. ``counts``: the rules
    read the dice only by how many show at least each of these numbers, and ``highest``: by the
    faces of that many highest dice besides (see ``Roll``)."""
    values = yield Roll(key=key, n=n, sides=sides, purpose=purpose, counts=counts, highest=highest)
    if not isinstance(values, tuple) or len(values) != n:
        raise TypeError(f"driver answered roll {key!r} with {values!r}")
    return values


def ask(
    key: str, options: tuple[str, ...], default: str, prompt: str = ""
) -> Generator[Step, Any, str]:
    """Yield a choice request; return the answer (always one of ``options``)."""
    if default not in options:
        raise ValueError(f"ask {key!r}: default {default!r} not among options {options!r}")
    answer = yield Ask(key=key, options=options, default=default, prompt=prompt)
    if answer not in options:
        raise TypeError(f"driver answered ask {key!r} with {answer!r}")
    return str(answer)


def emit(event: Event, state_type: type[T]) -> Generator[Step, Any, T]:
    """Yield a rule-step event; return the state after the driver has folded it in."""
    state = yield event
    if not isinstance(state, state_type):
        raise TypeError(f"driver answered event {type(event).__name__} with {type(state)!r}")
    return state


def ruling_value(rulings: Mapping[str, str], name: str) -> str:
    try:
        return rulings[name]
    except KeyError:
        raise RulingError(f"ruling {name!r} is not in force for this battle") from None


class Context(msgspec.Struct, frozen=True, kw_only=True):
    """What a procedure may know besides the state: the rulings in force and the command's number."""

    rulings: dict[str, str]
    command_index: int

    def ruling(self, ruling: Ruling) -> str:
        """The value in force of ``ruling`` in this battle."""
        return ruling_value(self.rulings, ruling.name)


_Answer = TypeVar("_Answer")

# Set while the odds explore a command (``exploring``): only then does ``LastAnswer`` keep and
# look up answers. A live command, a verification or a what-if runs each command once, and
# would pay for a key (its state's bytes, a few microseconds) it never finds again.
_EXPLORING: ContextVar[bool] = ContextVar("blowbyblow_exploring", default=False)


@contextmanager
def exploring() -> Iterator[None]:
    """The odds' runs of one command: within, ``LastAnswer``s keep their last answer."""
    token = _EXPLORING.set(True)
    try:
        yield
    finally:
        _EXPLORING.reset(token)


class LastAnswer(Generic[_Answer]):
    """A pure step of the rules (a command's checks, its plan), answered again from its last
    answer when asked again with the same arguments while the odds explore (``exploring``): the
    odds run one command from one state hundreds of times, each run replaying its path from the
    start. Anywhere else the step is worked out every time.

    The same arguments: each one's type, its bytes (msgspec's) and equality (``==``) with the
    arguments kept. The bytes are taken when asked, so a state changed in place since (which
    the engine never does) is worked out again; equality tells apart the nested values msgspec
    writes alike (a tuple and a list, a UUID and its str, a struct and a dict); values equal
    across types (an int enum and its int, a set and a frozenset) would still be one key, and
    the states held have none (``tests/core/test_last_answer.py``). What msgspec does not write
    is worked out every time; what raises is never kept. The key, the arguments and the answer
    are kept as one tuple, so another thread sees all or none."""

    def __init__(self) -> None:
        self._last: tuple[tuple[object, ...], tuple[object, ...], _Answer] | None = None

    def __call__(self, make: Callable[[], _Answer], *asked: object) -> _Answer:
        if not _EXPLORING.get():
            return make()
        try:
            key: tuple[object, ...] = (
                *(type(a) for a in asked),
                *(msgspec.msgpack.encode(a) for a in asked),
            )
        except (TypeError, ValueError, OverflowError):
            return make()
        last = self._last
        if last is not None and last[0] == key and last[1] == asked:
            # the arguments asked with are kept: the runs after this one ask with the same
            # objects, each its own equal at once, where a state only equal is walked whole
            self._last = (key, asked, last[2])
            return last[2]
        answer = make()
        self._last = (key, asked, answer)
        return answer


__all__ = [
    "Ask",
    "BattleStarted",
    "BlowByBlowError",
    "ChoiceMade",
    "Command",
    "CommandIssued",
    "CommandVoided",
    "Context",
    "DiceRolled",
    "DiceSpec",
    "Event",
    "Label",
    "LastAnswer",
    "Modifier",
    "Procedure",
    "Recorded",
    "Roll",
    "RuleEvent",
    "RuleViolation",
    "Ruling",
    "RulingError",
    "SetupError",
    "Step",
    "ask",
    "emit",
    "exploring",
    "numbered",
    "roll",
    "ruling_value",
]
