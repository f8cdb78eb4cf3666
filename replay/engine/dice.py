"""Dice and choice sources. Randomness enters the engine only here, and only as recorded inputs.

Seeded dice, algorithm ``bxb-dice-v1`` (documented in docs/dice.md, never to change in place;
a new algorithm gets a new name):

    for die i (0-based) of the roll named KEY, with sides N:
        for attempt j = 0, 1, 2, ...:
            h = SHA-256( "bxb-dice-v1" 0x00 SEED 0x00 KEY 0x00 str(i) 0x00 str(j) )   (UTF-8)
            x = first 8 bytes of h as a big-endian unsigned integer
            if x < 2**64 - (2**64 mod N): the die shows 1 + (x mod N); stop
    (rejection sampling, so every face is exactly equally likely)

It uses neither Python's ``random`` nor anything about the machine, so any program in any
language can recompute every die from the seed and the roll keys.

Fair dice, algorithm ``bxb-fair-v2`` (docs/dice.md): the dice seed is the hex of

    SHA-256( "bxb-fair-v2" 0x00 || u32(len S) || S || u32(k)
             || for each contribution, in order of side:  u32(len side) || side || u32(len value) || value )

where S is the table's secret seed, k the number of contributions, u32 a 4-byte big-endian
length in bytes, every text UTF-8; every die is then drawn by ``bxb-dice-v1`` from that seed.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import Protocol

from blowbyblow.domain.core import BlowByBlowError, ChoiceMade, DiceRolled, Event

ALGORITHM = "bxb-dice-v1"
FAIR_ALGORITHM = "bxb-fair-v2"
_SPACE = 2**64


class DiceError(BlowByBlowError):
    pass


def seeded_die(seed: str, key: str, index: int, sides: int) -> int:
    if sides < 1:
        raise DiceError(f"roll {key!r}: a die needs at least one side, not {sides}")
    limit = _SPACE - (_SPACE % sides)
    attempt = 0
    while True:
        material = "\x00".join((ALGORITHM, seed, key, str(index), str(attempt))).encode("utf-8")
        x = int.from_bytes(hashlib.sha256(material).digest()[:8], "big")
        if x < limit:
            return 1 + (x % sides)
        attempt += 1


def seeded_roll(seed: str, key: str, n: int, sides: int) -> tuple[int, ...]:
    """``seeded_die`` for dice 0 to n - 1: the same bytes hashed, their common head joined once
    (Monte Carlo's samples roll thousands of times a command)."""
    if n < 1:
        return ()
    if sides < 1:
        raise DiceError(f"roll {key!r}: a die needs at least one side, not {sides}")
    limit = _SPACE - (_SPACE % sides)
    head = f"{ALGORITHM}\x00{seed}\x00{key}\x00"
    sha256, read = hashlib.sha256, int.from_bytes
    out = []
    for i in range(n):
        attempt = 0
        while True:
            x = read(sha256(f"{head}{i}\x00{attempt}".encode()).digest()[:8], "big")
            if x < limit:
                out.append(1 + x % sides)
                break
            attempt += 1
    return tuple(out)


class DiceSource(Protocol):
    source: str

    def roll(self, key: str, n: int, sides: int, purpose: str) -> tuple[tuple[int, ...], str]:
        """Return (values, source)."""
        ...


class ExploringDice:
    """A dice source that explores a roll's faces (the odds): it is told what the rules read of
    the dice (``Roll.counts`` and ``Roll.highest``), which every other source ignores, as it
    may then explore one face of each class of faces. The driver asks it ``roll_counted`` for
    every roll; ``roll`` is that with nothing claimed, for a caller that only rolls."""

    source = "explored"

    def roll(self, key: str, n: int, sides: int, purpose: str) -> tuple[tuple[int, ...], str]:
        return self.roll_counted(key, n, sides, purpose, (), 0)

    def roll_counted(  # noqa: PLR0913 - the driver's roll, and what the rules read of it
        self,
        key: str,
        n: int,
        sides: int,
        purpose: str,
        counts: tuple[int, ...],
        highest: int,
    ) -> tuple[tuple[int, ...], str]:
        """The faces for a roll of ``n`` dice with ``sides`` sides that the rules read only by
        ``counts`` and their ``highest`` highest dice (``Roll``), and the source's name."""
        raise NotImplementedError


class SeededDice:
    source = "seeded"

    def __init__(self, seed: str) -> None:
        self.seed = seed

    def roll(self, key: str, n: int, sides: int, purpose: str) -> tuple[tuple[int, ...], str]:
        return seeded_roll(self.seed, key, n, sides), self.source


def _framed(text: str) -> bytes:
    data = text.encode("utf-8")
    return len(data).to_bytes(4, "big") + data


def fair_dice_seed(seed: str, contributions: Mapping[str, str]) -> str:
    """The seed a fair battle's dice are drawn from (``bxb-fair-v2``): the table's secret seed
    mixed with every side's contribution, so that no one of them alone decides any die."""
    ordered = sorted(contributions.items(), key=lambda kv: kv[0].encode("utf-8"))
    material = FAIR_ALGORITHM.encode() + b"\x00" + _framed(seed)
    material += len(ordered).to_bytes(4, "big")
    for side, value in ordered:
        material += _framed(side) + _framed(value)
    return hashlib.sha256(material).hexdigest()


class FairDice(SeededDice):
    """A fair battle's digital dice: seeded dice (recorded as ``seeded``) whose seed is the
    table's secret seed mixed with the sides' contributions."""

    def __init__(self, seed: str, contributions: Mapping[str, str]) -> None:
        super().__init__(fair_dice_seed(seed, contributions))


def _check(key: str, values: Sequence[int], n: int, sides: int) -> tuple[int, ...]:
    if len(values) != n:
        raise DiceError(f"roll {key!r} needs {n} dice, got {len(values)}")
    return check_faces(key, values, sides)


def check_faces(key: str, values: Sequence[int], sides: int) -> tuple[int, ...]:
    """``values``, each a face of a D``sides``; else a DiceError naming the first that is not."""
    for v in values:
        if not isinstance(v, int) or isinstance(v, bool) or not 1 <= v <= sides:
            raise DiceError(f"roll {key!r}: {v!r} is not a face of a D{sides} (1 to {sides})")
    return tuple(values)


class ListedDice:
    """Physical dice a person has listed in advance (on the command line or in the scenario),
    taken in the order the rules ask for them."""

    source = "physical"

    def __init__(self, values: Sequence[int]) -> None:
        self._values = list(values)
        self._next = 0

    def roll(self, key: str, n: int, sides: int, purpose: str) -> tuple[tuple[int, ...], str]:
        if self._next + n > len(self._values):
            # a die listed that this roll never shows is the mistake to name, not the count
            check_faces(key, self.remaining(), sides)
            raise DiceError(
                f"roll {key!r} ({purpose or 'dice'}) needs {n} more D{sides}, but only "
                f"{len(self._values) - self._next} listed value(s) remain"
            )
        values = self._values[self._next : self._next + n]
        self._next += n
        return _check(key, values, n, sides), self.source

    def add(self, values: Sequence[int]) -> None:
        """More values, listed after those given (the table typed its next roll)."""
        self._values.extend(values)

    @property
    def unused(self) -> int:
        return len(self._values) - self._next

    @property
    def used(self) -> int:
        return self._next

    @property
    def listed(self) -> int:
        return len(self._values)

    def leftover(self) -> str:
        return " ".join(map(str, self._values[self._next :]))

    def remaining(self) -> list[int]:
        return self._values[self._next :]


class PromptedDice:
    """Physical dice typed in by a person at a prompt, as they are rolled on the table."""

    source = "physical"

    def __init__(self, read: Callable[[str], str] = input, write: Callable[[str], object] = print):
        self._read = read
        self._write = write

    def roll(self, key: str, n: int, sides: int, purpose: str) -> tuple[tuple[int, ...], str]:
        while True:
            text = self._read(f"{purpose or key}: roll {n}D{sides} and enter the values: ")
            try:
                values = [int(t) for t in text.replace(",", " ").split()]
                return _check(key, values, n, sides), self.source
            except (ValueError, DiceError) as e:
                self._write(f"  not accepted: {e}")


class RecordedDice:
    """Dice read back from a log, by key (verification, what-if)."""

    source = "recorded"

    def __init__(
        self,
        recorded: Mapping[str, tuple[tuple[int, ...], str]],
        fallback: DiceSource | None = None,
    ) -> None:
        self._recorded = recorded
        self._fallback = fallback
        self.missing: list[str] = []

    def roll(self, key: str, n: int, sides: int, purpose: str) -> tuple[tuple[int, ...], str]:
        found = self._recorded.get(key)
        if found is not None and len(found[0]) == n and all(1 <= v <= sides for v in found[0]):
            return found
        if self._fallback is not None:
            return self._fallback.roll(key, n, sides, purpose)
        self.missing.append(key)
        raise DiceError(f"roll {key!r} is not in the record (needs a die)")


# --- choices ---------------------------------------------------------------------------------


class ChoiceSource(Protocol):
    def choose(
        self, key: str, options: tuple[str, ...], default: str, prompt: str
    ) -> tuple[str, str]:
        """Return (answer, source)."""
        ...


class ScriptedChoices:
    """Answers given in advance by key (scenario files, tests); the Ask's default otherwise.
    A key may be given in full (``c3/step8``) or without its command prefix (``step8``) to
    answer that question in every command."""

    def __init__(
        self, answers: Mapping[str, str] | None = None, fallback: ChoiceSource | None = None
    ) -> None:
        self._answers = dict(answers or {})
        self._fallback = fallback
        self.used: set[str] = set()
        self.asked: list[str] = []  # every question asked, by its full key

    @property
    def answers(self) -> Mapping[str, str] | None:
        """The answers given, by key; None when a fallback answers the others."""
        return None if self._fallback is not None else self._answers

    @property
    def unused(self) -> list[str]:
        """The answers given for questions the rules never asked."""
        return [k for k in self._answers if k not in self.used]

    def choose(
        self, key: str, options: tuple[str, ...], default: str, prompt: str
    ) -> tuple[str, str]:
        self.asked.append(key)
        short = key.split("/", 1)[1] if "/" in key else key
        for k in (key, short):
            if k in self._answers:
                answer = self._answers[k]
                if answer not in options:
                    raise DiceError(
                        f"choice {key!r}: {answer!r} is not one of {', '.join(options)}"
                    )
                self.used.add(k)
                return answer, "scripted"
        if self._fallback is not None:
            return self._fallback.choose(key, options, default, prompt)
        return default, "default"


class InteractiveChoices:
    def __init__(self, read: Callable[[str], str] = input, write: Callable[[str], object] = print):
        self._read = read
        self._write = write

    def choose(
        self, key: str, options: tuple[str, ...], default: str, prompt: str
    ) -> tuple[str, str]:
        while True:
            text = self._read(
                f"{prompt or key} [{'/'.join(options)}] (default {default}): "
            ).strip()
            if not text:
                return default, "interactive"
            if text in options:
                return text, "interactive"
            self._write(f"  {text!r} is not one of {', '.join(options)}")


class RecordedChoices:
    """Choices read back from a log, by key, with the source they were first made from."""

    def __init__(self, recorded: Mapping[str, tuple[str, str]]) -> None:
        self._recorded = recorded

    def choose(
        self, key: str, options: tuple[str, ...], default: str, prompt: str
    ) -> tuple[str, str]:
        found = self._recorded.get(key)
        if found is None or found[0] not in options:
            return default, "default"
        return found


def iter_ints(text: str) -> Iterator[int]:
    for t in text.replace(",", " ").split():
        yield int(t)


def recorded_inputs(
    events: Iterable[Event],
) -> tuple[dict[str, tuple[tuple[int, ...], str]], dict[str, tuple[str, str]]]:
    """The dice and choices a log recorded, by key, for RecordedDice and RecordedChoices."""
    dice: dict[str, tuple[tuple[int, ...], str]] = {}
    choices: dict[str, tuple[str, str]] = {}
    for ev in events:
        if isinstance(ev, DiceRolled):
            dice[ev.key] = (ev.values, ev.source)
        elif isinstance(ev, ChoiceMade):
            choices[ev.key] = (ev.answer, ev.source)
    return dice, choices
